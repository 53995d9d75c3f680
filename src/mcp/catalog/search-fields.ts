/**
 * What `tools_search` reads of an MCP tool: its own name, title and description as the
 * server listed them (not the model-facing name and description, which repeat the server
 * id in every tool), its parameters, and what the server says of itself, so that "on
 * GitHub" steers to the tools of the server that calls itself GitHub.
 */
import { parameterText, type ToolSearchFields } from '../../core/search/fields.js';
import type { McpRoute } from './routes.js';
import type { ServerMeta } from '../session/session.js';

export function mcpSearchFields(route: McpRoute, meta: ServerMeta | undefined): ToolSearchFields {
  const { tool } = route;
  const title = meta?.title?.trim() || meta?.name?.trim();
  const description = meta?.description?.trim();
  return {
    name: route.remoteName,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    parameters: parameterText(tool.inputSchema),
    server: { id: route.serverId, ...(title ? { title } : {}), ...(description ? { description } : {}) },
  };
}
