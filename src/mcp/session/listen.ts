/**
 * `subscriptions/listen` streams (2026-07-28) kept by the host's client itself, on the
 * wire exactly as the SDK's `Client.listen` sends and reads them. An idle session holds
 * one such stream for as long as it lives, and the SDK's keeps a state machine of closures,
 * two promises and an `AbortController` for it (about 2 KiB a server in the issue 16
 * idle-heap probe, of which the abort signal alone is 0.7); a `ListenStream` is one object
 * that tells its owner when it ends, with an `AbortController` only where the transport
 * needs one to end the request's own stream (2026-07-28 Streamable HTTP).
 *
 * The protocol, as the SDK implements it: the request goes out with a string id and the
 * era's `_meta` envelope; the server's `notifications/subscriptions/acknowledged` naming
 * that id (in `_meta`) opens the stream, with the filter it honours; the change
 * notifications it carries pass on to the client's ordinary handlers; the stream ends
 * when the server cancels it (`notifications/cancelled`), answers the request (a result is
 * a graceful close, an error a refusal), the request's own stream ends, the connection
 * closes, or the host closes it (`notifications/cancelled`, and the request's stream
 * aborted).
 */
import { inspect } from 'node:util';
import {
  SdkError,
  SdkErrorCode,
  SUBSCRIPTION_ID_META_KEY,
  ProtocolError,
  type JSONRPCErrorResponse,
  type JSONRPCNotification,
  type JSONRPCResponse,
  type SubscriptionFilter,
  type Transport,
} from '@modelcontextprotocol/client';

/** Why a stream ended: the host closed it, the server ended it gracefully, or something failed. */
export type ListenEnd = 'local' | 'graceful' | 'remote';

/** Who hears that an acknowledged stream ended (a stream that never opened rejects its open instead). */
export interface ListenOwner {
  listenEnded(stream: ListenStream, end: ListenEnd): void;
}

/** What a stream needs of the client it belongs to. */
export interface ListenClient {
  readonly transport: Transport | undefined;
  /** The era's `_meta` envelope for an outgoing request. */
  outboundMeta(): Record<string, unknown>;
  /** The filter the server says it honours, read from its acknowledgement as the SDK reads it. */
  honoredFilter(acknowledgement: JSONRPCNotification): SubscriptionFilter;
  /** Sends `notifications/cancelled` for a request id. */
  cancelRequest(id: string): Promise<void>;
  /** Routes the server's messages for a stream's id to it, from before its request goes out. */
  remember(stream: ListenStream): void;
  /** Forgets a stream that ended. */
  forget(id: string): void;
}

export interface ListenOptions {
  /** How long the server has to acknowledge. */
  timeout: number;
  /**
   * Bounds the wait for the acknowledgement. Unlike the SDK's `listen`, an abort after it
   * leaves the stream open: the stream belongs to the session, not to the first caller
   * that asked for it, and holding that caller's signal would keep it alive as long.
   */
  signal?: AbortSignal;
}

/** An abort reason as the SDK surfaces it (a request timeout, unless it is an SDK error already). */
export function asSdkError(reason: unknown): SdkError {
  return reason instanceof SdkError ? reason : new SdkError(SdkErrorCode.RequestTimeout, String(reason));
}

export class ListenStream {
  private state: 'opening' | 'open' | 'closed' = 'opening';
  /** Settles `opened`; dropped once it has. */
  private opening: { resolve: (filter: SubscriptionFilter) => void; reject: (error: Error) => void } | undefined;
  private ackTimer: NodeJS.Timeout | undefined;
  /** The caller's signal and its listener, until the stream is acknowledged or ends: it bounds the opening only. */
  private caller: { signal: AbortSignal; onAbort: () => void } | undefined;
  /** Ends the request's own stream, on transports that give each request one. */
  private readonly requestAbort: AbortController | undefined;
  /** Resolves with the honoured filter once acknowledged; rejects if the stream ends first. */
  readonly opened: Promise<SubscriptionFilter>;

  constructor(
    readonly id: string,
    private readonly client: ListenClient,
    private readonly owner: ListenOwner,
    filter: SubscriptionFilter,
    options: ListenOptions,
  ) {
    this.opened = new Promise((resolve, reject) => {
      this.opening = { resolve, reject };
    });
    const transport = client.transport;
    if (transport === undefined) {
      this.fail(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
      return;
    }
    const signal = options.signal;
    if (signal?.aborted) {
      this.fail(asSdkError(signal.reason));
      return;
    }
    // Each in a method of its own, so no closure keeps the others' variables (a caller's signal) alive.
    this.ackTimer = this.ackDeadline(options.timeout);
    if (signal !== undefined) this.watchCaller(signal);
    client.remember(this);
    const perRequestStream = transport.hasPerRequestStream === true;
    this.requestAbort = perRequestStream ? new AbortController() : undefined;
    const request = {
      jsonrpc: '2.0' as const,
      id,
      method: 'subscriptions/listen',
      params: { _meta: { ...client.outboundMeta() }, notifications: filter },
    };
    try {
      transport.send(request, this.requestAbort && this.streamOptions(this.requestAbort)).catch((error: unknown) => this.sendFailed(error));
    } catch (error) {
      this.sendFailed(error);
    }
  }

  private ackDeadline(timeout: number): NodeJS.Timeout {
    return setTimeout(() => {
      this.end('remote', new SdkError(SdkErrorCode.RequestTimeout, 'subscriptions/listen ack timed out', { timeout }));
      void this.teardown();
    }, timeout);
  }

  private watchCaller(signal: AbortSignal): void {
    const onAbort = (): void => {
      const reason: unknown = signal.reason;
      this.end('local', reason instanceof Error ? reason : new Error(reason === undefined ? 'Aborted' : inspect(reason)));
      void this.teardown();
    };
    this.caller = { signal, onAbort };
    signal.addEventListener('abort', onAbort, { once: true });
  }

  private streamOptions(requestAbort: AbortController): { requestSignal: AbortSignal; onRequestStreamEnd: () => void } {
    return { requestSignal: requestAbort.signal, onRequestStreamEnd: () => this.end('remote', new Error('subscriptions/listen: stream ended')) };
  }

  private sendFailed(error: unknown): void {
    this.end('remote', error instanceof Error ? error : new Error(String(error)));
  }

  /** Whether the server acknowledged the stream and it has not ended. */
  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** The server's acknowledgement: the stream is open. */
  acknowledged(acknowledgement: JSONRPCNotification): void {
    if (this.state !== 'opening') return;
    this.stopWaiting();
    this.state = 'open';
    this.opening?.resolve(this.client.honoredFilter(acknowledgement));
    this.opening = undefined;
  }

  /** The server answered the listen request: an error refuses it, a result ends it gracefully. */
  answered(response: JSONRPCResponse | JSONRPCErrorResponse): void {
    if ('error' in response) {
      this.end('remote', ProtocolError.fromError(response.error.code, response.error.message, response.error.data));
    } else {
      this.end('graceful', new SdkError(SdkErrorCode.ConnectionClosed, 'subscriptions/listen: server closed the subscription gracefully before acknowledging'));
    }
  }

  /** The server cancelled the stream. */
  cancelled(): void {
    this.end('remote', new Error('subscriptions/listen: server cancelled the subscription'));
  }

  /** The connection closed under the stream. */
  connectionClosed(error: SdkError): void {
    this.end('remote', error);
  }

  /** Ends the stream from this side: the server is told, and the request's stream (if any) is aborted. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.end('local', undefined);
    await this.teardown();
  }

  private async teardown(): Promise<void> {
    this.requestAbort?.abort();
    await this.client.cancelRequest(this.id).catch(() => {});
  }

  /** A stream that cannot even be sent. */
  private fail(error: Error): void {
    this.state = 'closed';
    this.opening?.reject(error);
    this.opening = undefined;
  }

  /** Stops what bounds the opening: the acknowledgement timer and the caller's signal. */
  private stopWaiting(): void {
    if (this.ackTimer !== undefined) clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    this.caller?.signal.removeEventListener('abort', this.caller.onAbort);
    this.caller = undefined;
  }

  private end(end: ListenEnd, error: Error | undefined): void {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    this.stopWaiting();
    this.client.forget(this.id);
    this.requestAbort?.abort();
    if (wasOpen) {
      this.owner.listenEnded(this, end);
      return;
    }
    this.opening?.reject(error ?? new SdkError(SdkErrorCode.ConnectionClosed, 'subscriptions/listen closed before the server acknowledged'));
    this.opening = undefined;
  }
}

/** The subscription id a listen notification names, if any. */
export function subscriptionIdOf(notification: JSONRPCNotification): unknown {
  const meta = (notification.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta?.[SUBSCRIPTION_ID_META_KEY];
}
