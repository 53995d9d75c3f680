/**
 * The HTTP+SSE transport of a legacy server (revision 2024-11-05): the SDK's
 * `SSEClientTransport`, under the bounds of our Streamable HTTP transport (every request
 * through the bounded, redirect-refusing fetch; the configured headers; a static bearer
 * token or the server's OAuth authorizer), plus one rule the SDK leaves out: the stream
 * is the session. Once connected, the stream ending or failing closes the transport, so
 * pending requests fail at once, and the stream is never opened again: an EventSource
 * reconnect would reach a new server session whose endpoint the SDK would silently adopt.
 */
import {
  type AuthProvider,
  type FetchLike,
  type JSONRPCMessage,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  type SSEClientTransportOptions,
  SseError,
  type Transport,
} from '@modelcontextprotocol/client';
import type { McpServerAuthorizer } from '../auth/authorizer.js';
import type { ResolvedSseTransport } from '../config/config.js';
import { asError } from '../errors.js';
import { boundedFetch } from './bounded-fetch.js';

export interface SseTransportOptions {
  serverId: string;
  transport: ResolvedSseTransport;
  messageBytes: number;
  /** The server's OAuth authorizer, when it uses OAuth. */
  authorizer?: McpServerAuthorizer;
  /** The underlying fetch (tests and custom agents). Default: the global `fetch`. */
  fetch?: FetchLike;
  /**
   * Bounds `start()`: the SDK waits for the `endpoint` event without a deadline, so a
   * server that opens the stream and never names its endpoint would hang the set-up.
   */
  signal?: AbortSignal;
}

type StreamFetch = NonNullable<NonNullable<SSEClientTransportOptions['eventSourceInit']>['fetch']>;

/** `idle` → `starting` (the GET, up to the `endpoint` event) → `open` → `closed`; never back. */
type Phase = 'idle' | 'starting' | 'open' | 'closed';

/** `body`, telling `onStop` once when it ends (no error) or fails (the error). */
function watchEnd(body: ReadableStream<Uint8Array>, onStop: (error?: Error) => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // A rejected pull errors this stream with the same error.
      const chunk = await reader.read().catch((error: unknown) => {
        onStop(asError(error));
        throw error;
      });
      if (!chunk.done) return controller.enqueue(chunk.value);
      onStop();
      controller.close();
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

export class SseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  private readonly sdk: SSEClientTransport;
  private readonly serverId: string;
  private readonly signal: AbortSignal | undefined;
  private phase: Phase = 'idle';
  /**
   * Why the stream could not open or ended: what the token source or our fetch raised (an
   * OAuth failure, a redirect, an over-limit event, the network). The EventSource turns
   * each into an `SseError` with a bare message; this is the error the host classifies.
   */
  private streamFailure: Error | undefined;
  private streamEnded = false;

  constructor(options: SseTransportOptions) {
    const { transport, authorizer } = options;
    this.serverId = options.serverId;
    this.signal = options.signal;
    const token = transport.bearerToken;
    let fetch = boundedFetch({ serverId: options.serverId, messageBytes: options.messageBytes, fetch: options.fetch });
    let authProvider: AuthProvider | undefined;
    if (authorizer !== undefined) {
      fetch = authorizer.tapFetch(fetch);
      authProvider = authorizer.authProvider();
    } else if (token !== undefined) {
      authProvider = { token: () => Promise.resolve(token) };
    }
    const streamFetch: StreamFetch = (url, init) => this.openStream(fetch, url, init);
    this.sdk = new SSEClientTransport(new URL(transport.url), {
      fetch,
      // The SDK sends the stream's GET through this fetch (adding the headers and token), not through `fetch`.
      eventSourceInit: { fetch: streamFetch },
      // Redirects reach our fetch, which refuses every one of them (the SDK would follow same-origin ones).
      redirectPolicy: 'follow',
      requestInit: { headers: { ...transport.headers } },
      ...(authProvider === undefined ? {} : { authProvider: this.watchTokens(authProvider) }),
    });
    this.sdk.onmessage = (message) => this.onmessage?.(message);
    this.sdk.onerror = (error) => this.onerror?.(error);
    this.sdk.onclose = () => this.reportClose();
  }

  async start(): Promise<void> {
    if (this.phase !== 'idle') throw new Error(`the SSE transport of MCP server "${this.serverId}" was already started`);
    this.phase = 'starting';
    try {
      await this.untilEndpoint();
    } catch (error) {
      await this.close();
      throw this.startFailure(error);
    }
    // The stream may have ended in the turn between the `endpoint` event and here.
    if (this.streamEnded || this.closed) {
      await this.close();
      throw this.startFailure(undefined);
    }
    this.phase = 'open';
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
    return this.sdk.send(message);
  }

  setProtocolVersion(version: string): void {
    this.sdk.setProtocolVersion(version);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Stops the EventSource (and any reconnection it had scheduled), aborts the POSTs and reports the close.
    await this.sdk.close();
    this.phase = 'closed';
  }

  private get closed(): boolean {
    return this.phase === 'closed';
  }

  /**
   * `onclose` once, for a connection that was open, whoever closed it. Before that a
   * failure rejects `start()` instead (the SDK also closes itself, on a foreign-origin
   * endpoint), so a set-up that fails is never reported as a session that ended.
   */
  private reportClose(): void {
    const wasOpen = this.phase === 'open';
    this.phase = 'closed';
    if (wasOpen) this.onclose?.();
  }

  /** The SDK's `start()`, given up when `signal` aborts. */
  private async untilEndpoint(): Promise<void> {
    const signal = this.signal;
    if (signal === undefined) return this.sdk.start();
    signal.throwIfAborted();
    let onAbort = (): void => {};
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new Error(`MCP server "${this.serverId}" did not announce its message endpoint on the SSE stream in time.`));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([this.sdk.start(), aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** `provider`, remembering why it had no token for the stream's GET (on a POST, its error reaches the caller as it is). */
  private watchTokens(provider: AuthProvider): AuthProvider {
    return {
      ...provider,
      token: async () => {
        try {
          return await provider.token();
        } catch (error) {
          if (this.phase === 'starting') this.streamFailure ??= asError(error);
          throw error;
        }
      },
    };
  }

  /**
   * The stream's GET. Allowed only while starting (the SDK retries it once after an OAuth
   * 401); once the session is open a GET can only be the EventSource reconnecting, which
   * would open a new server session: refused, and the transport closed.
   */
  private async openStream(fetch: FetchLike, url: string | URL, init: Parameters<StreamFetch>[1]): Promise<Response> {
    if (this.phase !== 'starting') {
      void this.close();
      throw new Error(`the SSE stream of MCP server "${this.serverId}" is never reopened; a new session is set up instead.`);
    }
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      // Not once closed: our own close aborts the request, and the reason for closing is known.
      if (!this.closed) this.streamFailure = asError(error);
      throw error;
    }
    // Only a 200 is read as a stream; the EventSource fails on anything else without reading it.
    if (response.status !== 200 || response.body === null) return response;
    const body = watchEnd(response.body, (error) => this.streamStopped(error));
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  private streamStopped(error: Error | undefined): void {
    if (this.closed) return;
    this.streamEnded = true;
    if (error !== undefined) this.streamFailure ??= error;
    if (this.phase !== 'open') return;
    // Said before closing, so the session knows why its pending requests fail (an over-limit event).
    this.onerror?.(this.streamFailure ?? new Error(`MCP server "${this.serverId}" ended the SSE stream.`));
    void this.close();
  }

  /** Why `start()` failed, as the error the host classifies: the recorded cause, or the HTTP status of the stream's GET. */
  private startFailure(error: unknown): Error {
    if (this.streamFailure !== undefined) return this.streamFailure;
    if (SseError.isInstance(error) && typeof error.code === 'number') {
      const status = error.code;
      const code =
        status === 401 ? SdkErrorCode.ClientHttpAuthentication : status === 403 ? SdkErrorCode.ClientHttpForbidden : SdkErrorCode.ClientHttpFailedToOpenStream;
      return new SdkHttpError(code, `MCP server "${this.serverId}" answered the SSE stream request with HTTP ${status}.`, { status, statusText: '' });
    }
    if (this.streamEnded) return new Error(`MCP server "${this.serverId}" ended the SSE stream before it could be used.`);
    return asError(error);
  }
}
