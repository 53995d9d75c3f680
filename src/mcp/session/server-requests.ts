/**
 * The requests a 2025 server sends its client during a call (elicitation, sampling,
 * roots). When the provider relays them (the gateway), each goes to the caller of the
 * call it comes with; otherwise an elicitation goes to the application's handler, for a
 * server that opted in. Anything nobody can answer is declined, and the session goes on.
 */
import { type Client, type ClientCapabilities, ProtocolError } from '@modelcontextprotocol/client';
import { elicit, type McpElicitationHandler } from '../calls/interaction.js';
import type { McpServerRequest, McpServerRequestHandler } from '../calls/relay.js';
import type { McpLogger } from '../logger.js';

/** What a relaying host tells servers it can do: whatever one of its callers may be able to. */
export const RELAYED_CAPABILITIES: ClientCapabilities = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

/** The code clients conventionally send for a sampling request the user rejected (the specification's example). */
const SAMPLING_REJECTED = -1;

/** The relayed calls in flight on one session that want the server's requests. */
export class ServerRequestRouter {
  private readonly handlers = new Set<McpServerRequestHandler>();

  /** Registers the handler of a call for as long as it is in flight; returns its release. */
  hold(handler: McpServerRequestHandler): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  /**
   * The handler a request goes to, or why there is none: a 2025 session links nothing on
   * stdio from a server's request to the call it serves, so with several relayed calls
   * in flight the request cannot be given to one of them safely.
   */
  route(): McpServerRequestHandler | string {
    if (this.handlers.size === 1) return [...this.handlers][0]!;
    return this.handlers.size === 0 ? 'no relayed call was in flight' : `${this.handlers.size} relayed calls were in flight and the server did not say which one it asked for`;
  }
}

export interface ServerRequestOptions {
  serverId: string;
  logger: McpLogger;
  /** Whether requests go to the relayed call in flight. */
  relay: boolean;
  /** The application's handler for servers that opted in to elicitation. */
  elicitation: McpElicitationHandler | undefined;
  elicitationTimeoutMs: number;
}

/** What a server reads when nobody will answer its request: a decline in that request's own terms (a sampling request is refused with an error). */
export function declinedServerRequest(method: McpServerRequest['method'], why: string): Record<string, unknown> {
  if (method === 'elicitation/create') return { action: 'decline' };
  if (method === 'roots/list') return { roots: [] };
  throw new ProtocolError(SAMPLING_REJECTED, `mcp-fleet declined the sampling request: ${why}.`);
}

/** Installs the client's handlers for the requests this session answers. */
export function installServerRequests(client: Client, router: ServerRequestRouter, options: ServerRequestOptions): void {
  const { serverId, logger, relay, elicitation } = options;
  const methods: McpServerRequest['method'][] = relay ? ['elicitation/create', 'sampling/createMessage', 'roots/list'] : ['elicitation/create'];
  for (const method of methods) {
    const answer = async (params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> => {
      const handler = relay ? router.route() : 'requests are not relayed';
      if (typeof handler !== 'string') return handler({ method, params }, signal);
      if (method === 'elicitation/create' && elicitation !== undefined) {
        return { ...(await elicit(elicitation, params, { serverId, timeoutMs: options.elicitationTimeoutMs, signal, logger })) };
      }
      logger.debug({ serverId, method, why: handler }, 'MCP server request declined');
      return declinedServerRequest(method, handler);
    };
    // One handler shape for the three methods; the SDK validates each result against its method's schema.
    (client.setRequestHandler as (method: string, handler: (request: { params?: Record<string, unknown> }, context: { mcpReq: { signal: AbortSignal } }) => Promise<unknown>) => void)(
      method,
      (request, context) => answer(request.params ?? {}, context.mcpReq.signal),
    );
  }
}
