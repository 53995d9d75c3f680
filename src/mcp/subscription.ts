/**
 * `subscriptions/listen` streams that stay open on `2026-07-28` sessions. SEP-2575
 * replaced unsolicited pushes (`list_changed`, resource updates) with listen streams; the
 * notifications they deliver reach the client's ordinary notification handlers. The SDK
 * never re-listens, so a pump reopens an ended stream while the session is up, and
 * reports every gap (`onGap`): whatever it watches may have changed while nobody listened.
 * `onGap` runs when a stream ends and again when the next one is acknowledged (or could
 * not be), so a change made after a refresh inside the gap is not lost either.
 */
import type { McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';
import { errorMessage } from './errors.js';
import type { McpLogger } from './logger.js';
import type { McpSession } from './session.js';

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
  check?: (subscription: McpSubscription) => void;
  logger: McpLogger;
}

export class ListenPump {
  private stopped = false;
  /** Set when the pump gave up reopening (see `keepOpen`). */
  private gaveUp = false;
  private current: McpSubscription | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly session: McpSession,
    private readonly options: ListenPumpOptions,
  ) {}

  /**
   * Opens the first stream; resolves once the server acknowledged it (rejects if it did
   * not), then keeps a stream open in the background until `stop()` or the session ends.
   */
  async open(signal?: AbortSignal): Promise<void> {
    this.current = await this.listen(signal);
    if (this.stopped) {
      await this.current.close().catch(() => {});
      return;
    }
    void this.keepOpen(this.current);
  }

  /** Stops listening and closes the open stream in the background. */
  stop(): void {
    void this.close();
  }

  /** Stops listening; resolves once the open stream's cancellation is written. */
  async close(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.current?.close().catch(() => {});
  }

  private get active(): boolean {
    return !this.stopped && !this.session.closed;
  }

  /** Whether the pump still listens (or is opening): not stopped, not given up, its session open. */
  get live(): boolean {
    return this.active && !this.gaveUp;
  }

  private async listen(signal?: AbortSignal): Promise<McpSubscription> {
    const subscription = await this.session.client.listen(this.options.filter, { timeout: LISTEN_ACK_MS, ...(signal ? { signal } : {}) });
    try {
      this.options.check?.(subscription);
    } catch (error) {
      await subscription.close().catch(() => {});
      throw error;
    }
    return subscription;
  }

  private async keepOpen(first: McpSubscription): Promise<void> {
    const { logger, label, onGap } = this.options;
    const serverId = this.session.serverId;
    let stream = first;
    let opened = Date.now();
    let shortLived = 0;
    for (;;) {
      await stream.closed;
      if (!this.active) return;
      onGap();
      shortLived = Date.now() - opened < HEALTHY_STREAM_MS ? shortLived + 1 : 0;
      if (shortLived > MAX_SHORT_LIVED) {
        // The end of this stream was just reported; nothing has happened since.
        logger.warn({ serverId }, `${label} subscription keeps ending; live updates are off`);
        this.gaveUp = true;
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, REOPEN_DELAY_MS).unref();
      });
      if (!this.active) return;
      opened = Date.now();
      try {
        stream = this.current = await this.listen();
      } catch (error) {
        if (this.active) {
          logger.warn({ serverId, error: errorMessage(error) }, `${label} subscription could not be reopened; live updates are off`);
          onGap();
        }
        this.gaveUp = true;
        return;
      }
      if (this.stopped) {
        await stream.close().catch(() => {});
        return;
      }
      onGap();
    }
  }
}
