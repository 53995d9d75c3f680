/**
 * One Streamable HTTP endpoint for both protocol eras. A 2026-07-28 request (it carries
 * the per-request `_meta` envelope) goes to the SDK's strict per-request handler; a 2025
 * request is served by a session of its own (`initialize`, `Mcp-Session-Id`, the GET
 * stream, DELETE), because the SDK's stateless legacy leg can neither push nor ask the
 * client anything. The era decision is the SDK's own (`isLegacyRequest`, or its rule on an
 * already parsed body), so the two legs can never disagree about a request.
 *
 * Two faces: `serveNode` (what `listenHttp` uses) serves Node's objects directly, its 2025
 * sessions on `NodeSessionTransport`; `fetch` serves web `Request`s, its sessions on the
 * SDK's web-standard transport. A session belongs to the face that opened it: the other
 * face does not find it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type JSONRPCErrorResponse,
  type McpHttpHandler,
  type McpServer,
  type McpServerFactory,
  type Server,
  type ServerNotifier,
} from '@modelcontextprotocol/server';
import { isLegacyExchange } from './era.js';
import { jsonRpcErrorResponse } from './http-answers.js';
import { headerValue, refuseJsonRpc, writeJson, type McpRequestBody, type NodeMcpHandler } from './node-exchange.js';
import { NodeSessionTransport } from './node-session-transport.js';
import { serveThroughWebHandler } from './web-bridge.js';

/** Bounds of an endpoint. */
export interface McpEndpointOptions {
  /** Largest request body read, in bytes; a larger one is answered 413 unread. Default 4 MiB. */
  maxRequestBodyBytes?: number;
  /** Most 2025 sessions open at once; one more is refused with 503. Default 1024. */
  maxSessions?: number;
  /** A 2025 session unused this long is closed. Default 30 minutes. */
  sessionIdleMs?: number;
  /** SSE keep-alive comment interval. Default 15 s; 0 turns it off. */
  keepAliveMs?: number;
  /** Out-of-band errors (reporting only). */
  onerror?: (error: Error) => void;
}

export const ENDPOINT_DEFAULTS = {
  maxRequestBodyBytes: 4 * 1024 * 1024,
  maxSessions: 1024,
  sessionIdleMs: 30 * 60_000,
  keepAliveMs: 15_000,
} as const;

/**
 * A check on a 2026-07-28 request's headers and parsed body before it is dispatched; what it
 * returns is answered with HTTP 400 (a refusal the SDK's handler could only answer with 200).
 */
export type PreDispatchCheck = (body: unknown, headerOf: (name: string) => string | undefined) => JSONRPCErrorResponse | undefined;

interface LegacySession {
  transport: WebStandardStreamableHTTPServerTransport | NodeSessionTransport;
  server: McpServer | Server;
  usedAt: number;
}

const UNKNOWN_SESSION = 'Session not found: start a new one with initialize';
const NO_SESSION_ID = 'Bad Request: an Mcp-Session-Id header is required (send initialize first)';

export class McpEndpoint implements NodeMcpHandler {
  private readonly modern: McpHttpHandler;
  private readonly sessions = new Map<string, LegacySession>();
  private readonly bounds: Required<Omit<McpEndpointOptions, 'onerror'>>;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly factory: McpServerFactory,
    private readonly options: McpEndpointOptions = {},
    private readonly check?: PreDispatchCheck,
  ) {
    this.bounds = { ...ENDPOINT_DEFAULTS, ...definedOnly(options) };
    this.modern = createMcpHandler(factory, {
      legacy: 'reject',
      maxRequestBodySize: this.bounds.maxRequestBodyBytes,
      keepAliveMs: this.bounds.keepAliveMs,
      ...(options.onerror ? { onerror: options.onerror } : {}),
    });
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(this.bounds.sessionIdleMs, 60_000)));
    this.sweeper.unref();
  }

  /** Publishes list changes and resource updates to the open 2026-07-28 `subscriptions/listen` streams. */
  get notify(): ServerNotifier {
    return this.modern.notify;
  }

  /** The server instances of the open 2025 sessions (to push notifications on). */
  legacyServers(): (McpServer | Server)[] {
    return [...this.sessions.values()].map((session) => session.server);
  }

  /** How many 2025 sessions are open. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Serves one HTTP request. */
  fetch = async (request: Request, options: { authInfo?: AuthInfo } = {}): Promise<Response> => {
    if (this.closed) return jsonRpcErrorResponse(503, -32603, 'the server is shutting down');
    if (await isLegacyRequest(request, undefined, { maxRequestBodySize: this.bounds.maxRequestBodyBytes })) {
      return this.legacy(request, options.authInfo);
    }
    if (this.check !== undefined && request.method === 'POST' && request.headers.get('mcp-method') === 'tools/call') {
      const body: unknown = await request.clone().json().catch(() => undefined);
      const refusal = this.check(body, (name) => request.headers.get(name) ?? undefined);
      if (refusal !== undefined) return new Response(JSON.stringify(refusal), { status: 400, headers: { 'content-type': 'application/json' } });
    }
    return this.modern.fetch(request, options.authInfo ? { authInfo: options.authInfo } : {});
  };

  /** Serves one HTTP request on Node's objects, its body already read within the bound and parsed. */
  serveNode = async (request: IncomingMessage, response: ServerResponse, body: McpRequestBody, authInfo: AuthInfo | undefined): Promise<void> => {
    if (this.closed) return refuseJsonRpc(response, 503, -32603, 'the server is shutting down');
    if (!isLegacyExchange(request, body)) {
      const refusal = body.json ? this.check?.(body.value, (name) => headerValue(request, name)) : undefined;
      if (refusal !== undefined) return writeJson(response, 400, refusal);
      return serveThroughWebHandler(this.modern, request, response, body.json ? body.value : undefined, authInfo);
    }
    const id = headerValue(request, 'mcp-session-id');
    if (id !== undefined) {
      const session = this.sessions.get(id);
      if (session === undefined || !(session.transport instanceof NodeSessionTransport)) return refuseJsonRpc(response, 404, -32001, UNKNOWN_SESSION);
      session.usedAt = Date.now();
      return session.transport.handle(request, response, body, authInfo);
    }
    if (request.method !== 'POST') return refuseJsonRpc(response, 400, -32000, NO_SESSION_ID);
    if (this.sessions.size >= this.bounds.maxSessions) return refuseJsonRpc(response, 503, -32000, this.tooManySessions());
    // A session is only kept once `initialize` succeeds on it; anything else is answered and dropped.
    const transport = new NodeSessionTransport({ keepAliveMs: this.bounds.keepAliveMs, onsessionclosed: (sessionId) => this.drop(sessionId) });
    const server = await this.factory({ era: 'legacy', ...(authInfo ? { authInfo } : {}) });
    await server.connect(transport);
    await transport.handle(request, response, body, authInfo);
    this.keep(transport, server);
  };

  private async legacy(request: Request, authInfo: AuthInfo | undefined): Promise<Response> {
    const handleOptions = authInfo ? { authInfo } : {};
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = this.sessions.get(id);
      if (session === undefined || !(session.transport instanceof WebStandardStreamableHTTPServerTransport)) return jsonRpcErrorResponse(404, -32001, UNKNOWN_SESSION);
      session.usedAt = Date.now();
      return session.transport.handleRequest(request, handleOptions);
    }
    if (request.method !== 'POST') return jsonRpcErrorResponse(400, -32000, NO_SESSION_ID);
    if (this.sessions.size >= this.bounds.maxSessions) return jsonRpcErrorResponse(503, -32000, this.tooManySessions());
    // A session is only kept once `initialize` succeeds on it; anything else is answered and dropped.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.bounds.maxRequestBodyBytes,
      keepAliveMs: this.bounds.keepAliveMs,
      onsessionclosed: (sessionId) => void this.drop(sessionId),
    });
    const server = await this.factory({ era: 'legacy', requestInfo: request, ...(authInfo ? { authInfo } : {}) });
    await server.connect(transport);
    const response = await transport.handleRequest(request, handleOptions);
    this.keep(transport, server);
    return response;
  }

  /** Keeps a session once `initialize` gave its transport an id; an instance without one is closed. */
  private keep(transport: LegacySession['transport'], server: McpServer | Server): void {
    const sessionId = transport.sessionId;
    if (sessionId === undefined) {
      void server.close().catch(() => {});
      return;
    }
    this.sessions.set(sessionId, { transport, server, usedAt: Date.now() });
    // connect() installed the protocol's own close hook (it settles pending requests
    // and aborts running handlers); replacing it would leave the instance connected.
    const protocolOnClose = transport.onclose;
    transport.onclose = () => {
      protocolOnClose?.();
      void this.drop(sessionId);
    };
  }

  private tooManySessions(): string {
    return `too many sessions open (${this.bounds.maxSessions}); close one with DELETE or retry later`;
  }

  private async drop(sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return;
    this.sessions.delete(sessionId);
    await session.server.close().catch((error: unknown) => this.options.onerror?.(error as Error));
  }

  private sweep(): void {
    const oldest = Date.now() - this.bounds.sessionIdleMs;
    for (const [id, session] of this.sessions) if (session.usedAt < oldest) void this.drop(id);
  }

  /** Ends every session and stream; later requests are answered 503. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.keys()].map((id) => this.drop(id)));
    await this.modern.close();
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined && typeof entry !== 'function')) as Partial<T>;
}
