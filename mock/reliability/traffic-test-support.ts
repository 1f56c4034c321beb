/** The values and request shape of the property tests' traffic: valid, boundary and malformed. */
import fc from 'fast-check';
import { PERIODS } from '../../src/generated/lists.ts';
import { loadSpec, type OperationInfo } from '../../src/spec/loader.ts';
import { encodeTronAddress } from '../../src/tron-address.ts';
import { DEFAULT_SCENARIO } from '../simulator.ts';
import { ADDRESS, OTHER_ADDRESS } from '../test-support/fixtures.ts';

export const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20_250_312;
export const FORM = 'application/x-www-form-urlencoded';
export const MAX_BODY = 64 * 1024;
/** A second account of the starting scenario; `prop-key-bravo` may be created by the traffic. */
export const SCENARIO = {
  ...DEFAULT_SCENARIO,
  accounts: [...DEFAULT_SCENARIO.accounts!, { apiKey: 'prop-key-alpha', balance: { trx: '200', usdt: '5' } }],
};

export const apiSpec = loadSpec('api');
export const controlSpec = loadSpec('control');
export const label = (op: Pick<OperationInfo, 'method' | 'path'>): string => `${op.method} ${op.path}`;
export const API_LABELS = apiSpec.operations.map(label);
export const CONTROL_LABELS = controlSpec.operations.map(label);
/** Methods each path of either document answers (HEAD goes with GET). */
export const PATH_METHODS = new Map<string, Set<string>>();
for (const op of [...apiSpec.operations, ...controlSpec.operations]) {
  const methods = PATH_METHODS.get(op.path) ?? new Set<string>();
  methods.add(op.method);
  if (op.method === 'GET') methods.add('HEAD');
  PATH_METHODS.set(op.path, methods);
}

/** One generated request. `{{order:N}}` anywhere stands for the N-th order id seen so far. */
export interface Step {
  /** The operation aimed at ('POST /v1/tron/order'), or a tag such as 'wrong-method'. */
  target: string;
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: string;
}

/** encodeURIComponent, with lone surrogates (which it refuses) as U+FFFD, as a URL parser does. */
export const encode = (text: string): string =>
  encodeURIComponent(
    text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  );

const injectionLike = fc.constantFrom(
  "' OR '1'='1",
  '"; DROP TABLE orders; --',
  '<script>alert(1)</script>',
  '../../../etc/passwd',
  '${jndi:ldap://example.invalid/a}',
  '{{7*7}}',
  '%00',
  '%',
  '%E0%A4%A',
  '\u0000',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '{"$gt":""}',
  '\r\nSet-Cookie: x=1',
  'null',
  'undefined',
  'NaN',
  'true',
  '[]',
  '{}',
  '😀🔥',
  'ｆｕｌｌｗｉｄｔｈ',
  '\u202eevil',
  'é',
  '\ud800',
  'a'.repeat(64),
  'a'.repeat(65),
  'x'.repeat(5000),
);
export const weirdString: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 16 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  injectionLike,
);
export const numberText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 64_000, max: 300_000 }).map(String) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '64000',
      '63999',
      '1',
      '0',
      '-0',
      '-1',
      '-64000',
      '1000000000',
      '1000000001',
      '65000.0',
      '65000.5',
      '6.5e4',
      ' 65000',
      '65000 ',
      '+65000',
      '065000',
      '0x10000',
      '0b1',
      '1e400',
      '-1e400',
      'Infinity',
      '-Infinity',
      'NaN',
      '9'.repeat(400),
      '1_000',
      '65,000',
      '',
      ' ',
    ),
  },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: weirdString },
);
/** A valid address: one of the fixtures' mostly, any other sometimes. */
export const validAddress: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(ADDRESS, OTHER_ADDRESS) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 20, maxLength: 20 }).map(encodeTronAddress) },
);
export const address: fc.Arbitrary<string> = fc.oneof(
  { weight: 7, arbitrary: validAddress },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP4',
      ADDRESS.toLowerCase(),
      ADDRESS.slice(0, 33),
      `${ADDRESS}A`,
      `41${'ab'.repeat(20)}`,
      ` ${ADDRESS}`,
    ),
  },
  { weight: 1, arbitrary: weirdString },
);
export const period: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...PERIODS) },
  { weight: 1, arbitrary: fc.constantFrom('1H', '2h', '10MIN', ' 1h', '1h ', '60min', '0', '') },
  { weight: 1, arbitrary: weirdString },
);
export const OUT_ORDER_NOS = ['o-1', 'o-2', 'o-3', 'shared', 'x'.repeat(64)];
export const outOrderNo: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...OUT_ORDER_NOS) },
  { weight: 1, arbitrary: weirdString },
);
export const orderId: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.nat(40).map((n) => `{{order:${n}}}`) },
  { weight: 1, arbitrary: fc.stringMatching(/^OR20250312\d{4}[A-Z0-9]{8}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'OR',
      'or20250312175009SYBOVW31',
      'OR20250312175009SYBOVW3',
      'OR20250312175009SYBOVW311',
    ),
  },
  { weight: 1, arbitrary: weirdString },
);
export const decimal: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('0', '1', '5', '100', '0.5', '1000', '0.000001') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '0.0000001',
      '-1',
      '1e3',
      'abc',
      '',
      ' 1',
      '9007199254.740991',
      '9007199254.740992',
      '99999999999999999999',
      '1.',
      '.5',
    ),
  },
  { weight: 1, arbitrary: fc.nat().map(String) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constant(null), fc.boolean()) },
);
/** The `usual` content type mostly, one of the `others` sometimes. */
export const contentTypeOf = (usual: string, ...others: string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(usual) },
    { weight: 1, arbitrary: fc.constantFrom(...others) },
  );
/** Any JSON value, for bodies of the wrong type. */
export const jsonJunk: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 });

export const apiKeyHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ 'API-KEY': 'demo-key' }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom('prop-key-alpha', 'prop-key-bravo').map((key) => ({ 'API-KEY': key })),
  },
  { weight: 1, arbitrary: fc.constant({ 'api-key': 'demo-key' }) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        'demo-kez',
        'demo-ke',
        'demo-key2',
        'DEMO-KEY',
        'unknown-key',
        'é',
        "' OR '1'='1",
        'x'.repeat(4096),
      )
      .map((key) => ({ 'API-KEY': key })),
  },
  { weight: 1, arbitrary: fc.constant({}) },
);

/** A parameter of the API placed in the query, the body, both (same or different), or twice. */
export interface Placed {
  name: string;
  value: string;
  where: 'query' | 'body' | 'both' | 'both-different' | 'query-twice' | 'query-twice-different';
}

export function placed(
  name: string,
  value: fc.Arbitrary<string>,
  allowBody: boolean,
): fc.Arbitrary<Placed | undefined> {
  const usual: Placed['where'][] = allowBody ? ['query', 'body'] : ['query'];
  const odd: Placed['where'][] = ['query-twice', 'query-twice-different'];
  const where: fc.Arbitrary<Placed['where']> = fc.oneof(
    { weight: allowBody ? 6 : 8, arbitrary: fc.constantFrom(...usual) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...(allowBody ? (['both', 'both-different', ...odd] as const) : odd)),
    },
  );
  return fc.option(fc.record({ name: fc.constant(name), value, where }), { nil: undefined, freq: 8 });
}

export const extraParams = (allowBody: boolean): fc.Arbitrary<Placed[]> =>
  fc.array(
    fc.record({
      name: fc.oneof(
        fc.constantFrom('foo', '__proto__', 'constructor', '', 'API-KEY', 'rentalCount', 'orderId'),
        weirdString,
      ),
      value: weirdString,
      where: allowBody ? fc.constantFrom('query' as const, 'body' as const) : fc.constant('query' as const),
    }),
    { maxLength: 2 },
  );

/** The query and form body of placed parameters. */
export function spread(params: (Placed | undefined)[]): {
  query: [string, string][];
  body: [string, string][];
} {
  const query: [string, string][] = [];
  const body: [string, string][] = [];
  for (const p of params) {
    if (!p) continue;
    const same: [string, string] = [p.name, p.value];
    const other: [string, string] = [p.name, `${p.value}9`];
    if (p.where !== 'body') query.push(same);
    if (p.where === 'body' || p.where === 'both') body.push(same);
    if (p.where === 'both-different') body.push(other);
    if (p.where === 'query-twice') query.push(same);
    if (p.where === 'query-twice-different') query.push(other);
  }
  return { query, body };
}
