/**
 * What the proxy reads in an upstream response for the spec check and the journal, without
 * changing what it passes on: one it cannot read safely is passed on with a violation
 * saying why it was not checked, never as an error of the proxy's own.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { decodeText, MAX_JSON_DEPTH, nestsTooDeep } from './request-body.ts';
import { JOURNAL_RESPONSE_LIMIT } from './journal.ts';
import type { UpstreamResponse } from './upstream-forward.ts';

/** Why an answer was not checked: `rule` is stable (one report per operation and rule), `message` says it in full. */
export interface Unchecked {
  rule: 'depth' | 'size' | 'encoding' | 'json';
  message: string;
}

/** An upstream response as read: JSON to check, or what the journal keeps and, when it should have been checked, why it was not. */
export type ReadResponse =
  | { json: unknown; journal: unknown; text: string; unchecked?: undefined }
  | { json?: undefined; journal: string; unchecked?: Unchecked | undefined };

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotliDecompress = promisify(zlib.brotliDecompress);

/** Bytes of a body that is not checked decoded for the journal, which keeps only the start of it. */
const JOURNAL_TEXT_BYTES = 2 * JOURNAL_RESPONSE_LIMIT;

/** The largest body checked against the spec: checking holds the event loop; the API's answers are a few KiB. */
export const CHECK_MAX_BYTES: number = 4 * 1024 * 1024;

/**
 * Reads a response for the check and the journal. A body larger than the check takes is
 * never joined whole: the journal keeps its start.
 *
 * @example
 *   const read = await readUpstreamResponse(response, 8 * 1024 * 1024);
 *   if (read.json !== undefined) validation.check('getPrice', response.status, read.json);
 */
export async function readUpstreamResponse(
  response: UpstreamResponse,
  maxBytes: number,
): Promise<ReadResponse> {
  const type = response.headers['content-type'];
  const encoding = response.headers['content-encoding']?.trim().toLowerCase();
  const encoded = encoding !== undefined && encoding !== '' && encoding !== 'identity';
  const start = (): string => {
    const head: Uint8Array[] = [];
    let size = 0;
    for (const chunk of response.chunks) {
      if (size >= JOURNAL_TEXT_BYTES) break;
      head.push(chunk);
      size += chunk.byteLength;
    }
    return decodeText(Buffer.concat(head).subarray(0, JOURNAL_TEXT_BYTES));
  };
  if (!type || !/\bjson\b/i.test(type)) {
    // Nothing to check: the journal keeps the start of the text, and no more is decoded.
    if (encoded) return { journal: `[${encoding}-encoded answer, not kept]` };
    return { journal: start() };
  }
  if (!encoded && response.size > CHECK_MAX_BYTES)
    return { journal: start(), unchecked: tooLargeToCheck(response.size) };
  let bytes: Uint8Array = Buffer.concat(response.chunks);
  if (encoded) {
    const decoded = await decode(bytes, encoding, maxBytes);
    if ('unchecked' in decoded)
      return { journal: `[answer not kept: ${decoded.unchecked.message}]`, ...decoded };
    bytes = decoded.bytes;
  }
  if (bytes.byteLength === 0) return { journal: '' };
  if (bytes.byteLength > CHECK_MAX_BYTES)
    return {
      journal: decodeText(bytes.subarray(0, JOURNAL_TEXT_BYTES)),
      unchecked: tooLargeToCheck(bytes.byteLength),
    };
  const text = decodeText(bytes);
  // Checking and journaling recurse: too deep a body is not checked.
  if (nestsTooDeep(text)) {
    return {
      journal: text.slice(0, JOURNAL_TEXT_BYTES),
      unchecked: {
        rule: 'depth',
        message: `not checked: the body nests deeper than ${MAX_JSON_DEPTH} levels`,
      },
    };
  }
  try {
    const json: unknown = JSON.parse(text);
    return { json, journal: json, text };
  } catch (error) {
    return {
      journal: text.slice(0, JOURNAL_TEXT_BYTES),
      unchecked: {
        rule: 'json',
        message: `not checked: the body is not JSON (${(error as Error).message}), though its content type is ${type}`,
      },
    };
  }
}

/** Undoes a content-encoding (the last coding applied first), each step at most `maxBytes` out. */
async function decode(
  body: Uint8Array,
  encoding: string,
  maxBytes: number,
): Promise<{ bytes: Uint8Array } | { unchecked: Unchecked }> {
  const codings = encoding
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  let bytes = body;
  for (const coding of codings) {
    const options = { maxOutputLength: maxBytes };
    try {
      if (coding === 'gzip' || coding === 'x-gzip') bytes = await gunzip(bytes, options);
      // HTTP's deflate is zlib-wrapped, but servers send raw deflate too; a zlib header says which.
      else if (coding === 'deflate')
        bytes = await ((bytes[0]! & 0x0f) === 8 ? inflate : inflateRaw)(bytes, options);
      else if (coding === 'br') bytes = await brotliDecompress(bytes, options);
      else {
        return {
          unchecked: {
            rule: 'encoding',
            message: `not checked: its content-encoding '${coding}' is not one the proxy decodes (gzip, deflate, br)`,
          },
        };
      }
    } catch (error) {
      const failure = error as NodeJS.ErrnoException;
      if (failure.code === 'ERR_BUFFER_TOO_LARGE') {
        return {
          unchecked: {
            rule: 'size',
            message: `not checked: decoded (${coding}), the body is larger than ${maxBytes} bytes (--upstream-max-bytes)`,
          },
        };
      }
      return {
        unchecked: {
          rule: 'encoding',
          message: `not checked: its ${coding} body could not be decoded (${failure.message})`,
        },
      };
    }
  }
  return { bytes };
}

function tooLargeToCheck(size: number): Unchecked {
  return {
    rule: 'size',
    message: `not checked: the body (${size} bytes) is larger than the ${CHECK_MAX_BYTES} bytes the proxy checks without holding up other requests`,
  };
}
