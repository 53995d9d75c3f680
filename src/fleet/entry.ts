/**
 * The fleet's record of one server: its configuration as written (templates unexpanded),
 * what the provider holds for it, and its supervision state. Lifecycle operations on one
 * server run one at a time under its lock; different servers never wait for each other.
 */
import type { McpServerConfig } from '../mcp/config/config.js';
import { Mutex } from '../mcp/locks.js';
import type { McpServerStatus } from '../mcp/config/policy.js';
import type { McpFleetServerConfig } from './server-config.js';
import type { McpFleetServerStatus, McpFleetState } from './status.js';

export class FleetEntry {
  readonly lock = new Mutex();
  state: McpFleetState;
  /** Restart attempts since the last successful start. */
  restartAttempts = 0;
  nextRestartAt: number | undefined;
  restartDelayMs: number | undefined;
  restartTimer: NodeJS.Timeout | undefined;
  /** Resets the backoff once a restarted server has stayed up long enough. */
  stableTimer: NodeJS.Timeout | undefined;
  /** Aborts the start under way, for a stop, removal or shutdown that should not wait for it. */
  launching: AbortController | undefined;
  lastError: string | undefined;
  authorizationRequired = false;
  /** Set when the supervisor gave up on the server; cleared by the next start or stop. */
  givenUp = false;
  /** Fields its entry is written with when it is new to a file, carried from another file (`addServer`'s `unknownFields`). */
  unknownFields: Record<string, unknown> | undefined;
  /** The expanded configuration the provider holds, while it holds the server. */
  expanded: McpServerConfig | undefined;
  /** The era of the last session, kept after the provider lets the server go. */
  era: 'modern' | 'legacy' | undefined;
  protocolVersion: string | undefined;

  constructor(public config: McpFleetServerConfig) {
    this.state = config.disabled === true ? 'disabled' : 'stopped';
  }

  get id(): string {
    return this.config.id;
  }

  /** Whether the provider holds the server (its tools may be published). */
  get registered(): boolean {
    return this.expanded !== undefined;
  }

  /** Forgets the pending reset of the backoff. */
  cancelStable(): void {
    if (this.stableTimer !== undefined) clearTimeout(this.stableTimer);
    this.stableTimer = undefined;
  }

  /** Forgets a scheduled restart. */
  cancelRestart(): void {
    if (this.restartTimer !== undefined) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    this.nextRestartAt = undefined;
    this.restartDelayMs = undefined;
  }

  /** Remembers what the provider last reported about the session. */
  observe(provider: McpServerStatus | undefined): void {
    if (provider?.era !== undefined) this.era = provider.era;
    if (provider?.protocolVersion !== undefined) this.protocolVersion = provider.protocolVersion;
  }

  /** The status snapshot, joined with what the provider reports (`undefined` when it does not hold the server). */
  status(provider: McpServerStatus | undefined): McpFleetServerStatus {
    this.observe(provider);
    return {
      id: this.id,
      state: this.state,
      transport: this.config.transport.type,
      ...(this.era === undefined ? {} : { era: this.era }),
      ...(this.protocolVersion === undefined ? {} : { protocolVersion: this.protocolVersion }),
      toolCount: provider?.toolCount ?? 0,
      ...(provider?.leftOut === undefined ? {} : { leftOut: provider.leftOut }),
      ...(provider?.pid === undefined || this.state !== 'running' ? {} : { pid: provider.pid }),
      restartAttempts: this.restartAttempts,
      ...(this.nextRestartAt === undefined ? {} : { nextRestartAt: this.nextRestartAt, restartDelayMs: this.restartDelayMs }),
      ...(this.lastError === undefined || this.state === 'running' ? {} : { lastError: this.lastError }),
      ...(this.authorizationRequired ? { authorizationRequired: true } : {}),
    };
  }
}
