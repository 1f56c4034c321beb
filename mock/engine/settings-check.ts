/** Checks a settings patch against control.yaml's EngineSettings; code adds what a schema cannot state. */
import { ENGINE_SETTINGS } from '../../src/generated/lists.ts';
import {
  createValidators,
  loadSpec,
  type ErrorObject,
  type ValidateFunction,
} from '../../src/spec/loader.ts';
import type { ValueRule } from '../../src/spec/spec-lists.ts';
import { SimulatorError } from './simulator-error.ts';

type Rules = Readonly<Record<string, ValueRule>>;
const SETTING_RULES = ENGINE_SETTINGS as unknown as Rules;

let validateEngineSettings: ValidateFunction | undefined;

/**
 * Refuses a patch that breaks a rule of the spec, naming the setting and the rule.
 *
 * @example
 *   checkSettingsPatch({ failureRate: 1.5 });
 *   // SimulatorError parameterInvalid: "failureRate must be a number from 0 to 1 (got 1.5)."
 */
export function checkSettingsPatch(patch: object): void {
  if (Object.keys(patch).length === 0) return;
  validateEngineSettings ??= createValidators(loadSpec('control')).schema('EngineSettings');
  if (!validateEngineSettings(patch))
    throw SimulatorError.invalidParameter(describeSettingError(validateEngineSettings.errors ?? [], patch));
  // JSON Schema cannot say that a range's min is at most its max.
  const delays = (patch as { delaysMs?: Record<string, unknown> }).delaysMs ?? {};
  for (const [step, delay] of Object.entries(delays)) {
    const range = delay as { min?: number; max?: number } | undefined;
    if (typeof range === 'object' && range !== null && range.min! > range.max!)
      throw SimulatorError.invalidParameter(`delaysMs.${step} must have min <= max (got ${preview(delay)}).`);
  }
  const extras = (patch as { extraFields?: Record<string, { copyOrderField?: string }[]> }).extraFields ?? {};
  // The fields of an order's history record (openapi.yaml's Order), and the outOrderNo it may carry.
  const known = [...Object.keys(loadSpec('api').schemas.Order?.properties ?? {}), 'outOrderNo'];
  for (const [operation, fields] of Object.entries(extras)) {
    for (const [index, field] of (fields ?? []).entries()) {
      const name = field.copyOrderField;
      if (name === undefined || known.includes(name)) continue;
      throw SimulatorError.invalidParameter(
        `extraFields.${operation}.${index}.copyOrderField must be one of ${known.join(', ')} (got '${name}').`,
      );
    }
  }
}

/** The first problem of a failed validation as one sentence: the setting's path, its rule and the value. */
function describeSettingError(errors: ErrorObject[], patch: object): string {
  const error = errors[0];
  if (!error) return 'The settings patch is invalid.';
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'additionalProperties') {
    const name = String((error.params as { additionalProperty: string }).additionalProperty);
    const known = Object.keys(segments.length === 0 ? SETTING_RULES : (ruleAt(segments)?.properties ?? {}));
    const where = segments.length === 0 ? 'the settings are' : `${segments.join('.')} takes`;
    return `Unknown setting '${[...segments, name].join('.')}'; ${where} ${known.join(', ')}.`;
  }
  const path = segments.join('.') || 'the settings patch';
  const got = ` (got ${preview(valueAt(patch, segments))})`;
  // ajv reports an extra field's first failed oneOf branch, which names no rule a user broke.
  if (
    /^\/extraFields\/[^/]+\/\d+$/.test(error.instancePath) &&
    errors.some((e) => e.keyword === 'oneOf' && e.instancePath === error.instancePath)
  ) {
    const branches = (loadSpec('control').schemas.ExtraField?.oneOf ?? []) as { required?: string[] }[];
    const sources = branches.flatMap((b) => b.required ?? []);
    return `${path} must have exactly one source of its value: ${sources.join(', ')}${got}.`;
  }
  const rule = ruleAt(segments);
  if (rule && (rule.type !== undefined || rule.enum !== undefined || rule.oneOf !== undefined))
    return `${path} must be ${ruleText(rule)}${got}.`;
  return `${path} ${error.message ?? 'is invalid'}${got}.`;
}

/** The table's rule at a path of settings (a setting, or a field of one). */
function ruleAt(segments: string[]): ValueRule | undefined {
  let rules: Rules | undefined = SETTING_RULES;
  let rule: ValueRule | undefined;
  for (const segment of segments) {
    rule = rules?.[segment];
    rules = rule?.properties;
  }
  return rule;
}

/**
 * A rule in words.
 *
 * @example
 *   ruleText({ type: 'integer', minimum: 1, maximum: 10 }); // 'a whole number from 1 to 10'
 */
export function ruleText(rule: ValueRule): string {
  if (rule.oneOf) return rule.oneOf.map(ruleText).join(', or ');
  if (rule.enum) return `one of ${rule.enum.map(String).join(', ')}`;
  const types = [rule.type ?? []].flat();
  const nullable = types.includes('null') ? ', or null' : '';
  if (types.includes('integer') || types.includes('number')) {
    const noun = types.includes('integer') ? 'a whole number' : 'a number';
    const { minimum: min, maximum: max } = rule;
    let range = '';
    if (min !== undefined) range = max !== undefined ? ` from ${min} to ${max}` : ` >= ${min}`;
    else if (max !== undefined) range = ` <= ${max}`;
    return `${noun}${range}${nullable}`;
  }
  if (types.includes('object')) {
    const fields = rule.required ?? [];
    return `an object${fields.length > 0 ? ` with ${fields.join(' and ')}` : ''}${nullable}`;
  }
  if (types.includes('string'))
    return `a string${rule.pattern ? ` matching ${rule.pattern}` : ''}${nullable}`;
  return `${types.join(' or ')}${nullable}`;
}

function valueAt(value: unknown, segments: string[]): unknown {
  let node = value;
  for (const segment of segments) node = (node as Record<string, unknown> | undefined)?.[segment];
  return node;
}

/** A value as a message quotes it: short, and never a throw. */
function preview(value: unknown): string {
  if (typeof value === 'string') return `'${value.slice(0, 80)}'`;
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    const text = JSON.stringify(value);
    return text.length > 80 ? `${text.slice(0, 80)}…` : text;
  } catch {
    return 'an object';
  }
}
