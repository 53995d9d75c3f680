/**
 * A `ToolSession` as a `createAgent` middleware: the tools offered to the model are the
 * session's working set at each model call, so what the model selects with `tools_select`
 * (or finds with `tools_search`) is callable at its next step, within the same run.
 * Written as the plain object `createMiddleware` from `langchain` returns, so this file
 * needs nothing but `@langchain/core`.
 */
import type { ToolSession } from '../core/session.js';
import type { ToolDefinition } from '../core/tool.js';
import { adapterTarget } from './source.js';
import { langChainTool, type LangChainTool, type LangChainToolsOptions } from './langchain-tool.js';

/**
 * The middleware {@link langChainSessionMiddleware} returns, typed by the two hooks it
 * has so that it fits `createAgent({ middleware })` without a type from `langchain`.
 */
export interface LangChainSessionMiddleware {
  /** `'McpFleetToolSession'`; `createAgent` refuses two middleware of one name. */
  readonly name: string;
  /** Adds the session's current tools to those of the model request. */
  wrapModelCall<Request extends { tools: readonly unknown[] }, Result>(request: Request, handler: (request: Request) => Result): Result;
  /** Runs a tool call the agent has no tool for through the session. */
  wrapToolCall<Request extends { tool?: unknown; toolCall: { name: string } }, Result>(request: Request, handler: (request: Request) => Result): Result;
}

/** What `createMiddleware` marks its results with (`Symbol.for`, so it is the same symbol as langchain's). */
const MIDDLEWARE_BRAND = Symbol.for('AgentMiddleware');

/**
 * A middleware for `createAgent` (from `langchain`) that offers the model a session's
 * tools as they are at each model call: the discovery helpers, the pinned tools, and what
 * the model discovered so far, each a tool as `langChainTools` makes it (same
 * options, content, artifact and error handling). A call of a name the agent has no tool
 * for goes to the session too, so the host answers it (a tool left out of the working set
 * still runs; an unknown name gets `tool_not_found` with near matches). Tools of the
 * agent's own `tools` list are left to the agent.
 *
 * ```ts
 * const agent = createAgent({ model, tools: [], middleware: [langChainSessionMiddleware(host.session())] });
 * ```
 *
 * @param session the conversation's working set (`host.session()`); use one per conversation
 * @param options as for `langChainTools`: content dialect (default `'standard'`), per-call deadline (default none)
 */
export function langChainSessionMiddleware(session: ToolSession, options: LangChainToolsOptions = {}): LangChainSessionMiddleware {
  const target = adapterTarget(session);
  // A definition keeps its tool (and schema copy) while the host keeps that definition object.
  let made = new Map<ToolDefinition, LangChainTool>();
  const current = (): LangChainTool[] => {
    const next = new Map<ToolDefinition, LangChainTool>();
    for (const definition of target.definitions()) next.set(definition, made.get(definition) ?? langChainTool(target, definition, options));
    made = next;
    return [...next.values()];
  };
  const forName = (name: string): LangChainTool => {
    const key = name.toLowerCase();
    const known = [...made.values()].find((tool) => tool.name.toLowerCase() === key);
    // Any object is let through, so the host (not LangChain) decides what the name means.
    return known ?? langChainTool(target, { name, description: '', parameters: { type: 'object' } }, options);
  };
  const middleware: LangChainSessionMiddleware = {
    name: 'McpFleetToolSession',
    wrapModelCall: (request, handler) => {
      // A name the agent already has stays the agent's: createAgent refuses a tool replaced under its name.
      const taken = new Set(request.tools.map((tool) => (tool as { name?: unknown }).name));
      return handler({ ...request, tools: [...request.tools, ...current().filter((tool) => !taken.has(tool.name))] });
    },
    wrapToolCall: (request, handler) => (request.tool !== undefined ? handler(request) : handler({ ...request, tool: forName(request.toolCall.name) })),
  };
  return Object.assign(middleware, { [MIDDLEWARE_BRAND]: true });
}
