/** A large answer scrubbed for a recording in slices of a few ms, so `serve --record` holds up no request. */
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
/** How long a secret-named pair of a text that is no JSON may be and still be learnt. */
const PAIR_REACH = 8 * 1024;

/** A large answer as recorded: its JSON (`body`) or its text, in pieces that join into it. */
export type LargeResponse = { json: Buffer[] } | { text: Buffer[] };

/**
 * Scrubs the body `chunks` as `scrubber` does a small answer's, yielding to the event loop; the pieces
 * of `text` join into its JSON string, unquoted.
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
  // Two passes: the first learns every secret, so the second hides one echoed before its field too.
  try {
    const learn = createJsonScrub(learner(scrubber, issuing), issuing, true);
    await eachSlice(chunks, (text) => learn.push(text));
    learn.end();
    const json = createJsonScrub(scrubber, issuing);
    await eachSlice(chunks, (text) => json.push(text));
    return { json: json.end() };
  } catch {
    // Not JSON after all (or not all of it): the text, decoded again from the bytes.
  }
  const learn = learner(scrubber, issuing).textScrub();
  await eachSlice(chunks, (piece) => learn.push(piece));
  learn.end();
  const text = scrubber.textScrub();
  const out = createPieces(true);
  await eachSlice(chunks, (piece) => out.add(text.push(piece)));
  out.add(text.end());
  return { text: out.end() };
}

/** Decodes `chunks` as UTF-8 for `take` a step at a time, yielding a turn after each SLICE_MS. */
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

/** Texts gathered into UTF-8 pieces of about PIECE_CHARS; `escape` keeps each as the inside of a JSON string. */
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

/** The scrubber of the first pass: it learns secret-named pairs (in windows overlapping by PAIR_REACH) and writes nothing. */
function learner(scrubber: ExchangeScrubber, issuing: boolean): Scrubber {
  return {
    secretValue: (value, role) => (value === '' ? '' : scrubber.secretValue(value, role)),
    scrubText(text) {
      scrubber.learnPairs(text, issuing);
      return '';
    },
    textScrub() {
      let carry = '';
      return {
        push(text) {
          const window = carry + text;
          scrubber.learnPairs(window, issuing, true);
          carry = window.slice(-PAIR_REACH);
          return '';
        },
        end() {
          scrubber.learnPairs(carry, issuing);
          return '';
        },
      };
    },
  };
}

type Scrubber = Pick<ExchangeScrubber, 'secretValue' | 'scrubText' | 'textScrub'>;

/** A scrub of JSON text in slices (throws on what is not JSON); with `learn` it only learns secrets. */
function createJsonScrub(
  scrubber: Scrubber,
  issuing: boolean,
  learn = false,
): { push(text: string): void; end(): Buffer[] } {
  const out = learn ? { add() {}, end: () => [] } : createPieces();
  // Per open container, innermost last: 1 in an object, 0 in an array; and whether it holds a value yet.
  const inObject: number[] = [];
  const written: boolean[] = [];
  let secret = false;
  // The depth inside a secret-named field's object or array, skipped.
  let skipping = 0;
  // The name or string being read: its text so far, or past a bound the scrub it goes through.
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
          // A long string goes through a scrub a chunk at a time; a long name counts as secret-named.
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
        if (valueStarts() && !learn) {
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
      return out.end();
    },
  };
}
