/**
 * The lists code needs from the documents, for src/generated/lists.ts. Reads the documents, never the
 * generated files: a stale one must not feed its own regeneration.
 */
import type { ReferenceObject, SchemaObject } from './openapi-types.ts';
import { resolveReference, type LoadedSpec, type OperationInfo } from './spec-document.ts';

const RULE_KEYWORDS = [
  'type',
  'enum',
  'const',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'required',
  'default',
] as const;

/** What the documents state of one value: keywords, its component, an object's fields, its alternatives. */
export type ValueRule = Pick<SchemaObject, (typeof RULE_KEYWORDS)[number]> & {
  schema?: string;
  properties?: Record<string, ValueRule>;
  oneOf?: ValueRule[];
};

/** One constant of src/generated/lists.ts: its JSDoc line, its value, and its type when not `as const`. */
export interface ListEntry {
  doc: string;
  value: unknown;
  type?: string;
}

/** Everything src/generated/lists.ts holds, by constant name, in the module's order. */
export type SpecLists = Record<string, ListEntry>;

/** The document's `x-facts`, each checked to have an id of its own, a source and a quote. */
function factsOf(spec: LoadedSpec): { id: string; source: string; quote: string }[] {
  const facts = (spec.document as unknown as { 'x-facts'?: unknown })['x-facts'];
  const list = Array.isArray(facts) ? (facts as Partial<Record<'id' | 'source' | 'quote', string>>[]) : [];
  const ids = new Set<string>();
  for (const [index, fact] of list.entries()) {
    if (
      ![fact.id, fact.source, fact.quote].every((v) => typeof v === 'string' && v !== '') ||
      ids.has(fact.id!)
    )
      throw new Error(
        `x-facts.${index} needs an id of its own, a source and a quote (got ${JSON.stringify(fact)}).`,
      );
    ids.add(fact.id!);
  }
  return list.map(({ id, source, quote }) => ({ id: id!, source: source!, quote: quote! }));
}

/** The `x-modes` of an operation or a property, checked against the Mode enum. */
function modesOf(owner: unknown, modes: string[], where: string, fallback?: string[]): string[] {
  const listed = (owner as Record<string, unknown> | undefined)?.['x-modes'];
  if (listed === undefined && fallback) return fallback;
  if (!Array.isArray(listed) || listed.length === 0 || listed.some((m) => !modes.includes(m as string)))
    throw new Error(
      `${where}: x-modes must list modes of ${modes.join(', ')} (got ${JSON.stringify(listed)}).`,
    );
  return listed as string[];
}

/**
 * The rule of a schema, references and a lone `allOf` followed; an object's fields `depth` levels deep.
 *
 * @example
 *   ruleOf(loadSpec('control'), { $ref: '#/components/schemas/TimingProfile' });
 *   // { schema: 'TimingProfile', type: 'string', enum: ['realistic', 'fast', 'instant'] }
 */
export function ruleOf(spec: LoadedSpec, schema: SchemaObject | ReferenceObject, depth = 1): ValueRule {
  const rule: ValueRule = {};
  let current: SchemaObject | ReferenceObject = schema;
  for (let hops = 0; hops < 16; hops++) {
    if ('$ref' in current && typeof current.$ref === 'string') {
      rule.schema ??= current.$ref.split('/').pop()!;
      // A default beside a reference is the referring property's (a setting's default address).
      if ((current as SchemaObject).default !== undefined) rule.default ??= (current as SchemaObject).default;
      current = resolveReference(spec.document, current);
      continue;
    }
    const object = current as SchemaObject;
    if (object.allOf?.length === 1 && object.type === undefined) {
      current = object.allOf[0]!;
      continue;
    }
    break;
  }
  const object = current as SchemaObject;
  for (const keyword of RULE_KEYWORDS) {
    if (object[keyword] !== undefined) (rule as Record<string, unknown>)[keyword] ??= object[keyword];
  }
  if (object.oneOf) rule.oneOf = object.oneOf.map((branch) => ruleOf(spec, branch, 0));
  if (depth > 0 && object.properties) {
    rule.properties = {};
    for (const [name, sub] of Object.entries(object.properties))
      rule.properties[name] = ruleOf(spec, sub, depth - 1);
  }
  return rule;
}

/** The enum of a component schema; throws naming it when the document has none. */
function enumOf(spec: LoadedSpec, name: string): unknown[] {
  const values = ruleOf(spec, { $ref: `#/components/schemas/${name}` }).enum;
  if (!values) throw new Error(`The ${spec.name} document has no enum '${name}'.`);
  return values;
}

/** The fields of a component object schema, each with its rule. */
function fieldsOf(spec: LoadedSpec, name: string): Record<string, ValueRule> {
  const fields = ruleOf(spec, { $ref: `#/components/schemas/${name}` }, 2).properties;
  if (!fields) throw new Error(`The ${spec.name} document has no object schema '${name}'.`);
  return fields;
}

/** The `const` of a format field (`format: energy-rental-kit/…@N`) of a component schema. */
function formatOf(spec: LoadedSpec, name: string): unknown {
  const value = fieldsOf(spec, name).format?.const;
  if (value === undefined) throw new Error(`The ${spec.name} schema '${name}' has no constant format.`);
  return value;
}

/** One API operation as code that routes or classifies requests needs it, with its params' type. */
function apiOperation(spec: LoadedSpec, op: OperationInfo) {
  const parameters: Record<string, ValueRule> = {};
  let required: string[] = [];
  let paramsType: string;
  const id = JSON.stringify(op.operationId);
  if (op.formBodySchema) {
    // The form body's schema is the rule; the query string is its alternative carrier.
    const body = ruleOf(spec, op.formBodySchema, 2);
    Object.assign(parameters, body.properties);
    required = body.required ?? [];
    paramsType =
      '$ref' in op.formBodySchema && body.schema !== undefined
        ? `components["schemas"][${JSON.stringify(body.schema)}]`
        : `NonNullable<operations[${id}]["requestBody"]>["content"]["application/x-www-form-urlencoded"]`;
  } else {
    const query = op.parameters.filter((p) => p.in === 'query');
    for (const p of query) {
      parameters[p.name] = p.schema ? ruleOf(spec, p.schema) : {};
      if (p.required) required.push(p.name);
    }
    paramsType =
      query.length > 0 ? `NonNullable<operations[${id}]["parameters"]["query"]>` : 'Record<string, never>';
  }
  const oneOf = (op.operation as Record<string, unknown>)['x-required-one-of'];
  const example = op.responses['200']?.content?.['application/json']?.example as
    | { msg?: unknown }
    | undefined;
  if (typeof example?.msg !== 'string')
    throw new Error(
      `The ${spec.name} operation '${op.operationId}' has no example of its 200 answer with a msg: the simulator answers with that message.`,
    );
  return {
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    parameters,
    required,
    requiredOneOf: Array.isArray(oneOf) ? [oneOf.map(String)] : [],
    successMessage: example.msg,
    paramsType,
  };
}

/**
 * Derives every list from the three documents.
 *
 * @example
 *   specLists(readSpec('api', api), readSpec('control', control), readSpec('node', node)).PERIODS.value; // ['10min', '1h', …]
 */
export function specLists(api: LoadedSpec, control: LoadedSpec, node: LoadedSpec): SpecLists {
  const apiOperations = api.operations.map((op) => apiOperation(api, op));
  const rejectionKinds = Object.keys(fieldsOf(control, 'ErrorCatalogue'));
  const modes = enumOf(control, 'Mode') as string[];
  const settings = (control.schemas.SettingsPatch?.properties ?? {}) as Record<string, unknown>;
  const entry = (doc: string, value: unknown, type?: string): ListEntry => ({ doc, value, type });
  return {
    API_OPERATION_SPECS: entry(
      'The operations of spec/openapi.yaml by operationId, in document order: method, path, parameters and the message of success.',
      Object.fromEntries(apiOperations.map(({ paramsType: _type, ...op }) => [op.operationId, op])),
    ),
    API_OPERATION_IDS: entry(
      'Every operationId of spec/openapi.yaml, in document order.',
      apiOperations.map((op) => op.operationId),
    ),
    API_PATHS: entry('Every path of spec/openapi.yaml, in document order.', [
      ...new Set(apiOperations.map((op) => op.path)),
    ]),
    PERIODS: entry("spec/openapi.yaml's Period enum.", enumOf(api, 'Period')),
    ORDER_STATUSES: entry("spec/openapi.yaml's OrderStatus enum.", enumOf(api, 'OrderStatus')),
    TIMING_PROFILES: entry("spec/control.yaml's TimingProfile enum.", enumOf(control, 'TimingProfile')),
    REJECTION_KINDS: entry("The kinds of rejection of spec/control.yaml's ErrorCatalogue.", rejectionKinds),
    PREFER_OUTCOMES: entry(
      "What `Prefer: outcome=…` takes (spec/control.yaml's PreferOutcome): the RuleOutcome enum, then the kinds of rejection.",
      [...enumOf(control, 'RuleOutcome'), ...rejectionKinds],
    ),
    FAULT_RESPONSES: entry(
      "What a fault can do to an answer: spec/control.yaml's FaultSpec `response` enum.",
      fieldsOf(control, 'FaultSpec').response?.enum ?? [],
    ),
    ENGINE_SETTINGS: entry(
      "Every setting of spec/control.yaml's EngineSettings (the engine's whole units), with its rule.",
      fieldsOf(control, 'EngineSettings'),
    ),
    STATE_FORMAT: entry(
      "The format of a state file (spec/control.yaml's StateFile).",
      formatOf(control, 'StateFile'),
    ),
    RECORDING_FORMAT: entry(
      "The format a recording is written in (spec/control.yaml's RecordingHeader, JSON lines).",
      formatOf(control, 'RecordingHeader'),
    ),
    RECORDING_V1_FORMAT: entry(
      "The format of a recording of one JSON document, still read (spec/control.yaml's Recording).",
      formatOf(control, 'Recording'),
    ),
    TIMED_STATUSES: entry(
      "The statuses a recording times: the fields of spec/control.yaml's TimedSeconds.",
      Object.keys(fieldsOf(control, 'TimedSeconds')),
    ),
    MODES: entry("spec/control.yaml's Mode enum: what answers the API.", modes),
    CONTROL_OPERATIONS: entry(
      'Each control-plane operation of spec/control.yaml: its method, path and the modes it works in (its `x-modes`).',
      Object.fromEntries(
        control.operations.map((op) => [
          op.operationId,
          { method: op.method, path: op.path, modes: modesOf(op.operation, modes, op.operationId) },
        ]),
      ),
      'Record<string, { readonly method: string; readonly path: string; readonly modes: readonly Mode[] }>',
    ),
    SETTING_MODES: entry(
      "The modes each setting of spec/control.yaml's SettingsPatch works in (its `x-modes`; else the simulator's alone).",
      Object.fromEntries(
        Object.entries(settings).map(([name, setting]) => [
          name,
          modesOf(setting, modes, `SettingsPatch.${name}`, ['simulator']),
        ]),
      ),
      'Record<string, readonly Mode[]>',
    ),
    CURRENCIES: entry("spec/openapi.yaml's Currency enum.", enumOf(api, 'Currency')),
    ORDER_LIFECYCLE: entry(
      "spec/openapi.yaml's OrderStatus `x-lifecycle`: a new order's status and each status's next steps.",
      lifecycleOf(api),
    ),
    FAULT_KINDS: entry(
      "The kinds of fault of spec/control.yaml's FaultSpec: its statuses, its other responses, and latency alone.",
      faultKindsOf(control),
    ),
    COVERAGE_FORMAT: entry(
      "The format of a coverage file (spec/control.yaml's CoverageFile).",
      formatOf(control, 'CoverageFile'),
    ),
    NODE_OPERATIONS: entry(
      'The operations of spec/tron-node.yaml by operationId, in document order: method and path.',
      Object.fromEntries(node.operations.map((op) => [op.operationId, { method: op.method, path: op.path }])),
    ),
    FACTS: entry(
      "spec/openapi.yaml's `x-facts`: the documented facts the contract suite holds a service to, each with its quote.",
      factsOf(api),
    ),
    // Not a constant: rendered as the interface ApiRequestParams.
    PARAMS_TYPES: entry(
      'The checked parameters of each API operation: its form body, else its query.',
      apiOperations.map((op) => `  ${JSON.stringify(op.operationId)}: ${op.paramsType};`),
    ),
  };
}

/** OrderStatus's `x-lifecycle`, checked against its enum; throws naming what is wrong. */
function lifecycleOf(spec: LoadedSpec): { created: string; steps: Record<string, string[]> } {
  const lifecycle = spec.schemas.OrderStatus?.['x-lifecycle'] as
    | { created?: unknown; steps?: unknown }
    | undefined;
  const statuses = new Set(enumOf(spec, 'OrderStatus'));
  const known = (value: unknown): value is string => typeof value === 'string' && statuses.has(value);
  if (!lifecycle || !known(lifecycle.created) || typeof lifecycle.steps !== 'object' || !lifecycle.steps)
    throw new Error(`The ${spec.name} document's OrderStatus has no x-lifecycle with 'created' and 'steps'.`);
  const steps: Record<string, string[]> = {};
  for (const [from, next] of Object.entries(lifecycle.steps as Record<string, unknown>)) {
    if (!known(from) || !Array.isArray(next) || !next.every(known))
      throw new Error(`OrderStatus's x-lifecycle step '${from}' names a status OrderStatus does not list.`);
    steps[from] = next;
  }
  return { created: lifecycle.created, steps };
}

/** FaultSpec's kinds: each status of `response: status`, each other response, and `latency` (no response). */
function faultKindsOf(spec: LoadedSpec): string[] {
  const fields = fieldsOf(spec, 'FaultSpec');
  const responses = (fields.response?.enum ?? []).map(String);
  const statuses = (fields.status?.enum ?? []).map(String);
  return [...statuses, ...responses.filter((r) => r !== 'status'), 'latency'];
}

/** Types declared beside the constant they derive from. */
const TYPES_AFTER: Record<string, string> = {
  API_OPERATION_SPECS: 'export type ApiOperationId = keyof typeof API_OPERATION_SPECS;',
  MODES: 'export type Mode = (typeof MODES)[number];',
  FACTS: "export type FactId = (typeof FACTS)[number]['id'];",
};

/**
 * The TypeScript module of the lists: constants `as const`, so their values are types too.
 *
 * @example
 *   writeFile('src/generated/lists.ts', renderLists(lists, header));
 */
export function renderLists({ PARAMS_TYPES, ...lists }: SpecLists, header: string): string {
  const out = [header, '', "import type { components, operations } from './openapi.ts';", ''];
  for (const [name, { doc, value, type }] of Object.entries(lists)) {
    const json = JSON.stringify(value, null, 2);
    out.push(`/** ${doc} */`, `export const ${name}${type ? `: ${type} = ${json}` : ` = ${json} as const`};`);
    out.push(...(TYPES_AFTER[name] ? ['', TYPES_AFTER[name]] : []), '');
  }
  out.push(`/** ${PARAMS_TYPES!.doc} */`, 'export interface ApiRequestParams {');
  out.push(...(PARAMS_TYPES!.value as string[]), '}', '');
  return out.join('\n');
}
