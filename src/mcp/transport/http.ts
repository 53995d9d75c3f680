/**
 * The Streamable HTTP transport of a server: the SDK's transport, with our bounded,
 * redirect-refusing fetch, the configured headers, and a static bearer token or the
 * server's OAuth authorizer. `tools/call` takes a lean POST of its own (see
 * lean-post.ts); everything else is the SDK's.
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
import type { ResolvedHttpTransport } from '../config.js';
import { boundedFetch, leanBoundedFetch } from './bounded-fetch.js';
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
    return (signal.aborted ? undefined : this.lean.send(this, message, options, signal)) ?? super.send(message, options);
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

export function createHttpTransport(options: HttpTransportOptions): HostHttpTransport {
  const { transport, authorizer, serverId, messageBytes } = options;
  const token = transport.bearerToken;
  const url = new URL(transport.url);
  let fetch = boundedFetch({ serverId, messageBytes, fetch: options.fetch });
  const oauth = authorizer?.authProvider();
  if (authorizer !== undefined) fetch = authorizer.tapFetch(fetch);
  const authProvider: AuthProvider | undefined = oauth ?? (token === undefined ? undefined : { token: () => Promise.resolve(token) });
  const lean = new LeanPost({
    serverId,
    url,
    headers: transport.headers,
    bearerToken: token,
    tokens: oauth === undefined ? undefined : () => oauth.token(),
    messageBytes,
    fetch: leanBoundedFetch({ serverId, messageBytes, fetch: options.fetch }),
  });
  return new HostHttpTransport(
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
}
