/**
 * Event notifications taken off a session's transport in arrival order, before the SDK
 * dispatches them (its per-message dispatch can reorder a burst), and handed to the push
 * stream they belong to: a server keys each one by the JSON-RPC id of its
 * `events/stream` request, in `_meta["io.modelcontextprotocol/subscriptionId"]`. The tap
 * binds that id to its stream as the request is sent (a token in the request's `_meta`,
 * removed before it leaves), so a notice cannot beat its registration; notices for an id
 * not bound yet are still held briefly (64 at most, 30 s).
 */

/** Where a stream request carries its token to the tap (removed before sending). */
export const STREAM_TOKEN_KEY = 'io.mcp-fleet/event-stream';
/** Where a server keys an event notification by its stream's request id. */
export const SUBSCRIPTION_ID_KEY = 'io.modelcontextprotocol/subscriptionId';
const EARLY_MAX = 64;
const EARLY_TTL_MS = 30_000;

/** One event notification: its kind (`active`, `event`, `heartbeat`, `error`, `terminated`, `list_changed`) and params. */
export interface EventNotice {
  kind: string;
  params: Record<string, unknown>;
}

export type NoticeHandler = (notice: EventNotice) => void;

export class EventRouter {
  /** Streams registered by token, and the request id each was sent with. */
  // Made on first use: every session has a router, few ever open an event stream.
  private streams: Map<string, { handler: NoticeHandler; id?: string }> | undefined;
  private byId: Map<string, NoticeHandler> | undefined;
  private readonly early: Array<{ id: string; notice: EventNotice; at: number }> = [];

  /** Registers a stream's handler under `token`, before its request is sent. Returns the unregistration. */
  expect(token: string, handler: NoticeHandler): () => void {
    const entry: { handler: NoticeHandler; id?: string } = { handler };
    (this.streams ??= new Map()).set(token, entry);
    return () => {
      this.streams?.delete(token);
      if (entry.id !== undefined) this.byId?.delete(entry.id);
    };
  }

  /** The tap saw the request carrying `token` go out with JSON-RPC id `id`. */
  bind(token: string, id: string | number): void {
    const entry = this.streams?.get(token);
    if (entry === undefined) return;
    const key = String(id);
    entry.id = key;
    (this.byId ??= new Map()).set(key, entry.handler);
    // Notices that arrived before the binding, oldest first.
    const now = Date.now();
    for (let index = 0; index < this.early.length; ) {
      const held = this.early[index]!;
      if (held.id === key && now - held.at <= EARLY_TTL_MS) {
        this.early.splice(index, 1);
        entry.handler(held.notice);
      } else index++;
    }
  }

  /** Routes one incoming `notifications/events/*` message. */
  route(method: string, params: unknown): void {
    const kind = method.slice('notifications/events/'.length);
    const body = typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {};
    if (kind === 'list_changed') {
      // Not keyed: every stream of the session hears it.
      for (const handler of new Set(this.byId?.values())) handler({ kind, params: body });
      return;
    }
    const meta = body._meta as Record<string, unknown> | undefined;
    const id = meta?.[SUBSCRIPTION_ID_KEY];
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const key = String(id);
    const handler = this.byId?.get(key);
    if (handler !== undefined) {
      handler({ kind, params: body });
      return;
    }
    const now = Date.now();
    while (this.early.length > 0 && (this.early.length >= EARLY_MAX || now - this.early[0]!.at > EARLY_TTL_MS)) this.early.shift();
    this.early.push({ id: key, notice: { kind, params: body }, at: now });
  }
}
