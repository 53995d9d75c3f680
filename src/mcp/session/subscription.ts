/**
 * `subscriptions/listen` streams that stay open on `2026-07-28` sessions. SEP-2575
 * replaced unsolicited pushes (`list_changed`, resource updates) with listen streams; the
 * notifications they deliver reach the client's ordinary notification handlers. The SDK
 * never re-listens, so a pump reopens an ended stream while the session is up, and
 * reports every gap (`onGap`): whatever it watches may have changed while nobody listened.
 * `onGap` runs when a stream ends and again when the next one is acknowledged (or could
 * not be), so a change made after a refresh inside the gap is not lost either.
 */
import type { SubscriptionFilter } from '@modelcontextprotocol/client';
import { errorMessage } from '../errors.js';
import type { ListenEnd, ListenOwner, ListenStream } from './listen.js';
import type { McpLogger } from '../logger.js';
import type { HostClient } from './host-client.js';

/** What a listen pump needs of a session: its server's id, whether it is closed, and its client (not the session itself, which owns the pump). */
export interface ListenSession {
  readonly serverId: string;
  readonly closed: boolean;
  readonly client: Pick<HostClient, 'openListen'>;
}

/** How long the server has to acknowledge a listen. */
export const LISTEN_ACK_MS = 10_000;
/** Pause before reopening an ended stream. */
export const REOPEN_DELAY_MS = 2_000;
/** A stream that lived this long resets the short-lived count. */
const HEALTHY_STREAM_MS = 30_000;
/** More consecutive short-lived streams than this and the pump gives up. */
const MAX_SHORT_LIVED = 5;

export interface ListenPumpOptions {
  filter: SubscriptionFilter;
  /** What the stream is for, in log lines (`tools/list_changed`, `resource fixture://a`). */
  label: string;
  /** Runs when a stream ends, and again once it is reopened or reopening failed. */
  onGap: () => void;
  /** Throws when the server did not honour the filter (the stream is closed then). */
  check?: (honored: SubscriptionFilter) => void;
  logger: McpLogger;
}

/**
 * Keeps one stream open. It waits for nothing while a stream is open: the stream tells it
 * when it ends (`listenEnded`), so an idle session holds no suspended function, promise or
 * closure for it, only this object and the stream's.
 */
export class ListenPump implements ListenOwner {
  private stopped = false;
  /** Set when the pump gave up reopening (see `listenEnded`). */
  private gaveUp = false;
  private current: ListenStream | undefined;
  private reopenTimer: NodeJS.Timeout | undefined;
  /** When the current stream was asked for. */
  private openedAt = 0;
  /** Consecutive streams that ended within `HEALTHY_STREAM_MS`. */
  private shortLived = 0;

  constructor(
    private readonly session: ListenSession,
    private readonly options: ListenPumpOptions,
  ) {}

  /**
   * Opens the first stream; resolves once the server acknowledged it (rejects if it did
   * not), then keeps a stream open in the background until `stop()` or the session ends.
   * `signal` bounds the wait for the acknowledgement only.
   */
  async open(signal?: AbortSignal): Promise<void> {
    await this.listen(signal);
    if (this.stopped) await this.current?.close();
  }

  /** Stops listening and closes the open stream in the background. */
  stop(): void {
    void this.close();
  }

  /** Stops listening; resolves once the open stream's cancellation is written. */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reopenTimer);
    await this.current?.close();
  }

  private get active(): boolean {
    return !this.stopped && !this.session.closed;
  }

  /** Whether the pump still listens (or is opening): not stopped, not given up, its session open. */
  get live(): boolean {
    return this.active && !this.gaveUp;
  }

  /** Opens a stream, as `current`; resolves once it is acknowledged and its filter checked. */
  private async listen(signal?: AbortSignal): Promise<void> {
    this.openedAt = Date.now();
    const stream = this.session.client.openListen(this.options.filter, this, { timeout: LISTEN_ACK_MS, ...(signal ? { signal } : {}) });
    this.current = stream;
    const honored = await stream.opened;
    try {
      this.options.check?.(honored);
    } catch (error) {
      await stream.close();
      throw error;
    }
  }

  /** An acknowledged stream ended: report the gap, and reopen it after a pause unless it keeps ending. */
  listenEnded(stream: ListenStream, _end: ListenEnd): void {
    if (stream !== this.current || !this.active) return;
    const { logger, label, onGap } = this.options;
    onGap();
    this.shortLived = Date.now() - this.openedAt < HEALTHY_STREAM_MS ? this.shortLived + 1 : 0;
    if (this.shortLived > MAX_SHORT_LIVED) {
      // The end of this stream was just reported; nothing has happened since.
      logger.warn({ serverId: this.session.serverId }, `${label} subscription keeps ending; live updates are off`);
      this.gaveUp = true;
      return;
    }
    this.reopenTimer = setTimeout(() => void this.reopen(), REOPEN_DELAY_MS).unref();
  }

  private async reopen(): Promise<void> {
    this.reopenTimer = undefined;
    if (!this.active) return;
    const { logger, label, onGap } = this.options;
    try {
      await this.listen();
    } catch (error) {
      if (this.active) {
        logger.warn({ serverId: this.session.serverId, error: errorMessage(error) }, `${label} subscription could not be reopened; live updates are off`);
        onGap();
      }
      this.gaveUp = true;
      return;
    }
    if (this.stopped) {
      await this.current?.close();
      return;
    }
    onGap();
  }
}
