/** Runs a spec validator; a failure is a SimulatorError naming the parameter and the rule. */
import type { ErrorObject, ValidateFunction } from '../../src/spec/loader.ts';
import { SimulatorError } from '../engine/index.ts';

/**
 * Validates (and, for coercing validators, converts) `input`; returns the checked value.
 *
 * @example
 *   const query = check(validators.request('getPrice'), { rentalCount: '65000', period: '1h' });
 *   query.rentalCount; // 65000
 */
export function check<T>(validate: ValidateFunction, input: unknown, noun = 'Parameter'): T {
  const original = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  // Coercion rewrites the object in place; keep the caller's values for the message.
  const data = typeof input === 'object' && input !== null && !Array.isArray(input) ? { ...original } : input;
  if (validate(data)) {
    // Coercion reads 'Infinity' and '1e400' as Infinity, which ajv lets through; no parameter takes it.
    const name = Object.entries(data ?? {}).find(
      ([, value]) => typeof value === 'number' && !Number.isFinite(value),
    )?.[0];
    if (name === undefined) return data as T;
    const message = `${noun} '${name}' must be a finite number (got '${String(original[name])}').`;
    throw Object.assign(new SimulatorError('parameterInvalid', message), { parameter: name });
  }
  const { missing, message, belowMinimum, parameter } = describeErrors(validate.errors ?? [], original, noun);
  const error = new SimulatorError(missing ? 'parameterMissing' : 'parameterInvalid', message);
  if (belowMinimum) error.reason = 'belowMinimum';
  if (parameter !== undefined) error.parameter = parameter;
  throw error;
}

/**
 * Describes validation errors in one sentence per bad parameter.
 *
 * @example
 *   describeErrors(errors, { period: '2h' });
 *   // "Parameter 'period' must be one of 10min, 1h, 1d, 3d, 7d, 14d, 30d (got '2h')."
 */
function describeErrors(
  errors: ErrorObject[],
  original: Record<string, unknown>,
  noun = 'Parameter',
): { missing: boolean; message: string; belowMinimum?: boolean; parameter?: string } {
  const anyOf = errors.find((e) => e.keyword === 'anyOf' && e.instancePath === '');
  // A field a oneOf's alternative requires is not missing: the oneOf's own error says what is wrong.
  const inOneOf = (e: ErrorObject): boolean => e.schemaPath.includes('/oneOf/');
  const required = errors.filter(
    (e) => e.keyword === 'required' && !e.schemaPath.includes('anyOf') && !inOneOf(e),
  );
  if (required.length > 0) {
    const names = required.map((e) => `'${joinPath(e.instancePath, String(e.params.missingProperty))}'`);
    return {
      missing: true,
      message: `Missing required ${noun.toLowerCase()}${names.length > 1 ? 's' : ''} ${names.join(', ')}.`,
      parameter: joinPath(required[0]!.instancePath, String(required[0]!.params.missingProperty)),
    };
  }
  const specific = errors.filter(
    (e) =>
      !e.schemaPath.includes('anyOf') &&
      e.keyword !== 'anyOf' &&
      e.keyword !== 'if' &&
      !(e.keyword === 'required' && inOneOf(e)),
  );
  if (specific.length === 0 && anyOf) {
    const options = errors
      .filter((e) => e.keyword === 'required')
      .map((e) => `'${String(e.params.missingProperty)}'`);
    return {
      missing: true,
      message: `Missing ${noun.toLowerCase()}: send one of ${options.join(' or ')}.`,
      parameter: options.map((o) => o.slice(1, -1)).join(' or '),
    };
  }
  // One sentence per parameter, in ajv's order, by the rule that says most.
  const byParameter = new Map<string, ErrorObject>();
  for (const e of specific) {
    // An unknown field's error is about the field it names.
    const name =
      e.keyword === 'additionalProperties'
        ? joinPath(e.instancePath, String(e.params.additionalProperty))
        : e.instancePath;
    const held = byParameter.get(name);
    if (!held || rank(e) > rank(held)) byParameter.set(name, e);
  }
  const messages = [...new Set([...byParameter.values()].map((e) => describeOne(e, original, noun, errors)))];
  const first = specific[0];
  const shown = messages.slice(0, MAX_PARAMETERS_NAMED);
  const more = messages.length - shown.length;
  return {
    missing: false,
    message: more > 0 ? `${shown.join(' ')} And ${more} more.` : shown.join(' '),
    belowMinimum: first?.keyword === 'minimum',
    ...(first ? { parameter: first.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(body)' } : {}),
  };
}

/** How many bad parameters one message names; a body of a thousand unknown fields is not quoted whole. */
const MAX_PARAMETERS_NAMED = 8;

/** Of two rules one value breaks, the one whose sentence tells the caller more. */
function rank(e: ErrorObject): number {
  return e.keyword === 'format' ? 2 : e.keyword === 'pattern' ? 0 : 1;
}

function joinPath(instancePath: string, name: string): string {
  const base = instancePath.replace(/^\//, '').replace(/\//g, '.');
  return base ? `${base}.${name}` : name;
}

function describeOne(
  e: ErrorObject,
  original: Record<string, unknown>,
  noun: string,
  all: ErrorObject[] = [],
): string {
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const name = path || '(body)';
  // The value sent at the path, quoted in the message.
  const keys = path.split('.');
  let raw: unknown = keys[0]! in original ? original : undefined;
  for (const key of keys) raw = (raw as Record<string, unknown> | undefined)?.[key];
  const got = raw === undefined ? '' : ` (got ${preview(raw)})`;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type':
      return `${noun} '${name}' must be ${/^[aeiou]/.test(String(p.type)) ? 'an' : 'a'} ${String(p.type)}${got}.`;
    case 'enum':
      return `${noun} '${name}' must be one of ${(p.allowedValues as unknown[]).join(', ')}${got}.`;
    case 'const':
      return `${noun} '${name}' must be ${JSON.stringify(p.allowedValue)}${got}.`;
    case 'minimum':
      return `${noun} '${name}' must be at least ${String(p.limit)}${got}.`;
    case 'maximum':
      return `${noun} '${name}' must be at most ${String(p.limit)}${got}.`;
    case 'minLength':
      return `${noun} '${name}' must have at least ${String(p.limit)} character${p.limit === 1 ? '' : 's'}${got}.`;
    case 'maxLength':
      return `${noun} '${name}' must have at most ${String(p.limit)} characters${got}.`;
    case 'format':
      if (p.format === 'tron-address') {
        return `${noun} '${name}' must be a TRON address: 34 Base58Check characters starting with T, with a valid checksum and the 0x41 prefix${got}.`;
      }
      return `${noun} '${name}' must be in ${String(p.format)} format${got}.`;
    case 'pattern':
      return `${noun} '${name}' must match ${String(p.pattern)}${got}.`;
    case 'additionalProperties':
      return `${noun} '${joinPath(e.instancePath, String(p.additionalProperty))}' is not allowed here; remove it.`;
    case 'minProperties':
      return `${noun} '${name}' must name at least ${String(p.limit)} field${p.limit === 1 ? '' : 's'}; leave it out instead of sending it empty.`;
    case 'maxItems':
      return `${noun} '${name}' must have at most ${String(p.limit)} items.`;
    case 'oneOf': {
      // Alternatives that each require one field (an extra field's sources): name them.
      if (Array.isArray(p.passingSchemas))
        return `${noun} '${name}' must have exactly one of its alternatives, not several${got}.`;
      const fields = all
        .filter(
          (o) =>
            o.keyword === 'required' && o.instancePath === e.instancePath && o.schemaPath.includes('/oneOf/'),
        )
        .map((o) => String((o.params as { missingProperty: string }).missingProperty));
      return fields.length > 0
        ? `${noun} '${name}' must have exactly one of ${fields.join(', ')}${got}.`
        : `${noun} '${name}' must match exactly one of its alternatives${got}.`;
    }
    default:
      return `${noun} '${name}' ${e.message ?? 'is invalid'}${got}.`;
  }
}

/** A value as the message quotes it: at most 80 characters; objects by their shape (never a deep stringify). */
function preview(raw: unknown): string {
  const cut = (text: string): string => (text.length > 80 ? `${text.slice(0, 80)}…` : text);
  if (typeof raw === 'string') return `'${cut(raw)}'`;
  if (Array.isArray(raw)) return `an array of ${raw.length} item${raw.length === 1 ? '' : 's'}`;
  if (typeof raw === 'object' && raw !== null) return 'an object';
  return cut(String(raw));
}
