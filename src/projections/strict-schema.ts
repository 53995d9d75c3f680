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
import { type ChangeLog, isSchemaNode, pointer, resolveLocalRef, type SchemaNode, typesOf } from './schema-tools.js';

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

/** Whether a lowered schema already accepts `null`. */
function acceptsNull(schema: SchemaNode): boolean {
  if (typesOf(schema).includes('null')) return true;
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((branch) => isSchemaNode(branch) && acceptsNull(branch));
  return false;
}

/** `schema` also accepting `null`, as strict mode spells an optional property. */
export function nullable(schema: SchemaNode): SchemaNode {
  if (acceptsNull(schema)) return schema;
  const types = typesOf(schema);
  if (types.length > 0 && schema.$ref === undefined && schema.anyOf === undefined) {
    const out: SchemaNode = { ...schema, type: [...types, 'null'] };
    if ('const' in out) {
      out.enum = [out.const, null];
      delete out.const;
    } else if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    return out;
  }
  if (Array.isArray(schema.anyOf) && schema.$ref === undefined) return { ...schema, anyOf: [...(schema.anyOf as unknown[]), { type: 'null' }] };
  return { anyOf: [schema, { type: 'null' }] };
}

class StrictLowering {
  private properties = 0;
  private enumValues = 0;

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

  private lower(input: unknown, path: string, depth: number): SchemaNode {
    if (!isSchemaNode(input)) throw new NotStrictError(path, 'a boolean schema cannot be expressed in strict mode');
    const node = this.prepare(input, path);
    if (typeof node.$ref === 'string') return this.reference(node, path, depth);
    for (const keyword of ['$defs', 'definitions']) if (path !== '' && keyword in node) this.log.dropped(path, keyword, 'definitions are kept only at the root, where references point');
    const out: SchemaNode = {};
    if (Array.isArray(node.anyOf)) out.anyOf = node.anyOf.map((branch, index) => this.lower(branch, pointer(path, 'anyOf', index), depth));
    const types = this.types(node, path, out.anyOf !== undefined);
    if (types.length > 0) out.type = node.type;
    for (const [keyword, value] of Object.entries(node)) {
      if (STRUCTURE.has(keyword) || keyword === 'type') continue;
      const kept = KEPT.has(keyword) || (STRING_KEPT.has(keyword) && types.includes('string')) || (NUMBER_KEPT.has(keyword) && (types.includes('number') || types.includes('integer'))) || (ARRAY_KEPT.has(keyword) && types.includes('array'));
      if (keyword === 'format' && kept && !FORMATS.has(String(value))) {
        this.log.dropped(path, keyword, `strict mode does not know the format ${JSON.stringify(value)}`);
      } else if (kept) out[keyword] = value;
      else this.log.dropped(path, keyword, 'strict mode does not accept it');
    }
    if (Array.isArray(out.enum)) this.countEnum(out.enum.length, path);
    if (types.includes('object')) this.object(node, out, path, depth);
    if (types.includes('array')) this.array(node, out, path, depth);
    return out;
  }

  /** Rewrites strict mode has an equivalent for: `nullable`, `oneOf`, a one-member `allOf`. */
  private prepare(input: SchemaNode, path: string): SchemaNode {
    let node = input;
    if (node.nullable === true || node.nullable === false) {
      node = { ...node };
      if (node.nullable === true) node.type = [...typesOf(node), 'null'];
      delete node.nullable;
      this.log.add('rewritten', pointer(path, 'nullable'), '"nullable" was written as a type union with "null".');
    }
    if (Array.isArray(node.oneOf)) {
      node = { ...node, anyOf: [...((node.anyOf as unknown[] | undefined) ?? []), ...(node.oneOf as unknown[])] };
      delete node.oneOf;
      this.log.add('rewritten', pointer(path, 'oneOf'), '"oneOf" was written as "anyOf": strict mode has no "oneOf" (a value matching several branches is no longer refused).');
    }
    if (node.allOf !== undefined) {
      if (!Array.isArray(node.allOf) || node.allOf.length !== 1 || !isSchemaNode(node.allOf[0])) {
        throw new NotStrictError(pointer(path, 'allOf'), 'strict mode does not accept "allOf"');
      }
      const { allOf, ...rest } = node;
      node = { ...(allOf as SchemaNode[])[0], ...rest };
      this.log.add('rewritten', pointer(path, 'allOf'), 'a one-member "allOf" was merged into its schema.');
    }
    return node;
  }

  /** A `$ref`: kept when alone, inlined one level when other keywords stand beside it (strict mode refuses them there). */
  private reference(node: SchemaNode, path: string, depth: number): SchemaNode {
    const ref = node.$ref as string;
    if (!(ref === '#' || ref.startsWith('#/$defs/') || ref.startsWith('#/definitions/')) || resolveLocalRef(this.root, ref) === undefined) {
      throw new NotStrictError(pointer(path, '$ref'), `the reference ${JSON.stringify(ref)} is not a definition of this schema`);
    }
    const siblings = Object.keys(node).filter((key) => key !== '$ref');
    if (siblings.length === 0) return { $ref: ref };
    if (ref === '#') throw new NotStrictError(pointer(path, '$ref'), 'a recursive reference to the root with other keywords beside it');
    const { $ref: _ref, ...rest } = node;
    this.log.add('rewritten', pointer(path, '$ref'), `${JSON.stringify(ref)} was inlined here: strict mode takes no keywords beside "$ref".`);
    return this.lower({ ...resolveLocalRef(this.root, ref), ...rest }, path, depth);
  }

  /** The node's types, inferred where strict mode needs one; an untyped node that constrains nothing cannot be lowered. */
  private types(node: SchemaNode, path: string, hasAnyOf: boolean): string[] {
    const types = typesOf(node);
    for (const type of types) if (!TYPES.has(type)) throw new NotStrictError(pointer(path, 'type'), `the type ${JSON.stringify(type)} is not a JSON Schema type`);
    if (types.length > 0 || hasAnyOf || 'enum' in node || 'const' in node) return types;
    if (isSchemaNode(node.properties)) {
      node.type = 'object';
      this.log.add('added', pointer(path, 'type'), 'a schema with "properties" was given "type": "object".');
      return ['object'];
    }
    if (node.items !== undefined) {
      node.type = 'array';
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
