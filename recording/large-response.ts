/**
 * A large answer made fit for a recording a little at a time, so that `serve --record`
 * holds up no other request while it records one (cli/serve-upstream-bounds.test.ts).
 *
 * Why not parse it and scrub the value, as a small answer is: JSON.parse of 100 MB, the
 * walk that replaces secret-named fields and the serialisation each hold the event loop
 * for a second or more. Here the text is decoded, tokenised, scrubbed and written out in
 * slices of a few milliseconds, with a turn of the event loop between two slices, and in
 * two passes, as a small answer is walked twice: the first learns every secret-named
 * field's value (and the `name=value` pairs inside strings, or of a text that is no JSON),
 * so that the second replaces a key echoed before its field as well as after it:
 *
 * - JSON goes through stream-json's tokenizer, which hands keys, strings and numbers out
 *   in chunks as they come, so no token, however long, is ever held whole. What comes out
 *   is the same JSON without its white space, each secret-named field's value replaced as
 *   the scrubber replaces it in a small answer (a string by its alias, anything else by
 *   '[redacted]'), and every key seen so far replaced in names and strings (a key split
 *   between two chunks is caught: see TextScrub).
 * - Anything else, or JSON that turns out broken, is kept as text with every key seen so
 *   far replaced, as a small answer's text is.
 *
 * stream-json rather than a tokenizer written here: it is maintained, and it streams long
 * strings (@streamparser/json and most others hold each string token whole, so one 100 MB
 * string would be decoded, scrubbed and encoded in one turn).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { getManyValues, none } from 'stream-chain/defs.js';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { isSecretName } from '../mock/http/journal-redaction.ts';
import type { ExchangeScrubber, TextScrub } from './exchange-scrubber.ts';

/** How long one slice of the work may hold the event loop, ms. */
const SLICE_MS = 5;
/** Bytes decoded and tokenised between two looks at the clock. */
const STEP_BYTES = 16 * 1024;
/** About how many characters one piece of the result holds. */
const PIECE_CHARS = 256 * 1024;
/** A secret-named field's string longer than this is '[redacted]' rather than given an alias. */
const MAX_SECRET_CHARS = 64 * 1024;
/** A name longer than this is taken as secret-named: what it names is hidden, not judged. */
const MAX_NAME_CHARS = 4 * 1024;
/**
 * How long a secret-named pair of a text that is no JSON may be and still be learnt (its
 * value then replaced wherever it stands): a key is far shorter.
 */
const PAIR_REACH = 8 * 1024;

/** A large answer as recorded: its JSON (`body`) or its text, in pieces that join into it. */
export type LargeResponse = { json: Buffer[] } | { text: Buffer[] };

/**
 * Scrubs the body `chunks` as `scrubber` does a small answer's, yielding to the event
 * loop every few milliseconds. `issuing` as for `describeResponse`. The pieces (UTF-8) of
 * `json` join into one JSON text (what goes in the recording as the response's `body`);
 * those of `text`, into the text as a JSON string holds it, without its quotes (its `text`).
 *
 * @example
 *   const answer = await scrubLargeResponse(chunks, scrubber, false);
 *   if ('json' in answer) for (const piece of answer.json) stream.write(piece); // the response's body
 */
export async function scrubLargeResponse(
  chunks: readonly Uint8Array[],
  scrubber: ExchangeScrubber,
  issuing: boolean,
): Promise<LargeResponse> {
  // Two passes, as a small answer is walked twice: the first learns every secret-named
  // field's value, so that the second replaces a key echoed before its field as well.
  try {
    const learn = createJsonLearn(scrubber, issuing);
    await eachSlice(chunks, (text) => learn.push(text));
    learn.end();
    const json = createJsonScrub(scrubber, issuing);
    await eachSlice(chunks, (text) => json.push(text));
    return { json: json.end() };
  } catch {
    // Not JSON after all (or not all of it): the text, decoded again from the bytes.
  }
  // Its secret-named pairs are learnt through windows that overlap by PAIR_REACH, so that a
  // pair cut by the end of one stands whole in the next.
  let carry = '';
  await eachSlice(chunks, (piece) => {
    const window = carry + piece;
    scrubber.learnPairs(window, issuing, true);
    carry = window.slice(-PAIR_REACH);
  });
  scrubber.learnPairs(carry, issuing);
  const text = scrubber.textScrub();
  const out = createPieces(true);
  await eachSlice(chunks, (piece) => out.add(text.push(piece)));
  out.add(text.end());
  return { text: out.end() };
}

/**
 * Decodes `chunks` as UTF-8 (a malformed sequence as U+FFFD, as TextDecoder does) and hands
 * the text to `take` a step at a time, waiting a turn of the event loop whenever a slice
 * has taken SLICE_MS.
 */
async function eachSlice(chunks: readonly Uint8Array[], take: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let started = performance.now();
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.byteLength; at += STEP_BYTES) {
      take(decoder.decode(chunk.subarray(at, at + STEP_BYTES), { stream: true }));
      if (performance.now() - started > SLICE_MS) {
        await nextTurn();
        started = performance.now();
      }
    }
  }
  take(decoder.decode());
}

/**
 * Texts gathered into pieces of about PIECE_CHARS, each kept as its UTF-8 bytes: out of
 * the heap, where the garbage collector would walk a string built of thousands of small
 * ones at every collection; and as the write stream takes them. `escape` keeps each text
 * as the inside of a JSON string.
 */
function createPieces(escape = false): { add(text: string): void; end(): Buffer[] } {
  const pieces: Buffer[] = [];
  let texts: string[] = [];
  let length = 0;
  const flush = (): void => {
    pieces.push(Buffer.from(texts.join('')));
    texts = [];
    length = 0;
  };
  return {
    add(text) {
      if (text === '') return;
      const kept = escape ? escaped(text) : text;
      texts.push(kept);
      length += kept.length;
      if (length >= PIECE_CHARS) flush();
    },
    end() {
      if (length > 0) flush();
      return pieces;
    },
  };
}

// What JSON.stringify escapes in a string: quotes, backslashes, control characters, surrogates.
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** The JSON of a string's characters, without its quotes. */
function escaped(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text).slice(1, -1) : text;
}

/**
 * The first pass over JSON text given in slices: every secret-named field's string value,
 * at any depth, learnt as a key in the order it stands (as the scrubber's walk of a small
 * answer learns them). `push` throws on text that is not JSON, `end` on JSON that is not
 * complete. A name past MAX_NAME_CHARS counts as secret-named, as in the scrub.
 */
function createJsonLearn(
  scrubber: ExchangeScrubber,
  issuing: boolean,
): { push(text: string): void; end(): void } {
  let name = '';
  let inName = false;
  // Whether the next value is a secret-named field's, and whether the string read is one.
  let secret = false;
  let holding = false;
  let held = '';
  // The string or name being read, for the `token=…` pairs it may hold (as a small
  // answer's text is scanned for them): scanned in windows that overlap by PAIR_REACH.
  let window = '';
  const scanWindow = (complete: boolean): void => {
    scrubber.learnPairs(window, issuing, !complete);
    window = complete ? '' : window.slice(-PAIR_REACH);
  };
  const take = (token: Token): void => {
    switch (token.name) {
      case 'startKey':
        inName = true;
        name = '';
        return;
      case 'stringChunk':
        window += token.value;
        if (window.length > 2 * PAIR_REACH) scanWindow(false);
        if (inName) {
          if (name.length <= MAX_NAME_CHARS) name += token.value;
        } else if (holding && held.length <= MAX_SECRET_CHARS) held += token.value;
        return;
      case 'endKey':
        scanWindow(true);
        inName = false;
        secret = name.length > MAX_NAME_CHARS || isSecretName(name);
        return;
      case 'startString':
        holding = secret;
        secret = false;
        held = '';
        return;
      case 'endString':
        // Past the bound the scrub hides it as '[redacted]', which gives no alias.
        // An empty one is no key (the small path's walk, secretValuesIn, skips it too).
        if (holding && held !== '' && held.length <= MAX_SECRET_CHARS) scrubber.secretValue(held, issuing);
        holding = false;
        scanWindow(true);
        return;
      case 'startNumber':
      case 'startObject':
      case 'startArray':
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        secret = false;
        return;
      default:
        return;
    }
  };
  return tokenStream(take);
}

/**
 * A scrub of JSON text given in slices: `push` throws on text that is not JSON, `end` on
 * JSON that is not complete, and returns the scrubbed JSON in pieces.
 */
function createJsonScrub(
  scrubber: ExchangeScrubber,
  issuing: boolean,
): { push(text: string): void; end(): Buffer[] } {
  const out = createPieces();
  // Per open container, innermost last: 1 in an object, 0 in an array; and whether
  // something was written in it yet (a comma goes before the next).
  const inObject: number[] = [];
  const written: boolean[] = [];
  // Whether the next value is a secret-named field's.
  let secret = false;
  // Inside a value being skipped (a secret-named field's object or array): its depth.
  let skipping = 0;
  // The name or string being read: its text so far (or, past a bound, a scrub it goes
  // through a chunk at a time), and whether it is a name, a secret to hide or a number.
  let held = '';
  let scrub: TextScrub | undefined;
  let isName = false;
  let hiding = false;

  /** A comma before a value or name that is not its container's first. */
  const separate = (): void => {
    const last = written.length - 1;
    if (last < 0) return;
    if (written[last]) out.add(',');
    written[last] = true;
  };
  /** A value begins: whether it is a secret-named field's; in an array a comma goes before it. */
  const valueStarts = (): boolean => {
    if (secret) {
      secret = false;
      return true;
    }
    // In an object the name wrote the comma; in an array (or at the top) the value does.
    if (inObject[inObject.length - 1] !== 1) separate();
    return false;
  };

  const take = (token: Token): void => {
    if (skipping > 0) {
      if (token.name === 'startObject' || token.name === 'startArray') skipping++;
      else if (token.name === 'endObject' || token.name === 'endArray') skipping--;
      return;
    }
    switch (token.name) {
      case 'stringChunk':
        if (hiding) {
          // A secret is kept whole (for its alias) up to a bound; past it only counted.
          if (held.length <= MAX_SECRET_CHARS) held += token.value;
        } else if (scrub) out.add(escaped(scrub.push(token.value)));
        else {
          held += token.value;
          // A long string goes through a scrub a chunk at a time; a long name is taken as
          // secret-named (what it names is hidden, not judged) and written out the same way.
          if (held.length > (isName ? MAX_NAME_CHARS : PIECE_CHARS)) {
            if (isName) {
              secret = true;
              out.add('"');
            }
            scrub = scrubber.textScrub();
            out.add(escaped(scrub.push(held)));
            held = '';
          }
        }
        return;
      case 'startKey':
        separate();
        isName = true;
        return;
      case 'endKey':
        if (scrub) out.add(`${escaped(scrub.end())}":`);
        else {
          out.add(`${JSON.stringify(scrubber.scrubText(held))}:`);
          secret = isSecretName(held);
        }
        held = '';
        scrub = undefined;
        isName = false;
        return;
      case 'startString':
        hiding = valueStarts();
        if (!hiding) out.add('"');
        return;
      case 'endString':
        if (hiding)
          out.add(
            JSON.stringify(scrubber.secretValue(held.length > MAX_SECRET_CHARS ? undefined : held, issuing)),
          );
        else if (scrub) out.add(`${escaped(scrub.end())}"`);
        else out.add(`${escaped(scrubber.scrubText(held))}"`);
        held = '';
        scrub = undefined;
        hiding = false;
        return;
      case 'numberChunk':
        if (!hiding) out.add(token.value);
        return;
      case 'startNumber':
        hiding = valueStarts();
        if (hiding) out.add('"[redacted]"');
        return;
      case 'endNumber':
        hiding = false;
        return;
      case 'startObject':
      case 'startArray':
        if (valueStarts()) {
          out.add('"[redacted]"');
          skipping = 1;
          return;
        }
        out.add(token.name === 'startObject' ? '{' : '[');
        inObject.push(token.name === 'startObject' ? 1 : 0);
        written.push(false);
        return;
      case 'endObject':
      case 'endArray':
        out.add(token.name === 'endObject' ? '}' : ']');
        inObject.pop();
        written.pop();
        return;
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        out.add(valueStarts() ? '"[redacted]"' : String(token.value));
        return;
      default:
        return;
    }
  };
  const tokens = tokenStream(take);
  return {
    push: tokens.push,
    end() {
      tokens.end();
      return out.end();
    },
  };
}

/**
 * stream-json's tokenizer over JSON text given in slices, each token handed to `take`:
 * `push` throws on text that is not JSON, `end` (the flush) on JSON that is not complete.
 */
function tokenStream(take: (token: Token) => void): { push(text: string): void; end(): void } {
  const parse = jsonParser({ packValues: false, streamValues: true });
  const takeAll = (tokens: ReturnType<typeof parse>): void => {
    if (tokens !== none) for (const token of getManyValues(tokens)) take(token);
  };
  return {
    push(text) {
      if (text !== '') takeAll(parse(text));
    },
    end() {
      takeAll(parse(none as unknown as string));
    },
  };
}
