/**
 * The gateway's request handlers, installed on every server instance the SDK asks the
 * gateway for (one per 2025 session or stdio connection, one per 2026-07-28 request):
 * each looks up where a published name goes and relays the request there, in that
 * server's own era, through the fleet.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { type InputRequiredResult, ProtocolError, ProtocolErrorCode, type LoggingLevel, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { McpServerCallOptions } from '../mcp/calls/relay.js';
import { errorMessage, McpFleetError } from '../mcp/errors.js';
import type { McpLogger } from '../mcp/logger.js';
import { isProtocolError } from '../mcp/session/errors-sdk.js';
import type { GatewayCatalog } from './catalog.js';
import { type GatewayDiscovery, TOOLS_CALL, unwrapToolsCall } from './discovery.js';
import { callerLogLevel } from './logs.js';
import { callerCapabilities, framed, isInputRequired, isModernRequest, relayOptions } from './relay-context.js';
import { askLegacyCaller, HeldCalls, Unanswered } from './server-requests.js';
import type { McpGatewayUpstream } from './upstream.js';
import type { GatewayView } from './view.js';

/** What the handlers share with the gateway. */
export interface GatewayState {
  upstream: McpGatewayUpstream;
  catalog: GatewayCatalog;
  logger: McpLogger;
  /**
   * Calls in flight per server, each with the log level its caller asked for (`undefined`:
   * none): a server's log messages go to the call they belong to when it is the only one.
   */
  inflight: Map<string, Map<ServerContext, string | undefined>>;
  /** The level a 2025 session asked for with `logging/setLevel`. */
  logLevels: WeakMap<Server, LoggingLevel>;
  /** Resource subscriptions of a connection, by published URI (ended with it). */
  subscriptions: WeakMap<Server, Map<string, () => Promise<void>>>;
  /** Set once shutdown begins: calls in flight finish, new ones are refused. */
  draining: boolean;
  /** Aborted when the drain's time is up: the calls still running are cancelled, and each caller told so. */
  cutoff: AbortController;
  /** Calls of 2026-07-28 clients held open while a 2025 server waits for their answer. */
  held: HeldCalls;
  /** How long a 2025 client may take to answer a server's request relayed to it. */
  answerMs: number;
  /** Most tool calls in flight across every client; one more is refused as a tool-level error. */
  maxCallsInFlight: number;
}

/** Tool calls in flight now, across every connection. */
export function callsInFlight(state: GatewayState): number {
  let count = 0;
  for (const calls of state.inflight.values()) count += calls.size;
  return count;
}

/** SEP-2575's MissingRequiredClientCapabilityError (2026-07-28). */
const MISSING_CLIENT_CAPABILITY = -32021;

const SHUT_DOWN_DURING_CALL =
  'The mcp-fleet gateway shut down before the tool finished, so the call was cancelled. The tool may have run: check its effect before calling it again.';

/** The error a client reads for an upstream failure: the server's own JSON-RPC error when it sent one. */
function relayedError(error: unknown): Error {
  const cause = error instanceof McpFleetError ? error.cause : error;
  if (isProtocolError(cause)) return new ProtocolError(Number(cause.code), cause.message, cause.data);
  return new ProtocolError(ProtocolErrorCode.InternalError, errorMessage(error));
}

function track(state: GatewayState, serverId: string, ctx: ServerContext, level: string | undefined): () => void {
  let calls = state.inflight.get(serverId);
  if (calls === undefined) state.inflight.set(serverId, (calls = new Map<ServerContext, string | undefined>()));
  calls.set(ctx, level);
  return () => {
    calls.delete(ctx);
    if (calls.size === 0) state.inflight.delete(serverId);
  };
}

/** What one server instance serves: a view of the catalog, and for how long it lives. */
export interface GatewaySurface {
  view: GatewayView;
  /** Set with `--expose discovery`. */
  discovery?: GatewayDiscovery;
  /** Whether the instance lives for a connection (a 2025 session, stdio) rather than one 2026-07-28 request. */
  persistent: boolean;
}

export function installHandlers(server: Server, state: GatewayState, surface: GatewaySurface): void {
  const { upstream } = state;
  const { view: catalog, discovery, persistent } = surface;

  server.setRequestHandler('tools/list', (_request, ctx) => ({ tools: discovery === undefined ? catalog.tools() : discovery.list(server, persistent, isModernRequest(ctx)) }));

  server.setRequestHandler('tools/call', async (request, ctx) => {
    let name = request.params.name;
    let args = request.params.arguments ?? {};
    if (discovery?.isHelper(name) === true) {
      const { result, changed } = await discovery.call(server, persistent, name, args, ctx.mcpReq.signal);
      if (changed) void Promise.resolve(server.sendToolListChanged()).catch(() => {});
      return result;
    }
    const wrapped = discovery !== undefined && name === TOOLS_CALL;
    if (wrapped) {
      const target = unwrapToolsCall(args);
      if ('error' in target) return { content: [{ type: 'text', text: target.error }], isError: true } satisfies CallToolResult;
      ({ name, arguments: args } = target);
    }
    const route = catalog.toolRoute(name);
    if (route === undefined) {
      if (wrapped) return { content: [{ type: 'text', text: `tools_call: there is no tool "${name}"; find one with tools_search.` }], isError: true } satisfies CallToolResult;
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    if (state.draining) return { content: [{ type: 'text', text: 'The mcp-fleet gateway is shutting down; the tool did not run. Call it again once the gateway is back.' }], isError: true };
    if (callsInFlight(state) >= state.maxCallsInFlight) {
      return { content: [{ type: 'text', text: `The mcp-fleet gateway has ${state.maxCallsInFlight} tool calls in flight, its limit; the tool did not run. Call it again when one has finished.` }], isError: true };
    }
    const level = callerLogLevel(ctx, state.logLevels.get(server));
    const done = track(state, route.serverId, ctx, level);
    const modern = isModernRequest(ctx);
    const capabilities = callerCapabilities(server, ctx);
    const relay = relayOptions(server, ctx, level);
    const call = (extra: Pick<McpServerCallOptions, 'onServerRequest' | 'signal'>): Promise<CallToolResult> =>
      upstream.callServerTool(route.serverId, route.remoteName, args, { ...relay, ...extra });
    try {
      const stateIn = ctx.mcpReq.requestState<unknown>();
      let result: CallToolResult | InputRequiredResult;
      if (modern && HeldCalls.owns(stateIn)) {
        // The answer to a round the gateway made of a 2025 server's request: the held call goes on.
        result = await state.held.resume(stateIn, ctx.mcpReq.inputResponses, ctx.mcpReq.signal);
      } else if (modern) {
        result = await state.held.start(capabilities, (onServerRequest, stop) => call({ onServerRequest, signal: AbortSignal.any([stop, state.cutoff.signal]) }), ctx.mcpReq.signal);
      } else {
        const unanswered = new Unanswered();
        const onServerRequest = askLegacyCaller(ctx, capabilities, unanswered, state.answerMs);
        result = unanswered.told(await call({ onServerRequest, signal: AbortSignal.any([ctx.mcpReq.signal, state.cutoff.signal]) }));
      }
      if (isInputRequired(result)) return result;
      // Through tools_call the client knows no output schema to check the result against.
      return server.projectCallToolResult(framed(result as CallToolResult), wrapped ? undefined : route.tool.outputSchema);
    } catch (error) {
      if (ctx.mcpReq.signal.aborted) throw error;
      if (isProtocolError(error)) throw error;
      if (state.cutoff.signal.aborted) return { content: [{ type: 'text', text: SHUT_DOWN_DURING_CALL }], isError: true } satisfies CallToolResult;
      const refusal = (error as { cause?: unknown }).cause;
      if (isProtocolError(refusal)) {
        // A 2025 client has no such error code: it reads what the tool needed as a tool-level error.
        if (Number(refusal.code) === MISSING_CLIENT_CAPABILITY && !modern) {
          return { content: [{ type: 'text', text: `The tool needs something this client did not declare: ${refusal.message}` }], isError: true } satisfies CallToolResult;
        }
        // Otherwise the server's refusal (a capability the caller lacks, a state that fails its check), as it sent it.
        throw relayedError(error);
      }
      // A call that ended without a result is the model's to read, as a tool-level error.
      return { content: [{ type: 'text', text: errorMessage(error) }], isError: true } satisfies CallToolResult;
    } finally {
      done();
    }
  });

  server.setRequestHandler('prompts/list', async (_request, ctx) => ({ prompts: await catalog.prompts(ctx.mcpReq.signal) }));

  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const route = catalog.promptRoute(request.params.name) ?? (await catalog.prompts(ctx.mcpReq.signal), catalog.promptRoute(request.params.name));
    if (route === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${request.params.name}`);
    try {
      const result = await upstream.getPrompt(route.serverId, route.name, request.params.arguments ?? {}, {
        signal: ctx.mcpReq.signal,
        ...relayOptions(server, ctx, callerLogLevel(ctx, state.logLevels.get(server))),
      });
      return (isInputRequired(result) ? result : framed(result));
    } catch (error) {
      throw relayedError(error);
    }
  });

  server.setRequestHandler('resources/list', async (_request, ctx) => ({ resources: await catalog.resources(ctx.mcpReq.signal) }));
  server.setRequestHandler('resources/templates/list', async (_request, ctx) => ({ resourceTemplates: await catalog.templates(ctx.mcpReq.signal) }));

  server.setRequestHandler('resources/read', async (request, ctx) => {
    const uri = request.params.uri;
    const route = await catalog.resourceRoute(uri, ctx.mcpReq.signal);
    if (route === undefined) throw new ProtocolError(-32602, `Resource not found: ${uri}`, { uri });
    try {
      const result = await upstream.readResource(route.serverId, route.uri, { signal: ctx.mcpReq.signal, ...relayOptions(server, ctx, callerLogLevel(ctx, state.logLevels.get(server))) });
      if (isInputRequired(result)) return result;
      // A URI the gateway renamed is read under the name the client used.
      const contents = route.uri === uri ? result.contents : result.contents.map((content) => (content.uri === route.uri ? { ...content, uri } : content));
      return { ...framed(result), contents };
    } catch (error) {
      throw relayedError(error);
    }
  });

  server.setRequestHandler('resources/subscribe', async (request, ctx) => {
    const uri = request.params.uri;
    const route = await catalog.resourceRoute(uri, ctx.mcpReq.signal);
    if (route === undefined) throw new ProtocolError(-32602, `Resource not found: ${uri}`, { uri });
    let held = state.subscriptions.get(server);
    if (held === undefined) state.subscriptions.set(server, (held = new Map<string, () => Promise<void>>()));
    if (!held.has(uri)) {
      const listener = (): void => void server.sendResourceUpdated({ uri }).catch(() => {});
      try {
        await upstream.subscribeResource(route.serverId, route.uri, listener, { signal: ctx.mcpReq.signal });
      } catch (error) {
        throw relayedError(error);
      }
      held.set(uri, () => upstream.unsubscribeResource(route.serverId, route.uri, listener).then(() => undefined));
    }
    return {};
  });

  server.setRequestHandler('resources/unsubscribe', async (request) => {
    const held = state.subscriptions.get(server);
    const end = held?.get(request.params.uri);
    if (end !== undefined) {
      held!.delete(request.params.uri);
      await end().catch(() => {});
    }
    return {};
  });

  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const { ref, argument, context } = request.params;
    const prompt = ref.type === 'ref/prompt' ? catalog.promptRoute(ref.name) : undefined;
    const target = ref.type === 'ref/prompt' ? prompt : await catalog.templateOwner(ref.uri, ctx.mcpReq.signal);
    if (target === undefined) return { completion: { values: [] } };
    const upstreamRef = prompt === undefined ? ref : { type: 'ref/prompt' as const, name: prompt.name };
    try {
      const completion = await upstream.complete(target.serverId, upstreamRef, argument, {
        signal: ctx.mcpReq.signal,
        ...(context?.arguments === undefined ? {} : { context: context.arguments }),
      });
      return { completion };
    } catch (error) {
      throw relayedError(error);
    }
  });

  server.setRequestHandler('logging/setLevel', (request) => {
    state.logLevels.set(server, request.params.level);
    return {};
  });
}

/** Ends what a connection held upstream (its resource subscriptions). */
export async function releaseConnection(server: Server, state: GatewayState): Promise<void> {
  const held = state.subscriptions.get(server);
  state.subscriptions.delete(server);
  await Promise.all([...(held?.values() ?? [])].map((end) => end().catch(() => {})));
}

