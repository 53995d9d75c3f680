/**
 * Live tool-list changes on `2026-07-28` sessions. SEP-2575 replaced unsolicited
 * `list_changed` pushes with `subscriptions/listen`; the notifications it delivers reach
 * the client's ordinary notification handler (which marks the catalog dirty). The SDK
 * never re-listens, so this pump reopens an ended stream while the session is up, and
 * marks the catalog dirty across every gap rather than trusting a possibly stale catalog.
 */
import type { McpSubscription } from '@modelcontextprotocol/client';
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

export class ToolChangePump {
  private stopped = false;
  private current: McpSubscription | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly session: McpSession,
    private readonly onGap: () => void,
    private readonly logger: McpLogger,
  ) {}

  /** Starts listening in the background. */
  start(): void {
    void this.run();
  }

  /** Stops listening and closes the open stream. */
  stop(): void {
    this.stopped = true;
    this.wake?.();
    void this.current?.close().catch(() => {});
  }

  private get active(): boolean {
    return !this.stopped && !this.session.closed;
  }

  private async run(): Promise<void> {
    const serverId = this.session.serverId;
    let shortLived = 0;
    let first = true;
    while (this.active) {
      const opened = Date.now();
      try {
        this.current = await this.session.client.listen({ toolsListChanged: true }, { timeout: LISTEN_ACK_MS });
      } catch (error) {
        if (this.active) {
          this.logger.warn(
            { serverId, error: errorMessage(error) },
            first ? 'tools/list_changed subscription failed; live catalog updates are off' : 'tools/list_changed subscription could not be reopened',
          );
          // The catalog may have changed while nobody listened.
          if (!first) this.onGap();
        }
        return;
      }
      first = false;
      if (this.stopped) {
        await this.current.close().catch(() => {});
        return;
      }
      await this.current.closed;
      if (!this.active) return;
      this.onGap();
      shortLived = Date.now() - opened < HEALTHY_STREAM_MS ? shortLived + 1 : 0;
      if (shortLived > MAX_SHORT_LIVED) {
        this.logger.warn({ serverId }, 'tools/list_changed subscription keeps ending; live catalog updates are off');
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, REOPEN_DELAY_MS).unref();
      });
    }
  }
}
