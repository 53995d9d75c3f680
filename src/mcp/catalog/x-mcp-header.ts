/**
 * SEP-2243 (2026-07-28): a tool may declare `x-mcp-header` on an argument so that it is
 * mirrored into an `Mcp-Param-<Name>` HTTP header. A Streamable HTTP client must leave
 * out tools whose declarations break the rules; the SDK does the mirroring itself.
 */
import { isJsonObject } from '../../core/json.js';

/** The schema keyword that declares a header. */
export const X_MCP_HEADER = 'x-mcp-header';

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);

/** Keywords whose subschemas are not reachable through a plain chain of `properties`. */
const UNREACHABLE_KEYWORDS = new Set([
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
]);
const MAP_KEYWORDS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

/** The declaration on one schema node, checked; `names` collects the lowercased headers seen. */
function declarationProblem(node: Record<string, unknown>, path: string, reachable: boolean, names: Set<string>): string | undefined {
  const header = node[X_MCP_HEADER];
  if (!reachable || path === '') return `x-mcp-header at ${path || 'the root'} is not on a plain property`;
  if (typeof header !== 'string' || header === '') return `x-mcp-header at ${path} is not a non-empty string`;
  if (!TOKEN.test(header)) return `x-mcp-header "${header}" is not a valid header name`;
  if (typeof node.type !== 'string' || !HEADER_TYPES.has(node.type)) {
    return `x-mcp-header "${header}" is on a property that is not a string, integer or boolean`;
  }
  const key = header.toLowerCase();
  if (names.has(key)) return `x-mcp-header "${header}" is declared twice`;
  names.add(key);
  return undefined;
}

/** Walks one schema node: its declaration, its `properties`, then every other subschema keyword. */
function walk(node: unknown, path: string, reachable: boolean, names: Set<string>): string | undefined {
  if (!isJsonObject(node)) return undefined;
  // One pass over the node's own keys: schemas are small and the keywords are rare.
  for (const key in node) {
    let problem: string | undefined;
    if (key === X_MCP_HEADER) {
      problem = declarationProblem(node, path, reachable, names);
    } else if (key === 'properties') {
      const properties = node.properties;
      if (!isJsonObject(properties)) continue;
      for (const name in properties) {
        problem = walk(properties[name], path === '' ? name : `${path}.${name}`, reachable, names);
        if (problem !== undefined) return problem;
      }
    } else if (UNREACHABLE_KEYWORDS.has(key)) {
      const sub = node[key];
      const branches = Array.isArray(sub) ? sub : isJsonObject(sub) && MAP_KEYWORDS.has(key) ? Object.values(sub) : [sub];
      for (const branch of branches) {
        problem = walk(branch, `${path}<${key}>`, false, names);
        if (problem !== undefined) return problem;
      }
    }
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * What is wrong with the `x-mcp-header` declarations of a tool's input schema, or
 * `undefined` when they are all valid (or there are none). A declaration must be a
 * non-empty RFC 9110 token, unique case-insensitively, on a `string`, `integer` or
 * `boolean` property reached only through `properties`.
 */
export function xMcpHeaderProblem(inputSchema: unknown): string | undefined {
  return walk(inputSchema, '', true, new Set());
}

/** One valid `x-mcp-header` declaration: the header's name and where its argument is. */
export interface XMcpHeaderDeclaration {
  header: string;
  /** Property names from the arguments object down to the argument. */
  path: string[];
  type: 'string' | 'integer' | 'boolean';
}

/**
 * The declarations of a tool's input schema, for a server checking the headers a client
 * mirrored; none when any declaration is invalid (a conforming client leaves such a tool out).
 */
export function xMcpHeaderDeclarations(inputSchema: unknown): XMcpHeaderDeclaration[] {
  if (xMcpHeaderProblem(inputSchema) !== undefined) return [];
  const found: XMcpHeaderDeclaration[] = [];
  const visit = (node: unknown, path: string[]): void => {
    if (!isJsonObject(node)) return;
    const header = node[X_MCP_HEADER];
    if (typeof header === 'string' && path.length > 0) found.push({ header, path, type: node.type as XMcpHeaderDeclaration['type'] });
    const properties = node.properties;
    if (isJsonObject(properties)) for (const name in properties) visit(properties[name], [...path, name]);
  };
  visit(inputSchema, []);
  return found;
}
