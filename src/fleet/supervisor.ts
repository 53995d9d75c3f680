/**
 * Connection supervision of a fleet (ADK-Rust's monitor, event-driven): a crashed or
 * failed server with a restart policy is restarted after the policy's backoff, and given
 * up past its attempts; remote servers are checked every `healthCheckIntervalMs` (a stdio
 * child's exit is reported at once by the provider). No application-level health checks:
 * only whether the connection is there and answers.
 */
import { errorMessage } from '../mcp/errors.js';
import type { McpLogger } from '../mcp/logger.js';
import type { FleetEntry } from './entry.js';
import { resolveRestartPolicy, restartDelayMs } from './restart-policy.js';

/** What the supervisor asks of the fleet it watches. */
export interface SupervisedFleet {
  entries(): Iterable<FleetEntry>;
  /** Runs the restart attempt of a server whose delay has passed. */
  restart(entry: FleetEntry): Promise<void>;
  /** Lets go of a server past its restart attempts. */
  giveUp(entry: FleetEntry): Promise<void>;
  /** Checks that a running server's connection is still there and answers (a failed check is reported as a crash). */
  check(entry: FleetEntry): Promise<void>;
  /** The entry's status changed. */
  changed(entry: FleetEntry): void;
}

/** What `consider` decided for a server that is down. */
export type SupervisionDecision = 'scheduled' | 'given_up' | 'unsupervised';

export class Supervisor {
  private interval: NodeJS.Timeout | undefined;
  private readonly checking = new Set<string>();

  constructor(
    private readonly fleet: SupervisedFleet,
    private readonly healthCheckIntervalMs: number,
    private readonly logger: McpLogger,
  ) {}

  get monitoring(): boolean {
    return this.interval !== undefined;
  }

  /** Starts monitoring (idempotent) and picks up the servers that went down meanwhile. */
  start(): void {
    if (this.interval !== undefined) return;
    this.interval = setInterval(() => this.tick(), this.healthCheckIntervalMs);
    // Monitoring never keeps a process alive by itself; a pending restart does.
    this.interval.unref();
    for (const entry of this.fleet.entries()) {
      if (entry.nextRestartAt !== undefined) continue;
      const decision = this.consider(entry);
      if (decision === 'scheduled') this.fleet.changed(entry);
      else if (decision === 'given_up') void this.fleet.giveUp(entry);
    }
  }

  /** Stops monitoring and cancels every pending restart. */
  stop(): void {
    if (this.interval === undefined) return;
    clearInterval(this.interval);
    this.interval = undefined;
    for (const entry of this.fleet.entries()) {
      if (entry.restartTimer === undefined) continue;
      entry.cancelRestart();
      this.fleet.changed(entry);
    }
  }

  /**
   * For a server that crashed or failed to start: schedules its next restart attempt
   * (`min(initial × multiplier^attempt, max)`), or says to give up once it has had
   * `maxRestartAttempts`. Servers without a policy, waiting for authorization, or seen
   * while monitoring is off are left as they are.
   */
  consider(entry: FleetEntry): SupervisionDecision {
    const policy = entry.config.restartPolicy;
    if (!this.monitoring || policy === undefined || entry.authorizationRequired || entry.givenUp) return 'unsupervised';
    if (entry.state !== 'crashed' && entry.state !== 'failed_to_start') return 'unsupervised';
    const resolved = resolveRestartPolicy(policy);
    if (entry.restartAttempts >= resolved.maxRestartAttempts) return 'given_up';
    const delay = restartDelayMs(resolved, entry.restartAttempts);
    entry.cancelRestart();
    entry.restartAttempts++;
    entry.restartDelayMs = delay;
    entry.nextRestartAt = Date.now() + delay;
    const timer = setTimeout(() => {
      if (entry.restartTimer !== timer) return;
      entry.restartTimer = undefined;
      this.fleet.restart(entry).catch((error: unknown) =>
        this.logger.warn({ serverId: entry.id, error: errorMessage(error) }, 'MCP server restart attempt failed'),
      );
    }, delay);
    entry.restartTimer = timer;
    this.logger.info({ serverId: entry.id, attempt: entry.restartAttempts, delayMs: delay }, 'MCP server restart scheduled');
    return 'scheduled';
  }

  /** One health round: each running server is checked, one check per server at a time. */
  private tick(): void {
    for (const entry of this.fleet.entries()) {
      if (entry.state !== 'running' || this.checking.has(entry.id)) continue;
      this.checking.add(entry.id);
      this.fleet
        .check(entry)
        .catch((error: unknown) => this.logger.warn({ serverId: entry.id, error: errorMessage(error) }, 'MCP server health check failed'))
        .finally(() => this.checking.delete(entry.id));
    }
  }
}
