/**
 * The MCP Events extension (experimental), client side: what a server's event types
 * look like, the signals a subscription hands to the application's sink, and the
 * subscription handle. Everything here comes from the server and is untrusted data:
 * receiving an event authorises nothing.
 */
import type { McpEventError } from './errors.js';

/** How an event type can be delivered. */
export type McpEventDeliveryMode = 'poll' | 'push' | 'webhook';

/** One event type a server publishes (`events/list`). */
export interface McpEventType {
  name: string;
  description?: string;
  /** Known delivery modes only, without duplicates. */
  delivery: McpEventDeliveryMode[];
  /** The schema of a subscription's `arguments`. Default `{ type: 'object' }`. */
  inputSchema: Record<string, unknown>;
  /** The schema of an occurrence's `data`, when the server gives one. */
  payloadSchema?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** One occurrence of an event. Deduplicate by `eventId`: delivery is at least once. */
export interface McpEvent {
  eventId: string;
  name: string;
  /** ISO 8601, as the server sent it (`''` when it sent none). */
  timestamp: string;
  data: unknown;
  _meta?: Record<string, unknown>;
}

/**
 * What a subscription tells the application, in order:
 * - `active`: the subscription is (again) delivering; `truncated` when the server
 *   started later than the cursor asked for, so events may have been lost.
 * - `events`: occurrences, and the cursor to resume after them. Persist the cursor once
 *   the events are stored; it is used for the next request only after `deliver`
 *   resolved for this signal.
 * - `error`: a recoverable failure. With `retryInMs`, the round failed and the
 *   subscription retries from the last accepted cursor after that many milliseconds (the
 *   backoff, or the server's `retryAfterMs` for `resource_exhausted`, within 2 s - 5 min);
 *   without it (a notice from the server, a skipped occurrence), the round goes on. The
 *   error carries the server's `data`, bounded and redacted.
 * - `list_changed`: the server's event types changed; list them again.
 * - `terminated`: the end, with the error that ended it (`undefined` when cancelled).
 */
export type McpEventSignal =
  | { type: 'active'; mode: 'poll' | 'push'; truncated: boolean }
  | { type: 'events'; events: McpEvent[]; cursor: string | null }
  | { type: 'error'; error: McpEventError; retryInMs?: number }
  | { type: 'list_changed' }
  | { type: 'terminated'; error: McpEventError | undefined };

/** The application's receiver of a subscription's signals. */
export interface McpEventSink {
  /**
   * Takes one signal. A rejection of an `active` or `events` signal restarts the
   * subscription from the last accepted cursor after a backoff (2 s doubling to 5 min),
   * so the same events come again; a rejection of any other signal is ignored.
   */
  deliver(signal: McpEventSignal): Promise<void> | void;
}

/** What `subscribeEvents` asks for. */
export interface McpEventSubscriptionRequest {
  /** The event type's name (1 to 1,024 UTF-8 bytes). */
  name: string;
  /** The subscription's arguments, as the type's `inputSchema` describes. Default `{}`. */
  arguments?: Record<string, unknown>;
  /** `poll` (`events/poll` rounds) or `push` (one open `events/stream` request). */
  mode: 'poll' | 'push';
  /** Where to resume: a cursor from an earlier `events` signal. Default `null`: from now. */
  cursor?: string | null;
  /** Replay no events older than this, in milliseconds. Default: the server's. */
  maxAgeMs?: number;
}

/** A running subscription. */
export interface McpEventSubscription {
  readonly mode: 'poll' | 'push';
  /** Resolves after the final `terminated` signal was delivered (cancelled or ended by the server). */
  readonly finished: Promise<void>;
  /** Stops the subscription (for push, the stream is cancelled on the server first); resolves when it has stopped. */
  cancel(): Promise<void>;
}

/** What `subscribeWebhook` asks for. */
export interface McpWebhookSubscriptionRequest {
  name: string;
  arguments?: Record<string, unknown>;
  /** Where the server posts deliveries: the application's receiver. */
  url: string;
  /** The `whsec_...` secret deliveries are signed with; redacted everywhere. */
  secret: string;
  cursor?: string | null;
  maxAgeMs?: number;
  /** How long the subscription should live, in milliseconds; `null` asks for no expiry. Default: the server's. */
  ttlMs?: number | null;
}

/** A webhook subscription as the server confirmed it. */
export interface McpWebhookSubscription {
  /** The server's id for it (the `x-mcp-subscription-id` of its deliveries). */
  id: string;
  /** When the subscription must be renewed (`null`: it does not expire). It is renewed automatically until unsubscribed. */
  refreshBefore: Date | null;
  cursor: string | null;
  truncated: boolean;
}
