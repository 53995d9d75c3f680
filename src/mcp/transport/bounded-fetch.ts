/**
 * The fetch every HTTP request of a server goes through: it never follows a redirect
 * (not even same-origin; the error names the target so the URL can be fixed, at least
 * for the first request to a URL, which meets a moved one), and it
 * bounds what a server can make the host buffer: a JSON body in total, an SSE stream
 * per event (comments included). Errors never include the raw body.
 */
import type { FetchLike, JSONRPCErrorResponse } from '@modelcontextprotocol/client';
import { cancelOnAbort, onAbort } from './fetch-abort.js';

export interface BoundedFetchOptions {
  serverId: string;
  /** Largest JSON body and largest SSE event, in bytes. */
  messageBytes: number;
  /** The underlying fetch. Default: the global `fetch`. */
  fetch?: FetchLike;
}

/**
 * A server answered with a redirect, which is never followed. `status` and `target` are
 * known for the first request to a URL, which meets a moved one; they are `undefined` for
 * later requests and for `tools/call` on the lean path, where fetch refuses redirects
 * itself (see `boundedFetch`).
 */
export class McpRedirectError extends Error {
  constructor(
    readonly serverId: string,
    readonly status: number | undefined,
    readonly target: string | undefined,
  ) {
    super(
      `MCP server "${serverId}" answered ${status === undefined ? 'with an HTTP redirect' : `HTTP ${status} redirecting`} to ${target ?? 'an unnamed location'}; ` +
        'redirects are never followed. If that is the intended server, configure its URL directly.',
    );
    this.name = 'McpRedirectError';
  }
}

/** A response body or SSE event was larger than `limits.messageBytes`. */
export class McpResponseTooLargeError extends Error {
  constructor(
    readonly serverId: string,
    readonly limit: number,
    what: string,
  ) {
    super(`MCP server "${serverId}" sent ${what} larger than the ${limit}-byte limit (limits.messageBytes).`);
    this.name = 'McpResponseTooLargeError';
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Where a redirect points, without credentials, query or fragment. */
function redirectTarget(url: string | URL, response: Response): string | undefined {
  const location = response.headers.get('location');
  if (location === null) return undefined;
  try {
    const target = new URL(location, url);
    target.username = '';
    target.password = '';
    target.search = '';
    target.hash = '';
    return target.href;
  } catch {
    return undefined;
  }
}

/** The JSON-RPC id of the request being sent, if the body is a single request. */
function requestId(init: RequestInit | undefined): string | number | undefined {
  if (typeof init?.body !== 'string') return undefined;
  try {
    const message = JSON.parse(init.body) as { id?: unknown; method?: unknown };
    return typeof message.id === 'string' || typeof message.id === 'number' ? message.id : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a body of unknown length, failing as soon as it passes `limit` bytes, or when `signal` aborts. */
async function readBounded(body: ReadableStream<Uint8Array>, limit: number, error: () => Error, signal: AbortSignal | null | undefined): Promise<Uint8Array> {
  const reader = body.getReader();
  const stop = cancelOnAbort(signal, reader);
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => {});
        throw error();
      }
      chunks.push(value);
    }
  } finally {
    stop();
  }
}

/** Decodes bodies as `Response.text()` does (UTF-8, a leading BOM dropped); stateless between calls. */
const UTF8 = new TextDecoder();

const CR = 13;
const LF = 10;

/**
 * Counts the bytes of each SSE event of one stream (a blank line ends one; comments
 * count; CR, LF and CRLF split across chunks are handled), chunk by chunk.
 */
export class SseEventMeter {
  private eventBytes = 0;
  private lineBytes = 0;
  private previousCr = false;

  constructor(private readonly limit: number) {}

  /**
   * `-1` when every event in `chunk` stays within the limit; otherwise how many leading
   * bytes of `chunk` hold complete events before the oversized one (which may be 0).
   */
  measure(chunk: Uint8Array): number {
    // Where, in this chunk, the current event began (0: in an earlier chunk).
    let eventStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === LF && this.previousCr) {
        this.previousCr = false;
        continue;
      }
      this.previousCr = byte === CR;
      if (byte === LF || byte === CR) {
        if (this.lineBytes === 0) {
          this.eventBytes = 0;
          eventStart = i + 1;
        }
        this.lineBytes = 0;
        continue;
      }
      this.lineBytes++;
      if (++this.eventBytes > this.limit) return eventStart;
    }
    return -1;
  }
}

/** The JSON-RPC error that fails request `id` when its answer broke a bound. */
export function boundBrokenError(id: string | number, failure: Error): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: { code: -32603, message: failure.message } };
}

/** `boundBrokenError` as an SSE event, as a server would send it. */
function sseErrorEvent(id: string | number, failure: Error): Uint8Array {
  return new TextEncoder().encode(`\n\nevent: message\ndata: ${JSON.stringify(boundBrokenError(id, failure))}\n\n`);
}

/**
 * Bounds each SSE event of a body (see `SseEventMeter`). On an oversized event the stream
 * ends; when the stream answers a request, a JSON-RPC error for that request is emitted
 * first, so the caller fails at once instead of waiting for its timeout. One pulling
 * stream over the body's reader: a `TransformStream` would add two more web streams and
 * a pipe to every response, which profiling (issue 16) put at about a tenth of a call's
 * client CPU. When `signal` aborts, the body is cancelled and the stream fails with its
 * reason (see fetch-abort.ts).
 */
function boundSse(
  body: ReadableStream<Uint8Array>,
  limit: number,
  id: () => string | number | undefined,
  error: () => Error,
  signal: AbortSignal | null | undefined,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const meter = new SseEventMeter(limit);
  let stop = (): void => {};
  /** Passes a chunk on, or ends the stream at an oversized event. */
  const scan = (chunk: Uint8Array, controller: ReadableStreamDefaultController<Uint8Array>): void => {
    const kept = meter.measure(chunk);
    if (kept < 0) {
      controller.enqueue(chunk);
      return;
    }
    // Complete events before this one are delivered; the blank line ends the truncated one.
    if (kept > 0) controller.enqueue(chunk.subarray(0, kept));
    const failure = error();
    const requestId = id();
    stop();
    void reader.cancel().catch(() => {});
    if (requestId !== undefined) {
      controller.enqueue(sseErrorEvent(requestId, failure));
      controller.close();
    } else {
      controller.error(failure);
    }
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stop = onAbort(signal, () => {
        controller.error(signal!.reason);
        void reader.cancel(signal!.reason).catch(() => {});
      });
    },
    async pull(controller) {
      const { done, value } = await reader.read().catch((failure: unknown) => {
        stop();
        throw failure;
      });
      if (signal?.aborted) return;
      if (done) {
        stop();
        controller.close();
      } else {
        scan(value, controller);
      }
    },
    cancel(reason) {
      stop();
      return reader.cancel(reason);
    },
  });
}

/**
 * The response as received, its body replaced by the bounded one for every reader
 * (`body`, `text`, `json`, `arrayBuffer`). Cheaper than a new `Response` around it, which
 * copies the headers and wraps the body in yet another stream on every request.
 */
function withBody(response: Response, content: ReadableStream<Uint8Array> | Uint8Array): Response {
  const bytes = content instanceof Uint8Array ? content : undefined;
  let stream = bytes === undefined ? (content as ReadableStream<Uint8Array>) : undefined;
  // Whatever reads first settles the body; a second reader fails as on any Response.
  let used = false;
  const take = async (): Promise<Uint8Array> => {
    if (used) throw new TypeError('Body is unusable: Body has already been read');
    used = true;
    return bytes ?? new Uint8Array(await new Response(stream).arrayBuffer());
  };
  const text = async (): Promise<string> => UTF8.decode(await take());
  Object.defineProperties(response, {
    body: {
      get: () =>
        (stream ??= new ReadableStream<Uint8Array>({
          start(controller) {
            used = true;
            controller.enqueue(bytes!);
            controller.close();
          },
        })),
    },
    bodyUsed: { get: () => used },
    text: { value: text },
    json: { value: async (): Promise<unknown> => JSON.parse(await text()) },
    arrayBuffer: {
      value: async (): Promise<ArrayBuffer> => {
        const read = await take();
        return read.buffer.slice(read.byteOffset, read.byteOffset + read.byteLength) as ArrayBuffer;
      },
    },
  });
  return response;
}

/**
 * The SDK's Streamable HTTP transport passes one long-lived signal to every `fetch` of a
 * 2025-11-25 session, and each `Request` adds an abort listener to the signal it is given
 * that undici drops only once the request is garbage collected. On the long-lived signal
 * Node then warns of a leak (a `MaxListenersExceededWarning` on stderr) after 1,500 quick
 * calls, though heap use stays flat (measured: 20.4-20.7 MiB after gc from 5,120 to
 * 20,480 calls, 64 in flight). So each request gets a signal of its own that follows the
 * caller's: `AbortSignal.any` links it without adding a listener to the caller's signal.
 *
 * Raising the long-lived signal's limit does not work: undici sets it back to 1,500 once
 * the signal holds 10 listeners, and a limit of 0 only escapes that because
 * `events.getMaxListeners` throws on it, which undici catches in every `Request`
 * (about 33 µs of CPU per call in a profile of 5,000 HTTP calls).
 *
 * The init also carries the redirect mode the caller chose.
 */
function ownSignal(init: RequestInit | undefined, redirect: 'manual' | 'error'): RequestInit {
  const signal = init?.signal;
  return signal ? { ...init, signal: AbortSignal.any([signal]), redirect } : { ...init, redirect };
}

/** Whether `error` is fetch's refusal of a redirect under `redirect: 'error'` (undici names it so in the cause). */
function isRefusedRedirect(error: unknown): boolean {
  return error instanceof TypeError && error.cause instanceof Error && error.cause.message === 'unexpected redirect';
}

/** `send()`, with fetch's own refusal of a redirect reported as the `McpRedirectError` it is. */
async function refusingRedirects(options: BoundedFetchOptions, send: () => Promise<Response>): Promise<Response> {
  try {
    return await send();
  } catch (error) {
    if (isRefusedRedirect(error)) throw new McpRedirectError(options.serverId, undefined, undefined);
    throw error;
  }
}

/**
 * A response after the checks every request shares: a redirect is refused, and a body
 * other than SSE is held to the limit (a declared length over it is refused before a byte
 * is read; anything else is counted as it comes) and read here, following `signal` (see
 * fetch-abort.ts): its bytes are returned. A body without a signal and within its
 * declared length is passed on unread. An SSE body is left to `sse`, which bounds it.
 */
async function receive(
  options: BoundedFetchOptions,
  url: string | URL,
  response: Response,
  sse: (body: ReadableStream<Uint8Array>) => Response,
  signal: AbortSignal | null | undefined,
): Promise<Response | Uint8Array> {
  const { serverId, messageBytes } = options;
  if (REDIRECTS.has(response.status) || response.type === 'opaqueredirect') {
    await response.body?.cancel().catch(() => {});
    throw new McpRedirectError(serverId, response.status, redirectTarget(url, response));
  }
  const body = response.body;
  if (body === null) return response;
  if ((response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream')) return sse(body);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  // fetch unpacks gzip, deflate and br itself; Content-Length then tells the packed size
  // only, and a small body can unpack to gigabytes: such bodies are counted as they come.
  const encoding = (response.headers.get('content-encoding') ?? '').trim().toLowerCase();
  const unpacked = encoding !== '' && encoding !== 'identity';
  if (Number.isFinite(declared) && !unpacked) {
    if (declared > messageBytes) {
      await body.cancel().catch(() => {});
      throw new McpResponseTooLargeError(serverId, messageBytes, `an HTTP body of ${declared} bytes`);
    }
    // HTTP framing holds the body to its declared length: nothing to count. Still read here
    // when the request can be cancelled: left to `text()`, a body that stalls halfway no
    // longer heard the abort once a garbage collection took undici's link to the signal,
    // and kept its socket (both eras, measured with 5 stalled calls, issue 26).
    if (!signal) return response;
  }
  return readBounded(body, messageBytes, () => new McpResponseTooLargeError(serverId, messageBytes, 'an HTTP body'), signal);
}

/**
 * A fetch that refuses redirects and bounds response bodies for one server (each
 * transport and authorizer makes its own). Until a URL has answered once without a
 * redirect, requests to it ask for `redirect: 'manual'`, so a moved URL, which the first
 * request meets, is refused with its status and target named; after that fetch refuses
 * redirects to it itself (`redirect: 'error'`), which spares undici a clone of every
 * request and a tee of its body (see `leanBoundedFetch`), and a later redirect is
 * refused without them.
 */
export function boundedFetch(options: BoundedFetchOptions): FetchLike {
  const base = options.fetch ?? fetch;
  const { serverId, messageBytes } = options;
  const error = () => new McpResponseTooLargeError(serverId, messageBytes, 'an SSE event');
  const answered = new Set<string>();
  return async (url, init) => {
    const href = typeof url === 'string' ? url : url.href;
    const own = ownSignal(init, answered.has(href) ? 'error' : 'manual');
    const { signal } = own;
    const response = await refusingRedirects(options, () => base(url, own));
    const received = await receive(options, url, response, (body) => withBody(response, boundSse(body, messageBytes, () => requestId(init), error, signal)), signal);
    answered.add(href);
    return received instanceof Uint8Array ? withBody(response, received) : received;
  };
}

/**
 * A response of `leanBoundedFetch`: `bytes` holds the body when it was counted; otherwise
 * the body is unread (within its declared length, or SSE for the caller to bound).
 */
export interface LeanResponse {
  response: Response;
  bytes: Uint8Array | undefined;
}

/** The body of a lean response as text, as `Response.text()` decodes it. */
export function leanText(lean: LeanResponse): Promise<string> {
  return lean.bytes === undefined ? lean.response.text() : Promise.resolve(UTF8.decode(lean.bytes));
}


/**
 * `boundedFetch` for a caller that reads bodies itself and bounds SSE events with an
 * `SseEventMeter`, and gives every request a signal of its own: it adds no stream or
 * wrapper around the response and no signal of its own. Fetch refuses redirects itself
 * (`redirect: 'error'`): under any other mode undici clones each request and tees its
 * body, 60-100 µs of CPU a request (measured with a local server, issue 16), and the
 * redirect's status and target are then unknown.
 */
export function leanBoundedFetch(options: BoundedFetchOptions): (url: URL, init: RequestInit) => Promise<LeanResponse> {
  const base = options.fetch ?? fetch;
  return async (url, init) => {
    const response = await refusingRedirects(options, () => base(url, { ...init, redirect: 'error' }));
    // SSE bodies are the caller's to bound, and to cancel when the signal aborts.
    const received = await receive(options, url, response, () => response, init.signal);
    return received instanceof Uint8Array ? { response, bytes: received } : { response, bytes: undefined };
  };
}

/**
 * `fetch` with a deadline on each request (the response headers and body alike), for
 * requests nothing else bounds: the OAuth requests made while the authorizer holds its
 * renewal lock, which every call to the server then waits for.
 */
export function timedFetch(fetch: FetchLike, timeoutMs: number): FetchLike {
  return (url, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    return fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
  };
}
