import fc from 'fast-check';

/**
 * Spellings of the order path a lenient server may route to its handler (case, encodings, dots, …),
 * and the exact one.
 */
export const orderSpelling = fc
  .record({
    api: fc.boolean(),
    segments: fc.tuple(
      ...['v1', 'tron', 'order'].map((segment) =>
        fc
          .array(fc.boolean(), { minLength: segment.length, maxLength: segment.length })
          .map((upper) => [...segment].map((ch, i) => (upper[i] ? ch.toUpperCase() : ch)).join('')),
      ),
    ),
    encode: fc.array(fc.nat({ max: 40 }), { maxLength: 3 }),
    doubleEncode: fc.boolean(),
    slashes: fc.array(fc.constantFrom('/', '//', '/./', '\\', '%2F', '%2f', '/x/../'), {
      minLength: 3,
      maxLength: 3,
    }),
    suffix: fc.constantFrom('', '/', ';x=1', '%3B', '%20', '%00', '.json', '/.', '%09'),
  })
  .map(({ api, segments, encode, doubleEncode, slashes, suffix }) => {
    // Letters are percent-encoded before the path is joined, so an escape never lands inside another.
    const letters = segments.map((s) => [...s]);
    const total = letters.reduce((n, l) => n + l.length, 0);
    for (const at of encode) {
      let i = at % total;
      const segment = letters.find((l) => (i < l.length ? true : ((i -= l.length), false)))!;
      const escaped = '%' + segment[i]!.charCodeAt(0).toString(16).toUpperCase();
      if (segment[i]!.length === 1) segment[i] = doubleEncode ? escaped.replace('%', '%25') : escaped;
    }
    return (api ? '/api' : '') + letters.map((l, i) => slashes[i] + l.join('')).join('') + suffix;
  });
