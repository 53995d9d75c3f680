/**
 * The call path of a model-facing MCP tool: route by name, make sure the tool the model
 * chose is still the same tool, invoke it (see `invoke.ts`) and adapt the result.
 * Everything the model should read comes back as a result; only the caller's own abort
 * rejects.
 */
import type { ToolCallOptions, ToolOutput } from '../../core/tool.js';
import { invokeTool } from './invoke.js';
import type { McpLogger } from '../logger.js';
import { jsonEqual } from './presentation.js';
import type { ServerRegistration } from '../registration.js';
import { callError, callOutput } from './results.js';
import type { McpRoute, RouteTable } from '../catalog/routes.js';

export interface CallContext {
  table: RouteTable;
  registrations: ReadonlyMap<string, ServerRegistration>;
  logger: McpLogger;
}

/** Why a captured route may no longer run, or `undefined` when it may. */
function staleRouteProblem(context: CallContext, captured: McpRoute): string | undefined {
  const registration = context.registrations.get(captured.serverId);
  if (registration === undefined || registration.generation !== captured.generation) {
    return `MCP server "${captured.serverId}" was re-registered; select the tool again.`;
  }
  const current = context.table.get(captured.name);
  if (current === undefined) return `MCP tool "${captured.name}" was removed; select a tool again.`;
  if (current === captured) return undefined;
  if (current.generation !== captured.generation || current.remoteName !== captured.remoteName || !jsonEqual(current.tool, captured.tool)) {
    return `MCP tool "${captured.name}" changed (catalog changed); select the tool again.`;
  }
  return undefined;
}

/** Whether calls to this tool may overlap others on its server, under the server's policy. */
export function isShared(registration: ServerRegistration, readOnlyHint: boolean | undefined): boolean {
  switch (registration.config.concurrency) {
    case 'parallel':
      return true;
    case 'read_only_parallel':
      // An annotation is a hint for scheduling, never a permission.
      return readOnlyHint === true;
    case 'serial':
      return false;
  }
}

/** Calls a published tool. `name` is the lowercased model-facing name. */
export async function callTool(context: CallContext, name: string, args: unknown, options: ToolCallOptions = {}): Promise<ToolOutput> {
  const captured = context.table.get(name);
  if (captured === undefined) {
    return callError('', name, 'tool_not_found', `MCP tool "${name}" was not found; use tools_search to find available tools.`);
  }
  const { serverId, remoteName } = captured;
  if (args === null || args === undefined) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    return callError(serverId, remoteName, 'invalid_arguments', `MCP tool "${name}" expects a JSON object of arguments.`);
  }
  const registration = context.registrations.get(serverId);
  const stale = staleRouteProblem(context, captured);
  if (registration === undefined || stale !== undefined) {
    return callError(serverId, remoteName, 'catalog_changed', stale ?? `MCP server "${serverId}" was removed.`);
  }
  const outcome = await invokeTool(
    context,
    registration,
    {
      remoteName,
      tool: captured.tool,
      shared: isShared(registration, captured.tool.annotations?.readOnlyHint),
      stillValid: () => staleRouteProblem(context, captured),
    },
    args as Record<string, unknown>,
    options,
  );
  if ('result' in outcome) return callOutput(serverId, remoteName, outcome.result, registration.config.limits);
  const { code, message } = outcome.failure;
  const output = callError(serverId, remoteName, code, message);
  // The authorization failure a model sees carries no transport details (design: the error object only).
  if (code === 'authorization_required') output.output = { error: { code, server_id: serverId } };
  return output;
}
