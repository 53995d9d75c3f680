/**
 * The SDK `Client`, with a direct path for the one request a host sends all the time:
 * `tools/call`. Profiling (issue 16) put most of a call's client CPU in the SDK's request
 * funnel: a closure set per request, an abort listener, the era codec's decode, and one
 * (2025-11-25) or two (2026-07-28) zod parses of the result. The direct path keeps the
 * SDK's wire format and its verdicts and drops the rest:
 *
 * - the request is the SDK's own: the era's `_meta` envelope from the SDK's
 *   `_outboundMetaEnvelope()`, a progress token, the transport's per-request stream on
 *   2026-07-28 HTTP, `notifications/cancelled` (or the stream's abort) on a timeout;
 * - the answer arrives at the SDK's `_onresponse` (the subclass seam the SDK documents
 *   for exactly this: consume what you own, pass on the rest), after the session's tap
 *   has rewritten it as for any call; only the SDK's message classification in front of
 *   it (a zod parse of the whole answer, to tell a result from a request) is skipped for
 *   the answers of direct calls in flight, which the transport has already parsed as
 *   JSON-RPC (see `isDirectAnswer`);
 * - a result is accepted exactly when the SDK would accept it: a plain text result (see
 *   `plainCallResult`) is what the SDK's schemas pass unchanged, and anything else goes
 *   through the SDK's era codec (`decodeResult`, then `validateResult`).
 *
 * What needs more of the SDK goes through `callTool` (see `canCallDirectly` in
 * invoke.ts): interactive rounds, tasks, output schemas, SEP-2243 parameter headers.
 */
import {
  Client,
  type CallToolResult,
  type JSONRPCErrorResponse,
  type JSONRPCNotification,
  type JSONRPCResponse,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type StandardSchemaV1,
  type SubscriptionFilter,
  type Transport,
} from '@modelcontextprotocol/client';
import { linkAbort } from '../../core/abort-link.js';
import { isJsonObject } from '../../core/json.js';
import type { RequestExchanges } from '../transport/exchanges.js';
import { HostHttpTransport } from '../transport/http.js';
import { asSdkError, type ListenClient, type ListenOptions, type ListenOwner, ListenStream, subscriptionIdOf } from './listen.js';
import { plainCallResult } from '../calls/plain-result.js';

export interface DirectCallOptions {
  /** Per-request timeout, reset by the server's progress. */
  timeout: number;
  /** The most the call may take in all, progress or not. */
  maxTotalTimeout: number;
  signal?: AbortSignal;
}

interface Pending {
  resolve(result: CallToolResult): void;
  reject(error: unknown): void;
  params: { name: string; arguments: Record<string, unknown> };
  options: DirectCallOptions;
  timer: NodeJS.Timeout;
  startedAt: number;
  /** Ends the 2026-07-28 HTTP request's own stream, which is how that era cancels. */
  requestAbort: AbortController | undefined;
  /** Stops following the caller's signal. */
  unlinkAbort: (() => void) | undefined;
}

type Response = JSONRPCResponse | JSONRPCErrorResponse;

/**
 * The SDK's requests waiting for their answers, by id, and their progress handlers:
 * private in its types, read here to tell a late answer from a current one, and to fail a
 * request whose answer stream ended without its answer (`test/mcp-interaction.test.ts` and
 * `test/http-faults.test.ts` fail if they move).
 */
interface SdkResponseHandlers {
  _responseHandlers: Map<number, (response: Error) => void>;
  _progressHandlers: Map<number, unknown>;
}

/** How many given-up direct calls are remembered for their late answers. */
const MAX_ABANDONED = 256;

export class HostClient extends Client implements ListenClient {
  /**
   * Direct requests use negative ids, which the SDK's counter (0, 1, 2, ...) never
   * reaches, so both can share one connection and neither mistakes the other's answers.
   */
  private directId = 0;
  /** Calls in flight on the direct path (made at the first call: an idle session keeps none). */
  private direct: Map<number, Pending> | undefined;
  /** Direct calls given up on (a timeout, an abort) whose answers may still come, oldest first. */
  private abandoned: Set<number> | undefined;
  /** Open and opening `subscriptions/listen` streams, by request id (made at the first). */
  private listens: Map<string, ListenStream> | undefined;
  private listenId = 0;
  /** The requests' own exchanges on a Streamable HTTP transport, told when each is answered. */
  private exchanges: RequestExchanges | undefined;

  /**
   * Receives the result of a direct call that was given up on, when it arrives after all:
   * the session cancels a task such a result hands over, which nobody would poll.
   */
  onLateResult: ((result: unknown) => void) | undefined;

  /**
   * Connects as the SDK does, then routes the answers of direct calls straight to
   * `_onresponse`, past the SDK's classification (about 9 µs of a stdio call, some 5% of
   * its client CPU, in the issue 16 profile). The handler pre-set on the transport (the
   * session's tap) still sees every message first, as the SDK's dispatch would call it.
   */
  override async connect(transport: Transport, options?: Parameters<Client['connect']>[1]): Promise<void> {
    const preset = transport.onmessage;
    // Before the handshake, whose requests are exchanges too.
    if (transport instanceof HostHttpTransport) {
      this.exchanges = transport.exchanges;
      this.exchanges.onended = (id) => this.answerStreamEnded(id);
    }
    await super.connect(transport, options);
    const dispatch = transport.onmessage;
    if (dispatch === undefined) return;
    transport.onmessage = (message, extra) => {
      if (!this.isDirectAnswer(message)) {
        dispatch(message, extra);
        return;
      }
      preset?.(message, extra);
      this._onresponse(message as Response);
    };
  }

  /**
   * Whether a message is the answer to a direct call in flight, in a form the SDK's
   * dispatch classifies as a response: JSON-RPC 2.0, no method, and exactly one of a
   * result object or an error object (whose fields the transport's parse has checked).
   * Anything else, however close, takes the SDK's dispatch.
   */
  private isDirectAnswer(message: object): boolean {
    const { id } = message as { id?: unknown };
    if (typeof id !== 'number' || id >= 0 || this.direct?.has(id) !== true) return false;
    const fields = message as Record<string, unknown>;
    if (fields.jsonrpc !== '2.0' || 'method' in fields) return false;
    return 'result' in fields ? isJsonObject(fields.result) && !('error' in fields) : isJsonObject(fields.error);
  }

  /** Sends `tools/call` and waits for its result, rejecting as `callTool` would. */
  directCallTool(params: { name: string; arguments: Record<string, unknown> }, options: DirectCallOptions): Promise<CallToolResult> {
    const transport = this.transport;
    if (transport === undefined) return Promise.reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
    if (options.signal?.aborted) return Promise.reject(asSdkError(options.signal.reason));
    const id = --this.directId;
    const envelope = this._outboundMetaEnvelope();
    const message = {
      jsonrpc: '2.0' as const,
      id,
      method: 'tools/call',
      params: { ...params, _meta: { ...envelope, progressToken: id } },
    };
    const modern = this.getProtocolEra() === 'modern';
    const requestAbort = modern && transport.hasPerRequestStream === true ? new AbortController() : undefined;
    return new Promise<CallToolResult>((resolve, reject) => {
      const pending: Pending = {
        resolve,
        reject,
        params,
        options,
        timer: this.requestTimer(id, options.timeout),
        startedAt: performance.now(),
        requestAbort,
        unlinkAbort: undefined,
      };
      const signal = options.signal;
      if (signal !== undefined) pending.unlinkAbort = linkAbort(signal, () => this.cancelDirect(id, asSdkError(signal.reason)));
      (this.direct ??= new Map()).set(id, pending);
      transport.send(message, requestAbort === undefined ? undefined : { requestSignal: requestAbort.signal }).catch((error: unknown) => {
        // The transport's own failure, passed on as the SDK passes it.
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        if (this.settle(id) !== undefined) reject(error);
      });
    });
  }

  /** The per-request timeout of direct call `id`, as the SDK words it. */
  private requestTimer(id: number, timeout: number): NodeJS.Timeout {
    return setTimeout(() => this.cancelDirect(id, new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout })), timeout);
  }

  /** Takes a pending direct call out, stopping its timer and abort listener. */
  private settle(id: number): Pending | undefined {
    const pending = this.direct?.get(id);
    if (pending === undefined) return undefined;
    this.direct?.delete(id);
    clearTimeout(pending.timer);
    pending.unlinkAbort?.();
    return pending;
  }

  /** Gives up on a direct call and tells the server, as the SDK does on a timeout or an abort. */
  private cancelDirect(id: number, reason: SdkError): void {
    const pending = this.settle(id);
    if (pending === undefined) return;
    const abandoned = (this.abandoned ??= new Set());
    abandoned.add(id);
    if (abandoned.size > MAX_ABANDONED) abandoned.delete(abandoned.values().next().value!);
    if (pending.requestAbort !== undefined) {
      pending.requestAbort.abort();
    } else {
      this.notification({ method: 'notifications/cancelled', params: { requestId: id, reason: reason.message } }).catch((error: unknown) =>
        this.onerror?.(new Error(`Failed to send cancellation: ${String(error)}`)),
      );
    }
    pending.reject(reason);
  }

  /**
   * Opens a `subscriptions/listen` stream (2026-07-28 sessions only), on the wire as the
   * SDK's `listen` does, held by one small object (see listen.ts). `owner` hears when the
   * stream ends after its acknowledgement; `opened` rejects if it ends before.
   */
  openListen(filter: SubscriptionFilter, owner: ListenOwner, options: ListenOptions): ListenStream {
    if (this.getProtocolEra() !== 'modern') {
      throw new SdkError(SdkErrorCode.MethodNotSupportedByProtocolVersion, 'subscriptions/listen requires a 2026-07-28-era connection', {
        method: 'subscriptions/listen',
        protocolVersion: this.getNegotiatedProtocolVersion(),
      });
    }
    // Not the SDK's `listen:<n>` ids: the two can never claim each other's messages.
    return new ListenStream(`mcp-fleet-listen:${++this.listenId}`, this, owner, filter, options);
  }

  // What a listen stream needs of its client (`ListenClient`): methods, not closures, so an
  // open stream costs no more than its own object.

  outboundMeta(): Record<string, unknown> {
    return this._outboundMetaEnvelope() as Record<string, unknown>;
  }

  honoredFilter(acknowledgement: JSONRPCNotification): SubscriptionFilter {
    const honored = this._wireCodec().validateNotification('notifications/subscriptions/acknowledged', acknowledgement);
    return honored.ok ? (honored.value as { params: { notifications: SubscriptionFilter } }).params.notifications : {};
  }

  cancelRequest(id: string): Promise<void> {
    return this.notification({ method: 'notifications/cancelled', params: { requestId: id } });
  }

  remember(stream: ListenStream): void {
    (this.listens ??= new Map()).set(stream.id, stream);
  }

  forget(id: string): void {
    this.listens?.delete(id);
  }

  /**
   * Fails request `id` if it still waits for its answer, now that its answer stream has
   * ended (see transport/exchanges.ts): a disconnect, reported at once instead of at its
   * timeout. For one of the SDK's requests this is what its own close handling does to
   * every request (the handler rejects with the error), its progress handler dropped as
   * its answer would drop it.
   */
  private answerStreamEnded(id: string | number): void {
    if (typeof id !== 'number') return;
    const ended = (): SdkError => new SdkError(SdkErrorCode.ConnectionClosed, `The server ended its response stream before answering request ${id}`);
    if (id < 0) {
      this.settle(id)?.reject(ended());
      return;
    }
    const sdk = this as unknown as SdkResponseHandlers;
    const handler = sdk._responseHandlers.get(id);
    if (handler === undefined) return;
    sdk._progressHandlers.delete(id);
    handler(ended());
  }

  protected override _onresponse(response: Response): void {
    const id = response.id;
    if (id !== undefined) this.exchanges?.settled(id);
    const listen = typeof id === 'string' ? this.listens?.get(id) : undefined;
    if (listen !== undefined) {
      listen.answered(response);
      return;
    }
    const pending = typeof id === 'number' && id < 0 ? this.settle(id) : undefined;
    if (pending === undefined) {
      // The late answer of a call given up on is ours, not an unknown id to report.
      if (typeof id === 'number' && this.abandoned?.delete(id) === true) {
        if ('result' in response) this.onLateResult?.(response.result);
        return;
      }
      // The late answer of one of the SDK's own requests, given up on by its timeout or an
      // abort: the SDK only reports the unknown id, so a task it hands over is cancelled here.
      if (typeof id === 'number' && 'result' in response && !(this as unknown as SdkResponseHandlers)._responseHandlers.has(id)) {
        this.onLateResult?.(response.result);
      }
      super._onresponse(response);
      return;
    }
    if ('error' in response) {
      pending.reject(ProtocolError.fromError(response.error.code, response.error.message, response.error.data));
      return;
    }
    this.acceptResult(pending, response.result);
  }

  /** The SDK's verdict on a result, without its schemas when the result is plain text. */
  private acceptResult(pending: Pending, raw: unknown): void {
    const plain = plainCallResult(raw, this.getProtocolEra() === 'modern');
    if (plain !== undefined) {
      pending.resolve(plain);
      return;
    }
    const codec = this._wireCodec();
    const decoded = codec.decodeResult('tools/call', raw);
    if (decoded.kind === 'invalid') {
      pending.reject(decoded.error);
      return;
    }
    if (decoded.kind !== 'complete') {
      // A round that needs no input the host would have to give (the tap turned every
      // unanswerable one into an error): the SDK's multi-round engine takes it from here,
      // through the seam it documents for subclasses, retrying on the SDK's own funnel.
      this._resolveNonCompleteResult(decoded, {
        codec,
        request: { method: 'tools/call', params: pending.params },
        resultSchema: this.resultSchema(),
        options: pending.options,
        flowStartedAt: Date.now() - (performance.now() - pending.startedAt),
        retry: (params, legOptions) => this.request({ method: 'tools/call', params: params ?? {} }, legOptions),
      }).then((result) => pending.resolve(result as CallToolResult), (error: unknown) => pending.reject(error));
      return;
    }
    const verdict = this.verdict(decoded.result);
    if ('value' in verdict) pending.resolve(verdict.value as CallToolResult);
    else pending.reject(new SdkError(SdkErrorCode.InvalidResult, `Invalid result for tools/call: ${verdict.issues[0].message}`));
  }

  /** The era codec's verdict on a `tools/call` result, in standard-schema form. */
  private verdict(value: unknown): { value: unknown } | { issues: [{ message: string }] } {
    const outcome = this._wireCodec().validateResult('tools/call', value);
    return outcome.ok ? { value: outcome.value } : { issues: [{ message: outcome.reason === 'invalid' ? outcome.message : 'not-in-era: tools/call' }] };
  }

  /** The same verdict as a standard schema, which the SDK validates a retried round with. */
  private resultSchema(): StandardSchemaV1 {
    return { '~standard': { version: 1, vendor: 'mcp-fleet', validate: (value: unknown) => this.verdict(value) } };
  }

  protected override _onnotification(notification: JSONRPCNotification, extra?: Parameters<Client['_onnotification']>[1]): void {
    if (this.listens !== undefined && this.listenNotification(notification)) return;
    const token = notification.method === 'notifications/progress' ? (notification.params as { progressToken?: unknown } | undefined)?.progressToken : undefined;
    const pending = typeof token === 'number' && token < 0 ? this.direct?.get(token) : undefined;
    if (pending === undefined || typeof token !== 'number') {
      super._onnotification(notification, extra);
      return;
    }
    // Progress resets the per-request timeout, never the call's total.
    clearTimeout(pending.timer);
    const left = pending.options.maxTotalTimeout - (performance.now() - pending.startedAt);
    if (left <= 0) {
      this.cancelDirect(token, new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', { maxTotalTimeout: pending.options.maxTotalTimeout }));
      return;
    }
    pending.timer = this.requestTimer(token, pending.options.timeout);
  }

  /** Consumes a listen stream's acknowledgement or cancellation; its change notifications pass on. */
  private listenNotification(notification: JSONRPCNotification): boolean {
    let id: unknown;
    if (notification.method === 'notifications/subscriptions/acknowledged') id = subscriptionIdOf(notification);
    else if (notification.method === 'notifications/cancelled') id = (notification.params as { requestId?: unknown } | undefined)?.requestId;
    const stream = typeof id === 'string' ? this.listens?.get(id) : undefined;
    if (stream === undefined) return false;
    if (notification.method === 'notifications/cancelled') stream.cancelled();
    else stream.acknowledged(notification);
    return true;
  }

  protected override _onclose(): void {
    if (this.direct !== undefined && this.direct.size > 0) {
      const closed = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
      for (const id of [...this.direct.keys()]) this.settle(id)?.reject(closed);
    }
    super._onclose();
    // After the SDK's close handling, which tells the session first: a pump whose stream
    // ends with its connection sees a closed session and does not report a gap.
    if (this.listens !== undefined && this.listens.size > 0) {
      const closed = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
      for (const stream of [...this.listens.values()]) stream.connectionClosed(closed);
    }
  }
}
