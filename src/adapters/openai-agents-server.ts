/**
 * A `ToolHost`, `ToolSession` or provider as one `MCPServer` of the OpenAI Agents SDK
 * (`new Agent({ mcpServers: [...] })`). The SDK lists it again at every turn, so a
 * session's newly selected tools reach the next model request, and it applies its own
 * MCP machinery on top: `toolFilter`, per-server guardrails, MCP tracing spans,
 * `mcpConfig` (`convertSchemasToStrict`, `includeServerInToolNames`). Calls go through
 * the host, never to a server directly.
 */
import { invalidateServerToolsCache, type CallToolResult, type CallToolResultContent, type MCPCallToolOptions, type MCPServer } from '@openai/agents';
import { ToolHost } from '../core/host.js';
import { openaiResponses } from '../projections/openai-responses.js';
import { callModelTool } from '../projections/turn.js';
import { mcpToolResult } from './openai-agents-output.js';
import { type AdapterTarget, adapterTarget, type ToolSource } from './source.js';

/** An MCP tool as the SDK lists it. */
type AgentsMcpTool = Awaited<ReturnType<MCPServer['listTools']>>[number];

/** Options of `openAIAgentsMcpServer`. */
export interface OpenAIAgentsMcpServerOptions {
  /**
   * The server's name in the SDK: its tracing spans, its tool cache key and, with
   * `mcpConfig.includeServerInToolNames`, the prefix of its tool names. Give each source an
   * agent uses its own. Default `'mcp_fleet'`.
   */
  name?: string;
  /** The SDK's tool filter (static allow/block lists, or a function of the run context and agent). Default: none. */
  toolFilter?: MCPServer['toolFilter'];
  /** Guardrails run before every call of one of these tools. Default: none. */
  toolInputGuardrails?: MCPServer['toolInputGuardrails'];
  /** Guardrails run on every output of one of these tools. Default: none. */
  toolOutputGuardrails?: MCPServer['toolOutputGuardrails'];
  /** The SDK's custom data extractor for tool output items (it sees `structuredContent` and `_meta`). Default: none. */
  customDataExtractor?: MCPServer['customDataExtractor'];
  /**
   * A deadline for each call, in milliseconds; its expiry is a tool-level `timeout` result
   * the model reads, and the MCP request is cancelled. Default: the server's `timeouts.callMs`.
   */
  timeoutMs?: number;
}

class FleetMcpServer implements MCPServer {
  /**
   * Off, and best left off: the SDK's cache is keyed by server name across the whole
   * process, and a session's working set changes at every `tools_select`. The host's own
   * catalog is already in memory, so listing costs no round trip.
   */
  cacheToolsList = false;
  useStructuredContent = false;
  toolFilter?: MCPServer['toolFilter'];
  toolInputGuardrails?: MCPServer['toolInputGuardrails'];
  toolOutputGuardrails?: MCPServer['toolOutputGuardrails'];
  customDataExtractor?: MCPServer['customDataExtractor'];
  readonly name: string;
  private readonly target: AdapterTarget;

  constructor(
    private readonly source: ToolSource,
    private readonly options: OpenAIAgentsMcpServerOptions,
  ) {
    this.name = options.name ?? 'mcp_fleet';
    this.target = adapterTarget(source);
    this.toolFilter = options.toolFilter;
    this.toolInputGuardrails = options.toolInputGuardrails;
    this.toolOutputGuardrails = options.toolOutputGuardrails;
    this.customDataExtractor = options.customDataExtractor;
  }

  /** Initialises a `ToolHost` (idempotent, shared with every other user of it); a session or provider is used as it is. */
  async connect(): Promise<void> {
    if (this.source instanceof ToolHost) await this.source.init();
  }

  /** Closes nothing: the source outlives the agent (one host serves many runs and sessions), so close it yourself. */
  close(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * The source's definitions now, each root made an object schema and otherwise as
   * written; strict mode is the SDK's `mcpConfig.convertSchemasToStrict`.
   */
  listTools(): Promise<AgentsMcpTool[]> {
    const { tools } = openaiResponses.tools(this.target.definitions(), { strict: false });
    return Promise.resolve(
      tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: structuredClone(tool.parameters) as AgentsMcpTool['inputSchema'] })),
    );
  }

  async callTool(toolName: string, args: Record<string, unknown> | null, meta?: Record<string, unknown> | null, options?: MCPCallToolOptions): Promise<CallToolResultContent> {
    const { content, ...metadata } = await this.callToolResult(toolName, args, meta, options);
    return Object.assign(content, metadata);
  }

  /**
   * A `null` the model sent for an optional property whose schema refuses it is read as
   * "not given" (the SDK may have lowered the schema for strict mode). `meta`, from the
   * SDK's `toolMetaResolver`, is not forwarded: a host call carries arguments only.
   */
  async callToolResult(toolName: string, args: Record<string, unknown> | null, _meta?: Record<string, unknown> | null, options?: MCPCallToolOptions): Promise<CallToolResult> {
    // The schema is looked up only when the arguments hold a null.
    const parameters = (): Record<string, unknown> | undefined => this.target.definitions().find((definition) => definition.name === toolName)?.parameters;
    const output = await callModelTool(this.target, { name: toolName, arguments: args }, parameters, { signal: options?.signal, timeoutMs: this.options.timeoutMs });
    return mcpToolResult(output);
  }

  /** Clears what the SDK cached under this server's name (only with `cacheToolsList` turned on). */
  invalidateToolsCache(): Promise<void> {
    return invalidateServerToolsCache(this.name);
  }
}

/**
 * The source as an `MCPServer` for `new Agent({ mcpServers: [server] })`. Its tools are
 * the source's definitions at each turn, under their own names; a call goes through the
 * host (a tool-level error is the tool's output, the run's abort cancels the MCP
 * request), and the result is the bounded presentation as MCP text and image blocks.
 * `connect()` initialises a `ToolHost`; `close()` leaves the source open.
 */
export function openAIAgentsMcpServer(source: ToolSource, options: OpenAIAgentsMcpServerOptions = {}): MCPServer {
  return new FleetMcpServer(source, options);
}
