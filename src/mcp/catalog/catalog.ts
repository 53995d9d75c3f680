/**
 * A server's tool catalog: `tools/list` walked page by page under the catalog budgets,
 * then filtered (include/exclude, MCP Apps visibility, SEP-2243 header declarations)
 * and checked against the per-tool budgets. A fault of the listing as a whole (a page,
 * item or cursor budget, a repeated cursor, a duplicate or malformed tool, the server's
 * metadata) rejects it, so the last published snapshot stays intact; a tool that breaks
 * a per-tool budget is only left out (see `left-out.ts`).
 */
import type { Tool } from '@modelcontextprotocol/client';
import { jsonBytes, scanJson, utf8Bytes, utf8Fits } from '../../core/budget.js';
import type { JsonSchema, ToolDefinition } from '../../core/tool.js';
import type { ResolvedServerConfig } from '../config/config.js';
import { McpFleetError } from '../errors.js';
import type { LeftOutTools } from './left-out.js';
import type { McpLimits } from '../config/policy.js';
import { isTransientError } from '../session/errors-sdk.js';
import { retryTransient } from '../session/retry.js';
import type { McpSession, ServerMeta } from '../session/session.js';
import { checkToolListPage } from './tool-list.js';
import { X_MCP_HEADER, xMcpHeaderProblem } from './x-mcp-header.js';

/** A catalog broke a budget or a rule; the previous snapshot stays published. */
export class McpCatalogError extends McpFleetError {
  readonly tool: string | undefined;
  readonly budget: string | undefined;

  constructor(serverId: string, message: string, options: { tool?: string; budget?: string; cause?: unknown } = {}) {
    super('catalog_invalid', message, { serverId, cause: options.cause });
    this.tool = options.tool;
    this.budget = options.budget;
  }
}

/**
 * Longest a `tools/list` page request waits for the calls in flight on its session.
 * Under a steady stream of calls a page goes out every 10 ms at most; an idle session
 * lists without waiting.
 */
export const PAGE_YIELD_MS = 10;

/**
 * Lists every tool of the server, following `nextCursor` within the page, item and
 * cursor budgets. Repeated cursors and duplicate tool names reject the catalog. Each
 * page is retried on transient failures; the whole walk is bounded by `signal`.
 */
export async function listAllTools(session: McpSession, config: ResolvedServerConfig, signal: AbortSignal): Promise<Tool[]> {
  const { limits } = config;
  const id = config.id;
  const tools: Tool[] = [];
  const seenCursors = new Set<string>();
  const seenNames = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    if (page > limits.catalogPages) {
      throw new McpCatalogError(id, `MCP server "${id}" has more than ${limits.catalogPages} pages of tools (limits.catalogPages).`, {
        budget: 'catalogPages',
      });
    }
    const params = cursor === undefined ? {} : { cursor };
    // Listing is background work: calls in flight on the session go first (see `whenQuiet`).
    await session.whenQuiet(PAGE_YIELD_MS);
    const raw = await retryTransient(
      () => session.client.request({ method: 'tools/list', params }, { signal, timeout: config.timeouts.listMs }),
      isTransientError,
      signal,
    );
    const result = checkToolListPage(raw);
    if (!('tools' in result)) {
      throw new McpCatalogError(id, `MCP server "${id}" sent an invalid tools/list result: ${result.message}.`, { tool: result.tool });
    }
    if (tools.length + result.tools.length > limits.catalogItems) {
      throw new McpCatalogError(id, `MCP server "${id}" lists more than ${limits.catalogItems} tools (limits.catalogItems).`, {
        budget: 'catalogItems',
      });
    }
    for (const tool of result.tools) {
      if (seenNames.has(tool.name)) {
        throw new McpCatalogError(id, `MCP server "${id}" lists the tool "${tool.name}" twice.`, { tool: tool.name });
      }
      seenNames.add(tool.name);
      tools.push(tool);
    }
    const next = result.nextCursor;
    if (next === undefined) return tools;
    if (utf8Bytes(next) > limits.cursorBytes) {
      throw new McpCatalogError(id, `MCP server "${id}" sent a pagination cursor over ${limits.cursorBytes} bytes (limits.cursorBytes).`, {
        budget: 'cursorBytes',
      });
    }
    if (seenCursors.has(next)) {
      throw new McpCatalogError(id, `MCP server "${id}" repeated a pagination cursor; its tool list never ends.`, {
        budget: 'catalogPages',
      });
    }
    seenCursors.add(next);
    cursor = next;
  }
}

/** Whether MCP Apps visibility lets the model see the tool: absent, or a list that includes "model". */
export function isModelVisible(tool: Tool): boolean {
  const ui = (tool._meta as { ui?: { visibility?: unknown } } | undefined)?.ui;
  if (ui === undefined || ui === null || typeof ui !== 'object' || !('visibility' in ui)) return true;
  const visibility = ui.visibility;
  if (visibility === undefined) return true;
  return Array.isArray(visibility) && visibility.includes('model');
}

/** Whether the include/exclude filter passes a remote name: exclude wins; an empty include means all. */
export function isIncluded(config: ResolvedServerConfig, remoteName: string): boolean {
  if (config.exclude.includes(remoteName)) return false;
  return config.include.length === 0 || config.include.includes(remoteName);
}

/** What the budget walk found for each tool it passed: whether its input schema may hold an `x-mcp-header` key. */
const headerKeys = new WeakMap<Tool, boolean>();

/**
 * Whether a tool may declare SEP-2243 `x-mcp-header` parameters (a call must then go
 * through the SDK's `callTool`, which mirrors them into headers). A tool
 * `publishableTools` never walked counts as declaring them.
 */
export function mayDeclareHeaders(tool: Tool): boolean {
  return headerKeys.get(tool) ?? true;
}

/**
 * The tools that would be published, each checked against the per-tool budgets; a tool
 * that breaks one is left out and recorded in `leftOut`, and the others go on. Excluded
 * and app-only tools are dropped before any budget applies. On a `2026-07-28` Streamable
 * HTTP session, tools with invalid SEP-2243 header declarations are dropped too (the
 * spec requires it).
 */
export function publishableTools(tools: readonly Tool[], config: ResolvedServerConfig, session: McpSession, leftOut: LeftOutTools): Tool[] {
  const { limits } = config;
  const checkHeaders = session.era === 'modern' && config.transport.type === 'http';
  const result: Tool[] = [];
  for (const tool of tools) {
    if (!isIncluded(config, tool.name) || !isModelVisible(tool)) continue;
    // One walk measures the input schema and tells whether it declares any header at all.
    const input = scanJson(tool.inputSchema, limits.schemaBytes, X_MCP_HEADER, limits.schemaDepth);
    // The header walk recurses, so it runs only on a schema whose depth is known to be sane.
    if (input.tooDeep) {
      leftOut.add(tool.name, 'schemaDepth', 'inputSchema', limits.schemaDepth);
      continue;
    }
    if (checkHeaders && input.mayHaveKey && xMcpHeaderProblem(tool.inputSchema) !== undefined) continue;
    if (!input.fits) {
      leftOut.add(tool.name, 'schemaBytes', 'inputSchema', limits.schemaBytes, () => jsonBytes(tool.inputSchema));
      continue;
    }
    if (tool.outputSchema !== undefined && !outputSchemaFits(tool, limits, leftOut)) continue;
    if (!utf8Fits(tool.description ?? '', limits.descriptionBytes)) {
      leftOut.add(tool.name, 'descriptionBytes', 'description', limits.descriptionBytes, () => utf8Bytes(tool.description ?? ''));
      continue;
    }
    if (!utf8Fits(tool.title ?? '', limits.descriptionBytes)) {
      leftOut.add(tool.name, 'descriptionBytes', 'title', limits.descriptionBytes, () => utf8Bytes(tool.title ?? ''));
      continue;
    }
    headerKeys.set(tool, input.mayHaveKey);
    result.push(tool);
  }
  return result;
}

/**
 * Whether a tool's output schema fits its own budget, recording the tool in `leftOut` if
 * not. A model never reads an output schema (only results are checked against it), so it
 * is held to `outputSchemaBytes`, not the input's `schemaBytes`; its depth is bounded
 * alike, since every serialisation and the validator's compilation walk it.
 */
function outputSchemaFits(tool: Tool, limits: McpLimits, leftOut: LeftOutTools): boolean {
  const output = scanJson(tool.outputSchema, limits.outputSchemaBytes, '', limits.schemaDepth);
  if (output.fits) return true;
  if (output.tooDeep) leftOut.add(tool.name, 'schemaDepth', 'outputSchema', limits.schemaDepth);
  else leftOut.add(tool.name, 'outputSchemaBytes', 'outputSchema', limits.outputSchemaBytes, () => jsonBytes(tool.outputSchema));
  return false;
}

/** Checks the combined size of the server's self-description (the name too: it titles the group when there is no title). */
export function checkServerMeta(meta: ServerMeta, config: ResolvedServerConfig): void {
  const bytes = [meta.name, meta.title, meta.description, meta.instructions].reduce((sum, text) => sum + utf8Bytes(text ?? ''), 0);
  if (bytes > config.limits.serverMetadataBytes) {
    throw new McpCatalogError(
      config.id,
      `MCP server "${config.id}" describes itself (name, title, description, instructions) in over ${config.limits.serverMetadataBytes} bytes (limits.serverMetadataBytes).`,
      { budget: 'serverMetadataBytes' },
    );
  }
}

/**
 * The schema a model receives: the tool's input schema as written, except that an
 * object schema without `properties` gets an empty one (some model APIs require it).
 * Constraints, compositions and `$ref`s are preserved, never dereferenced.
 */
export function modelSchema(inputSchema: Tool['inputSchema']): JsonSchema {
  const schema = inputSchema as JsonSchema;
  if (schema.type === 'object' && (schema.properties === undefined || schema.properties === null)) {
    return { ...schema, properties: {} };
  }
  return schema;
}

/** How every description of a server's tools opens; made once per server and shared by them all (see `functionDescription`). */
export function descriptionOpening(serverId: string): string {
  return `MCP server \`${serverId}\` tool \``;
}

/**
 * The function description: where the tool comes from, its title, then its own description.
 * Data, not instructions. Built from as few pieces as it can be: V8 keeps a joined string as
 * a tree of its parts, about 32 bytes a join, for as long as the catalog holds it, so a
 * caller describing many tools of one server passes the server's `opening` for all of them.
 */
export function functionDescription(serverId: string, tool: Tool, opening = descriptionOpening(serverId)): string {
  const title = tool.title?.trim();
  const description = tool.description?.trim();
  const lead = `${opening}${tool.name}`;
  if (title) return description ? `${lead}\`. Title: ${title}. ${description}` : `${lead}\`. Title: ${title}.`;
  return description ? `${lead}\`. ${description}` : `${lead}\`.`;
}

/** The model-facing definition of a tool under its local name. */
export function toolDefinition(name: string, serverId: string, tool: Tool, opening = descriptionOpening(serverId)): ToolDefinition {
  return { name, description: functionDescription(serverId, tool, opening), parameters: modelSchema(tool.inputSchema), strict: false };
}
