/**
 * Webhook delivery: `events/subscribe` with the application's receiver URL and `whsec_`
 * secret, kept alive by subscribing again before the server's `refreshBefore` until
 * `events/unsubscribe`. The server posts the deliveries to the application, which checks
 * them with `verifyWebhookDelivery`. The secret never appears in an error or a log. A
 * failed renewal is logged with the server's error data and tried again after a backoff,
 * or after the server's `retryAfterMs` when it is out of quota.
 */
import { utf8Bytes } from '../../../core/budget.js';
import type { ServerRegistration } from '../../registration.js';
import { type McpRequestOptions, onSession } from '../server-operations.js';
import type { Redact } from './error-data.js';
import { McpEventError, serverRedact, toEventError } from './errors.js';
import { MAX_EVENT_NAME_BYTES } from './list.js';
import { checkedCursor } from './poll.js';
import { retryDelay } from './subscriber.js';
import type { McpWebhookSubscription, McpWebhookSubscriptionRequest } from './types.js';
import { ANY_RESULT } from './wire.js';

/** Renew this long before `refreshBefore` (or at half the time left, when that is sooner). */
export const WEBHOOK_REFRESH_MARGIN_MS = 30_000;
/** A failed renewal is tried again after this long (doubling, at most 5 min, as a subscription's retries). */
const RENEW_RETRY_MS = 2_000;
const RENEW_RETRY_MAX_MS = 300_000;

/** Which webhook subscription: the server keys it by name, arguments and URL. */
export interface McpWebhookTarget {
  name: string;
  arguments?: Record<string, unknown>;
  url: string;
}

const keyOf = (target: McpWebhookTarget): string => JSON.stringify([target.name, target.arguments ?? {}, target.url]);

/** `text` without the secret (a server may echo its parameters in an error). */
function scrub(text: string, secret: string): string {
  return secret === '' ? text : text.split(secret).join('[redacted]');
}

/** What an error of this subscription is redacted with: the server's secrets and the webhook's. */
function redactorOf(registration: ServerRegistration, secret: string): Redact {
  const redact = serverRedact(registration.config);
  return (text) => scrub(redact(text), secret);
}

/** A wait in whole seconds, for a log line. */
const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

function checkRequest(registration: ServerRegistration, request: McpWebhookSubscriptionRequest): void {
  const bytes = utf8Bytes(request.name);
  if (bytes === 0 || bytes > MAX_EVENT_NAME_BYTES) {
    throw new McpEventError(registration.id, 'invalid_params', `An event type name must be 1 to ${MAX_EVENT_NAME_BYTES} bytes, got ${bytes}.`);
  }
  if (!request.secret.startsWith('whsec_')) {
    throw new McpEventError(registration.id, 'invalid_params', 'The webhook secret must be a "whsec_" secret (the base64 of a random key after "whsec_").');
  }
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new McpEventError(registration.id, 'invalid_params', 'The webhook URL is not an absolute URL.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new McpEventError(registration.id, 'invalid_params', 'The webhook URL must be http(s).');
}

/** One `events/subscribe` call and its checked answer. */
async function subscribeOnce(registration: ServerRegistration, request: McpWebhookSubscriptionRequest, options: McpRequestOptions): Promise<McpWebhookSubscription> {
  const { id, timeouts } = registration.config;
  const params = {
    name: request.name,
    arguments: request.arguments ?? {},
    delivery: { mode: 'webhook', url: request.url, secret: request.secret },
    cursor: request.cursor ?? null,
    ...(request.maxAgeMs === undefined ? {} : { maxAgeMs: request.maxAgeMs }),
    // `null` asks for no expiry, which is not the same as leaving it to the server.
    ...(request.ttlMs === undefined ? {} : { ttlMs: request.ttlMs }),
  };
  let result: Record<string, unknown>;
  try {
    result = await onSession(registration, 'events/subscribe', timeouts.setupMs + timeouts.requestMs, options, (session, signal) =>
      session.client.request({ method: 'events/subscribe', params }, ANY_RESULT, { signal, timeout: timeouts.requestMs }),
    );
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw toEventError(id, 'events/subscribe', error, redactorOf(registration, request.secret));
  }
  const subscriptionId = typeof result.id === 'number' ? String(result.id) : result.id;
  if (typeof subscriptionId !== 'string' || subscriptionId === '' || utf8Bytes(subscriptionId) > MAX_EVENT_NAME_BYTES) {
    throw new McpEventError(id, 'other', `MCP server "${id}": the events/subscribe result has no subscription id of 1 to ${MAX_EVENT_NAME_BYTES} bytes.`);
  }
  const refresh = typeof result.refreshBefore === 'string' ? new Date(result.refreshBefore) : null;
  if (refresh !== null && Number.isNaN(refresh.getTime())) throw new McpEventError(id, 'other', `MCP server "${id}": events/subscribe gave a "refreshBefore" that is not a date.`);
  return { id: subscriptionId, refreshBefore: refresh, cursor: checkedCursor(registration, 'events/subscribe', result.cursor), truncated: result.truncated === true };
}

/** The webhook subscriptions a provider keeps alive, per server. */
export class WebhookKeeper {
  private readonly kept = new Map<ServerRegistration, Map<string, { timer: NodeJS.Timeout | undefined; retryMs: number }>>();

  /** Subscribes, then renews before each `refreshBefore` until `unsubscribe` (or the server's removal). */
  async subscribe(registration: ServerRegistration, request: McpWebhookSubscriptionRequest, options: McpRequestOptions): Promise<McpWebhookSubscription> {
    checkRequest(registration, request);
    const subscription = await subscribeOnce(registration, request, options);
    const byKey = this.byRegistration(registration);
    const key = keyOf(request);
    clearTimeout(byKey.get(key)?.timer);
    const entry = { timer: undefined as NodeJS.Timeout | undefined, retryMs: RENEW_RETRY_MS };
    byKey.set(key, entry);
    this.schedule(registration, request, entry, subscription.refreshBefore);
    return subscription;
  }

  /** Stops renewing and unsubscribes on the server. */
  async unsubscribe(registration: ServerRegistration, target: McpWebhookTarget, options: McpRequestOptions): Promise<void> {
    const byKey = this.kept.get(registration);
    const key = keyOf(target);
    clearTimeout(byKey?.get(key)?.timer);
    byKey?.delete(key);
    const { id, timeouts } = registration.config;
    const params = { name: target.name, arguments: target.arguments ?? {}, delivery: { mode: 'webhook', url: target.url } };
    try {
      await onSession(registration, 'events/unsubscribe', timeouts.setupMs + timeouts.requestMs, options, (session, signal) =>
        session.client.request({ method: 'events/unsubscribe', params }, ANY_RESULT, { signal, timeout: timeouts.requestMs }),
      );
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw toEventError(id, 'events/unsubscribe', error, serverRedact(registration.config));
    }
  }

  /** Forgets every renewal (the provider closes, or the server was removed). */
  clear(registration?: ServerRegistration): void {
    for (const [owner, byKey] of this.kept) {
      if (registration !== undefined && owner !== registration) continue;
      for (const entry of byKey.values()) clearTimeout(entry.timer);
      this.kept.delete(owner);
    }
  }

  private byRegistration(registration: ServerRegistration): Map<string, { timer: NodeJS.Timeout | undefined; retryMs: number }> {
    let byKey = this.kept.get(registration);
    if (byKey === undefined) {
      byKey = new Map();
      this.kept.set(registration, byKey);
      registration.signal.addEventListener('abort', () => this.clear(registration), { once: true });
    }
    return byKey;
  }

  private schedule(registration: ServerRegistration, request: McpWebhookSubscriptionRequest, entry: { timer: NodeJS.Timeout | undefined; retryMs: number }, refreshBefore: Date | null): void {
    if (refreshBefore === null) return;
    const left = refreshBefore.getTime() - Date.now();
    const wait = Math.max(1_000, Math.min(left - WEBHOOK_REFRESH_MARGIN_MS, left / 2));
    this.arm(registration, request, entry, wait);
  }

  private arm(registration: ServerRegistration, request: McpWebhookSubscriptionRequest, entry: { timer: NodeJS.Timeout | undefined; retryMs: number }, wait: number): void {
    entry.timer = setTimeout(() => {
      subscribeOnce(registration, request, {}).then(
        (renewed) => {
          entry.retryMs = RENEW_RETRY_MS;
          if (this.kept.get(registration)?.get(keyOf(request)) === entry) this.schedule(registration, request, entry, renewed.refreshBefore);
        },
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          const failure = error instanceof McpEventError ? error : undefined;
          const retry = failure === undefined ? entry.retryMs : retryDelay(failure, entry.retryMs);
          const giveUp = failure?.terminal === true;
          // The log is where a renewal's failure reaches the application: the server's error goes there whole (redacted already).
          const fields = {
            serverId: registration.id,
            event: request.name,
            ...(failure === undefined ? {} : { kind: failure.kind, rpcCode: failure.rpcCode, reason: failure.reason, data: failure.data, dataDropped: failure.dataDropped }),
            ...(giveUp ? {} : { retryInMs: retry }),
          };
          registration.logger.warn(
            fields,
            `MCP server "${registration.id}": renewing the webhook subscription to "${request.name}" failed (${scrub(message, request.secret)}); ${giveUp ? 'not retrying.' : `retrying in ${seconds(retry)}.`}`,
          );
          if (giveUp) return;
          entry.retryMs = Math.min(entry.retryMs * 2, RENEW_RETRY_MAX_MS);
          if (this.kept.get(registration)?.get(keyOf(request)) === entry) this.arm(registration, request, entry, retry);
        },
      );
    }, wait);
    entry.timer.unref();
  }
}
