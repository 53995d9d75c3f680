/**
 * The POST of a `tools/call` over Streamable HTTP, below the SDK transport's `send`.
 * Profiling (issue 16) put a third of an HTTP call's client CPU in that `send`: a
 * `Headers` object built and edited per request, a combined signal, and for an SSE answer
 * three web streams and two pipes (our event bound, `TextDecoderStream`,
 * `EventSourceParserStream`) before a zod union parse of each message. This path sends
 * the same request and reads the same answer:
 *
 * - the headers are the SDK's (`_commonHeaders` and `_applyBodyDerivedHeaders`): the
 *   configured ones, the static bearer token, `Accept`, the session id, the protocol
 *   version, and on 2026-07-28 `Mcp-Method` and `Mcp-Name` from the request's envelope;
 *   the constant part is built once per session, as a plain object;
 * - the answer goes through the same redirect refusal and body bounds (`leanBoundedFetch`,
 *   `SseEventMeter`), and an SSE body is read with the very parser the SDK uses
 *   (`eventsource-parser`), fed straight from the body's reader;
 * - each message is accepted exactly as the SDK's JSON-RPC schema accepts it
 *   (`plainResultResponse`, else `parseJSONRPCMessage`), and what the SDK does with
 *   events, ids, `retry` and a resumable stream that ends early is done the same way.
 *
 * What it does not own goes back to the SDK: a 401 or 403 (the server refused the
 * request, so sending it again through the SDK's `send`, which runs the authorization
 * steps, runs nothing twice), batches, other methods, resumption.
 */
import {
  type JSONRPCMessage,
  type JSONRPCRequest,
  PROTOCOL_VERSION_META_KEY,
  parseJSONRPCMessage,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  type TransportSendOptions,
} from '@modelcontextprotocol/client';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { boundBrokenError, type LeanResponse, leanText, McpResponseTooLargeError, SseEventMeter } from './bounded-fetch.js';
import { cancelOnAbort } from './fetch-abort.js';
import { plainResultResponse } from './plain-message.js';

/** The transport a lean POST belongs to: its session state, its handlers, and the SDK's own steps. */
export interface LeanPostHost {
  readonly sessionId: string | undefined;
  readonly protocolVersion: string | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  /** The SDK's `send`, for what this path leaves to it. */
  sdkSend(message: JSONRPCMessage, options: TransportSendOptions | undefined): Promise<void>;
  /** The SDK's reconnection of a resumable stream that ended before its answer. */
  resume(resumptionToken: string | undefined, options: TransportSendOptions | undefined): void;
  /** Records the server's `retry` interval, which the SDK's reconnection waits. */
  retryAfter(ms: number): void;
}

export interface LeanPostOptions {
  serverId: string;
  url: URL;
  /** The configured headers. */
  headers: Record<string, string>;
  /** The static bearer token, when the server has one. */
  bearerToken: string | undefined;
  /**
   * The OAuth token source (the authorizer's `AuthProvider.token`), asked before every
   * request as the SDK's `send` asks it: it renews a token that is about to expire.
   */
  tokens?: (() => Promise<string | undefined>) | undefined;
  messageBytes: number;
  /** The redirect-refusing, body-bounding fetch (`leanBoundedFetch`). */
  fetch: (url: URL, init: RequestInit) => Promise<LeanResponse>;
}

/** Headers a request's own options may not set (the SDK's list). */
const RESERVED = new Set(['authorization', 'dpop', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id']);

/** The first revision of the 2026-07-28 era; revision strings sort by date. */
const FIRST_MODERN_REVISION = '2026-07-28';

/**
 * Whether the SDK would send `value` as an `Mcp-Name` header as it is: non-empty,
 * printable ASCII or tab, no outer whitespace, not shaped like its Base64 form. Any
 * other name takes the SDK's path, which encodes it.
 */
function plainHeaderValue(value: string): boolean {
  if (value.length === 0 || value !== value.trim()) return false;
  if (value.startsWith('=?base64?') && value.endsWith('?=')) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c !== 9 && (c < 32 || c > 126)) return false;
  }
  return true;
}

/** A `tools/call` request, with the protocol revision its envelope claims (if any). */
function leanRequest(message: JSONRPCMessage): { request: JSONRPCRequest; revision: string | undefined } | undefined {
  if (Array.isArray(message) || !('method' in message) || message.method !== 'tools/call' || !('id' in message)) return undefined;
  const params = message.params as { name?: unknown; _meta?: Record<string, unknown> } | undefined;
  const revision = params?._meta?.[PROTOCOL_VERSION_META_KEY];
  if (revision === undefined) return { request: message, revision: undefined };
  if (typeof revision !== 'string' || typeof params?.name !== 'string' || !plainHeaderValue(params.name)) return undefined;
  return { request: message, revision };
}

/**
 * The media type of a `Content-Type` header, lowercased, as the SDK reads it from a
 * well-formed header (parameters, quoted ones included, are ignored); `undefined` for
 * nothing or a list of types.
 */
function mediaType(header: string | null): string | undefined {
  if (header === null) return undefined;
  const essence = (header.split(';', 1)[0] ?? '').trim().toLowerCase();
  return essence === '' || essence.includes(',') ? undefined : essence;
}

/** Whether a parsed message is a response (a result or an error), the way the SDK tells. */
function isResponse(message: JSONRPCMessage): boolean {
  return 'id' in message && !('method' in message);
}

export class LeanPost {
  /** The headers every POST of the session sends, before the session id and version. */
  private readonly common: Record<string, string>;

  constructor(private readonly options: LeanPostOptions) {
    // Read through `Headers`, as the SDK reads them: names lowercased, repeats joined.
    const common: Record<string, string> = {};
    for (const [name, value] of new Headers(options.headers)) common[name] = value;
    if (options.bearerToken) common.authorization = `Bearer ${options.bearerToken}`;
    common['content-type'] = 'application/json';
    // The configuration refuses an `Accept` of its own, so the SDK's merge comes to this.
    common.accept = 'application/json, text/event-stream';
    this.common = common;
  }

  /**
   * Sends `message` if it is a request this path owns, resolving once the answer has
   * started, as the SDK's `send` does; `undefined` when the SDK's `send` should take it.
   */
  send(host: LeanPostHost, message: JSONRPCMessage, options: TransportSendOptions | undefined, stopped: AbortSignal): Promise<void> | undefined {
    if (options?.resumptionToken !== undefined) return undefined;
    const lean = leanRequest(message);
    if (lean === undefined) return undefined;
    return this.post(host, lean.request, lean.revision, options, stopped);
  }

  private headers(
    host: LeanPostHost,
    request: JSONRPCRequest,
    revision: string | undefined,
    options: TransportSendOptions | undefined,
    token: string | undefined,
  ): Record<string, string> {
    const headers = { ...this.common };
    if (token) headers.authorization = `Bearer ${token}`;
    const sessionId = host.sessionId;
    if (sessionId) headers['mcp-session-id'] = sessionId;
    const version = host.protocolVersion;
    if (version) headers['mcp-protocol-version'] = version;
    if (revision !== undefined) {
      headers['mcp-protocol-version'] = revision;
      headers['mcp-method'] = request.method;
      headers['mcp-name'] = (request.params as { name: string }).name;
    }
    if (options?.headers !== undefined) {
      for (const [name, value] of Object.entries(options.headers)) {
        const key = name.toLowerCase();
        if (!RESERVED.has(key)) headers[key] = value;
      }
    }
    return headers;
  }

  private async post(
    host: LeanPostHost,
    request: JSONRPCRequest,
    revision: string | undefined,
    options: TransportSendOptions | undefined,
    stopped: AbortSignal,
  ): Promise<void> {
    const requestSignal = options?.requestSignal;
    try {
      const token = this.options.tokens === undefined ? undefined : await authToken(this.options.tokens);
      const signal = requestSignal === undefined ? AbortSignal.any([stopped]) : AbortSignal.any([stopped, requestSignal]);
      const init: RequestInit = { method: 'POST', headers: this.headers(host, request, revision, options, token), body: JSON.stringify(request), signal };
      const lean = await this.options.fetch(this.options.url, init);
      const response = lean.response;
      if (!response.ok) {
        if (response.status === 401 || response.status === 403) {
          await leanText(lean).catch(() => {});
          return await host.sdkSend(request, options);
        }
        return await this.refused(host, request, revision, lean);
      }
      if (response.status === 202) {
        await leanText(lean).catch(() => {});
        return;
      }
      const contentType = response.headers.get('content-type');
      const type = mediaType(contentType);
      if (type === 'text/event-stream') {
        if (response.body === null) options?.onRequestStreamEnd?.();
        else this.readEvents(host, request, response.body, options, stopped, signal);
      } else if (type === 'application/json') {
        const data = JSON.parse(await leanText(lean)) as unknown;
        const messages = Array.isArray(data) ? data.map(parseMessage) : [parseMessage(data)];
        for (const message of messages) host.onmessage?.(message);
      } else {
        await leanText(lean).catch(() => {});
        throw new SdkError(SdkErrorCode.ClientHttpUnexpectedContent, `Unexpected content type: ${contentType}`, { contentType });
      }
    } catch (error) {
      if (requestSignal?.aborted !== true) host.onerror?.(error as Error);
      throw error;
    }
  }

  /** A refusal other than 401 or 403, surfaced as the SDK surfaces it. */
  private async refused(host: LeanPostHost, request: JSONRPCRequest, revision: string | undefined, lean: LeanResponse): Promise<void> {
    const response = lean.response;
    const text = await leanText(lean).catch(() => null);
    // A 2026-07-28 server may answer a request it refuses with its JSON-RPC error.
    if (response.status === 400 && typeof text === 'string' && revision !== undefined && revision >= FIRST_MODERN_REVISION) {
      try {
        const parsed = parseJSONRPCMessage(JSON.parse(text));
        if ('error' in parsed && parsed.id === request.id) {
          host.onmessage?.(parsed);
          return;
        }
      } catch {
        // Not a JSON-RPC error for this request: the HTTP error below.
      }
    }
    throw new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, {
      status: response.status,
      statusText: response.statusText,
      text,
    });
  }

  /** Reads the SSE answer of `request`, as the SDK's `_handleSseStream` does for a POST. */
  private readEvents(
    host: LeanPostHost,
    request: JSONRPCRequest,
    body: ReadableStream<Uint8Array>,
    options: TransportSendOptions | undefined,
    stopped: AbortSignal,
    signal: AbortSignal,
  ): void {
    const { onresumptiontoken, requestSignal, onRequestStreamEnd } = options ?? {};
    const intentional = (): boolean => stopped.aborted || requestSignal?.aborted === true;
    let lastEventId: string | undefined;
    let primed = false;
    let answered = false;
    const deliver = (message: JSONRPCMessage): void => {
      if (isResponse(message)) answered = true;
      host.onmessage?.(message);
    };
    const onEvent = (event: EventSourceMessage): void => {
      if (event.id) {
        lastEventId = event.id;
        primed = true;
        onresumptiontoken?.(event.id);
      }
      if (!event.data || (event.event && event.event !== 'message')) return;
      try {
        deliver(parseMessage(JSON.parse(event.data)));
      } catch (error) {
        host.onerror?.(error as Error);
      }
    };
    const ended = (): void => {
      if (primed && !answered && !intentional()) host.resume(lastEventId, options);
      else if (!intentional()) onRequestStreamEnd?.();
    };
    const { serverId, messageBytes } = this.options;
    const tooLarge = (): void => deliver(boundBrokenError(request.id, new McpResponseTooLargeError(serverId, messageBytes, 'an SSE event')));
    void readSse(body, messageBytes, { onEvent, onRetry: (ms) => host.retryAfter(ms) }, tooLarge, signal).then(ended, (error: unknown) => {
      if (intentional()) return;
      host.onerror?.(new Error(`SSE stream disconnected: ${String(error)}`));
      ended();
    });
  }
}

/**
 * The SDK's mark on an error that came out of its authorization seam (a token source
 * that failed), which its callers read to tell it from a transport failure.
 */
const AUTH_SEAM_ESCAPE = Symbol.for('mcp.authSeamEscape');

/** A token from `tokens`, its failure marked as the SDK's `send` marks it. */
async function authToken(tokens: () => Promise<string | undefined>): Promise<string | undefined> {
  try {
    return await tokens();
  } catch (error) {
    if ((typeof error === 'object' && error !== null) || typeof error === 'function') {
      Object.defineProperty(error, AUTH_SEAM_ESCAPE, { value: true, configurable: true });
    }
    throw error;
  }
}

/** A JSON-RPC message, accepted exactly when the SDK's schema accepts it. */
function parseMessage(value: unknown): JSONRPCMessage {
  return plainResultResponse(value) ?? parseJSONRPCMessage(value);
}

/**
 * Feeds an SSE body to the SDK's parser, decoded as `TextDecoderStream` decodes it, each
 * event bounded to `limit` bytes: at an oversized event the complete events before it
 * are delivered, `tooLarge` is told, and the body is cancelled; the oversized event is
 * never dispatched, not even the part of it that arrived. The body is cancelled too when
 * `signal` aborts (see fetch-abort.ts).
 */
async function readSse(
  body: ReadableStream<Uint8Array>,
  limit: number,
  handlers: { onEvent(event: EventSourceMessage): void; onRetry(ms: number): void },
  tooLarge: () => void,
  signal: AbortSignal,
): Promise<void> {
  const parser = createParser(handlers);
  const decoder = new TextDecoder();
  const meter = new SseEventMeter(limit);
  const reader = body.getReader();
  const stop = cancelOnAbort(signal, reader);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || signal.aborted) break;
      const kept = meter.measure(value);
      if (kept >= 0) {
        parser.feed(decoder.decode(value.subarray(0, kept), { stream: true }));
        tooLarge();
        await reader.cancel().catch(() => {});
        return;
      }
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    stop();
  }
  if (signal.aborted) return;
  const rest = decoder.decode();
  if (rest !== '') parser.feed(rest);
}
