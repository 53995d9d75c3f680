/**
 * One subscription's life, for poll and push alike: rounds (a run of polls, one open
 * stream) from the last accepted cursor, the sink's signals, retries with backoff, and
 * the end. A cursor is accepted only once the sink took the signal that carried it, so
 * delivery is at least once and the provider keeps no event state of its own. A server
 * out of quota says when to come back (`retryAfterMs`), and the retry waits that long.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { OperationSignal } from '../../deadline.js';
import type { ServerRegistration } from '../../registration.js';
import { McpEventError, serverRedact, toEventError } from './errors.js';
import type { McpEventSignal, McpEventSink, McpEventSubscription, McpEventSubscriptionRequest } from './types.js';

/** Retry backoff after a failed round: 2 s, doubling, at most 5 min; reset once a round delivers. */
export const RETRY_FIRST_MS = 2_000;
export const RETRY_MAX_MS = 300_000;
/**
 * How long to wait after `failure` with the backoff at `backoffMs`. For
 * `resource_exhausted`, the server's `retryAfterMs` when it gave one (it knows when its
 * quota frees up), kept within the same 2 s - 5 min: a server cannot make a client hammer
 * it, nor park a subscription for longer than the backoff ever would. Otherwise the backoff.
 */
export function retryDelay(failure: McpEventError, backoffMs: number): number {
  if (failure.kind !== 'resource_exhausted' || failure.retryAfterMs === undefined) return backoffMs;
  return Math.min(RETRY_MAX_MS, Math.max(RETRY_FIRST_MS, failure.retryAfterMs));
}

/** Pause before reopening a stream the server ended normally. */
export const REOPEN_MS = 1_000;

/** What a round sees of its subscription. */
export interface RoundContext {
  readonly request: McpEventSubscriptionRequest;
  /** The last accepted cursor. */
  cursor(): string | null;
  /** Ends with the subscription (cancelled, or the server removed). */
  readonly signal: AbortSignal;
  /**
   * Hands `signal` to the sink. For `active` and `events`, a sink that rejects fails the
   * round (it restarts from the last accepted cursor); an `events` signal's cursor is
   * accepted once the sink took it.
   */
  deliver(signal: McpEventSignal): Promise<void>;
}

/** How a round ended without an error: `closed` reopens after a pause. */
export type RoundEnd = 'closed' | 'cancelled';
export type Round = (context: RoundContext) => Promise<RoundEnd>;

export class EventSubscriptionRun implements McpEventSubscription {
  readonly finished: Promise<void>;
  private readonly stop = new AbortController();
  private accepted: string | null;
  private backoffMs = RETRY_FIRST_MS;

  constructor(
    private readonly registration: ServerRegistration,
    private readonly request: McpEventSubscriptionRequest,
    private readonly sink: McpEventSink,
    private readonly round: Round,
  ) {
    this.accepted = request.cursor ?? null;
    this.finished = this.run();
  }

  get mode(): 'poll' | 'push' {
    return this.request.mode;
  }

  async cancel(): Promise<void> {
    this.stop.abort();
    await this.finished;
  }

  private async run(): Promise<void> {
    // Ends with a cancel or the server's removal; linked by hand, and unlinked once the subscription ends.
    const life = new OperationSignal([this.stop.signal, this.registration.signal], Number.POSITIVE_INFINITY);
    try {
      await this.rounds(life.signal);
    } finally {
      life.dispose();
    }
  }

  private async rounds(signal: AbortSignal): Promise<void> {
    let ending: McpEventError | undefined;
    const redact = serverRedact(this.registration.config);
    while (!signal.aborted) {
      try {
        const end = await this.round(this.context(signal));
        if (end === 'cancelled' || signal.aborted) break;
        await sleep(REOPEN_MS, undefined, { signal }).catch(() => {});
      } catch (error) {
        if (signal.aborted) break;
        const failure = toEventError(this.registration.id, this.request.mode === 'poll' ? 'events/poll' : 'events/stream', error, redact);
        if (failure.terminal) {
          ending = failure;
          break;
        }
        // The wait the sink is told of is the one taken.
        const retryInMs = retryDelay(failure, this.backoffMs);
        await this.offer({ type: 'error', error: failure, retryInMs });
        await sleep(retryInMs, undefined, { signal }).catch(() => {});
        // A server's hint replaces one wait, not the escalation: the next failure without one backs off further.
        this.backoffMs = Math.min(this.backoffMs * 2, RETRY_MAX_MS);
      }
    }
    if (ending === undefined && this.registration.signal.aborted && !this.stop.signal.aborted) {
      ending = new McpEventError(this.registration.id, 'server_removed', `MCP server "${this.registration.id}" was removed; its event subscription ended.`);
    }
    await this.offer({ type: 'terminated', error: ending });
  }

  private context(signal: AbortSignal): RoundContext {
    return {
      request: this.request,
      signal,
      cursor: () => this.accepted,
      deliver: async (event) => {
        try {
          await this.sink.deliver(event);
        } catch (error) {
          if (event.type !== 'active' && event.type !== 'events') return;
          throw new McpEventError(this.registration.id, 'other', `The event sink refused a "${event.type}" signal (${error instanceof Error ? error.message : String(error)}); the subscription restarts from the last accepted cursor.`, { cause: error });
        }
        if (event.type === 'events') this.accepted = event.cursor ?? this.accepted;
        if (event.type === 'active' || event.type === 'events') this.backoffMs = RETRY_FIRST_MS;
      },
    };
  }

  /** A signal whose refusal changes nothing (errors, the end). */
  private async offer(event: McpEventSignal): Promise<void> {
    try {
      await this.sink.deliver(event);
    } catch {
      // The sink's own problem; the subscription goes on (or has ended) either way.
    }
  }
}
