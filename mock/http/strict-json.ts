/**
 * JSON for the control plane, read strictly: a field given twice, or a number JSON.parse
 * would round (beyond Number.MAX_SAFE_INTEGER), is refused instead of silently taken
 * last-wins or rounded (`{"trx":"5","trx":"6"}` deposited 6; 9007199254740993 read as
 * ...992).
 *
 * Hand-written on purpose: JSON.parse merges duplicates and rounds numbers before any
 * reviver sees them (Node 20 has no reviver source text), and the maintained parsers that
 * report both (such as @humanwhocodes/momoa) descend recursively, while a 64 KiB body can
 * nest 32 000 deep. This is one linear, iterative pass over text JSON.parse has already
 * accepted, so it only needs to find tokens, not to judge syntax.
 */
import { SimulatorError } from '../engine/index.ts';

interface Frame {
  object: boolean;
  /** Field names seen so far (objects). */
  keys?: Set<string>;
  /** The current field name (objects) or index (arrays). */
  at: string | number;
  expectKey: boolean;
}

const isNumberStart = (code: number): boolean => code === 45 /* - */ || (code >= 48 && code <= 57);
const isNumberPart = (code: number): boolean =>
  isNumberStart(code) || code === 43 /* + */ || code === 46 /* . */ || code === 101 || code === 69; /* e E */

/**
 * Parses a control-plane body; throws a SimulatorError (400) naming the field on a
 * duplicate field or an unsafe number, or on text that is not JSON.
 *
 * @example
 *   parseStrictJson('{"trx":"5"}');            // { trx: '5' }
 *   parseStrictJson('{"trx":"5","trx":"6"}');  // throws: field 'trx' is given twice
 *   parseStrictJson('{"ms":9007199254740993}'); // throws: 'ms' is beyond 9007199254740991
 */
export function parseStrictJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SimulatorError(
      'bodyInvalid',
      `The body is not valid JSON (${(error as Error).message}); send a JSON object.`,
    );
  }
  const stack: Frame[] = [];
  // Where the scan is: each container's current field or index, the innermost last.
  const path = (): string => stack.map((f) => f.at).join('.') || '(body)';
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (code === 123 /* { */ || code === 91 /* [ */) {
      stack.push(
        code === 123
          ? { object: true, keys: new Set(), at: '', expectKey: true }
          : { object: false, at: 0, expectKey: false },
      );
      i++;
    } else if (code === 125 /* } */ || code === 93 /* ] */) {
      stack.pop();
      i++;
    } else if (code === 44 /* , */) {
      if (top?.object) top.expectKey = true;
      else if (top) top.at = (top.at as number) + 1;
      i++;
    } else if (code === 58 /* : */) {
      top!.expectKey = false;
      i++;
    } else if (code === 34 /* " */) {
      let end = i + 1;
      let escaped = false;
      while (text.charCodeAt(end) !== 34) {
        if (text.charCodeAt(end) === 92 /* \ */) {
          escaped = true;
          end += 2;
        } else {
          end++;
        }
      }
      if (top?.object && top.expectKey) {
        const raw = text.slice(i, end + 1);
        const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        top.at = key;
        if (top.keys!.has(key)) {
          throw new SimulatorError(
            'bodyInvalid',
            `Field '${path()}' is given more than once; a JSON object takes one value per field: send it once.`,
          );
        }
        top.keys!.add(key);
      }
      i = end + 1;
    } else if (isNumberStart(code)) {
      let end = i + 1;
      while (end < text.length && isNumberPart(text.charCodeAt(end))) end++;
      const raw = text.slice(i, end);
      if (Math.abs(Number(raw)) > Number.MAX_SAFE_INTEGER) {
        throw new SimulatorError(
          'parameterInvalid',
          `Field '${path()}' is ${raw}, beyond ${Number.MAX_SAFE_INTEGER}, the largest integer a JSON number keeps exactly; send a smaller number.`,
        );
      }
      i = end;
    } else {
      i++;
    }
  }
  return value;
}
