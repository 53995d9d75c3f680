/**
 * The fetch every HTTP request of a server goes through: it never follows a redirect
 * (not even same-origin; the error names the target so the URL can be fixed), and it
 * bounds what a server can make the host buffer: a JSON body in total, an SSE stream
 * per event (comments included). Errors never include the raw body.
 */
import type { FetchLike } from '@modelcontextprotocol/client';

export interface BoundedFetchOptions {
  serverId: string;
  /** Largest JSON body and largest SSE event, in bytes. */
  messageBytes: number;
  /** The underlying fetch. Default: the global `fetch`. */
  fetch?: FetchLike;
}

/** A server answered with a redirect, which is never followed. */
export class McpRedirectError extends Error {
  constructor(
    readonly serverId: string,
    readonly status: number,
    readonly target: string | undefined,
  ) {
    super(
      `MCP server "${serverId}" answered HTTP ${status} redirecting to ${target ?? 'an unnamed location'}; ` +
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

/** Reads a body of unknown length, failing as soon as it passes `limit` bytes. */
async function readBounded(body: ReadableStream<Uint8Array>, limit: number, error: () => Error): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw error();
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

const CR = 13;
const LF = 10;

/**
 * Counts the bytes of each SSE event (a blank line ends one; CR, LF and CRLF split
 * across chunks are handled). On an oversized event the stream ends; when the stream
 * answers a request, a JSON-RPC error for that request is emitted first, so the caller
 * fails at once instead of waiting for its timeout.
 */
function boundSse(
  body: ReadableStream<Uint8Array>,
  limit: number,
  id: string | number | undefined,
  error: () => Error,
): ReadableStream<Uint8Array> {
  let eventBytes = 0;
  let lineBytes = 0;
  let previousCr = false;
  let done = false;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (done) return;
        // Where, in this chunk, the current event began (0: in an earlier chunk).
        let eventStart = 0;
        for (let i = 0; i < chunk.length; i++) {
          const byte = chunk[i]!;
          if (byte === LF && previousCr) {
            previousCr = false;
            continue;
          }
          previousCr = byte === CR;
          if (byte === LF || byte === CR) {
            if (lineBytes === 0) {
              eventBytes = 0;
              eventStart = i + 1;
            }
            lineBytes = 0;
            continue;
          }
          lineBytes++;
          eventBytes++;
          if (eventBytes > limit) {
            done = true;
            // Complete events before this one are delivered; the blank line ends the truncated one.
            if (eventStart > 0) controller.enqueue(chunk.subarray(0, eventStart));
            const failure = error();
            if (id !== undefined) {
              const message = { jsonrpc: '2.0', id, error: { code: -32603, message: failure.message } };
              controller.enqueue(new TextEncoder().encode(`\n\nevent: message\ndata: ${JSON.stringify(message)}\n\n`));
              controller.terminate();
            } else {
              controller.error(failure);
            }
            return;
          }
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/** A fetch that refuses redirects and bounds response bodies for one server. */
export function boundedFetch(options: BoundedFetchOptions): FetchLike {
  const base = options.fetch ?? fetch;
  const { serverId, messageBytes } = options;
  return async (url, init) => {
    const response = await base(url, { ...init, redirect: 'manual' });
    if (REDIRECTS.has(response.status) || response.type === 'opaqueredirect') {
      await response.body?.cancel().catch(() => {});
      throw new McpRedirectError(serverId, response.status, redirectTarget(url, response));
    }
    const body = response.body;
    if (body === null) return response;
    const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
    const rebuild = (content: ReadableStream<Uint8Array> | Uint8Array): Response =>
      new Response(content, { status: response.status, statusText: response.statusText, headers: response.headers });
    if (contentType.includes('text/event-stream')) {
      const error = () => new McpResponseTooLargeError(serverId, messageBytes, 'an SSE event');
      return rebuild(boundSse(body, messageBytes, requestId(init), error));
    }
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
      // HTTP framing holds the body to its declared length: nothing to count.
      return response;
    }
    return rebuild(await readBounded(body, messageBytes, () => new McpResponseTooLargeError(serverId, messageBytes, 'an HTTP body')));
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
