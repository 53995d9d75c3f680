/**
 * The Streamable HTTP transport of a server: the SDK's transport, with our bounded,
 * redirect-refusing fetch, the configured headers, and a static bearer token or the
 * server's OAuth authorizer. `tools/call` takes a lean POST of its own (see
 * lean-post.ts); everything else is the SDK's. Every request's own exchange ends when it
 * is given up on or its answer stream ends (exchanges.ts), and a 404 to anything sent with
 * the session id ends the session (`onsessionexpired`).
 */
import { inspect } from 'node:util';
import {
  type AuthProvider,
  type FetchLike,
  type JSONRPCMessage,
  StreamableHTTPClientTransport,
  type StreamableHTTPClientTransportOptions,
  type TransportSendOptions,
} from '@modelcontextprotocol/client';
import type { McpServerAuthorizer } from '../auth/authorizer.js';
import type { ResolvedHttpTransport } from '../config/config.js';
import { boundedFetch, type LeanResponse, leanBoundedFetch } from './bounded-fetch.js';
import { RequestExchanges } from './exchanges.js';
import { LeanPost, type LeanPostHost } from './lean-post.js';

export interface HttpTransportOptions {
  serverId: string;
  transport: ResolvedHttpTransport;
  messageBytes: number;
  /** The server's OAuth authorizer, when it uses OAuth. */
  authorizer?: McpServerAuthorizer;
  /** The underlying fetch (tests and custom agents). Default: the global `fetch`. */
  fetch?: FetchLike;
}

/**
 * The two steps of the SDK transport the lean POST hands back to it: reconnecting a
 * resumable stream (with the SDK's backoff and the server's `retry`), and that `retry`.
 * They are private in the SDK's types, so they are reached through this view; the
 * conformance scenario `sse-retry` fails if either changes.
 */
interface ReconnectingTransport {
  _serverRetryMs: number | undefined;
  _scheduleReconnection(options: {
    resumptionToken: string | undefined;
    onresumptiontoken?: (token: string) => void;
    replayMessageId: undefined;
    requestSignal?: AbortSignal;
    onRequestStreamEnd?: () => void;
  }, attempt: number): void;
}

/**
 * Why lean POSTs in flight end when their transport closes. One shared reason: a fresh
 * `abort()` would build a `DOMException`, and undici reads the stack of whatever ends a
 * request (formatting it, source maps included), on every session's close.
 */
const CLOSED = new Error('The MCP transport closed');

export class HostHttpTransport extends StreamableHTTPClientTransport implements LeanPostHost {
  /** Aborts lean POSTs in flight when the transport closes; once aborted, every message is the SDK's. */
  private readonly stopped = new AbortController();
  /** Each request's own exchange: its abort when given up on, its answer stream's end. */
  readonly exchanges = new RequestExchanges();
  private expired = false;

  /**
   * Told once, when the server answers 404 to anything sent with the session id: a POST, a
   * notification, the GET stream. The server no longer knows the session (2025-11-25
   * transports, session management), and the SDK keeps sending its id.
   */
  onsessionexpired: (() => void) | undefined;

  constructor(
    url: URL,
    options: StreamableHTTPClientTransportOptions,
    private readonly lean: LeanPost,
    private readonly serverId: string,
  ) {
    super(url, options);
  }

  /** Shows the server only: the transport holds the configured headers and the bearer token. */
  [inspect.custom](): string {
    return `HostHttpTransport { serverId: ${JSON.stringify(this.serverId)} }`;
  }

  toJSON(): Record<string, unknown> {
    return { serverId: this.serverId };
  }

  override async close(): Promise<void> {
    this.stopped.abort(CLOSED);
    await super.close();
  }

  override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const { signal } = this.stopped;
    const own = this.exchanges.prepare(message, options);
    const sent = (signal.aborted ? undefined : this.lean.send(this, message, own, signal)) ?? super.send(message, own);
    // A request whose send failed is over; one that was answered is settled by its client.
    const id = own !== options && 'id' in message ? message.id : undefined;
    if (id !== undefined) sent.catch(() => this.exchanges.settled(id));
    return sent;
  }

  /** Records the status of an answer; a 404 to a request sent with the session id means the server forgot the session. */
  answered(status: number, withSession: boolean): void {
    if (status !== 404 || !withSession || this.expired) return;
    this.expired = true;
    this.onsessionexpired?.();
  }

  sdkSend(message: JSONRPCMessage, options: TransportSendOptions | undefined): Promise<void> {
    return super.send(message, options);
  }

  resume(resumptionToken: string | undefined, options: TransportSendOptions | undefined): void {
    (this as unknown as ReconnectingTransport)._scheduleReconnection(
      {
        resumptionToken,
        replayMessageId: undefined,
        ...(options?.onresumptiontoken ? { onresumptiontoken: options.onresumptiontoken } : {}),
        ...(options?.requestSignal ? { requestSignal: options.requestSignal } : {}),
        ...(options?.onRequestStreamEnd ? { onRequestStreamEnd: options.onRequestStreamEnd } : {}),
      },
      0,
    );
  }

  retryAfter(ms: number): void {
    (this as unknown as ReconnectingTransport)._serverRetryMs = ms;
  }
}

/** Whether a request was sent with a session id: in the SDK's `Headers`, or the lean POST's plain object. */
function carriesSession(init: RequestInit | undefined): boolean {
  const headers = init?.headers;
  if (headers instanceof Headers) return headers.has('mcp-session-id');
  return typeof (headers as Record<string, string> | undefined)?.['mcp-session-id'] === 'string';
}

export function createHttpTransport(options: HttpTransportOptions): HostHttpTransport {
  const { transport, authorizer, serverId, messageBytes } = options;
  const token = transport.bearerToken;
  const url = new URL(transport.url);
  // The transport is made after its fetches, which tell it of every answer's status through this.
  const made: { transport?: HostHttpTransport } = {};
  const bounded = boundedFetch({ serverId, messageBytes, fetch: options.fetch });
  let fetch: FetchLike = async (target, init) => {
    const response = await bounded(target, init);
    made.transport?.answered(response.status, carriesSession(init));
    return response;
  };
  const oauth = authorizer?.authProvider();
  if (authorizer !== undefined) fetch = authorizer.tapFetch(fetch);
  const leanFetch = leanBoundedFetch({ serverId, messageBytes, fetch: options.fetch });
  const authProvider: AuthProvider | undefined = oauth ?? (token === undefined ? undefined : { token: () => Promise.resolve(token) });
  const lean = new LeanPost({
    serverId,
    url,
    headers: transport.headers,
    bearerToken: token,
    tokens: oauth === undefined ? undefined : () => oauth.token(),
    messageBytes,
    fetch: async (target: URL, init: RequestInit): Promise<LeanResponse> => {
      const lean = await leanFetch(target, init);
      made.transport?.answered(lean.response.status, carriesSession(init));
      return lean;
    },
  });
  made.transport = new HostHttpTransport(
    url,
    {
      fetch,
      // Redirects reach our fetch, which refuses every one of them (the SDK would follow same-origin ones).
      redirectPolicy: 'follow',
      requestInit: { headers: { ...transport.headers } },
      ...(authProvider === undefined ? {} : { authProvider }),
    },
    lean,
    serverId,
  );
  return made.transport;
}
