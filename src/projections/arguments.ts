/**
 * A model's tool-call arguments as the host should receive them: OpenAI sends a JSON
 * string, and a model under strict mode sends `null` for every optional property it
 * means to leave out (strict mode makes them required and nullable). Such a `null` is
 * read as "not given" where the tool's own schema does not accept `null`, so the MCP
 * server sees the call it would have seen without strict mode.
 */
import { isJsonObject } from '../core/json.js';
import { isSchemaNode, resolveLocalRef, type SchemaNode, typesOf } from './schema-tools.js';

/** Arguments the model sent, parsed: `{ ok: true, value }`, or why they are not JSON. */
export function parseArguments(raw: unknown): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return { ok: true, value: raw };
  // Some models send an empty string for a tool without arguments.
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
}

const MAX_DEPTH = 64;

/** Whether `schema` may accept `null` (unsure counts as yes, so a `null` is only ever removed where it is surely invalid). */
function mayAcceptNull(schema: unknown, root: SchemaNode, depth: number): boolean {
  if (!isSchemaNode(schema) || depth > MAX_DEPTH) return true;
  if (typeof schema.$ref === 'string') {
    const target = resolveLocalRef(root, schema.$ref);
    return target === undefined || mayAcceptNull(target, root, depth + 1);
  }
  if (Array.isArray(schema.allOf) && !schema.allOf.every((member) => mayAcceptNull(member, root, depth + 1))) return false;
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches) && !branches.some((branch) => mayAcceptNull(branch, root, depth + 1))) return false;
  }
  if ('const' in schema) return schema.const === null;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  const types = typesOf(schema);
  return types.length === 0 || types.includes('null') || schema.nullable === true;
}

/** `schema` with its `$ref` followed (a chain of them, within the depth bound). */
function resolved(schema: unknown, root: SchemaNode, depth: number): SchemaNode | undefined {
  let node = schema;
  for (let hops = depth; isSchemaNode(node) && typeof node.$ref === 'string' && hops <= MAX_DEPTH; hops++) node = resolveLocalRef(root, node.$ref);
  return isSchemaNode(node) && typeof node.$ref !== 'string' ? node : undefined;
}

/** An `allOf`'s members as one object schema: every member's properties (the first schema of each name) and requirements. */
function mergedAllOf(schema: SchemaNode, root: SchemaNode, depth: number): SchemaNode {
  const properties: Record<string, unknown> = {};
  const required: unknown[] = [];
  for (const member of [schema, ...(schema.allOf as unknown[])]) {
    const node = resolved(member, root, depth + 1);
    if (node === undefined) continue;
    if (isSchemaNode(node.properties)) for (const [name, item] of Object.entries(node.properties)) if (!Object.hasOwn(properties, name)) properties[name] = item;
    if (Array.isArray(node.required)) required.push(...(node.required as unknown[]));
  }
  const { allOf: _allOf, ...rest } = schema;
  return { ...rest, properties, required };
}

/** The JSON type of a value, as a schema's `type` names it. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Whether `schema` (followed through `$ref`) may take a value of `value`'s JSON type. */
function typeFits(schema: unknown, value: unknown, root: SchemaNode, depth: number): boolean {
  const node = resolved(schema, root, depth);
  if (node === undefined) return true;
  const types = typesOf(node);
  const type = jsonType(value);
  if (types.length === 0) {
    const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
    if (branches !== undefined && depth <= MAX_DEPTH) return branches.some((branch) => typeFits(branch, value, root, depth + 1));
    if (isSchemaNode(node.properties)) return type === 'object';
    if (node.items !== undefined) return type === 'array';
    return true;
  }
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/**
 * How well an object value fits a branch: 2 for each declared property its value fits
 * (a `null` its schema takes included), 1 for a `null` on an optional one that refuses it
 * (what strict mode sends), minus 2 for a `null` on a required one that refuses it. A nested union scores as its best branch.
 */
function branchScore(node: SchemaNode, value: Record<string, unknown>, root: SchemaNode, depth: number): number {
  if (depth > MAX_DEPTH) return 0;
  if (!isSchemaNode(node.properties)) {
    const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : [];
    return branches.reduce<number>((best, branch) => {
      const inner = resolved(branch, root, depth + 1);
      return inner === undefined || !typeFits(inner, value, root, depth + 1) ? best : Math.max(best, branchScore(inner, value, root, depth + 1));
    }, 0);
  }
  const properties = node.properties;
  const required = Array.isArray(node.required) ? node.required : [];
  let score = 0;
  for (const [key, item] of Object.entries(value)) {
    if (!Object.hasOwn(properties, key)) continue;
    if (item !== null) score += typeFits(properties[key], item, root, depth + 1) ? 2 : 0;
    else if (mayAcceptNull(properties[key], root, depth + 1)) score += 2;
    else if (!required.includes(key)) score += 1;
    else score -= 2;
  }
  return score;
}

/** The union branch a value most likely took: one whose type fits the value, and for an object, the one it fits best. */
function likelyBranch(branches: unknown[], value: unknown, root: SchemaNode, depth: number): SchemaNode | undefined {
  let best: SchemaNode | undefined;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const branch of branches) {
    const node = resolved(branch, root, depth + 1);
    if (node === undefined || !typeFits(node, value, root, depth + 1)) continue;
    const score = isJsonObject(value) ? branchScore(node, value, root, depth + 1) : 0;
    if (score > bestScore) [best, bestScore] = [node, score];
  }
  return best;
}

/** Names the branches of a union declare, so a `null` for one the chosen branch lacks is known to come from a merged root. */
function declaredByAny(branches: unknown[], root: SchemaNode, depth: number): Set<string> {
  const names = new Set<string>();
  for (const branch of branches) {
    const node = resolved(branch, root, depth + 1);
    if (node !== undefined && isSchemaNode(node.properties)) for (const name of Object.keys(node.properties)) names.add(name);
  }
  return names;
}

function restore(schema: unknown, value: unknown, root: SchemaNode, depth: number): unknown {
  const node = depth > MAX_DEPTH ? undefined : resolved(schema, root, depth);
  if (node === undefined) return value;
  if (Array.isArray(node.allOf)) return restore(mergedAllOf(node, root, depth), value, root, depth + 1);
  const branches = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  let out = value;
  if (Array.isArray(value) && isSchemaNode(node.items)) out = value.map((item) => restore(node.items, item, root, depth + 1));
  else if (isJsonObject(value)) {
    const properties = isSchemaNode(node.properties) ? node.properties : {};
    const required = Array.isArray(node.required) ? node.required : [];
    const kept: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
      if (item === null && property !== undefined && !required.includes(name) && !mayAcceptNull(property, root, depth + 1)) continue;
      kept[name] = property === undefined ? item : restore(property, item, root, depth + 1);
    }
    out = kept;
  }
  if (branches === undefined || out === null || typeof out !== 'object') return out;
  // A value in a union: read it back against the branch it most likely took.
  const branch = likelyBranch(branches, out, root, depth);
  if (branch === undefined) return out;
  if (isJsonObject(out) && isSchemaNode(branch.properties)) {
    // A null for a property only another branch declares was sent for the merged root strict mode saw.
    const own = branch.properties;
    const others = declaredByAny(branches, root, depth);
    out = Object.fromEntries(Object.entries(out).filter(([name, item]) => !(item === null && !Object.hasOwn(own, name) && others.has(name))));
  }
  return restore(branch, out, root, depth + 1);
}

/** Whether a value holds a `null` anywhere (only then is the schema walked). */
function holdsNull(value: unknown, depth = 0): boolean {
  if (value === null) return true;
  if (typeof value !== 'object' || depth > MAX_DEPTH) return false;
  return Object.values(value).some((item) => holdsNull(item, depth + 1));
}

/**
 * `args` without the `null`s sent for optional properties whose schema (`parameters()`,
 * the tool's original schema, read only when `args` holds a `null`) does not accept
 * `null`. Everything else is kept as sent.
 */
export function withoutStrictNulls(parameters: () => Record<string, unknown> | undefined, args: unknown): unknown {
  if (!holdsNull(args)) return args;
  const schema = parameters();
  return schema === undefined ? args : restore(schema, args, schema, 0);
}
