/**
 * Bringing fleet servers up and down on the provider, and what happens when one goes
 * down on its own: the fleet's half of "one owner of reconnection per server". The
 * provider (in `manual` reconnect mode) reports a closed connection and holds the server
 * down; this decides, through the supervisor, whether and when it comes back.
 *
 * Every method that changes a server runs under that server's lock (the caller takes it),
 * so no two lifecycle steps of one server interleave and servers never wait for each other.
 */
import type { McpServerConfig } from '../mcp/config/config.js';
import { errorMessage, McpAuthorizationRequired, McpServerUnavailableError } from '../mcp/errors.js';
import type { McpLogger } from '../mcp/logger.js';
import type { McpServerStatus } from '../mcp/config/policy.js';
import type { McpToolProvider } from '../mcp/provider.js';
import type { McpServerClosedEvent } from '../mcp/registration.js';
import { sameConfig } from './diff.js';
import type { FleetEntry } from './entry.js';
import type { McpFleetServerConfig } from './server-config.js';
import { resolveRestartPolicy } from './restart-policy.js';
import { Supervisor } from './supervisor.js';

export interface FleetLifecycleOptions {
  provider: McpToolProvider;
  entries: ReadonlyMap<string, FleetEntry>;
  logger: McpLogger;
  healthCheckIntervalMs: number;
  /** The server's configuration with its templates expanded, as the provider takes it. */
  expand: (entry: FleetEntry, signal: AbortSignal) => Promise<McpServerConfig>;
  /** The entry's status changed. */
  changed: (entry: FleetEntry) => void;
}

/** States in which the server is (being) brought up: starting it again is a no-op. */
export const UP_STATES: ReadonlySet<string> = new Set(['starting', 'running', 'restarting']);

export class FleetLifecycle {
  readonly supervisor: Supervisor;
  /** Set at shutdown: pending restarts find nothing to do. */
  closed = false;

  constructor(private readonly options: FleetLifecycleOptions) {
    this.supervisor = new Supervisor(
      {
        entries: () => options.entries.values(),
        restart: (entry) => this.restartAttempt(entry),
        giveUp: (entry) => entry.lock.run(() => this.giveUp(entry)),
        check: (entry) => this.check(entry),
        changed: options.changed,
      },
      options.healthCheckIntervalMs,
      options.logger,
    );
  }

  private get provider(): McpToolProvider {
    return this.options.provider;
  }

  /** What the provider reports about a server it holds. */
  providerStatus(serverId: string): McpServerStatus | undefined {
    return this.provider.serverStatuses().find((status) => status.id === serverId);
  }

  /**
   * Brings a server up (`starting` or `restarting` first): expands its configuration and
   * hands it to the provider, reconnecting the provider's registration when the
   * expansion did not change (names and resource subscriptions are kept). On success it
   * is `running` and its backoff is reset; on failure `failed_to_start`, and the provider
   * lets it go unless a restart is scheduled or it waits for authorization.
   */
  async launch(entry: FleetEntry, state: 'starting' | 'restarting', callerSignal: AbortSignal | undefined): Promise<void> {
    entry.state = state;
    entry.cancelRestart();
    entry.cancelStable();
    this.options.changed(entry);
    // A stop, a removal or the shutdown aborts this start instead of waiting behind it.
    const launching = new AbortController();
    entry.launching = launching;
    const signal = callerSignal === undefined ? launching.signal : AbortSignal.any([callerSignal, launching.signal]);
    try {
      const expanded = await this.options.expand(entry, signal);
      if (entry.registered && sameConfig(expanded, entry.expanded)) {
        await this.provider.reconnectServer(entry.id, { signal });
      } else {
        await this.release(entry);
        await this.provider.addServer(expanded);
        entry.expanded = expanded;
        await this.provider.refreshServer(entry.id, { signal });
      }
    } catch (error) {
      await this.failed(entry, error, signal);
      throw error;
    } finally {
      if (entry.launching === launching) entry.launching = undefined;
    }
    entry.state = 'running';
    entry.givenUp = false;
    entry.lastError = undefined;
    entry.authorizationRequired = false;
    this.keepWhenStable(entry);
    this.options.changed(entry);
  }

  /**
   * After a restart, the backoff is reset only once the server has stayed up for the
   * policy's longest delay: a server that starts and dies again at once is a crash loop,
   * whose delays keep growing until it is given up, not a recovery.
   */
  private keepWhenStable(entry: FleetEntry): void {
    if (entry.restartAttempts === 0) return;
    const window = resolveRestartPolicy(entry.config.restartPolicy ?? {}).maxDelayMs;
    entry.stableTimer = setTimeout(() => {
      entry.stableTimer = undefined;
      if (entry.state !== 'running') return;
      entry.restartAttempts = 0;
      this.options.changed(entry);
    }, window);
    entry.stableTimer.unref();
  }

  private async failed(entry: FleetEntry, error: unknown, signal: AbortSignal): Promise<void> {
    if (signal.aborted) {
      // The caller gave up: that says nothing about the server.
      await this.release(entry);
      entry.state = 'stopped';
      this.options.changed(entry);
      return;
    }
    entry.state = 'failed_to_start';
    entry.lastError = errorMessage(error);
    // Kept registered, so the application can run the OAuth flow on it.
    entry.authorizationRequired = error instanceof McpAuthorizationRequired;
    const decision = this.supervisor.consider(entry);
    if (decision === 'given_up') await this.giveUp(entry);
    else if (decision !== 'scheduled' && !entry.authorizationRequired) await this.release(entry);
    this.options.changed(entry);
  }

  /** Stops a server (cancelling a pending restart) and leaves it in `state`. */
  async halt(entry: FleetEntry, state: 'stopped' | 'disabled'): Promise<void> {
    entry.cancelRestart();
    entry.cancelStable();
    await this.release(entry);
    entry.state = state;
    entry.restartAttempts = 0;
    entry.givenUp = false;
    entry.authorizationRequired = false;
    this.options.changed(entry);
  }

  /** Lets the provider go of a server: its session closes (gracefully), its tools are unpublished. */
  async release(entry: FleetEntry): Promise<void> {
    if (!entry.registered) return;
    entry.observe(this.providerStatus(entry.id));
    entry.expanded = undefined;
    await this.provider.removeServer(entry.id);
  }

  /**
   * Swaps a server's configuration: stops it, resets its backoff, and starts the
   * replacement if the server was up (and stays enabled). If the replacement fails, the
   * previous configuration is put back and started, and the error says so.
   */
  async replace(entry: FleetEntry, replacement: McpFleetServerConfig, signal: AbortSignal | undefined): Promise<void> {
    const previous = entry.config;
    // `autoApprove` and `restartPolicy` change nothing in a running server: swapped in place.
    if (sameConfig(runtimeFields(previous), runtimeFields(replacement))) {
      entry.config = replacement;
      this.options.changed(entry);
      return;
    }
    const wasUp = UP_STATES.has(entry.state) || entry.state === 'crashed';
    await this.halt(entry, replacement.disabled === true ? 'disabled' : 'stopped');
    entry.config = replacement;
    if (!wasUp || replacement.disabled === true) {
      this.options.changed(entry);
      return;
    }
    try {
      await this.launch(entry, 'starting', signal);
    } catch (error) {
      entry.config = previous;
      try {
        await this.launch(entry, 'restarting', signal);
      } catch (restoreError) {
        throw new McpServerUnavailableError(
          entry.id,
          `The replacement for MCP server "${entry.id}" failed (${errorMessage(error)}), and restoring the previous configuration also failed (${errorMessage(restoreError)}); the previous configuration is kept.`,
          error,
        );
      }
      throw new McpServerUnavailableError(
        entry.id,
        `The replacement for MCP server "${entry.id}" failed and the previous configuration was restored and is running again: ${errorMessage(error)}`,
        error,
      );
    }
  }

  /** The provider's report of a connection that closed on its own (synchronous, from the transport). */
  onServerClosed(event: McpServerClosedEvent): void {
    const entry = this.options.entries.get(event.serverId);
    if (entry?.state !== 'running') return;
    entry.state = 'crashed';
    entry.lastError = event.reason;
    entry.cancelStable();
    this.options.logger.warn({ serverId: entry.id, reason: event.reason }, 'MCP server crashed');
    const decision = this.supervisor.consider(entry);
    this.options.changed(entry);
    if (decision === 'given_up') void entry.lock.run(() => this.giveUp(entry));
  }

  /** A restart attempt whose delay has passed (the supervisor's timer). */
  private async restartAttempt(entry: FleetEntry): Promise<void> {
    await entry.lock.run(async () => {
      if (this.closed || (entry.state !== 'crashed' && entry.state !== 'failed_to_start')) return;
      await this.launch(entry, 'restarting', undefined);
    });
  }

  private async giveUp(entry: FleetEntry): Promise<void> {
    if (entry.givenUp) return;
    entry.givenUp = true;
    entry.cancelRestart();
    await this.release(entry);
    entry.state = 'failed_to_start';
    entry.lastError = `${entry.lastError ?? 'it stopped'}; gave up after ${entry.restartAttempts} restart attempts (restartPolicy.maxRestartAttempts)`;
    this.options.logger.error({ serverId: entry.id, attempts: entry.restartAttempts }, 'MCP server given up');
    this.options.changed(entry);
  }

  /** The supervisor's health check of a running server. */
  private async check(entry: FleetEntry): Promise<void> {
    if (entry.config.transport.type !== 'stdio') {
      // A server that does not answer is reported through onServerClosed.
      await this.provider.checkServer(entry.id);
      return;
    }
    // A stdio child's exit is reported at once; this only catches a session lost without one
    // (a live stdio session has a pid; a failed refresh on a live session is not a crash).
    if (entry.state === 'running' && this.providerStatus(entry.id)?.pid === undefined) {
      this.onServerClosed({ serverId: entry.id, reason: 'the server has no live connection' });
    }
  }
}

/** What a configuration changes in a running server (not `autoApprove`, `restartPolicy`, nor `disabled: false`). */
function runtimeFields(config: McpFleetServerConfig): unknown {
  const { autoApprove: _autoApprove, restartPolicy: _restartPolicy, disabled, ...runtime } = config;
  return { ...runtime, disabled: disabled === true };
}
