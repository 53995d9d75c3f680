/**
 * What the schema projections share: a copy to work on, JSON Pointers, local `$ref`
 * lookup, and the change log each projection fills for `changes`.
 */
import type { JsonSchema } from '../core/tool.js';
import type { SchemaChange } from './types.js';

export type SchemaNode = Record<string, unknown>;

/** Whether `value` is a schema object (not `true`/`false`, not an array). */
export function isSchemaNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of a schema: projections change the copy, never the host's definition. */
export function copySchema(schema: JsonSchema): SchemaNode {
  return structuredClone<SchemaNode>(schema);
}

/** `path` extended by one key, escaped as RFC 6901 says. */
export function pointer(path: string, ...keys: Array<string | number>): string {
  return keys.reduce<string>((at, key) => `${at}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`, path);
}

/** The schema a local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`, any `#/...` pointer) names in `root`, or `undefined`. */
export function resolveLocalRef(root: SchemaNode, ref: string): SchemaNode | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchemaNode(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return isSchemaNode(node) ? node : undefined;
}

/** The JSON Schema `type` keyword as a list (empty when absent). */
export function typesOf(schema: SchemaNode): string[] {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((item): item is string => typeof item === 'string') : [];
}

/** The change log of one tool's projection. */
export class ChangeLog {
  readonly changes: SchemaChange[] = [];

  constructor(readonly tool: string) {}

  add(kind: SchemaChange['kind'], path: string, detail: string): void {
    this.changes.push({ tool: this.tool, path, kind, detail });
  }

  dropped(path: string, keyword: string, why = 'the API does not accept it'): void {
    this.add('dropped', pointer(path, keyword), `"${keyword}" was removed: ${why}.`);
  }
}

/** Keywords that only describe a value; dropping or moving them never changes what is accepted. */
export const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', '$comment', 'deprecated', 'readOnly', 'writeOnly']);
