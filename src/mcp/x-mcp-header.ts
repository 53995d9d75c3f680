/**
 * SEP-2243 (2026-07-28): a tool may declare `x-mcp-header` on an argument so that it is
 * mirrored into an `Mcp-Param-<Name>` HTTP header. A Streamable HTTP client must leave
 * out tools whose declarations break the rules; the SDK does the mirroring itself.
 */

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);

/** Keywords whose subschemas are not reachable through a plain chain of `properties`. */
const UNREACHABLE_KEYWORDS = [
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
];
const MAP_KEYWORDS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What is wrong with the `x-mcp-header` declarations of a tool's input schema, or
 * `undefined` when they are all valid (or there are none). A declaration must be a
 * non-empty RFC 9110 token, unique case-insensitively, on a `string`, `integer` or
 * `boolean` property reached only through `properties`.
 */
export function xMcpHeaderProblem(inputSchema: unknown): string | undefined {
  const names = new Set<string>();
  const walk = (node: unknown, path: string, reachable: boolean): string | undefined => {
    if (!isObject(node)) return undefined;
    if ('x-mcp-header' in node) {
      const header = node['x-mcp-header'];
      if (!reachable || path === '') return `x-mcp-header at ${path || 'the root'} is not on a plain property`;
      if (typeof header !== 'string' || header === '') return `x-mcp-header at ${path} is not a non-empty string`;
      if (!TOKEN.test(header)) return `x-mcp-header "${header}" is not a valid header name`;
      if (typeof node.type !== 'string' || !HEADER_TYPES.has(node.type)) {
        return `x-mcp-header "${header}" is on a property that is not a string, integer or boolean`;
      }
      const key = header.toLowerCase();
      if (names.has(key)) return `x-mcp-header "${header}" is declared twice`;
      names.add(key);
    }
    if (isObject(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) {
        const problem = walk(child, path === '' ? name : `${path}.${name}`, reachable);
        if (problem !== undefined) return problem;
      }
    }
    for (const keyword of UNREACHABLE_KEYWORDS) {
      const sub = node[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : isObject(sub) && MAP_KEYWORDS.has(keyword) ? Object.values(sub) : [sub];
      for (const branch of branches) {
        const problem = walk(branch, `${path}<${keyword}>`, false);
        if (problem !== undefined) return problem;
      }
    }
    return undefined;
  };
  return walk(inputSchema, '', true);
}
