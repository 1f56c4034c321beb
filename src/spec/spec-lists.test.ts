import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  API_OPERATION_IDS,
  API_OPERATION_SPECS,
  API_PATHS,
  COVERAGE_FORMAT,
  CURRENCIES,
  ENGINE_SETTINGS,
  FAULT_KINDS,
  ORDER_LIFECYCLE,
  ORDER_STATUSES,
  PERIODS,
  RECORDING_FORMAT,
  RECORDING_V1_FORMAT,
  FAULT_RESPONSES,
  PREFER_OUTCOMES,
  REJECTION_KINDS,
  STATE_FORMAT,
  TIMED_STATUSES,
  TIMING_PROFILES,
} from '../generated/lists.ts';

// The documents read afresh, not through spec-lists.ts: the lists must equal what they say.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
type Node = Record<string, any>;
const read = (file: string): Node => parse(readFileSync(path.join(root, file), 'utf8')) as Node;
const api = read('spec/openapi.yaml');
const control = read('spec/control.yaml');
const schemaAt = (doc: Node, ref: string): Node => doc.components.schemas[ref.split('/').pop()!];

describe('the generated lists', () => {
  it('hold every operation of spec/openapi.yaml with its method, path and what it requires', () => {
    const stated = Object.entries(api.paths as Node).flatMap(([route, item]) =>
      Object.entries(item as Node).map(([method, op]: [string, Node]) => {
        const form = op.requestBody?.content?.['application/x-www-form-urlencoded']?.schema;
        const required = form
          ? schemaAt(api, form.$ref).required
          : (op.parameters ?? []).filter((p: Node) => p.required).map((p: Node) => p.name);
        return {
          operationId: op.operationId,
          method: method.toUpperCase(),
          path: route,
          required,
          requiredOneOf: op['x-required-one-of'] ? [op['x-required-one-of']] : [],
        };
      }),
    );
    expect(
      Object.values(API_OPERATION_SPECS).map(({ operationId, method, path, required, requiredOneOf }) => ({
        operationId,
        method,
        path,
        required,
        requiredOneOf,
      })),
    ).toEqual(stated);
    expect(API_OPERATION_IDS).toEqual(stated.map((op) => op.operationId));
    expect(API_PATHS).toEqual(Object.keys(api.paths));
  });

  it("give each API parameter the rule of its schema, e.g. order creation's 64000 minimum", () => {
    const count = schemaAt(api, '#/components/schemas/OrderRentalCount');
    expect(API_OPERATION_SPECS.createOrder.parameters.rentalCount).toMatchObject({
      type: count.type,
      minimum: count.minimum,
      maximum: count.maximum,
    });
    expect(API_OPERATION_SPECS.getPrice.parameters.period.enum).toEqual(api.components.schemas.Period.enum);
  });

  it('hold the periods, order statuses, timing profiles and rejection kinds the documents enumerate', () => {
    expect(PERIODS).toEqual(api.components.schemas.Period.enum);
    expect(ORDER_STATUSES).toEqual(api.components.schemas.OrderStatus.enum);
    expect(TIMING_PROFILES).toEqual(control.components.schemas.TimingProfile.enum);
    expect(REJECTION_KINDS).toEqual(Object.keys(control.components.schemas.ErrorCatalogue.properties));
  });

  it('hold the values of the Prefer header: the rule outcomes, then the kinds of rejection', () => {
    expect(PREFER_OUTCOMES).toEqual([...control.components.schemas.RuleOutcome.enum, ...REJECTION_KINDS]);
  });

  it("hold what a fault can do to an answer, FaultSpec's response enum", () => {
    expect(FAULT_RESPONSES).toEqual(control.components.schemas.FaultSpec.properties.response.enum);
  });

  it.each([['ENGINE_SETTINGS', 'EngineSettings', ENGINE_SETTINGS]] as const)(
    '%s name every setting of %s with its type, enum, minimum and maximum',
    (_list, name, table) => {
      const fields = control.components.schemas[name].properties as Node;
      expect(Object.keys(table)).toEqual(Object.keys(fields));
      for (const [setting, field] of Object.entries(fields)) {
        const schema = field.$ref ? schemaAt(control, field.$ref) : field;
        const rule = (table as Record<string, Node>)[setting]!;
        for (const keyword of ['type', 'enum', 'minimum', 'maximum'])
          expect(rule[keyword], `${setting}.${keyword}`).toEqual(schema[keyword]);
      }
    },
  );

  it("hold the state file's and the recording's formats as StateFile and Recording state them", () => {
    expect(STATE_FORMAT).toBe(control.components.schemas.StateFile.properties.format.const);
    expect(RECORDING_FORMAT).toBe(control.components.schemas.RecordingHeader.properties.format.const);
    expect(RECORDING_V1_FORMAT).toBe(control.components.schemas.Recording.properties.format.const);
    expect(TIMED_STATUSES).toEqual(Object.keys(control.components.schemas.TimedSeconds.properties));
  });

  it("hold the currencies, the order lifecycle, the fault kinds and the coverage file's format as the documents state them", () => {
    expect(CURRENCIES).toEqual(api.components.schemas.Currency.enum);
    const lifecycle = api.components.schemas.OrderStatus['x-lifecycle'];
    expect(ORDER_LIFECYCLE).toEqual({ created: lifecycle.created, steps: lifecycle.steps });
    const fault = control.components.schemas.FaultSpec.properties;
    expect(FAULT_KINDS).toEqual([
      ...fault.status.enum.map(String),
      ...fault.response.enum.filter((r: string) => r !== 'status'),
      'latency',
    ]);
    expect(COVERAGE_FORMAT).toBe(control.components.schemas.CoverageFile.properties.format.const);
  });
});
