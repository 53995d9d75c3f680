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
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches) && !branches.some((branch) => mayAcceptNull(branch, root, depth + 1))) return false;
  }
  if ('const' in schema) return schema.const === null;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  const types = typesOf(schema);
  return types.length === 0 || types.includes('null') || schema.nullable === true;
}

function restore(schema: unknown, value: unknown, root: SchemaNode, depth: number): unknown {
  if (!isSchemaNode(schema) || depth > MAX_DEPTH) return value;
  if (typeof schema.$ref === 'string') return restore(resolveLocalRef(root, schema.$ref), value, root, depth + 1);
  if (Array.isArray(value)) return isSchemaNode(schema.items) ? value.map((item) => restore(schema.items, item, root, depth + 1)) : value;
  if (!isJsonObject(value)) return value;
  const properties = isSchemaNode(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (item === null && property !== undefined && !required.includes(name) && !mayAcceptNull(property, root, depth + 1)) continue;
    out[name] = property === undefined ? item : restore(property, item, root, depth + 1);
  }
  return out;
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
