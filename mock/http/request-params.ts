/**
 * How the control plane reads a request's parameters and JSON body, and the depth any
 * JSON body may nest.
 */
import type { Context } from 'hono';
import { SimulatorError } from '../engine/index.ts';
import type { SimContext } from './context.ts';
import { textOf } from './request-body.ts';
import { parseStrictJson } from './strict-json.ts';

const JSON_READABLE = new Set(['application/json', 'text/plain', 'application/x-www-form-urlencoded', '']);

/**
 * How deep a control-plane JSON body may nest. The deepest body the control plane takes
 * (a rule or a fault) nests 3 levels; deeper input is refused before anything recurses
 * over it (validation messages and the journal's redaction serialise it), which at a few
 * thousand levels overflows the stack.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * The parameters of query strings and form bodies in one object, each once. A parameter
 * given twice with different values is refused: guessing which one the caller meant
 * would hide a bug in their client. A parameter named like a prototype member
 * ('toString', '__proto__') is just a parameter.
 *
 * @example
 *   readParams([['rentalCount=65000&period=1h', 'query string']]); // { rentalCount: '65000', period: '1h' }
 */
export function readParams(
  sources: ReadonlyArray<readonly [text: string | undefined, where: string]>,
): Record<string, string> {
  const params = new Map<string, string>();
  for (const [text, where] of sources) {
    if (text === undefined) continue;
    for (const [name, value] of new URLSearchParams(text)) {
      const seen = params.get(name);
      if (seen !== undefined && seen !== value) {
        throw new SimulatorError(
          'bodyInvalid',
          `Parameter '${name}' is given more than once with different values ('${seen}' and '${value}' in the ${where}); send it once.`,
        );
      }
      params.set(name, value);
    }
  }
  return Object.fromEntries(params);
}

/** The parameters of a control-plane request's query string (readParams). */
export function readQuery(c: Context): Record<string, string> {
  const url = c.req.url;
  const q = url.indexOf('?');
  return readParams([[q === -1 ? undefined : url.slice(q + 1), 'query string']]);
}

/** Reads a JSON body of the control plane; an empty body reads as `{}`. Duplicate fields and unsafe numbers are refused (strict-json.ts). */
export async function readJsonBody(c: SimContext): Promise<unknown> {
  const text = textOf(c);
  if (text.trim().length === 0) return {};
  const type = c.req.header('content-type')?.split(';', 1)[0]!.trim().toLowerCase();
  // curl -d sends form or text types; the body is JSON either way, so those are read as JSON.
  if (type !== undefined && !JSON_READABLE.has(type)) {
    throw new SimulatorError(
      'contentTypeUnsupported',
      `Unsupported content type '${type}': the control plane takes application/json.`,
    );
  }
  if (nestsTooDeep(text)) {
    throw new SimulatorError(
      'bodyInvalid',
      `The body nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels; send a flatter JSON object.`,
    );
  }
  return parseStrictJson(text);
}

/**
 * Whether a JSON text nests `[` and `{` deeper than MAX_JSON_DEPTH, outside strings: the one
 * test before anything parses or walks a body or an answer. One pass and no recursion, so
 * safe on any input (an invalid text is measured as far as it goes); a text shorter than
 * twice the limit cannot nest past it. Hand-written: JSON.parse has no depth option.
 *
 * @example
 *   nestsTooDeep('{"a":[1,{"b":"[["}]}'); // false
 */
export function nestsTooDeep(text: string): boolean {
  if (text.length <= 2 * MAX_JSON_DEPTH) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \\ */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) {
      inString = true;
    } else if (ch === 91 /* [ */ || ch === 123 /* { */) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (ch === 93 /* ] */ || ch === 125 /* } */) {
      depth--;
    }
  }
  return false;
}
