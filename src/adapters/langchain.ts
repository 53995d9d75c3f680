/**
 * `mcp-fleet/langchain`: a `ToolHost`, a `ToolSession` or a provider (the fleet manager,
 * an `McpToolProvider`) as LangChain structured tools, for `createAgent` from `langchain`,
 * LangGraph's `ToolNode`, or `model.bindTools()`. This module owns the LangChain side only:
 * a definition becomes a `DynamicStructuredTool` with the host's name, description and a
 * copy of its JSON Schema; a call goes through the host (so unknown names, failures and
 * timeouts are results) with LangChain's abort signal; a result becomes a `ToolMessage`
 * whose content the model reads and whose artifact keeps the audited envelope.
 *
 * Loaded only through its own subpath, so `@langchain/core` (an optional peer) is needed
 * only by applications that use it; nothing here needs `langchain` itself.
 */
import { adapterTarget, type ToolSource } from './source.js';
import { langChainTool, type LangChainTool, type LangChainToolsOptions } from './langchain-tool.js';

export {
  langChainToolContent,
  type LangChainContentBlocks,
  type LangChainTool,
  type LangChainToolArtifact,
  type LangChainToolContent,
  type LangChainToolsOptions,
} from './langchain-tool.js';
export { langChainSessionMiddleware, type LangChainSessionMiddleware } from './langchain-session.js';
export type { ToolSource } from './source.js';

/**
 * The source's tools as LangChain structured tools: one `DynamicStructuredTool` per
 * definition, with the host's name and description unchanged and a copy of its JSON
 * Schema (LangChain validates the arguments with it and sends it to the model as it is).
 * `responseFormat` is `'content_and_artifact'`: invoked with a tool call (as an agent
 * does), a tool returns a `ToolMessage` whose `content` is for the model (see
 * `LangChainToolsOptions.contentBlocks`) and whose `artifact` is a
 * `LangChainToolArtifact`; a tool-level failure has `status: 'error'`, and the run goes
 * on. Invoked with bare arguments, a tool returns the content alone.
 *
 * A call runs through the host with the `signal` of LangChain's `RunnableConfig`, which
 * `agent.invoke(input, { signal })` passes down: aborting the run cancels the MCP call
 * on the wire (`notifications/cancelled`) and the run rejects.
 *
 * The list is the source's definitions now. For a `ToolSession` that is the discovery
 * helpers and what the model selected so far; to offer what the model selects within a
 * run, use `langChainSessionMiddleware(session)` instead. A provider must have been
 * initialised (`init()`, or `startAll()` for the fleet).
 *
 * @param source a `ToolHost`, a `ToolSession`, or an initialised provider (`McpServerManager`, `McpToolProvider`)
 * @param options content dialect (default `'standard'`) and per-call deadline (default none)
 */
export function langChainTools(source: ToolSource, options: LangChainToolsOptions = {}): LangChainTool[] {
  const target = adapterTarget(source);
  return target.definitions().map((definition) => langChainTool(target, definition, options));
}
