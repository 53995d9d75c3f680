/**
 * OpenAI strict mode (Structured Outputs for function calling): a schema is accepted
 * only when every object is closed (`additionalProperties: false`), every property is
 * required, and only a subset of keywords appears. Lowering makes a copy that strict
 * mode accepts: optional properties become required and nullable (`runToolCalls` reads
 * such a `null` back as "not given"), keywords strict mode refuses are dropped (the
 * schema then accepts more, never less), and a schema that cannot be lowered without
 * refusing values the original accepts (a free-form object, an untyped value, a
 * tuple, `allOf`, a remote `$ref`, beyond strict mode's size limits) is not lowered.
 * The rules are OpenAI's "Supported schemas" list for Structured Outputs.
 */
import { ANNOTATIONS, type ChangeLog, isSchemaNode, pointer, resolveLocalRef, type SchemaNode, typesOf } from './schema-tools.js';

/** Why a schema cannot be lowered, and where. */
export class NotStrictError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(reason);
  }
}

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const KEPT = new Set(['type', 'description', 'title', 'enum', 'const']);
const STRING_KEPT = new Set(['pattern', 'format']);
const NUMBER_KEPT = new Set(['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum']);
const ARRAY_KEPT = new Set(['minItems', 'maxItems']);
/** Handled by the walk itself. */
const STRUCTURE = new Set(['properties', 'required', 'additionalProperties', 'items', 'anyOf', 'oneOf', 'allOf', '$ref', '$defs', 'definitions', 'nullable', 'patternProperties', 'prefixItems']);
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
/** Strict mode's documented limits: object nesting, properties in all, enum values in all. */
const MAX_OBJECT_DEPTH = 10;
const MAX_PROPERTIES = 5000;
const MAX_ENUM_VALUES = 1000;

/** Whether a lowered schema surely accepts `null`: something admits it and nothing beside it refuses it. */
function acceptsNull(schema: SchemaNode): boolean {
  if (schema.$ref !== undefined) return false;
  if ('const' in schema && schema.const !== null) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) return false;
  const types = typesOf(schema);
  if (types.length > 0 && !types.includes('null')) return false;
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((branch) => isSchemaNode(branch) && acceptsNull(branch));
  return types.includes('null') || schema.const === null || (Array.isArray(schema.enum) && schema.enum.includes(null));
}

/** `schema` also accepting `null`, as strict mode spells an optional property. */
export function nullable(schema: SchemaNode): SchemaNode {
  if (acceptsNull(schema)) return schema;
  const types = typesOf(schema);
  // A plain typed schema takes `null` into its type (and its enum); anything else is wrapped.
  if (types.length > 0 && schema.$ref === undefined && schema.anyOf === undefined) {
    const out: SchemaNode = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
    if ('const' in out) {
      out.enum = [out.const, null];
      delete out.const;
    } else if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    return out;
  }
  return { anyOf: [schema, { type: 'null' }] };
}


/** The JSON Pointer a local reference names (`#/$defs/x` → `/$defs/x`). */
const refPointer = (ref: string): string => (ref === '#' ? '' : ref.slice(1));

class StrictLowering {
  private properties = 0;
  private enumValues = 0;
  /** References being inlined right now: one met again is a cycle, and is kept as a reference. */
  private readonly inlining = new Set<string>();

  constructor(
    private readonly root: SchemaNode,
    private readonly log: ChangeLog,
  ) {}

  /** The lowered root, its definitions lowered alongside. */
  lowerRoot(): SchemaNode {
    const out = this.lower(this.root, '', 0);
    for (const keyword of ['$defs', 'definitions'] as const) {
      const defs = this.root[keyword];
      if (!isSchemaNode(defs)) continue;
      out[keyword] = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, this.lower(def, pointer('', keyword, name), 1)]));
    }
    return out;
  }

  /** `input` (at `path` in the original schema) lowered; the input is never modified. */
  private lower(input: unknown, path: string, depth: number): SchemaNode {
    if (!isSchemaNode(input)) throw new NotStrictError(path, 'a boolean schema cannot be expressed in strict mode');
    if (typeof input.$ref === 'string') return this.reference(input, path, depth);
    if (input.allOf !== undefined) return this.singleAllOf(input, path, depth);
    for (const keyword of ['$defs', 'definitions']) if (path !== '' && keyword in input) this.log.dropped(path, keyword, 'definitions are kept only at the root, where references point');
    const out: SchemaNode = {};
    const branches = [
      ...(Array.isArray(input.anyOf) ? input.anyOf.map((branch, index) => this.lower(branch, pointer(path, 'anyOf', index), depth)) : []),
      ...(Array.isArray(input.oneOf) ? input.oneOf.map((branch, index) => this.lower(branch, pointer(path, 'oneOf', index), depth)) : []),
    ];
    if (Array.isArray(input.oneOf)) this.log.add('rewritten', pointer(path, 'oneOf'), '"oneOf" was written as "anyOf": strict mode has no "oneOf" (a value matching several branches is no longer refused).');
    if (branches.length > 0) out.anyOf = branches;
    const types = this.types(input, path, branches.length > 0);
    if (types.length > 0) out.type = types.length === 1 ? types[0] : types;
    for (const [keyword, value] of Object.entries(input)) {
      if (STRUCTURE.has(keyword) || keyword === 'type') continue;
      const kept = KEPT.has(keyword) || (STRING_KEPT.has(keyword) && types.includes('string')) || (NUMBER_KEPT.has(keyword) && (types.includes('number') || types.includes('integer'))) || (ARRAY_KEPT.has(keyword) && types.includes('array'));
      if (keyword === 'format' && kept && !FORMATS.has(String(value))) {
        this.log.dropped(path, keyword, `strict mode does not know the format ${JSON.stringify(value)}`);
      } else if (kept) out[keyword] = value;
      else this.log.dropped(path, keyword, 'strict mode does not accept it');
    }
    if (Array.isArray(out.enum)) this.countEnum(out.enum.length, path);
    if (types.includes('object')) this.object(input, out, path, depth);
    if (types.includes('array')) this.array(input, out, path, depth);
    return out;
  }

  /** The annotations beside a `$ref` or an `allOf`, onto the lowered schema: descriptions kept, the rest dropped. */
  private annotate(out: SchemaNode, siblings: SchemaNode, path: string): SchemaNode {
    // A schema that lowered to a bare `$ref` takes nothing beside it, descriptions included.
    const bareRef = typeof out.$ref === 'string';
    for (const [keyword, value] of Object.entries(siblings)) {
      if ((keyword === 'description' || keyword === 'title') && !bareRef) out[keyword] = value;
      else this.log.dropped(path, keyword, bareRef ? 'strict mode takes no keywords beside "$ref"' : 'strict mode does not accept it');
    }
    return out;
  }

  /** The keyword beside `keyword` that constrains values (annotations do not), if any: strict mode cannot take the pair. */
  private constraintBeside(node: SchemaNode, keyword: string): string | undefined {
    return Object.keys(node).find((key) => key !== keyword && !ANNOTATIONS.has(key));
  }

  /** A one-member `allOf` with only annotations beside it is its member; anything else is beyond strict mode. */
  private singleAllOf(node: SchemaNode, path: string, depth: number): SchemaNode {
    const { allOf, ...siblings } = node;
    const constraint = this.constraintBeside(node, 'allOf');
    if (!Array.isArray(allOf) || allOf.length !== 1 || constraint !== undefined) {
      throw new NotStrictError(pointer(path, constraint ?? 'allOf'), 'strict mode does not accept "allOf"');
    }
    this.log.add('rewritten', pointer(path, 'allOf'), 'a one-member "allOf" was replaced by its member.');
    return this.annotate(this.lower(allOf[0], pointer(path, 'allOf', 0), depth), siblings, path);
  }

  /**
   * A `$ref`: kept when alone. Strict mode takes no keywords beside it, so with
   * annotations beside it the definition is inlined (unless that would repeat a cycle:
   * then the annotations are dropped), and with constraints beside it it cannot be lowered.
   */
  private reference(node: SchemaNode, path: string, depth: number): SchemaNode {
    const { $ref: ref, ...siblings } = node as SchemaNode & { $ref: string };
    const target = resolveLocalRef(this.root, ref);
    // Only the root and the root's own definitions survive lowering as they were (nested `$defs` are dropped).
    if (!(ref === '#' || /^#\/(?:\$defs|definitions)\/[^/]+$/.test(ref)) || target === undefined) {
      throw new NotStrictError(pointer(path, '$ref'), `the reference ${JSON.stringify(ref)} is not a definition of this schema`);
    }
    if (Object.keys(siblings).length === 0) return { $ref: ref };
    const constraint = this.constraintBeside(node, '$ref');
    if (constraint !== undefined) throw new NotStrictError(pointer(path, constraint), `strict mode takes no "${constraint}" beside "$ref"`);
    if (this.inlining.has(ref) || ref === '#') {
      for (const keyword of Object.keys(siblings)) this.log.dropped(path, keyword, 'strict mode takes no keywords beside a "$ref", and this one leads back to itself');
      return { $ref: ref };
    }
    this.inlining.add(ref);
    try {
      this.log.add('rewritten', pointer(path, '$ref'), `${JSON.stringify(ref)} was inlined here: strict mode takes no keywords beside "$ref".`);
      return this.annotate(this.lower(target, refPointer(ref), depth), siblings, path);
    } finally {
      this.inlining.delete(ref);
    }
  }

  /** The node's types (a `nullable: true` adds `null`), inferred where strict mode needs one; an untyped node that constrains nothing cannot be lowered. */
  private types(node: SchemaNode, path: string, hasUnion: boolean): string[] {
    const types = typesOf(node);
    for (const type of types) if (!TYPES.has(type)) throw new NotStrictError(pointer(path, 'type'), `the type ${JSON.stringify(type)} is not a JSON Schema type`);
    if (node.nullable !== undefined) {
      this.log.add('rewritten', pointer(path, 'nullable'), '"nullable" was written as a type union with "null".');
      if (node.nullable === true && types.length > 0 && !types.includes('null')) types.push('null');
    }
    if (types.length > 0 || hasUnion || 'enum' in node || 'const' in node) return types;
    if (isSchemaNode(node.properties)) {
      this.log.add('added', pointer(path, 'type'), 'a schema with "properties" was given "type": "object".');
      return ['object'];
    }
    if (node.items !== undefined) {
      this.log.add('added', pointer(path, 'type'), 'a schema with "items" was given "type": "array".');
      return ['array'];
    }
    throw new NotStrictError(path, 'a schema without a type accepts any value, which strict mode cannot express');
  }

  private object(node: SchemaNode, out: SchemaNode, path: string, depth: number): void {
    if (depth >= MAX_OBJECT_DEPTH) throw new NotStrictError(path, `objects nest deeper than strict mode's ${MAX_OBJECT_DEPTH} levels`);
    const properties = isSchemaNode(node.properties) ? node.properties : {};
    const names = Object.keys(properties);
    const extra = node.additionalProperties;
    if (extra !== undefined && extra !== false) throw new NotStrictError(pointer(path, 'additionalProperties'), 'an object that takes any keys cannot be closed as strict mode requires');
    if (isSchemaNode(node.patternProperties) && Object.keys(node.patternProperties).length > 0) {
      throw new NotStrictError(pointer(path, 'patternProperties'), 'an object with pattern properties cannot be closed as strict mode requires');
    }
    if (names.length === 0 && extra === undefined && path !== '') throw new NotStrictError(path, 'an object without properties takes any keys, which strict mode cannot express');
    if (extra === undefined) this.log.add('added', pointer(path, 'additionalProperties'), 'the object was closed ("additionalProperties": false), as strict mode requires.');
    const required = Array.isArray(node.required) ? node.required.filter((name): name is string => typeof name === 'string') : [];
    for (const name of required) if (!(name in properties)) throw new NotStrictError(pointer(path, 'required'), `"${name}" is required but has no schema`);
    this.properties += names.length;
    if (this.properties > MAX_PROPERTIES) throw new NotStrictError(path, `more than strict mode's ${MAX_PROPERTIES} properties in all`);
    out.properties = Object.fromEntries(
      names.map((name) => {
        const lowered = this.lower(properties[name], pointer(path, 'properties', name), depth + 1);
        if (required.includes(name)) return [name, lowered];
        this.log.add('rewritten', pointer(path, 'properties', name), `the optional property "${name}" was made required and nullable; a null from the model is read as "not given".`);
        return [name, nullable(lowered)];
      }),
    );
    out.required = names;
    out.additionalProperties = false;
  }

  private array(node: SchemaNode, out: SchemaNode, path: string, depth: number): void {
    if (!isSchemaNode(node.items)) throw new NotStrictError(pointer(path, 'items'), 'an array without one "items" schema (a tuple, or any items) cannot be expressed in strict mode');
    if (node.prefixItems !== undefined) this.log.dropped(path, 'prefixItems', 'strict mode does not accept it');
    out.items = this.lower(node.items, pointer(path, 'items'), depth);
  }

  private countEnum(values: number, path: string): void {
    this.enumValues += values;
    if (this.enumValues > MAX_ENUM_VALUES) throw new NotStrictError(path, `more than strict mode's ${MAX_ENUM_VALUES} enum values in all`);
  }
}

/** `root` (already an object root) lowered to what strict mode accepts; throws `NotStrictError` when it cannot be. */
export function lowerStrict(root: SchemaNode, log: ChangeLog): SchemaNode {
  return new StrictLowering(root, log).lowerRoot();
}
