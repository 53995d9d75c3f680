/**
 * Poll delivery: `events/poll` rounds from the last accepted cursor, following
 * `hasMore` at once and `nextPollMs` otherwise (clamped to 1 s - 5 min; 30 s when the
 * server gives none), 100 events a page. Every occurrence is checked before the sink
 * sees it; one over the limits is reported as an `error` signal and skipped.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { jsonBytes, KiB, utf8Bytes } from '../../../core/budget.js';
import { isJsonObject } from '../../../core/json.js';
import type { ServerRegistration } from '../../registration.js';
import { onSession } from '../server-operations.js';
import { McpEventError } from './errors.js';
import { MAX_EVENT_NAME_BYTES } from './list.js';
import type { RoundContext, RoundEnd } from './subscriber.js';
import type { McpEvent } from './types.js';
import { ANY_RESULT } from './wire.js';

export const POLL_MIN_MS = 1_000;
export const POLL_MAX_MS = 300_000;
export const POLL_DEFAULT_MS = 30_000;
export const POLL_MAX_EVENTS = 100;
/** Largest occurrence taken, serialised. */
export const MAX_EVENT_BYTES = 256 * KiB;

/** One occurrence as the server sent it, checked: the event, or why it is skipped. */
export function checkedEvent(registration: ServerRegistration, raw: unknown): McpEvent | string {
  if (!isJsonObject(raw) || typeof raw.eventId !== 'string' || typeof raw.name !== 'string') return 'an event without string "eventId" and "name"';
  const idBytes = utf8Bytes(raw.eventId);
  if (idBytes === 0 || idBytes > MAX_EVENT_NAME_BYTES || utf8Bytes(raw.name) > MAX_EVENT_NAME_BYTES) return `event "${raw.eventId.slice(0, 64)}": its id or name is over ${MAX_EVENT_NAME_BYTES} bytes`;
  const bytes = jsonBytes(raw);
  if (bytes > MAX_EVENT_BYTES) return `event "${raw.eventId}" is ${bytes} bytes (over ${MAX_EVENT_BYTES})`;
  if (raw.cursor !== undefined && raw.cursor !== null && (typeof raw.cursor !== 'string' || utf8Bytes(raw.cursor) > registration.config.limits.cursorBytes)) {
    return `event "${raw.eventId}": its cursor is not a string of at most ${registration.config.limits.cursorBytes} bytes (limits.cursorBytes)`;
  }
  return {
    eventId: raw.eventId,
    name: raw.name,
    timestamp: typeof raw.timestamp === 'string' ? raw.timestamp : '',
    data: raw.data ?? null,
    ...(isJsonObject(raw._meta) ? { _meta: raw._meta } : {}),
  };
}

/** A cursor the server sent: a string within `limits.cursorBytes`, or `null`. */
export function checkedCursor(registration: ServerRegistration, operation: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const limit = registration.config.limits.cursorBytes;
  if (typeof value !== 'string' || utf8Bytes(value) > limit) {
    throw new McpEventError(registration.id, 'other', `MCP server "${registration.id}" sent an ${operation} cursor that is not a string of at most ${limit} bytes (limits.cursorBytes).`);
  }
  return value;
}

const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

/** One poll round: pages until the subscription stops or a request fails. */
export async function pollRound(registration: ServerRegistration, context: RoundContext): Promise<RoundEnd> {
  const { request, signal } = context;
  const { timeouts } = registration.config;
  let first = true;
  while (!signal.aborted) {
    const params = {
      name: request.name,
      arguments: request.arguments ?? {},
      cursor: context.cursor(),
      maxEvents: POLL_MAX_EVENTS,
      ...(request.maxAgeMs === undefined ? {} : { maxAgeMs: request.maxAgeMs }),
    };
    const result = await onSession(registration, 'events/poll', timeouts.setupMs + timeouts.requestMs, { signal }, (session, deadline) =>
      session.client.request({ method: 'events/poll', params }, ANY_RESULT, { signal: deadline, timeout: timeouts.requestMs }),
    );
    const truncated = result.truncated === true;
    if (first || truncated) await context.deliver({ type: 'active', mode: 'poll', truncated });
    first = false;
    const events: McpEvent[] = [];
    for (const raw of Array.isArray(result.events) ? (result.events as unknown[]) : []) {
      const event = checkedEvent(registration, raw);
      if (typeof event === 'string') {
        await context.deliver({ type: 'error', error: new McpEventError(registration.id, 'other', `MCP server "${registration.id}": skipped ${event}.`) });
      } else events.push(event);
    }
    // A null cursor keeps the last one: the server has no better position to give.
    const cursor = checkedCursor(registration, 'events/poll', result.cursor) ?? context.cursor();
    if (events.length > 0 || cursor !== context.cursor()) await context.deliver({ type: 'events', events, cursor });
    const next = typeof result.nextPollMs === 'number' && Number.isFinite(result.nextPollMs) ? result.nextPollMs : POLL_DEFAULT_MS;
    const delay = result.hasMore === true && events.length > 0 ? 0 : clamp(next, POLL_MIN_MS, POLL_MAX_MS);
    await sleep(delay, undefined, { signal }).catch(() => {});
  }
  return 'cancelled';
}
