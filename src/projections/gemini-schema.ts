/**
 * Gemini's `parameters` take the OpenAPI 3.0 subset of its `Schema` message, not JSON
 * Schema: upper-case types, `nullable` instead of a `null` type, string-only `enum`, no
 * `$ref`, no `additionalProperties`, integers of int64 fields as strings. This lowers a
 * copy of a JSON Schema into that subset: references are inlined (a recursive one is
 * cut where it would repeat), `const` becomes `enum`, type lists become `nullable` or
 * `anyOf`, and keywords the subset lacks are dropped (the schema then accepts more,
 * never less). The field list is the `Schema` type of the Gemini API reference.
 */
import { type ChangeLog, isSchemaNode, pointer, resolveLocalRef, type SchemaNode, typesOf } from './schema-tools.js';

/**
 * A schema in Gemini's OpenAPI subset. `type` is typed loosely on purpose: its values
 * are the names of `@google/genai`'s `Type` enum (`'OBJECT'`, `'STRING'`, ...), and a
 * TypeScript string enum accepts no string literal, so a narrower type here would make
 * every projected tool list a type error where the SDK takes it.
 */
export interface GeminiSchema {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assignable to @google/genai's `Type` enum (see above)
  type?: any;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  default?: unknown;
  example?: unknown;
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  items?: GeminiSchema;
  anyOf?: GeminiSchema[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
  minLength?: string;
  maxLength?: string;
  minItems?: string;
  maxItems?: string;
  minProperties?: string;
  maxProperties?: string;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
  null: 'NULL',
};
/** The formats the subset knows, per type. */
const FORMATS: Record<string, Set<string>> = {
  string: new Set(['enum', 'date-time']),
  integer: new Set(['int32', 'int64']),
  number: new Set(['float', 'double']),
};
const COPIED = ['title', 'description', 'pattern', 'minimum', 'maximum', 'default'] as const;
/** int64 fields of the `Schema` message, which the API and the SDK's types take as strings. */
const COUNTS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const;
const HANDLED = new Set<string>([
  ...COPIED,
  ...COUNTS,
  'type', 'nullable', 'enum', 'const', 'format', 'properties', 'required', 'items', 'prefixItems',
  'anyOf', 'oneOf', 'allOf', '$ref', 'examples', 'example', 'exclusiveMinimum', 'exclusiveMaximum',
]);
/** Past this many schema nodes, further references are cut instead of inlined (inlining can grow a schema exponentially). */
const MAX_NODES = 10_000;
/** The deepest chain of references inlined into each other. */
const MAX_REF_DEPTH = 16;

class GeminiLowering {
  private nodes = 0;

  constructor(
    private readonly root: SchemaNode,
    private readonly log: ChangeLog,
  ) {}

  lower(input: unknown, path: string, refs: readonly string[]): GeminiSchema {
    this.nodes++;
    if (!isSchemaNode(input)) {
      this.log.add('rewritten', path, 'a boolean schema was written as a schema without constraints.');
      return {};
    }
    if (typeof input.$ref === 'string') return this.reference(input, path, refs);
    if (Array.isArray(input.allOf)) {
      // Each member lowered where it stands, then one schema holding every member's properties and requirements.
      const { allOf, ...rest } = input;
      this.log.add('rewritten', pointer(path, 'allOf'), '"allOf" was merged into one schema: Gemini has no "allOf".');
      return mergeLowered([this.lower(rest, path, refs), ...(allOf as unknown[]).map((member, index) => this.lower(member, pointer(path, 'allOf', index), refs))]);
    }
    const node = input;
    const out: GeminiSchema = {};
    this.type(node, out, path);
    for (const keyword of COPIED) if (node[keyword] !== undefined) out[keyword] = node[keyword] as never;
    for (const keyword of COUNTS) if (typeof node[keyword] === 'number') out[keyword] = String(node[keyword]);
    this.values(node, out, path);
    this.bounds(node, out, path);
    if (typeof node.format === 'string') {
      if (out.type !== undefined && FORMATS[String(out.type).toLowerCase()]?.has(node.format)) out.format = node.format;
      else this.log.dropped(path, 'format', `Gemini does not know the format ${JSON.stringify(node.format)} here`);
    }
    if (isSchemaNode(node.properties)) {
      out.properties = Object.fromEntries(Object.entries(node.properties).map(([name, schema]) => [name, this.lower(schema, pointer(path, 'properties', name), refs)]));
      const required = Array.isArray(node.required) ? node.required.filter((name): name is string => typeof name === 'string' && name in out.properties!) : [];
      if (required.length > 0) out.required = required;
    }
    this.items(node, out, path, refs);
    const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
    if (branches !== undefined) this.union(branches, node.anyOf === undefined ? 'oneOf' : 'anyOf', out, path, refs);
    for (const keyword of Object.keys(node)) if (!HANDLED.has(keyword)) this.log.dropped(path, keyword, 'Gemini\'s schema subset has no such field');
    return out;
  }

  /** A reference inlined in place, or cut where it would repeat (a cycle, or the size bound). */
  private reference(input: SchemaNode, path: string, refs: readonly string[]): GeminiSchema {
    const { $ref, ...siblings } = input as SchemaNode & { $ref: string };
    const target = resolveLocalRef(this.root, $ref);
    if (target === undefined) {
      this.log.dropped(path, '$ref', `the reference ${JSON.stringify($ref)} is not a definition of this schema`);
      return this.lower(siblings, path, refs);
    }
    if (refs.includes($ref) || refs.length >= MAX_REF_DEPTH || this.nodes > MAX_NODES) {
      this.log.add('cut', pointer(path, '$ref'), `the recursive reference ${JSON.stringify($ref)} was cut here: Gemini takes no references.`);
      const type = typesOf(target).find((name) => name !== 'null');
      const description = siblings.description ?? target.description;
      return { ...(type === undefined ? {} : { type: TYPE_NAMES[type] }), ...(typeof description === 'string' ? { description } : {}) };
    }
    this.log.add('rewritten', pointer(path, '$ref'), `${JSON.stringify($ref)} was inlined: Gemini takes no references.`);
    const { $defs: _defs, definitions: _definitions, ...body } = target;
    // The definition is lowered where it stands (so its changes point into it), the keywords beside the reference here.
    const inlined = this.lower(body, $ref === '#' ? '' : $ref.slice(1), [...refs, $ref]);
    return Object.keys(siblings).length === 0 ? inlined : mergeLowered([this.lower(siblings, path, refs), inlined]);
  }

  private type(node: SchemaNode, out: GeminiSchema, path: string): void {
    const types = typesOf(node);
    const named = types.filter((type) => type !== 'null' && TYPE_NAMES[type] !== undefined);
    if (types.includes('null') || node.nullable === true) out.nullable = true;
    if (types.includes('null') && named.length > 0) this.log.add('rewritten', pointer(path, 'type'), 'the "null" type was written as "nullable": true.');
    if (named.length === 1) out.type = TYPE_NAMES[named[0]!];
    else if (named.length > 1) {
      out.anyOf = named.map((type) => ({ type: TYPE_NAMES[type] }));
      this.log.add('rewritten', pointer(path, 'type'), `the type list ${JSON.stringify(node.type)} was written as "anyOf" (keywords of one type then apply to none).`);
    } else if (types.length === 1 && types[0] === 'null') out.type = 'NULL';
    else if (node.type === undefined && isSchemaNode(node.properties)) out.type = 'OBJECT';
    else if (node.type === undefined && node.items !== undefined) out.type = 'ARRAY';
  }

  /** `enum` and `const`: Gemini's `enum` holds strings only; other values are named in the description instead. */
  private values(node: SchemaNode, out: GeminiSchema, path: string): void {
    let values: unknown[] | undefined;
    if ('const' in node) {
      values = [node.const];
      this.log.add('rewritten', pointer(path, 'const'), '"const" was written as a one-value "enum".');
    } else if (Array.isArray(node.enum)) values = node.enum;
    if (values === undefined) return;
    if (values.includes(null)) out.nullable = true;
    const present = values.filter((value) => value !== null);
    if (present.every((value) => typeof value === 'string')) {
      out.enum = present;
      if (out.type === undefined) out.type = 'STRING';
      return;
    }
    const listed = present.map((value) => JSON.stringify(value)).join(', ');
    out.description = `${out.description === undefined ? '' : `${out.description} `}(one of: ${listed})`;
    this.log.add('rewritten', pointer(path, 'const' in node ? 'const' : 'enum'), 'the allowed values are not all strings, so they were named in the description: Gemini\'s "enum" holds strings only.');
  }

  /** Exclusive bounds become inclusive ones (the schema then also accepts the bound itself); `examples` becomes `example`. */
  private bounds(node: SchemaNode, out: GeminiSchema, path: string): void {
    for (const [exclusive, inclusive] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
      const value = node[exclusive];
      if (typeof value !== 'number') continue;
      if (out[inclusive] === undefined) out[inclusive] = value;
      this.log.add('rewritten', pointer(path, exclusive), `"${exclusive}" was written as "${inclusive}": Gemini has no exclusive bounds.`);
    }
    if (node.example !== undefined) out.example = node.example;
    else if (Array.isArray(node.examples) && node.examples.length > 0) {
      out.example = node.examples[0];
      this.log.add('rewritten', pointer(path, 'examples'), '"examples" was written as its first "example".');
    }
  }

  /** `items`; a tuple (`prefixItems` or an `items` list) becomes an array of any of its member schemas. */
  private items(node: SchemaNode, out: GeminiSchema, path: string, refs: readonly string[]): void {
    const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined;
    if (tuple !== undefined) {
      out.items = { anyOf: tuple.map((item, index) => this.lower(item, pointer(path, Array.isArray(node.prefixItems) ? 'prefixItems' : 'items', index), refs)) };
      this.log.add('rewritten', path, 'a tuple was written as an array whose items match any of its members: Gemini has no tuples.');
    } else if (node.items !== undefined) out.items = this.lower(node.items, pointer(path, 'items'), refs);
  }

  private union(branches: unknown[], keyword: 'anyOf' | 'oneOf', out: GeminiSchema, path: string, refs: readonly string[]): void {
    if (keyword === 'oneOf') this.log.add('rewritten', pointer(path, 'oneOf'), '"oneOf" was written as "anyOf": Gemini has no "oneOf".');
    const lowered = branches.map((branch, index) => this.lower(branch, pointer(path, keyword, index), refs));
    const present = lowered.filter((branch) => branch.type !== 'NULL');
    if (present.length < lowered.length) out.nullable = true;
    if (present.length === 1 && out.type === undefined) {
      // The union's own description (and title) describe the value better than its one branch's.
      const { description, title } = out;
      Object.assign(out, { ...present[0], nullable: out.nullable ?? present[0]!.nullable });
      if (description !== undefined) out.description = description;
      if (title !== undefined) out.title = title;
    }
    else out.anyOf = [...(out.anyOf ?? []), ...present];
  }
}

/**
 * Lowered schemas that all apply, as one: properties of every one (the first schema of
 * each name, which is all a value needs to match too), every requirement, and for any
 * other field the first one that sets it.
 */
function mergeLowered(schemas: GeminiSchema[]): GeminiSchema {
  const out: GeminiSchema = {};
  const properties: Record<string, GeminiSchema> = {};
  const required = new Set<string>();
  for (const schema of schemas) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties') for (const [name, property] of Object.entries(value as Record<string, GeminiSchema>)) properties[name] ??= property;
      else if (key === 'required') for (const name of value as string[]) required.add(name);
      else if (!(key in out)) (out as Record<string, unknown>)[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (required.size > 0) out.required = [...required].filter((name) => name in properties);
  return out;
}

/** `root` (already an object root) in Gemini's OpenAPI subset. */
export function lowerGemini(root: SchemaNode, log: ChangeLog): GeminiSchema {
  const lowering = new GeminiLowering(root, log);
  const { $defs: _defs, definitions: _definitions, ...body } = root;
  return lowering.lower(body, '', []);
}
