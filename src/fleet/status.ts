/**
 * What the fleet reports about its servers: the supervision state of each, and the
 * outcome of starting them.
 */
import type { McpRelayedNotification } from '../mcp/session/session.js';
import type { McpLeftOutTools } from '../mcp/config/policy.js';

/**
 * The supervision state of a fleet server.
 * - `stopped`: registered, not running (never started, or stopped).
 * - `starting`: being started for the first time, or again after a stop.
 * - `running`: connected, its tools published.
 * - `crashed`: its connection closed on its own (a stdio child exited, a remote server
 *   stopped answering). Its tools stay published; calls get `server_unavailable` until it
 *   is back.
 * - `restarting`: a restart is under way (by the restart policy or `restartServer`).
 * - `disabled`: never started while disabled.
 * - `failed_to_start`: the last start failed; with a restart policy and attempts left
 *   another attempt is scheduled (`nextRestartAt`), otherwise it stays down.
 */
export type McpFleetState = 'stopped' | 'starting' | 'running' | 'crashed' | 'restarting' | 'disabled' | 'failed_to_start';

/** A snapshot of one fleet server's status. */
export interface McpFleetServerStatus {
  id: string;
  state: McpFleetState;
  transport: 'stdio' | 'http' | 'sse';
  /** The protocol era of the live or last session: `modern` (2026-07-28) or `legacy`. */
  era?: 'modern' | 'legacy';
  /** The negotiated protocol version of the live or last session. */
  protocolVersion?: string;
  /** Model-facing tools published for this server now. */
  toolCount: number;
  /** Tools of the published catalog left out for breaking a per-tool budget (counted, the first 16 named); absent when none were. */
  leftOut?: McpLeftOutTools;
  /** The process id of a running stdio server. */
  pid?: number;
  /** Restart attempts since the last successful start. */
  restartAttempts: number;
  /** When the next scheduled restart attempt runs (milliseconds since the epoch). */
  nextRestartAt?: number;
  /** The delay chosen by the restart policy for that attempt, in milliseconds. */
  restartDelayMs?: number;
  /** Why the server is not running, when it is not (secrets redacted). */
  lastError?: string;
  /** The server needs OAuth authorization before it can start (`beginAuthorization`). */
  authorizationRequired?: boolean;
}

/** The outcome of starting one server with `startAll`. */
export type McpFleetStartOutcome =
  | { id: string; ok: true; /** A `startup: 'background'` server still starting. */ pending?: true }
  | { id: string; ok: false; error: Error };

/** What a hot reload of the file changed, by server id. */
export interface McpFleetReload {
  added: string[];
  updated: string[];
  removed: string[];
  /** Servers whose change could not be applied (each also reported as a `reloadError` event). */
  failed: string[];
}

/** The events of an `McpServerManager` (a Node.js `EventEmitter`). */
export interface McpServerManagerEvents {
  /** A server's status changed. */
  status: [status: McpFleetServerStatus];
  /** `watch()` applied an edit of the file. */
  reload: [reload: McpFleetReload];
  /** `watch()` read an edit that does not parse (the fleet is left as it was), or could not apply a server's change (the error names it). */
  reloadError: [error: Error];
  /** A server announced a change of its tools, prompts or resources, or sent a log message (for a relay such as the gateway). */
  notification: [serverId: string, notification: McpRelayedNotification];
}
