/**
 * What the schema property tests (projections-schema-properties.test.ts) stand on: a
 * small JSON Schema grammar (`rootSchema`, `schemaNode`; `MAIN` makes schemas strict mode
 * can express, `WILD` adds what it cannot or only after a rewrite); `valueFor`/`cases`,
 * values valid against a `MAIN` schema with what a strict model sends for each and what
 * reading that back must give (`Sample`); ajv (JSON Schema 2020-12) as the reference
 * validator (`accepts`, `refusal`); the rules as the tests read them
 * (`strictShapeProblems`, `geminiShapeProblems`, and `geminiRefusal`, a validator for
 * Gemini's OpenAPI subset); recursive schemas with their values (`RECURSIVE_SCHEMAS`);
 * JSON Pointer and schema-walking helpers.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { ToolDefinition } from '../src/core/tool.js';

export type Schema = Record<string, unknown>;

/** A generated value, as the model and the host see it. */
export interface Sample {
  /** Valid against the original schema; optional properties may be left out. */
  value: unknown;
  /** What a model under strict mode sends for `value`: every left-out optional property as `null`. */
  sent: unknown;
  /** What reading `sent` back must give: `value`, but a left-out property whose schema accepts `null` keeps it (the host cannot tell it from a real one). */
  restored: unknown;
}

// --- JSON and schema helpers ---

export const isNode = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);
export const list = (value: unknown): unknown[] | undefined => (Array.isArray(value) ? (value as unknown[]) : undefined);

export function typesOf(schema: Schema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  return (list(schema.type) ?? []).filter((type): type is string => typeof type === 'string');
}

export const escapeToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** What a JSON Pointer names in `document` (`''` is the document), or `undefined`. */
export function atPointer(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  if (!pointer.startsWith('/')) return undefined;
  let at: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const items = list(at);
    if (items !== undefined) at = /^\d+$/.test(key) ? items[Number(key)] : undefined;
    else if (isNode(at)) at = Object.hasOwn(at, key) ? at[key] : undefined;
    else return undefined;
  }
  return at;
}

/** The schema a local `$ref` of the generator names in `root`. */
export function resolveRef(root: Schema, ref: string): Schema {
  const target = ref.startsWith('#') ? atPointer(root, decodeURIComponent(ref.slice(1))) : undefined;
  if (!isNode(target)) throw new Error(`the generator made a reference that names no schema: ${ref}`);
  return target;
}

/** The schemas directly inside `schema`, each with its JSON Pointer relative to `schema`. */
function childSchemas(schema: Schema): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const keyword of ['properties', '$defs', 'definitions', 'patternProperties']) {
    const map = schema[keyword];
    if (isNode(map)) for (const [name, child] of Object.entries(map)) out.push([`/${keyword}/${escapeToken(name)}`, child]);
  }
  for (const keyword of ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items']) {
    const members = list(schema[keyword]);
    if (members !== undefined) members.forEach((child, index) => out.push([`/${keyword}/${index}`, child]));
  }
  for (const keyword of ['items', 'additionalProperties', 'not']) if (isNode(schema[keyword])) out.push([`/${keyword}`, schema[keyword]]);
  return out;
}

/** Calls `visit` on every schema object in `schema`, with its JSON Pointer. */
export function everyNode(schema: unknown, visit: (node: Schema, path: string) => void, path = ''): void {
  if (!isNode(schema)) return;
  visit(schema, path);
  for (const [at, child] of childSchemas(schema)) everyNode(child, visit, path + at);
}

export function usesRef(schema: Schema): boolean {
  let found = false;
  everyNode(schema, (node) => {
    if (typeof node.$ref === 'string') found = true;
  });
  return found;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** Every object and array reachable from `value`. */
export function objectsIn(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value === 'object' && value !== null && !into.has(value)) {
    into.add(value);
    for (const item of Object.values(value)) objectsIn(item, into);
  }
  return into;
}

/**
 * Whether the original schema accepts `null` (the grammar's keywords only: `type`,
 * `const`, `enum`, `anyOf` and a `$ref` with at most annotations beside it constrain
 * `null`; the rest apply to other kinds of value). Checked with ajv via `Sample.restored`.
 */
export function acceptsNull(schema: unknown, root: Schema): boolean {
  if (!isNode(schema)) return schema !== false;
  if (typeof schema.$ref === 'string') return acceptsNull(resolveRef(root, schema.$ref), root);
  const types = typesOf(schema);
  if (types.length > 0 && !types.includes('null')) return false;
  if ('const' in schema && schema.const !== null) return false;
  const values = list(schema.enum);
  if (values !== undefined && !values.includes(null)) return false;
  const branches = list(schema.anyOf);
  return branches === undefined || branches.some((branch) => acceptsNull(branch, root));
}

export function only<T>(items: readonly T[]): T {
  const [item, ...rest] = items;
  if (item === undefined || rest.length > 0) throw new Error(`expected exactly one item, got ${items.length}`);
  return item;
}

export const tool = (parameters: Schema, name = 'probe'): ToolDefinition => ({ name, description: 'A tool with a generated schema.', parameters });

// --- ajv, the reference validator (JSON Schema 2020-12), with the formats the grammar uses ---

const dates = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true });
const FORMATS: Record<string, { pattern: RegExp; values: fc.Arbitrary<string> }> = {
  'date-time': { pattern: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/i, values: dates.map((date) => date.toISOString()) },
  date: { pattern: /^\d{4}-\d\d-\d\d$/, values: dates.map((date) => date.toISOString().slice(0, 10)) },
  email: { pattern: /^[^\s@]+@[^\s@]+$/, values: fc.emailAddress() },
  uuid: { pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, values: fc.uuid() },
};

const ajv = new Ajv2020.default({ strict: false, logger: false });
for (const [name, { pattern }] of Object.entries(FORMATS)) ajv.addFormat(name, pattern);

/** Whether ajv accepts `value` against `schema`. */
export const accepts = (schema: Schema, value: unknown): boolean => ajv.compile(schema)(value);

/** Why ajv refuses `value` against `schema`, for a failure message. */
export function refusal(schema: Schema, value: unknown): string {
  const validate = ajv.compile(schema);
  return validate(value) ? 'accepted' : `${JSON.stringify(value)} refused by ${JSON.stringify(schema)}: ${ajv.errorsText(validate.errors)}`;
}

// --- The schema grammar ---

/**
 * `refs`: nodes may be `$ref`s to the root's `$defs` (`Item`, `Point`), sometimes with
 * annotations beside them. `wild`: also nodes strict mode cannot express or that need
 * rewriting (free-form objects, `allOf`, `oneOf`, tuples, boolean schemas, remote and
 * dangling references, `nullable`, untyped `properties`/`items`, ...); no values are
 * generated for those.
 */
export interface Grammar { refs: boolean; wild: boolean }
export const MAIN: Grammar = { refs: true, wild: false };
export const WILD: Grammar = { refs: true, wild: true };

const NAMES = ['id', 'name', 'count', 'tags', 'kind', 'a/b', 'x~y'];
const DEFINITIONS = ['Item', 'Point'];
const PATTERNS = ['^[a-z]{1,6}$', '^\\d{3}-\\d{4}$', '[A-Z]'];

const shortText = fc.string({ maxLength: 6 });
const notesRecord = fc.record({ description: fc.string({ maxLength: 12 }), title: shortText, default: fc.oneof(shortText, fc.integer({ min: -9, max: 9 }), fc.boolean()) }, { requiredKeys: [] });
const annotations: fc.Arbitrary<Schema> = fc.oneof({ weight: 3, arbitrary: fc.constant<Schema>({}) }, { weight: 1, arbitrary: notesRecord.map((given): Schema => ({ ...given })) });

/** `schema` with, sometimes, a `description`, `title` or `default` (annotations, which constrain nothing). */
function annotated(schema: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> {
  return fc.tuple(schema, annotations).map(([node, notes]) => ({ ...node, ...notes }));
}

const stringLeaf: fc.Arbitrary<Schema> = fc.oneof(
  fc.constant({ type: 'string' }),
  fc.uniqueArray(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 4 }).map((values) => ({ type: 'string', enum: values })),
  fc.constantFrom(...PATTERNS).map((pattern) => ({ type: 'string', pattern })),
  fc.record({ minLength: fc.nat(3), extra: fc.option(fc.nat(5), { nil: undefined }) }).map(({ minLength, extra }) => ({ type: 'string', minLength, ...(extra === undefined ? {} : { maxLength: minLength + extra }) })),
  fc.constantFrom(...Object.keys(FORMATS)).map((format) => ({ type: 'string', format })),
  shortText.map((value) => ({ type: 'string', const: value })),
);

const integerLeaf: fc.Arbitrary<Schema> = fc
  .record({ low: fc.integer({ min: -20, max: 20 }), width: fc.integer({ min: 10, max: 40 }), bounds: fc.constantFrom('none', 'minimum', 'exclusiveMinimum', 'both', 'maximum', 'range'), multipleOf: fc.constantFrom(undefined, 2, 3, 5) })
  .map(({ low, width, bounds, multipleOf }) => ({
    type: 'integer',
    ...(['minimum', 'both', 'range'].includes(bounds) ? { minimum: low } : {}),
    ...(bounds === 'exclusiveMinimum' ? { exclusiveMinimum: low - 1 } : bounds === 'both' ? { exclusiveMinimum: low } : {}),
    ...(['maximum', 'both', 'range'].includes(bounds) ? { maximum: low + width } : {}),
    ...(multipleOf === undefined ? {} : { multipleOf }),
  }));

const integerEnumLeaf: fc.Arbitrary<Schema> = fc.uniqueArray(fc.integer({ min: -5, max: 50 }), { minLength: 1, maxLength: 4 }).map((values) => ({ type: 'integer', enum: values }));

const numberLeaf: fc.Arbitrary<Schema> = fc
  .record({ low: fc.integer({ min: -20, max: 20 }), width: fc.integer({ min: 1, max: 40 }), bounds: fc.constantFrom('none', 'minimum', 'exclusiveMinimum', 'maximum', 'range', 'exclusiveRange') })
  .map(({ low, width, bounds }) => ({
    type: 'number',
    ...(bounds === 'minimum' || bounds === 'range' ? { minimum: low } : {}),
    ...(bounds === 'exclusiveMinimum' || bounds === 'exclusiveRange' ? { exclusiveMinimum: low } : {}),
    ...(['maximum', 'range', 'exclusiveRange'].includes(bounds) ? { maximum: low + width } : {}),
  }));

const typedLeaf: fc.Arbitrary<Schema> = fc.oneof(
  { weight: 4, arbitrary: stringLeaf }, { weight: 2, arbitrary: integerLeaf }, { weight: 1, arbitrary: integerEnumLeaf },
  { weight: 2, arbitrary: numberLeaf }, { weight: 1, arbitrary: fc.constant({ type: 'boolean' }) },
);

const primitive = fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -5, max: 5 }), fc.boolean());
/** `const` and `enum` without `type`. */
const untypedLeaf: fc.Arbitrary<Schema> = fc.oneof(
  primitive.map((value) => ({ const: value })),
  fc.uniqueArray(primitive, { minLength: 1, maxLength: 4 }).map((values) => ({ enum: values })),
);

/**
 * A typed schema that also takes `null`, spelled `type: [t, 'null']`. An `enum` gets
 * `null` too only sometimes, and a `const` only sometimes becomes `enum: [c, null]`, so
 * `null` is sometimes still refused by the schema as a whole.
 */
function nullableOf(schema: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> {
  return fc.tuple(schema, fc.boolean()).map(([node, withNull]) => {
    if (typeof node.type !== 'string') return node;
    const out: Schema = { ...node, type: [node.type, 'null'] };
    const values = list(out.enum);
    if (values !== undefined && withNull) out.enum = [...values, null];
    if ('const' in out && withNull) {
      out.enum = [out.const, null];
      delete out.const;
    }
    return out;
  });
}

export function objectOf(child: fc.Arbitrary<Schema>, minProperties: number): fc.Arbitrary<Schema> {
  return fc
    .record({
      properties: fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), child, fc.boolean()), { minLength: minProperties, maxLength: 4, selector: ([name]) => name }),
      closed: fc.boolean(),
      listsRequired: fc.boolean(),
    })
    .map(({ properties, closed, listsRequired }) => {
      const required = properties.filter(([, , isRequired]) => isRequired).map(([name]) => name);
      const object: Schema = { type: 'object', properties: Object.fromEntries(properties.map(([name, schema]) => [name, schema])) };
      return { ...object, ...(required.length > 0 || listsRequired ? { required } : {}), ...(closed ? { additionalProperties: false } : {}) };
    });
}

function arrayOf(child: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> {
  return fc
    .record({ items: child, minItems: fc.option(fc.nat(2), { nil: undefined }), extra: fc.option(fc.nat(3), { nil: undefined }) })
    .map(({ items, minItems, extra }) => ({ type: 'array', items, ...(minItems === undefined ? {} : { minItems }), ...(extra === undefined ? {} : { maxItems: (minItems ?? 0) + extra }) }));
}

/** Leaves strict mode cannot express, or only after a rewrite. */
const wildLeaf: fc.Arbitrary<Schema> = fc.constantFrom<Schema>(
  {}, { type: 'object' }, { type: 'object', additionalProperties: { type: 'string' } },
  { type: 'object', properties: { on: { type: 'boolean' } }, additionalProperties: true },
  { type: 'object', patternProperties: { '^x-': { type: 'string' } } }, { type: 'object', properties: { on: true, off: false } },
  { $ref: 'https://example.com/schemas/thing.json' }, { $ref: '#/$defs/Missing' }, { $ref: '#' },
  { type: 'string', nullable: true }, { type: 'object', nullable: true, properties: { a: { type: 'string' } } },
  { type: ['string', 'integer'] }, { type: 'date' }, { type: 'integer', format: 'int64' }, { type: 'string', format: 'color' },
  { not: { type: 'string' } }, { type: 'array', items: true }, { type: 'array' }, { anyOf: [] }, { enum: [1, 'a', null] },
  { type: 'number', exclusiveMaximum: 3, examples: [1, 2] }, { type: 'string', examples: ['a'], deprecated: true, readOnly: true },
);

function wildComposite(child: fc.Arbitrary<Schema>, grammar: Grammar): fc.Arbitrary<Schema> {
  const choices: Array<fc.Arbitrary<Schema>> = [
    fc.tuple(child, child).map(([a, b]) => ({ allOf: [a, b] })),
    child.map((a) => ({ allOf: [a] })),
    fc.tuple(child, child).map(([a, b]) => ({ oneOf: [a, b] })),
    fc.tuple(child, child).map(([a, b]) => ({ type: 'array', prefixItems: [a, b] })),
    fc.tuple(child, child).map(([a, b]) => ({ type: 'array', items: [a, b] })),
    child.map((a) => ({ $defs: { Inner: a }, type: 'object', properties: { x: { $ref: '#/$defs/Inner' } } })),
    child.map((a) => ({ properties: { x: a } })),
    child.map((a) => ({ items: a })),
  ];
  // Definitions refer to no definition (a wild one may hold a bare `$ref: '#'`), so an inlined `$ref` never loops.
  if (grammar.refs) choices.push(fc.tuple(fc.constantFrom(...DEFINITIONS), child).map(([name, a]) => ({ $ref: `#/$defs/${name}`, type: 'object', properties: { extra: a } })));
  return fc.oneof(...choices);
}

/** A schema node nesting at most `depth` more levels. */
export function schemaNode(depth: number, grammar: Grammar): fc.Arbitrary<Schema> {
  const choices: Array<fc.WeightedArbitrary<Schema>> = [
    { weight: 6, arbitrary: typedLeaf }, { weight: 2, arbitrary: nullableOf(typedLeaf) }, { weight: 2, arbitrary: untypedLeaf }, { weight: 1, arbitrary: fc.constant({ type: 'null' }) },
  ];
  if (grammar.wild) choices.push({ weight: 3, arbitrary: wildLeaf });
  if (depth > 0) {
    const child = schemaNode(depth - 1, grammar);
    choices.push(
      { weight: 4, arbitrary: objectOf(child, 1) },
      { weight: 1, arbitrary: nullableOf(objectOf(child, 1)) },
      { weight: 2, arbitrary: arrayOf(child) },
      { weight: 2, arbitrary: fc.tuple(child, child).map(([a, b]) => ({ anyOf: [a, b] })) },
      // A union of strings under a shared `type`.
      { weight: 1, arbitrary: fc.tuple(stringLeaf, stringLeaf).map(([a, b]) => ({ type: 'string', anyOf: [a, b] })) },
    );
    if (grammar.wild) choices.push({ weight: 3, arbitrary: wildComposite(child, grammar) });
  }
  if (!grammar.refs) return annotated(fc.oneof(...choices));
  const reference = fc.constantFrom(...DEFINITIONS).map((name) => ({ $ref: `#/$defs/${name}` }));
  return fc.oneof({ weight: 10, arbitrary: annotated(fc.oneof(...choices)) }, { weight: 1, arbitrary: annotated(reference) });
}

/** A tool schema: an object root (possibly without properties), with `$defs` when a reference needs them (and sometimes unused ones). */
export function rootSchema(grammar: Grammar): fc.Arbitrary<Schema> {
  const inner: Grammar = { ...grammar, refs: false };
  const definition = fc.oneof(objectOf(schemaNode(1, inner), 1), schemaNode(1, inner));
  return fc.tuple(objectOf(schemaNode(2, grammar), 0), definition, definition, fc.boolean(), annotations).map(([object, item, point, keepDefinitions, notes]) => {
    const root: Schema = { ...object, ...notes };
    return usesRef(root) || keepDefinitions ? { ...root, $defs: { Item: item, Point: point } } : root;
  });
}

// --- Values valid against a schema of the grammar ---

const plain = (values: fc.Arbitrary<unknown>): fc.Arbitrary<Sample> => values.map((value) => ({ value, sent: value, restored: value }));
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function stringValue(schema: Schema): fc.Arbitrary<string> {
  if (typeof schema.format === 'string') {
    const format = FORMATS[schema.format];
    if (format === undefined) throw new Error(`valueFor: the format ${schema.format} is outside the grammar`);
    return format.values;
  }
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern, 'u'));
  const minLength = num(schema.minLength) ?? 0;
  return fc.string({ minLength, maxLength: num(schema.maxLength) ?? minLength + 8 });
}

function integerValue(schema: Schema): fc.Arbitrary<number> {
  const exclusive = num(schema.exclusiveMinimum);
  const low = Math.max(num(schema.minimum) ?? -Infinity, exclusive === undefined ? -Infinity : Math.floor(exclusive) + 1);
  const high = num(schema.maximum) ?? (Number.isFinite(low) ? low + 1000 : 1000);
  const from = Number.isFinite(low) ? low : high - 2000;
  const step = num(schema.multipleOf) ?? 1;
  return fc.integer({ min: Math.ceil(from / step), max: Math.floor(high / step) }).map((n) => n * step + 0);
}

function numberValue(schema: Schema): fc.Arbitrary<number> {
  const minimum = num(schema.minimum);
  const exclusive = num(schema.exclusiveMinimum);
  const maximum = num(schema.maximum);
  const excluded = exclusive !== undefined && exclusive >= (minimum ?? -Infinity);
  const low = excluded ? exclusive : minimum;
  return fc
    .double({ noNaN: true, noDefaultInfinity: true, ...(low === undefined ? {} : { min: low, minExcluded: excluded }), ...(maximum === undefined ? {} : { max: maximum }) })
    .map((n) => n + 0);
}

function objectValue(schema: Schema, root: Schema): fc.Arbitrary<Sample> {
  const properties = isNode(schema.properties) ? schema.properties : {};
  const required = list(schema.required) ?? [];
  const parts = Object.entries(properties).map(([name, property]) => {
    const sample = valueFor(property, root);
    if (required.includes(name)) return sample.map((given) => ({ name, given, nullKept: false }));
    return fc.option(sample, { nil: undefined }).map((given) => ({ name, given, nullKept: acceptsNull(property, root) }));
  });
  return fc.tuple(...parts).map((entries) => {
    const [value, sent, restored]: [Schema, Schema, Schema] = [{}, {}, {}];
    for (const { name, given, nullKept } of entries) {
      if (given === undefined) {
        sent[name] = null;
        if (nullKept) restored[name] = null;
      } else {
        value[name] = given.value;
        sent[name] = given.sent;
        restored[name] = given.restored;
      }
    }
    return { value, sent, restored };
  });
}

function arrayValue(schema: Schema, root: Schema): fc.Arbitrary<Sample> {
  const minLength = num(schema.minItems) ?? 0;
  return fc.array(valueFor(schema.items, root), { minLength, maxLength: num(schema.maxItems) ?? minLength + 3 }).map((samples) => ({
    value: samples.map((sample) => sample.value),
    sent: samples.map((sample) => sample.sent),
    restored: samples.map((sample) => sample.restored),
  }));
}

function valueOfType(type: string, schema: Schema, root: Schema): fc.Arbitrary<Sample> {
  const values: Record<string, () => fc.Arbitrary<Sample>> = {
    null: () => plain(fc.constant(null)),
    boolean: () => plain(fc.boolean()),
    string: () => plain(stringValue(schema)),
    integer: () => plain(integerValue(schema)),
    number: () => plain(numberValue(schema)),
    array: () => arrayValue(schema, root),
    object: () => objectValue(schema, root),
  };
  const make = values[type];
  if (make === undefined) throw new Error(`valueFor: the type ${type} is outside the grammar`);
  return make();
}

/**
 * Values valid against `schema` (a schema of the `MAIN` grammar; `root` resolves its
 * references), each with what a strict model sends for it and what reading that back
 * must give (see `Sample`). Optional properties are left out at random.
 */
export function valueFor(schema: unknown, root: Schema): fc.Arbitrary<Sample> {
  if (!isNode(schema)) throw new Error(`valueFor: ${JSON.stringify(schema)} is outside the grammar`);
  if (typeof schema.$ref === 'string') return valueFor(resolveRef(root, schema.$ref), root);
  const branches = list(schema.anyOf);
  if (branches !== undefined) return fc.oneof(...branches.map((branch) => valueFor(branch, root)));
  if ('const' in schema) return plain(fc.constant(schema.const));
  const values = list(schema.enum);
  if (values !== undefined) return plain(fc.constantFrom(...values));
  const types = typesOf(schema);
  if (types.length === 0) throw new Error(`valueFor: ${JSON.stringify(schema)} is outside the grammar`);
  return fc.oneof(...types.map((type) => valueOfType(type, schema, root)));
}

export interface Case {
  schema: Schema;
  sample: Sample;
}
/** A tool schema of `grammar` (without wild nodes) and a value for it. */
export function cases(grammar: Grammar): fc.Arbitrary<Case> {
  return rootSchema(grammar).chain((schema) => valueFor(schema, schema).map((sample) => ({ schema, sample })));
}

// --- Recursive schemas and their values ---

const treeNode: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.record(
    { label: fc.string({ maxLength: 4 }), children: fc.oneof({ depthSize: 'small', maxDepth: 4 }, fc.constant([]), fc.array(tie('node'), { maxLength: 3 })) },
    { requiredKeys: ['label'] },
  ),
})).node;
const chain: fc.Arbitrary<unknown> = fc.letrec<{ link: unknown }>((tie) => ({
  link: fc.record({ name: fc.string({ maxLength: 4 }), next: fc.oneof({ depthSize: 'small', maxDepth: 5 }, fc.constant(undefined), tie('link')) }, { requiredKeys: ['name'] }).map((link) => {
    const { next, ...rest } = link;
    return next === undefined ? rest : { ...rest, next };
  }),
})).link;
const linkSchema = (next: string): Schema => ({ type: 'object', properties: { name: { type: 'string' }, next: { $ref: next } }, required: ['name'] });
const nodeSchema: Schema = { type: 'object', properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } }, required: ['label'] };
/** Recursive schemas (a tree, a root that refers to itself, two definitions that refer to each other), each with what it is and a generator of its values. */
export const RECURSIVE_SCHEMAS: Array<[string, Schema, fc.Arbitrary<unknown>]> = [
  ['a tree node whose children refer back to the node', { type: 'object', properties: { root: { $ref: '#/$defs/Node' } }, required: ['root'], $defs: { Node: nodeSchema } }, treeNode.map((root) => ({ root }))],
  ['a root that refers to itself', linkSchema('#'), chain],
  ['two definitions that refer to each other', { type: 'object', properties: { first: { $ref: '#/$defs/A' } }, $defs: { A: linkSchema('#/$defs/B'), B: linkSchema('#/$defs/A') } }, chain.map((first) => ({ first }))],
];

// --- Strict mode's shape rules and Gemini's OpenAPI subset, as the test reads them ---

const STRICT_KEYWORDS = new Set([
  'type', 'description', 'title', 'enum', 'const', 'anyOf', '$ref', '$defs', 'definitions', 'properties', 'required', 'additionalProperties', 'items',
  'pattern', 'format', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'minItems', 'maxItems',
]);

/** Where a lowered strict schema breaks strict mode's rules (empty when it keeps them). */
export function strictShapeProblems(root: Schema): string[] {
  const problems: string[] = [];
  if (root.type !== 'object') problems.push(`the root has type ${JSON.stringify(root.type)}`);
  for (const keyword of ['anyOf', 'oneOf', 'allOf']) if (keyword in root) problems.push(`the root has "${keyword}"`);
  everyNode(root, (node, path) => {
    for (const key of Object.keys(node)) if (!STRICT_KEYWORDS.has(key)) problems.push(`${path}: the keyword "${key}"`);
    if (path !== '' && ('$defs' in node || 'definitions' in node)) problems.push(`${path}: definitions below the root`);
    if (typeof node.$ref === 'string') {
      if (Object.keys(node).length !== 1) problems.push(`${path}: keywords beside "$ref"`);
      if (node.$ref !== '#' && !isNode(atPointer(root, decodeURIComponent(node.$ref.slice(1))))) problems.push(`${path}: "$ref" ${node.$ref} names no definition`);
    }
    if (typesOf(node).includes('object') || 'properties' in node) {
      if (node.additionalProperties !== false) problems.push(`${path}: an object without "additionalProperties": false`);
      const names = isNode(node.properties) ? Object.keys(node.properties).sort() : undefined;
      const required = list(node.required)?.map(String).sort();
      if (names === undefined) problems.push(`${path}: an object without "properties"`);
      else if (JSON.stringify(required) !== JSON.stringify(names)) problems.push(`${path}: "required" ${JSON.stringify(required)} is not every property ${JSON.stringify(names)}`);
    }
  });
  return problems;
}

/** The fields of the Gemini API's `Schema` message the projection may write. */
const GEMINI_FIELDS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'default', 'example', 'properties', 'required', 'items', 'anyOf',
  'minimum', 'maximum', 'pattern', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties',
]);
const GEMINI_TYPES = new Set(['OBJECT', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'NULL']);
const GEMINI_COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'];

/** Where a lowered Gemini schema leaves the OpenAPI subset (empty when it stays inside). */
export function geminiShapeProblems(schema: unknown): string[] {
  const problems: string[] = [];
  everyNode(schema, (node, path) => {
    for (const key of ['$ref', '$defs', 'definitions', 'additionalProperties', 'const', 'oneOf', 'allOf']) if (key in node) problems.push(`${path}: "${key}"`);
    for (const key of Object.keys(node)) if (!GEMINI_FIELDS.has(key)) problems.push(`${path}: the field "${key}"`);
    if (node.type !== undefined && !(typeof node.type === 'string' && GEMINI_TYPES.has(node.type))) problems.push(`${path}: the type ${JSON.stringify(node.type)}`);
    const values = list(node.enum);
    if (node.enum !== undefined && (values === undefined || !values.every((value) => typeof value === 'string'))) problems.push(`${path}: the enum ${JSON.stringify(node.enum)}`);
    for (const key of GEMINI_COUNTS) if (node[key] !== undefined && !(typeof node[key] === 'string' && /^\d+$/.test(node[key]))) problems.push(`${path}: "${key}" ${JSON.stringify(node[key])} is not an int64 string`);
    if (node.nullable !== undefined && typeof node.nullable !== 'boolean') problems.push(`${path}: "nullable" is not a boolean`);
    if (node.items !== undefined && !isNode(node.items)) problems.push(`${path}: "items" is not one schema`);
    const required = list(node.required);
    if (required !== undefined && !required.every((name) => typeof name === 'string' && isNode(node.properties) && name in node.properties)) problems.push(`${path}: "required" names a missing property`);
  });
  return problems;
}

const GEMINI_KINDS: Record<string, (value: unknown) => boolean> = {
  OBJECT: isNode, STRING: (value) => typeof value === 'string', NUMBER: (value) => typeof value === 'number', INTEGER: (value) => Number.isInteger(value),
  BOOLEAN: (value) => typeof value === 'boolean', ARRAY: Array.isArray, NULL: (value) => value === null,
};

/**
 * Why a schema of Gemini's OpenAPI subset refuses `value`, or `undefined` when it
 * accepts it. `nullable` admits `null`; a schema without `type` takes any kind of value;
 * string-only `enum`; the bounds apply to values of their kind; unknown fields are ignored.
 */
export function geminiRefusal(schema: unknown, value: unknown, path = ''): string | undefined {
  if (!isNode(schema)) return undefined;
  if (value === null && schema.nullable === true) return undefined;
  const refuse = (why: string): string => `${path || '/'}: ${why} (value ${JSON.stringify(value)})`;
  if (typeof schema.type === 'string') {
    const kind = GEMINI_KINDS[schema.type];
    if (kind === undefined) return refuse(`unknown type ${schema.type}`);
    if (!kind(value)) return refuse(`not of type ${schema.type}`);
  }
  const values = list(schema.enum);
  if (values !== undefined && !values.includes(value)) return refuse('not in "enum"');
  const count = (key: string): number | undefined => (typeof schema[key] === 'string' ? Number(schema[key]) : undefined);
  if (typeof value === 'string') {
    const length = [...value].length;
    if (length < (count('minLength') ?? 0) || length > (count('maxLength') ?? Infinity)) return refuse('length out of bounds');
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return refuse('does not match "pattern"');
  }
  if (typeof value === 'number' && (value < (num(schema.minimum) ?? -Infinity) || value > (num(schema.maximum) ?? Infinity))) return refuse('out of "minimum"/"maximum"');
  const items = list(value);
  if (items !== undefined) {
    if (items.length < (count('minItems') ?? 0) || items.length > (count('maxItems') ?? Infinity)) return refuse('item count out of bounds');
    const why = items.map((item, index) => geminiRefusal(schema.items, item, `${path}/items/${index}`)).find((reason) => reason !== undefined);
    if (why !== undefined) return why;
  }
  if (isNode(value)) {
    const properties = isNode(schema.properties) ? schema.properties : {};
    for (const name of list(schema.required) ?? []) if (typeof name === 'string' && !Object.hasOwn(value, name)) return refuse(`missing required "${name}"`);
    const why = Object.entries(value).map(([name, item]) => (Object.hasOwn(properties, name) ? geminiRefusal(properties[name], item, `${path}/properties/${escapeToken(name)}`) : undefined)).find((reason) => reason !== undefined);
    if (why !== undefined) return why;
  }
  const branches = list(schema.anyOf);
  if (branches !== undefined && !branches.some((branch, index) => geminiRefusal(branch, value, `${path}/anyOf/${index}`) === undefined)) return refuse('no "anyOf" branch accepts it');
  return undefined;
}

