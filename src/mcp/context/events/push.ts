/**
 * Push delivery: one open `events/stream` request per subscription, outside the
 * tool-call concurrency gate and without a request timeout. Its notices (routed to it in
 * arrival order by the session's `EventRouter`) become signals one at a time; the round
 * ends, to be reopened from the last accepted cursor, when the server ends the request,
 * the session closes, the stream is silent past its heartbeat timeout (60 s), or its
 * buffer fills (256 notices). Cancelling aborts the request, which cancels it on the
 * server (`notifications/cancelled`, or closing the request's stream on 2026-07-28 HTTP).
 */
import { randomUUID } from 'node:crypto';
import { isJsonObject } from '../../../core/json.js';
import type { ServerRegistration } from '../../registration.js';
import { McpEventError, eventErrorFromWire, serverRedact } from './errors.js';
import { checkedCursor, checkedEvent } from './poll.js';
import { type EventNotice, STREAM_TOKEN_KEY } from './router.js';
import type { RoundContext, RoundEnd } from './subscriber.js';
import { ANY_RESULT } from './wire.js';

export const STREAM_HEARTBEAT_TIMEOUT_MS = 60_000;
export const STREAM_BUFFER = 256;
/** Longest a request may stay open: the SDK wants a number. */
const NO_TIMEOUT_MS = 2_147_483_647;

class StreamFailure extends Error {}

/** One push round: the stream from the last accepted cursor until it ends. */
export async function pushRound(registration: ServerRegistration, context: RoundContext, options: { heartbeatTimeoutMs?: number } = {}): Promise<RoundEnd> {
  const { request, signal } = context;
  const session = await registration.ensureSession(signal);
  const heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? STREAM_HEARTBEAT_TIMEOUT_MS;
  const queue: EventNotice[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  const stop = new AbortController();
  const token = randomUUID();
  const unregister = session.events.expect(token, (notice) => {
    if (queue.length >= STREAM_BUFFER) {
      failure ??= new StreamFailure(`MCP server "${registration.id}": the event stream's buffer of ${STREAM_BUFFER} notices is full; reopening from the last accepted cursor.`);
      stop.abort();
    } else queue.push(notice);
    wake?.();
  });
  const requestSignal = AbortSignal.any([signal, stop.signal]);
  let ended = false;
  const stream = session.client
    .request(
      {
        method: 'events/stream',
        params: {
          name: request.name,
          arguments: request.arguments ?? {},
          cursor: context.cursor(),
          ...(request.maxAgeMs === undefined ? {} : { maxAgeMs: request.maxAgeMs }),
          _meta: { [STREAM_TOKEN_KEY]: token },
        },
      },
      ANY_RESULT,
      { signal: requestSignal, timeout: NO_TIMEOUT_MS },
    )
    .then(
      () => undefined,
      (error: unknown) => {
        failure ??= error instanceof Error ? error : new Error(String(error));
      },
    )
    .finally(() => {
      ended = true;
      wake?.();
    });
  let lastNotice = Date.now();
  const watchdog = setInterval(() => {
    if (Date.now() - lastNotice <= heartbeatTimeoutMs) return;
    failure ??= new StreamFailure(`MCP server "${registration.id}": the event stream was silent for over ${heartbeatTimeoutMs} ms; reopening from the last accepted cursor.`);
    stop.abort();
  }, Math.min(5_000, heartbeatTimeoutMs));
  watchdog.unref();
  try {
    for (;;) {
      const notice = queue.shift();
      if (notice === undefined) {
        if (ended || stop.signal.aborted || signal.aborted) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      lastNotice = Date.now();
      await handle(registration, context, notice);
    }
  } catch (error) {
    stop.abort();
    await stream;
    throw error;
  } finally {
    clearInterval(watchdog);
    unregister();
  }
  await stream;
  if (signal.aborted) return 'cancelled';
  if (failure !== undefined) throw failure instanceof StreamFailure ? new McpEventError(registration.id, 'other', failure.message) : failure;
  return 'closed';
}

/** One notice as signals. A `terminated` notice ends the round with its error. */
async function handle(registration: ServerRegistration, context: RoundContext, notice: EventNotice): Promise<void> {
  const { params } = notice;
  switch (notice.kind) {
    case 'active': {
      await context.deliver({ type: 'active', mode: 'push', truncated: params.truncated === true });
      const cursor = checkedCursor(registration, 'events/stream', params.cursor);
      if (cursor !== null && cursor !== context.cursor()) await context.deliver({ type: 'events', events: [], cursor });
      return;
    }
    case 'event': {
      const { _meta: _ignored, ...body } = params;
      const event = checkedEvent(registration, body);
      if (typeof event === 'string') {
        await context.deliver({ type: 'error', error: new McpEventError(registration.id, 'other', `MCP server "${registration.id}": skipped ${event}.`) });
        return;
      }
      const cursor = checkedCursor(registration, 'events/stream', body.cursor) ?? context.cursor();
      await context.deliver({ type: 'events', events: [event], cursor });
      return;
    }
    case 'heartbeat': {
      // A heartbeat at the cursor already held adds nothing.
      const cursor = checkedCursor(registration, 'events/stream', params.cursor);
      if (cursor !== null && cursor !== context.cursor()) await context.deliver({ type: 'events', events: [], cursor });
      return;
    }
    case 'error':
      await context.deliver({ type: 'error', error: noticeError(registration, params) });
      return;
    case 'terminated':
      throw noticeError(registration, params);
    case 'list_changed':
      await context.deliver({ type: 'list_changed' });
      return;
    default:
      // An unknown kind from a newer draft: nothing to do with it.
      return;
  }
}

/** The error of an `error` or `terminated` notice, its data kept (bounded, redacted). */
function noticeError(registration: ServerRegistration, params: Record<string, unknown>): McpEventError {
  const error = isJsonObject(params.error) ? params.error : params;
  return eventErrorFromWire(registration.id, 'events/stream', error, serverRedact(registration.config));
}
