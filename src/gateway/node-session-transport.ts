/**
 * The HTTP framing of one 2025-11-25 Streamable HTTP session, written on Node's own request
 * and response objects. The SDK's `Server` connected to it does all of JSON-RPC; this class
 * only carries messages, and makes every check the SDK's web-standard session transport
 * makes, with the same statuses and error bodies (it replaces that transport and the node
 * adapter in front of it, whose web `Request`/`ReadableStream` round trip cost more than
 * the call it carried).
 *
 * The one difference in what a client sees: a POST's answer is `application/json` while its
 * own responses are the only messages that go out for it, and turns into `text/event-stream`
 * the moment something related must go first (progress, a log message, a server request
 * such as elicitation), or once it has run `keepAliveMs` without an answer (so the keep-alive
 * comments keep flowing on a long call). The spec lets a server answer either way to a client
 * that accepts both, which this transport requires, as the SDK's does.
 *
 * Not carried over: resumability (there is no event store, so no priming events and no
 * `Last-Event-ID` replay, as with the SDK transport without one) and per-tool scope challenges
 * (only `McpServer` installs a resolver; the gateway's instances are low-level `Server`s whose
 * scopes are checked on the route).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import {
  isInitializeRequest,
  isJsonContentType,
  parseJSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
  type AuthInfo,
  type JSONRPCMessage,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import { headerValue, refuseJsonRpc, writeJson, type McpRequestBody } from './node-exchange.js';

export interface NodeSessionTransportOptions {
  /** SSE keep-alive comment interval; 0 turns it off. */
  keepAliveMs: number;
  /** Called when a DELETE ends the session, before the transport closes. */
  onsessionclosed?: (sessionId: string) => void | Promise<void>;
}

/** The SDK transport's cap on one JSON-RPC batch. */
const MAX_BATCH_SIZE = 100;
/** Node's longest timer; a longer keep-alive interval is clamped to it, as the SDK does. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

/** One POST that carried requests: its answer, JSON until something makes it a stream. */
interface PostExchange {
  response: ServerResponse;
  /** The POST's requests in the order they came; the JSON answer lists their responses so. */
  ids: RequestId[];
  answers: Map<RequestId, JSONRPCMessage>;
  streaming: boolean;
  /** Before streaming: when to switch to a stream; after: the keep-alive comments. */
  timer: NodeJS.Timeout | undefined;
}

/** The GET stream, for messages that belong to no request. */
interface StandaloneStream {
  response: ServerResponse;
  timer: NodeJS.Timeout | undefined;
}

type Refusal = [status: number, code: number, message: string];

export class NodeSessionTransport implements Transport {
  sessionId: string | undefined;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  private started = false;
  private initialized = false;
  private closed = false;
  private supportedVersions: string[] = SUPPORTED_PROTOCOL_VERSIONS;
  private readonly exchanges = new Map<RequestId, PostExchange>();
  private standalone: StandaloneStream | undefined;

  constructor(private readonly options: NodeSessionTransportOptions) {}

  start(): Promise<void> {
    if (this.started) return Promise.reject(new Error('Transport already started'));
    this.started = true;
    return Promise.resolve();
  }

  /** Called by the server on connect: the versions an `MCP-Protocol-Version` header may name. */
  setSupportedProtocolVersions(versions: string[]): void {
    this.supportedVersions = versions;
  }

  /** Serves one HTTP request of this session (its body already read and parsed by the listener). */
  async handle(request: IncomingMessage, response: ServerResponse, body: McpRequestBody, authInfo: AuthInfo | undefined): Promise<void> {
    if (this.closed) return this.refuse(response, [404, -32001, 'Session not found'], false);
    switch (request.method) {
      case 'POST':
        try {
          return this.post(request, response, body, authInfo);
        } catch (error) {
          this.onerror?.(error as Error);
          if (!response.headersSent) refuseJsonRpc(response, 400, -32700, 'Parse error', { data: String(error) });
          return;
        }
      case 'GET':
        return this.get(request, response);
      case 'DELETE':
        return this.delete(request, response);
      default:
        this.onerror?.(new Error('Method not allowed.'));
        return refuseJsonRpc(response, 405, -32000, 'Method not allowed.', { headers: { allow: 'GET, POST, DELETE' } });
    }
  }

  private post(request: IncomingMessage, response: ServerResponse, body: McpRequestBody, authInfo: AuthInfo | undefined): void {
    const accept = request.headers.accept;
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return this.refuse(response, [406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream']);
    }
    if (!isJsonContentType(headerValue(request, 'content-type') ?? null)) {
      return this.refuse(response, [415, -32000, 'Unsupported Media Type: Content-Type must be application/json']);
    }
    if (!body.json) return this.refuse(response, [400, -32700, 'Parse error: Invalid JSON']);
    const raw = body.value;
    if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
      return this.refuse(response, [400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`]);
    }
    let messages: JSONRPCMessage[];
    try {
      messages = Array.isArray(raw) ? raw.map((each) => parseJSONRPCMessage(each)) : [parseJSONRPCMessage(raw)];
    } catch (error) {
      this.onerror?.(error as Error);
      return refuseJsonRpc(response, 400, -32700, 'Parse error: Invalid JSON-RPC message');
    }
    if (this.closed) return this.refuse(response, [404, -32001, 'Session not found'], false);
    // The messages passed the SDK's strict schemas, so their shape alone tells their kind.
    const initializing = messages.some((message) => 'method' in message && message.method === 'initialize' && isInitializeRequest(message));
    if (initializing) {
      if (this.initialized && this.sessionId !== undefined) return this.refuse(response, [400, -32600, 'Invalid Request: Server already initialized']);
      if (messages.length > 1) return this.refuse(response, [400, -32600, 'Invalid Request: Only one initialization request is allowed']);
      this.sessionId = randomUUID();
      this.initialized = true;
    } else {
      const refusal = this.sessionRefusal(request) ?? this.versionRefusal(request);
      if (refusal !== undefined) return this.refuse(response, refusal);
    }
    if (this.closed) return this.refuse(response, [404, -32001, 'Session not found'], false);
    const extra = authInfo === undefined ? {} : { authInfo };
    const requests = messages.filter((message) => 'method' in message && 'id' in message) as { id: RequestId }[];
    if (requests.length === 0) {
      for (const message of messages) this.onmessage?.(message, extra);
      response.writeHead(202, { 'content-length': '0' });
      response.end();
      return;
    }
    // An id repeated in one batch is answered once (the protocol answers it once), so it is waited for once.
    const exchange: PostExchange = { response, ids: [...new Set(requests.map((each) => each.id))], answers: new Map(), streaming: false, timer: undefined };
    for (const id of exchange.ids) this.exchanges.set(id, exchange);
    const delay = this.keepAliveDelay();
    if (delay !== undefined) exchange.timer = setTimeout(() => this.keepAlive(exchange), delay).unref();
    for (const message of messages) this.onmessage?.(message, extra);
  }

  private get(request: IncomingMessage, response: ServerResponse): void {
    if (!request.headers.accept?.includes('text/event-stream')) {
      return this.refuse(response, [406, -32000, 'Not Acceptable: Client must accept text/event-stream']);
    }
    const refusal = this.sessionRefusal(request) ?? this.versionRefusal(request);
    if (refusal !== undefined) return this.refuse(response, refusal);
    if (this.standalone !== undefined) return this.refuse(response, [409, -32000, 'Conflict: Only one SSE stream is allowed per session']);
    response.writeHead(200, this.streamHeaders());
    response.flushHeaders();
    const delay = this.keepAliveDelay();
    const stream: StandaloneStream = { response, timer: undefined };
    if (delay !== undefined) stream.timer = setInterval(() => response.write(': keepalive\n\n'), delay).unref();
    this.standalone = stream;
    // The client may open another once this one is gone.
    response.once('close', () => {
      clearInterval(stream.timer);
      if (this.standalone === stream) this.standalone = undefined;
    });
  }

  private async delete(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const refusal = this.sessionRefusal(request) ?? this.versionRefusal(request);
    if (refusal !== undefined) return this.refuse(response, refusal);
    try {
      await this.options.onsessionclosed?.(this.sessionId!);
      response.writeHead(200, { 'content-length': '0' });
      response.end();
    } finally {
      await this.close();
    }
  }

  /** Why a request may not use this session (`undefined`: it may). */
  private sessionRefusal(request: IncomingMessage): Refusal | undefined {
    if (!this.initialized) return [400, -32000, 'Bad Request: Server not initialized'];
    const id = headerValue(request, 'mcp-session-id');
    if (!id) return [400, -32000, 'Bad Request: Mcp-Session-Id header is required'];
    if (id !== this.sessionId) return [404, -32001, 'Session not found'];
    return undefined;
  }

  /** A request may name the protocol version in its header; absent, the negotiated one holds. */
  private versionRefusal(request: IncomingMessage): Refusal | undefined {
    const version = headerValue(request, 'mcp-protocol-version');
    if (version === undefined || this.supportedVersions.includes(version)) return undefined;
    return [400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${this.supportedVersions.join(', ')})`];
  }

  private refuse(response: ServerResponse, [status, code, message]: Refusal, report = true): void {
    if (report) this.onerror?.(new Error(message));
    refuseJsonRpc(response, status, code, message);
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // What deliver() throws (a message for no open request) becomes the rejection, as the SDK's transport rejects.
    return new Promise((resolve) => {
      this.deliver(message, options?.relatedRequestId);
      resolve();
    });
  }

  /** Puts one message on the stream or answer it belongs to. */
  private deliver(message: JSONRPCMessage, relatedRequestId: RequestId | undefined): void {
    if (this.closed) return;
    const isResponse = 'result' in message || 'error' in message;
    const id = isResponse ? message.id : relatedRequestId;
    if (id === undefined) {
      if (isResponse) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      this.standalone?.response.write(sseFrame(message));
      return;
    }
    const exchange = this.exchanges.get(id);
    if (exchange === undefined) throw new Error(`No connection established for request ID: ${String(id)}`);
    if (!isResponse) {
      // Something must reach the client before the answer: from here on the answer is a stream.
      this.stream(exchange);
      exchange.response.write(sseFrame(message));
      return;
    }
    exchange.answers.set(id, message);
    const complete = exchange.answers.size === exchange.ids.length;
    if (complete) this.settle(exchange);
    if (exchange.response.destroyed) {
      if (complete) this.onerror?.(new Error(`Response for request ID ${String(id)} is undeliverable: per-request stream is disconnected and no eventStore is configured`));
      return;
    }
    if (exchange.streaming) {
      if (complete) exchange.response.end(sseFrame(message));
      else exchange.response.write(sseFrame(message));
      return;
    }
    if (!complete) return;
    const answers = exchange.ids.map((each) => exchange.answers.get(each));
    writeJson(exchange.response, 200, answers.length === 1 ? answers[0] : answers, this.sessionId === undefined ? {} : { 'mcp-session-id': this.sessionId });
  }

  /** Turns a POST's answer into an SSE stream (once), its keep-alive comments started. */
  private stream(exchange: PostExchange): void {
    if (exchange.streaming) return;
    exchange.streaming = true;
    clearTimeout(exchange.timer);
    exchange.timer = undefined;
    if (exchange.response.destroyed) return;
    exchange.response.writeHead(200, this.streamHeaders());
    const delay = this.keepAliveDelay();
    if (delay !== undefined) exchange.timer = setInterval(() => this.keepAlive(exchange), delay).unref();
  }

  private keepAlive(exchange: PostExchange): void {
    if (exchange.response.destroyed || exchange.response.writableEnded) {
      clearInterval(exchange.timer);
      return;
    }
    this.stream(exchange);
    exchange.response.write(': keepalive\n\n');
  }

  /** The exchange has all its answers: its requests and timer are forgotten. */
  private settle(exchange: PostExchange): void {
    clearTimeout(exchange.timer);
    for (const id of exchange.ids) if (this.exchanges.get(id) === exchange) this.exchanges.delete(id);
  }

  private streamHeaders(): Record<string, string> {
    return this.sessionId === undefined ? { ...SSE_HEADERS } : { ...SSE_HEADERS, 'mcp-session-id': this.sessionId };
  }

  private keepAliveDelay(): number | undefined {
    const interval = this.options.keepAliveMs;
    return Number.isFinite(interval) && interval >= 1 ? Math.min(interval, MAX_TIMER_MS) : undefined;
  }

  /** Ends every open answer (an unanswered POST as the SDK's transport ends it: an empty stream) and the GET stream. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    for (const exchange of new Set(this.exchanges.values())) {
      this.settle(exchange);
      clearInterval(exchange.timer);
      if (exchange.response.destroyed || exchange.response.writableEnded) continue;
      this.stream(exchange);
      clearInterval(exchange.timer);
      exchange.response.end();
    }
    this.exchanges.clear();
    if (this.standalone !== undefined) {
      clearInterval(this.standalone.timer);
      this.standalone.response.end();
      this.standalone = undefined;
    }
    this.onclose?.();
    return Promise.resolve();
  }
}

function sseFrame(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}
