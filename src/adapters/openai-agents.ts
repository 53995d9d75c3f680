/**
 * `mcp-fleet/openai-agents`: a `ToolHost`, a `ToolSession` or a provider (the fleet
 * manager, an `McpToolProvider`) as tools of the OpenAI Agents SDK (`@openai/agents`), in
 * two forms:
 *
 * - `openAIAgentsTools(source)`: function tools for `new Agent({ tools })`, with the
 *   schemas of the OpenAI Responses projection (strict mode where asked for). A snapshot
 *   of the source's definitions when it is called.
 * - `openAIAgentsMcpServer(source)`: one `MCPServer` for `new Agent({ mcpServers })`,
 *   listed again at every turn (a session's selected tools appear at the next step), with
 *   the SDK's MCP tool filters, guardrails and tracing spans.
 *
 * Either way a call goes through the host: a tool-level error (an unknown name, a server
 * failure, `isError`) is the tool's output and the run goes on; the run's abort signal
 * reaches the MCP server as a cancellation; images become the SDK's image outputs
 * (`input_image` parts of the next request), other media the host's notices.
 */
import type { FunctionTool } from '@openai/agents';
import type { ToolDefinition } from '../core/tool.js';
import { openaiResponses, type OpenAIResponsesTool } from '../projections/openai-responses.js';
import { callModelTool } from '../projections/turn.js';
import { functionToolOutput, type OpenAIAgentsToolOutput } from './openai-agents-output.js';
import { type AdapterTarget, adapterTarget, type ToolSource } from './source.js';

export { openAIAgentsMcpServer, type OpenAIAgentsMcpServerOptions } from './openai-agents-server.js';
export type { OpenAIAgentsToolOutput } from './openai-agents-output.js';
export type { ToolSource } from './source.js';

/** A function tool of this adapter: JSON Schema parameters, text or text-and-image output. */
export type OpenAIAgentsFunctionTool<Context = unknown> = FunctionTool<Context, FunctionTool['parameters'], OpenAIAgentsToolOutput>;

/** Options of `openAIAgentsTools`. */
export interface OpenAIAgentsToolsOptions {
  /**
   * Strict mode for every tool: `true` lowers each schema to what OpenAI strict mode
   * accepts (a schema it cannot express is sent non-strict, as the projection does);
   * `false` sends every tool non-strict. Default: each definition's own `strict` flag (the
   * discovery helpers strict, MCP tools as their servers wrote them). Either way a `null`
   * the model sends for an optional property whose schema refuses `null` (what strict
   * mode asks of it for a property it leaves out) reaches the server as not given.
   */
  strict?: boolean;
  /**
   * A deadline for each call, in milliseconds; its expiry is a tool-level `timeout` result
   * the model reads, and the MCP request is cancelled. Default: the server's
   * `timeouts.callMs`.
   */
  timeoutMs?: number;
}

function functionTool<Context>(target: AdapterTarget, definition: ToolDefinition, projected: OpenAIResponsesTool, options: OpenAIAgentsToolsOptions): OpenAIAgentsFunctionTool<Context> {
  // Built as a FunctionTool rather than with the SDK's `tool()`, which would rename a
  // name with `-` in it, lower an already lowered strict schema a second time (refusing
  // some the projection accepts), and turn a thrown error into its generic "An error
  // occurred while running the tool" text. Here nothing throws but the run's abort.
  return {
    type: 'function',
    name: definition.name,
    description: definition.description,
    parameters: structuredClone(projected.parameters) as FunctionTool['parameters'],
    strict: projected.strict,
    invoke: async (_context, input, details) =>
      functionToolOutput(await callModelTool(target, { name: definition.name, arguments: input }, () => definition.parameters, { signal: details?.signal, timeoutMs: options.timeoutMs })),
    needsApproval: () => Promise.resolve(false),
    isEnabled: () => Promise.resolve(true),
  };
}

/**
 * The source's definitions now, as function tools for `new Agent({ tools })`: names and
 * descriptions the host's, parameters a copy of the OpenAI Responses projection's. Each
 * call runs `call(name, args, { signal })` with the run's signal and returns the bounded
 * presentation: text, or `text` and `image` outputs in order.
 *
 * The list is a snapshot: for a `ToolSession`, whose tools change as the model selects
 * them, build it again before each run, or use `openAIAgentsMcpServer(session)`, which
 * the SDK lists at every turn. A provider must have been initialised.
 */
export function openAIAgentsTools<Context = unknown>(source: ToolSource, options: OpenAIAgentsToolsOptions = {}): Array<OpenAIAgentsFunctionTool<Context>> {
  const target = adapterTarget(source);
  const definitions = target.definitions();
  const { tools } = openaiResponses.tools(definitions, { strict: options.strict });
  return definitions.map((definition, index) => functionTool<Context>(target, definition, tools[index]!, options));
}
