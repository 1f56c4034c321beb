import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { precompiledValidators } from '../generated/validators.ts';
import { specFormats } from './formats.ts';
import { createValidators, loadSpec } from './loader.ts';
import {
  compileAt,
  createAjv,
  PRECOMPILED_SETS,
  precompiledSetName,
  precompiledSetOf,
  validatorDocument,
  validatorPointer,
} from './validator-setup.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const scenario = parse(readFileSync(path.join(root, 'examples/scenario.yaml'), 'utf8')) as Record<
  string,
  unknown
>;

/** Property names of the (wrapper) schema at a pointer, following $ref and allOf/anyOf. */
function propertyNames(wrapper: Record<string, unknown>, pointer: string): string[] {
  const at = (p: string): unknown =>
    p
      .split('/')
      .slice(1)
      .reduce<unknown>(
        (node, key) => (node as Record<string, unknown>)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
        wrapper,
      );
  const names = new Set<string>();
  const visit = (node: unknown, depth: number): void => {
    if (depth > 8 || typeof node !== 'object' || node === null) return;
    const schema = node as Record<string, unknown>;
    if (typeof schema.$ref === 'string')
      visit(at(schema.$ref.slice(schema.$ref.indexOf('#') + 1)), depth + 1);
    for (const name of Object.keys((schema.properties as object | undefined) ?? {})) names.add(name);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const)
      for (const sub of (schema[key] as unknown[] | undefined) ?? []) visit(sub, depth + 1);
  };
  visit(at(pointer), 0);
  return [...names];
}

/** Inputs that walk the usual branches: empty, wrong shapes, each property wrong or coercible. */
function inputsFor(names: string[]): unknown[] {
  const inputs: unknown[] = [{}, null, 'x', [], 42, scenario];
  for (const value of [
    'x',
    '',
    '1',
    '65000',
    '-1',
    '1e400',
    'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3',
    1,
    0.5,
    true,
    null,
    [],
    {},
    ['x'],
  ]) {
    inputs.push(Object.fromEntries(names.map((name) => [name, value])));
    for (const name of names) inputs.push({ [name]: value });
  }
  inputs.push({ ...scenario, unknownField: 1 }, { accounts: [{ apiKey: '', balance: { trx: 'x' } }] });
  return inputs;
}

describe('precompiled validators (src/generated/validators.ts)', () => {
  for (const set of PRECOMPILED_SETS) {
    const setName = precompiledSetName(set.document, set.options, set.part);
    it(`${setName}: answer, errors and coercions equal a run-time compile of the same pointer`, () => {
      const spec = loadSpec(set.document);
      const document = validatorDocument(spec);
      const ajv = createAjv(set.options);
      ajv.addSchema(document.schema);
      const precompiled = precompiledValidators[setName]!(specFormats);
      const pointers = set.pointers(spec);
      expect(Object.keys(precompiled).sort()).toEqual([...pointers].sort());
      for (const pointer of pointers) {
        const compiled = compileAt(ajv, document, pointer);
        const standalone = precompiled[pointer]!;
        for (const input of inputsFor(propertyNames(document.schema, pointer))) {
          const a = structuredClone(input);
          const b = structuredClone(input);
          const label = `${pointer} ${JSON.stringify(input)}`;
          expect(standalone(b), label).toBe(compiled(a));
          expect(standalone.errors ?? null, label).toEqual(compiled.errors ?? null);
          expect(b, label).toEqual(a);
        }
      }
    });
  }

  it('are what createValidators gives for the kit documents, with the options they were made for', () => {
    const validate = createValidators(loadSpec('api'), { coerceTypes: true }).request('getPrice');
    expect(validate.toString()).toBe(
      precompiledValidators['api:coerce']!(specFormats)[validatorPointer.request('getPrice')]!.toString(),
    );
    // A part's pointer comes from the part, not from its document's whole set.
    expect(createValidators(loadSpec('control')).schema('EngineSettings').toString()).toBe(
      precompiledValidators['control:plain:settings']!(specFormats)[
        validatorPointer.schema('EngineSettings')
      ]!.toString(),
    );
    // The answers' checks (response-check.ts) are verbose and precompiled; a verbose request
    // check is not, and is compiled at run time, verbose still.
    expect(createValidators(loadSpec('api'), { verbose: true }).response('getPrice', 200)!.toString()).toBe(
      precompiledValidators['api:plain:verbose']!(specFormats)[
        validatorPointer.response('getPrice', '200')
      ]!.toString(),
    );
    const verbose = createValidators(loadSpec('api'), { coerceTypes: true, verbose: true }).request(
      'getPrice',
    );
    expect(verbose({ period: '2h' })).toBe(false);
    expect(verbose.errors!.find((e) => e.keyword === 'enum')!.parentSchema).toBeDefined();
  });

  it('take a part only for the options it was made with, and the whole set of those options otherwise', () => {
    const control = loadSpec('control');
    const settings = validatorPointer.schema('EngineSettings');
    expect(precompiledSetOf(control, {}, settings)).toBe('control:plain:settings');
    // The part is plain: coercing or verbose checks of the same pointer are not in it.
    expect(precompiledSetOf(control, { coerceTypes: true }, settings)).toBe('control:coerce');
    expect(precompiledSetOf(control, { verbose: true }, settings)).toBe('control:plain:verbose');
    expect(precompiledSetOf(control, {}, validatorPointer.schema('Health'))).toBe('control:plain');
  });

  it('call the formats they are given, so each simulator can bring its own', () => {
    const order = { pledgeAddress: 'TT3D8Br4YEkJtvS1DNSj77ymip51BemoP3', rentalCount: '65000', period: '1h' };
    const seen: string[] = [];
    const refusing = {
      ...specFormats,
      'tron-address': { type: 'string', validate: (value: string) => (seen.push(value), false) },
    } as unknown as typeof specFormats;
    const strict = createValidators(loadSpec('api'), { coerceTypes: true, formats: refusing }).request(
      'createOrder',
    );
    expect(strict({ ...order })).toBe(false);
    expect(strict.errors!.map((e) => [e.instancePath, e.keyword])).toEqual([['/pledgeAddress', 'format']]);
    expect(seen).toEqual([order.pledgeAddress]);
    // The default formats accept it.
    expect(
      createValidators(loadSpec('api'), { coerceTypes: true }).request('createOrder')({ ...order }),
    ).toBe(true);
  });
});
