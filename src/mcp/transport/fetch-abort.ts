/**
 * Aborting a fetch by its signal, made dependable. undici (the `fetch` of Node 20 and 22)
 * follows the signal a request is given through the `Request` object it builds inside
 * `fetch`, which nothing else holds: once a garbage collection takes that object, an
 * abort no longer reaches the request or its response body (nodejs/node#55428). Under
 * `redirect: 'manual'` undici's copy of each request happens to keep the link; under
 * `'error'`, which mcp-fleet asks for because it spares that copy, a stream that never
 * ends on its own (a `subscriptions/listen` stream, a 2025-11-25 GET stream, a tool call
 * answered over SSE) stayed open after its transport closed, holding a socket and with
 * it the process (test/http-abort-gc.test.ts). So every response body mcp-fleet reads
 * with a reader of its own follows the request's signal too. (A request still waiting for
 * its response was not seen to lose its abort: undici's pending fetch keeps the link.)
 */

import { linkAbort } from '../../core/abort-link.js';

/** Calls `listener` once when `signal` aborts (at once if it has); the returned function stops listening. */
export function onAbort(signal: AbortSignal | null | undefined, listener: () => void): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    listener();
    return () => {};
  }
  // Many bodies may follow one transport's signal: one listener on it for all of them.
  return linkAbort(signal, listener);
}

/**
 * Cancels `reader` when `signal` aborts, or at once if it has (a pending read then ends as
 * if the body had), until the returned function is called.
 */
export function cancelOnAbort(signal: AbortSignal | null | undefined, reader: ReadableStreamDefaultReader<Uint8Array>): () => void {
  return onAbort(signal, () => void reader.cancel(signal!.reason).catch(() => {}));
}
