/**
 * Each request's own HTTP exchange on a Streamable HTTP session: its POST, the SSE stream
 * answering it, and a GET that resumes that stream. The SDK leaves two things undone here
 * (issue 26), on the lean POST and on its own `send` alike:
 *
 * - **A request given up on keeps its socket on 2025-11-25.** `Protocol.request` (in the
 *   SDK's core, bundled into `@modelcontextprotocol/client`) aborts a request's own stream
 *   (`requestSignal`) only on a 2026-07-28 connection; before, its timeout or abort sends
 *   `notifications/cancelled` and nothing else, and `StreamableHTTPClientTransport._send`
 *   gives fetch the transport's lifetime signal only. A server that sent the headers and
 *   half a body, then nothing, kept the socket until the session closed (or undici's
 *   300 s body timeout). So a request sent without a signal of its own gets one here, and
 *   the `notifications/cancelled` naming it aborts it: the POST, its answer stream or the
 *   GET resuming it. The cancellation is still sent: on 2025-11-25 a closed connection is
 *   not a cancellation.
 * - **An answer stream that ends before its answer leaves the request waiting.** The SDK's
 *   `_handleSseStream` reports it to `onerror` and calls `onRequestStreamEnd`, which
 *   `Protocol` passes for nothing but listen streams: a stream cut mid-event waited for the
 *   request's whole timeout (180 s by default). So a request sent without that callback
 *   gets one here, which tells `onended`; the client fails the request if it still waits
 *   (`HostClient`), as a disconnect.
 */
import type { JSONRPCMessage, TransportSendOptions } from '@modelcontextprotocol/client';

type RequestId = string | number;

/**
 * Why a cancelled request's fetch ends. One shared reason: a fresh `abort()` builds a
 * `DOMException`, whose stack undici reads when it ends the request.
 */
const CANCELLED = new Error('The MCP request was cancelled');

export class RequestExchanges {
  /** The own abort of each request in flight that came without one, by id (made at the first). */
  private aborts: Map<RequestId, AbortController> | undefined;

  /** Told the id of a request whose answer stream ended; the request may have been answered on it first. */
  onended: ((id: RequestId) => void) | undefined;

  /**
   * The options to send `message` with. A request gets a signal of its own when it has
   * none, and an end callback when it has none (a caller's own callback is kept, and the
   * end is then its business); anything else is sent as it is. A `notifications/cancelled`
   * aborts the request it names.
   */
  prepare(message: JSONRPCMessage, options: TransportSendOptions | undefined): TransportSendOptions | undefined {
    if (Array.isArray(message) || !('method' in message)) return options;
    if (!('id' in message)) {
      if (message.method === 'notifications/cancelled') {
        const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
        if (typeof id === 'string' || typeof id === 'number') this.cancel(id);
      }
      return options;
    }
    const id = message.id;
    let requestSignal = options?.requestSignal;
    if (requestSignal === undefined) {
      const abort = new AbortController();
      (this.aborts ??= new Map()).set(id, abort);
      requestSignal = abort.signal;
    }
    const theirs = options?.onRequestStreamEnd;
    const onRequestStreamEnd = (): void => {
      this.settled(id);
      if (theirs !== undefined) theirs();
      else this.onended?.(id);
    };
    return { ...options, requestSignal, onRequestStreamEnd };
  }

  /** The request is over (answered, or its send failed): its signal is no longer needed. */
  settled(id: RequestId): void {
    if (this.aborts?.delete(id) === true && this.aborts.size === 0) this.aborts = undefined;
  }

  /** Ends the exchange of a request given up on: its fetch, its answer stream, its socket. */
  private cancel(id: RequestId): void {
    const abort = this.aborts?.get(id);
    if (abort === undefined) return;
    this.settled(id);
    abort.abort(CANCELLED);
  }
}
