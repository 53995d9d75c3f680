/**
 * Per-server policy objects with named defaults: budgets (`limits`), deadlines
 * (`timeouts`), call concurrency, start-up mode and the observable status. Units are
 * in the field names. The defaults are the Anda design document's.
 */
import { KiB, MiB } from '../../core/budget.js';

/** Byte and count budgets on everything a server sends. */
export interface McpLimits {
  /** Most `tools/list` pages followed. Default 100. */
  catalogPages: number;
  /** Most tools listed (counted before filtering), and most name identities retained. Default 2,048. */
  catalogItems: number;
  /** Longest pagination cursor, and longest resource URI. Default 64 KiB. */
  cursorBytes: number;
  /** Largest serialised input schema of one published tool (the model reads it). Default 64 KiB. */
  schemaBytes: number;
  /** Largest serialised output schema of one published tool (never shown to a model; results are checked against it). Default 256 KiB. */
  outputSchemaBytes: number;
  /** Deepest nesting of objects and arrays in an input or output schema of one published tool, at most 1,000. Default 128. */
  schemaDepth: number;
  /** Longest description or title of one published tool. Default 16 KiB. */
  descriptionBytes: number;
  /** Largest sum of the server's name, title, description and instructions. Default 32 KiB. */
  serverMetadataBytes: number;
  /** Longest incoming stdio line, HTTP JSON body or SSE event. Default 8 MiB. */
  messageBytes: number;
  /** Most text in a model view of a result (at least 256). Default 32 KiB. */
  outputTextBytes: number;
  /** Most decoded media bytes in a model view of a result. Default 5 MiB. */
  outputMediaBytes: number;
  /** Most media parts in a model view of a result. Default 8. */
  outputMediaItems: number;
  /** How much of a stdio server's stderr is kept for diagnostics. Default 64 KiB. */
  stderrBytes: number;
}

export const DEFAULT_LIMITS: Readonly<McpLimits> = Object.freeze({
  catalogPages: 100,
  catalogItems: 2048,
  cursorBytes: 64 * KiB,
  schemaBytes: 64 * KiB,
  outputSchemaBytes: 256 * KiB,
  schemaDepth: 128,
  descriptionBytes: 16 * KiB,
  serverMetadataBytes: 32 * KiB,
  messageBytes: 8 * MiB,
  outputTextBytes: 32 * KiB,
  outputMediaBytes: 5 * MiB,
  outputMediaItems: 8,
  stderrBytes: 64 * KiB,
});

/** Deadlines, in milliseconds. Each lies in [1, 86,400,000] (one day). */
export interface McpTimeouts {
  /** Connection set-up, including authorization and the lifecycle fallback. Default 90 s. */
  setupMs: number;
  /** One complete `tools/list` enumeration, retries included. Default 30 s. */
  listMs: number;
  /** One protocol request inside a call; server progress resets it. Default 180 s. */
  requestMs: number;
  /** One logical call: queueing, set-up, input rounds and task polling. Default 600 s. */
  callMs: number;
  /** One elicitation answered by the application. Default 300 s. */
  elicitationMs: number;
  /** One connection attempt (one transport and handshake). Default 45 s. */
  connectAttemptMs: number;
  /** The `server/discover` probe of the `auto` lifecycle. Default 10 s. */
  probeMs: number;
  /** How long a stdio server has to exit after its stdin closes, before SIGTERM and then SIGKILL. Default 2 s. */
  closeMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<McpTimeouts> = Object.freeze({
  setupMs: 90_000,
  listMs: 30_000,
  requestMs: 180_000,
  callMs: 600_000,
  elicitationMs: 300_000,
  connectAttemptMs: 45_000,
  probeMs: 10_000,
  closeMs: 2_000,
});

export const MAX_TIMEOUT_MS = 86_400_000;

/**
 * How calls to one server may overlap. `serial`: never. `read_only_parallel`: calls to
 * tools annotated `readOnlyHint: true` run together, any other call runs alone.
 * `parallel`: always (an explicit host decision; annotations are hints, never permission).
 */
export type McpConcurrency = 'serial' | 'read_only_parallel' | 'parallel';

/** `eager`: `init()` waits for the server. `background`: its tools appear once live discovery succeeds. */
export type McpStartup = 'eager' | 'background';

/**
 * Which protocol lifecycle opens a session. `auto`: probe `server/discover`, fall back
 * to `initialize` on a fresh transport. `discover`: the stateless `2026-07-28` lifecycle
 * only. `initialize`: the legacy handshake only, at most `2025-11-25`.
 */
export type McpLifecycle = 'auto' | 'discover' | 'initialize';

/** What `serverStatuses()` reports for a server. */
export type McpServerState = 'disconnected' | 'connecting' | 'ready' | 'authorization_required' | 'failed';

export interface McpServerStatus {
  id: string;
  state: McpServerState;
  /** The protocol era of the live or last session: `modern` (2026-07-28) or `legacy`. */
  era?: 'modern' | 'legacy';
  /** The negotiated protocol version of the live or last session. */
  protocolVersion?: string;
  /** Model-facing tools currently published for this server. */
  toolCount: number;
  /** Message of the last failure, if the last attempt failed. */
  lastError?: string;
  /** The tail of the server's stderr (stdio only), for diagnostics. */
  stderrTail?: string;
  /** The process id of a connected stdio server. */
  pid?: number;
  /** Tools of the published catalog left out for breaking a per-tool budget; absent when none were. */
  leftOut?: McpLeftOutTools;
}

/** The per-tool budgets: a tool that breaks one is left out of the catalog, and the rest of its server is published. */
export type McpToolBudget = 'schemaBytes' | 'outputSchemaBytes' | 'schemaDepth' | 'descriptionBytes';

/** One tool left out of a server's catalog, and why. */
export interface McpLeftOutTool {
  /** The tool's name on its server (cut to 256 bytes, ending in `…`, if longer). */
  name: string;
  /** The budget it broke; `limits.<budget>` raises it. */
  budget: McpToolBudget;
  /** What broke it. */
  field: 'inputSchema' | 'outputSchema' | 'description' | 'title';
  /** Its size in bytes (serialised as JSON for a schema); absent for `schemaDepth`, whose walk stops at the limit. */
  bytes?: number;
  /** The value of `limits.<budget>` it broke. */
  limit: number;
}

/**
 * The tools left out of a server's published catalog. Bounded whatever the server
 * lists: every left-out tool is counted, the first few (in listing order) are named.
 */
export interface McpLeftOutTools {
  /** How many tools were left out. */
  count: number;
  /** The first of them, at most 16. */
  tools: McpLeftOutTool[];
}
