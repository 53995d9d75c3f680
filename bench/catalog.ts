/**
 * Synthetic MCP tool catalogs for the catalog benchmarks: deterministic (same input,
 * same catalog), shaped like real servers' catalogs rather than `tool_1..tool_n`, so
 * naming, budget checks and publication do the work they do in production:
 *
 * - names `<service>_<verb>_<resource>` (16 x 8 x 16 = 2,048 distinct ones);
 * - one tool in 64 renamed to a spelling of its neighbour that normalises to the same
 *   model-facing name (`GitHub-List-Issue` next to `github_list_issue`), so both get hashed;
 * - one in 97 with a name long enough that `mcp_<server>_<tool>` passes 64 characters;
 * - descriptions of 100-250 bytes, small input schemas (1-4 properties, enums, bounds),
 *   an output schema on `get` tools, annotations, a few SEP-2243 `x-mcp-header`
 *   declarations and a few MCP Apps tools hidden from the model.
 */
import type { Tool } from '@modelcontextprotocol/client';

const SERVICES = [
  'github', 'gitlab', 'jira', 'linear', 'slack', 'notion', 'gdrive', 'gmail',
  'calendar', 'salesforce', 'hubspot', 'zendesk', 'stripe', 'postgres', 's3', 'kubernetes',
];
const VERBS = ['list', 'get', 'create', 'update', 'delete', 'search', 'archive', 'export'] as const;
const RESOURCES = [
  'issue', 'pull_request', 'comment', 'label', 'milestone', 'project', 'repository', 'branch',
  'release', 'webhook', 'user', 'team', 'attachment', 'workflow', 'subscription_item', 'audit_event',
];

type Verb = (typeof VERBS)[number];
/** The JSON-typed property map of an MCP tool's input schema. */
type Properties = NonNullable<Tool['inputSchema']['properties']>;

/** Tools per full catalog: every (service, verb, resource) once. */
export const FULL_CATALOG = SERVICES.length * VERBS.length * RESOURCES.length;

const words = (name: string): string => name.replace(/_/g, ' ');

function description(service: string, verb: Verb, resource: string): string {
  const thing = words(resource);
  const where = `in ${service}`;
  switch (verb) {
    case 'list':
      return `List ${thing}s ${where}, newest first. Returns at most \`limit\` items; pass the \`cursor\` of a previous response to read the next page.`;
    case 'get':
      return `Get one ${thing} ${where} by id, with its metadata and the fields named in \`include\`. Fails if the id does not exist.`;
    case 'create':
      return `Create a ${thing} ${where}. The title is required; labels and priority are optional. Returns the new ${thing} with its id and URL.`;
    case 'update':
      return `Update fields of an existing ${thing} ${where}. Only the fields given change; unknown fields are rejected by the server.`;
    case 'delete':
      return `Delete a ${thing} ${where} permanently. This cannot be undone; set \`confirm\` to true to proceed.`;
    case 'search':
      return `Search ${thing}s ${where} with a full-text query (supports quoted phrases and field:value filters), sorted by relevance or date.`;
    case 'archive':
      return `Archive a ${thing} ${where} so it no longer appears in lists. Archived items can be restored from the ${service} web interface.`;
    case 'export':
      return `Export ${thing}s ${where} changed since a date as CSV, JSON or XLSX. Large exports are paginated into several files.`;
  }
}

const id = { type: 'string', description: 'The identifier, as returned by list or search.', minLength: 1, maxLength: 128 };
const limit = { type: 'integer', description: 'Most items to return.', minimum: 1, maximum: 100, default: 20 };

function properties(verb: Verb, resource: string): { properties: Properties; required: string[] } {
  const thing = words(resource);
  switch (verb) {
    case 'list':
      return { properties: { limit, cursor: { type: 'string', description: 'Opaque pagination cursor.' } }, required: [] };
    case 'get':
      return {
        properties: { id, include: { type: 'array', items: { type: 'string', enum: ['metadata', 'history', 'links'] }, uniqueItems: true } },
        required: ['id'],
      };
    case 'create':
      return {
        properties: {
          title: { type: 'string', description: `Title of the ${thing}.`, maxLength: 256 },
          body: { type: 'string', description: 'Markdown body.' },
          labels: { type: 'array', items: { type: 'string' }, maxItems: 20 },
          priority: { type: 'string', enum: ['low', 'medium', 'high', 'urgent'] },
        },
        required: ['title'],
      };
    case 'update':
      return { properties: { id, fields: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['id', 'fields'] };
    case 'delete':
      return { properties: { id, confirm: { type: 'boolean', const: true } }, required: ['id', 'confirm'] };
    case 'search':
      return {
        properties: { query: { type: 'string', minLength: 1 }, limit, sort: { type: 'string', enum: ['relevance', 'created', 'updated'] } },
        required: ['query'],
      };
    case 'archive':
      return { properties: { id, reason: { type: 'string', maxLength: 500 } }, required: ['id'] };
    case 'export':
      return {
        properties: { format: { type: 'string', enum: ['csv', 'json', 'xlsx'] }, since: { type: 'string', format: 'date-time' } },
        required: ['format'],
      };
  }
}

/** `github_list_issue` → `GitHub-List-Issue`: another spelling that normalises to the same name. */
function collidingSpelling(name: string): string {
  return name
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('-');
}

/**
 * `count` tools (at most {@link FULL_CATALOG}); `seed` rotates which (service, verb,
 * resource) comes first, so servers built with different seeds list different orders.
 */
export function syntheticTools(count: number, seed = 0): Tool[] {
  if (count > FULL_CATALOG) throw new Error(`at most ${FULL_CATALOG} synthetic tools`);
  const tools: Tool[] = [];
  for (let n = 0; n < count; n++) {
    const k = (n + seed * 131) % FULL_CATALOG;
    const service = SERVICES[k % SERVICES.length]!;
    const verb = VERBS[Math.floor(k / SERVICES.length) % VERBS.length]!;
    const resource = RESOURCES[Math.floor(k / (SERVICES.length * VERBS.length))]!;
    let name = `${service}_${verb}_${resource}`;
    if (n % 97 === 96) name = `${name}_including_all_nested_children_and_archived_history`;
    const { properties: props, required } = properties(verb, resource);
    // One tool in 16 mirrors an argument into an HTTP header (SEP-2243), valid as declared.
    if (n % 16 === 5) props.workspace = { type: 'string', description: 'Workspace slug.', 'x-mcp-header': 'Workspace' };
    const tool: Tool = {
      name,
      description: description(service, verb, resource),
      inputSchema: { type: 'object', properties: props, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
      annotations: { readOnlyHint: verb === 'list' || verb === 'get' || verb === 'search' || verb === 'export', destructiveHint: verb === 'delete' },
    };
    if (verb === 'get') {
      tool.outputSchema = {
        type: 'object',
        properties: { id: { type: 'string' }, title: { type: 'string' }, updatedAt: { type: 'string', format: 'date-time' } },
        required: ['id'],
      };
    }
    if (n % 128 === 7) tool.title = `${service} ${verb} ${words(resource)}`;
    // A few MCP Apps tools that only the app UI calls: not published to the model.
    if (n % 256 === 11) tool._meta = { ui: { visibility: ['app'] } };
    tools.push(tool);
  }
  // Every 64th tool takes a spelling of its predecessor's name: a collision after normalisation.
  for (let n = 63; n < tools.length; n += 64) tools[n]!.name = collidingSpelling(tools[n - 1]!.name);
  return tools;
}
