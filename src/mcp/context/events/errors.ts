/**
 * Errors of the Events extension. Servers of both generations of the draft are read:
 * codes -32023..-32027 (SEP-3415) and the earlier -32011..-32015 (the design sketch,
 * which OpenAI documents). The server's `error.data` is kept, bounded and redacted, with
 * `data.reason` (or `data.kind`) shown in the message and `data.retryAfterMs` read as a
 * hint for when to try again. Everything a server said is redacted like the other
 * errors of its server, the causes kept on the error included.
 */
import type { ResolvedServerConfig } from '../../config/config.js';
import { isAuthorizationError, isProtocolError } from '../../session/errors-sdk.js';
import { McpFleetError } from '../../errors.js';
import { redactSecrets } from '../../config/redaction.js';
import { isMethodNotFound } from '../server-operations.js';
import { cut, keptErrorData, type McpEventErrorData, type Redact } from './error-data.js';

export type McpEventErrorKind =
  | 'not_found'
  | 'forbidden'
  | 'resource_exhausted'
  | 'unsupported'
  | 'callback_endpoint'
  | 'invalid_params'
  | 'authorization_required'
  | 'server_removed'
  | 'other';

const KINDS = new Map<number, McpEventErrorKind>([
  [-32601, 'unsupported'],
  [-32602, 'invalid_params'],
  [-32023, 'not_found'],
  [-32011, 'not_found'],
  [-32024, 'forbidden'],
  [-32012, 'forbidden'],
  [-32025, 'resource_exhausted'],
  [-32013, 'resource_exhausted'],
  [-32026, 'unsupported'],
  [-32014, 'unsupported'],
  [-32027, 'callback_endpoint'],
  [-32015, 'callback_endpoint'],
]);

/** Kinds that end a subscription; the others are retried. */
const TERMINAL = new Set<McpEventErrorKind>(['not_found', 'forbidden', 'unsupported', 'invalid_params', 'authorization_required', 'server_removed']);

const MAX_MESSAGE = 512;

export interface McpEventErrorOptions {
  rpcCode?: number;
  reason?: string;
  data?: McpEventErrorData;
  dataDropped?: boolean;
  retryAfterMs?: number;
  cause?: unknown;
}

/** An Events operation failed. `kind` says how; `terminal` whether a subscription ends on it. */
export class McpEventError extends McpFleetError {
  readonly kind: McpEventErrorKind;
  /** The JSON-RPC code, when the server answered with one. */
  readonly rpcCode: number | undefined;
  /** `data.reason` (or `data.kind`) of the server's error, when it gave one: redacted, at most 256 characters. */
  readonly reason: string | undefined;
  /**
   * The server's JSON-RPC `error.data` (`{ reason }`, `{ field, reason }`, `{ limit, max,
   * retryAfterMs }`, or any JSON value), with every string in it, object keys included,
   * redacted like the message. `undefined` when the server sent none, or when it was over
   * 4 KiB serialised (or nested too deeply): then `dataDropped` is `true` and the message
   * says so.
   */
  readonly data: McpEventErrorData | undefined;
  /** Whether the server sent `error.data` that was too large to keep (see `data`). */
  readonly dataDropped: boolean;
  /**
   * `data.retryAfterMs` (a finite number, 0 or more), kept even when `data` was dropped. For
   * `resource_exhausted`, a subscription waits that long before it tries again (within
   * its own 2 s minimum and 5 min maximum), and so does a webhook renewal.
   */
  readonly retryAfterMs: number | undefined;

  constructor(serverId: string, kind: McpEventErrorKind, message: string, options: McpEventErrorOptions = {}) {
    super('event_failed', message, { serverId, cause: options.cause });
    this.kind = kind;
    this.rpcCode = options.rpcCode;
    this.reason = options.reason;
    this.data = options.data;
    this.dataDropped = options.dataDropped ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }

  get terminal(): boolean {
    return TERMINAL.has(this.kind);
  }
}

/** What a server's Events errors are redacted with: its configured secrets, as in its other errors. */
export function serverRedact(config: ResolvedServerConfig): Redact {
  return (text) => redactSecrets(text, config);
}

/** The kind a JSON-RPC error code means. */
export function eventErrorKind(code: number): McpEventErrorKind {
  return KINDS.get(code) ?? 'other';
}

/**
 * An error a server sent (a JSON-RPC error, or the `error` of a notice) as an
 * `McpEventError`: its message and data redacted with `redact`, then bounded.
 */
export function eventErrorFromWire(
  serverId: string,
  operation: string,
  error: { code?: unknown; message?: unknown; data?: unknown },
  redact: Redact,
  cause?: unknown,
): McpEventError {
  const code = typeof error.code === 'number' ? error.code : -32603;
  const { data, dropped, reason, retryAfterMs } = keptErrorData(error.data, redact);
  // Redacted before it is cut, as the reason is.
  const message = cut(redact(typeof error.message === 'string' ? error.message : 'subscription ended'), MAX_MESSAGE);
  const note = dropped === undefined ? '' : ` (its error data ${dropped} and was dropped)`;
  return new McpEventError(serverId, eventErrorKind(code), `MCP server "${serverId}": ${operation} failed: ${message}${reason === undefined ? '' : `: ${reason}`}${note}`, {
    rpcCode: code,
    reason,
    ...(data === undefined ? {} : { data }),
    dataDropped: dropped !== undefined,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    cause,
  });
}

/**
 * Any failure of an Events request as an `McpEventError`, with what the server said
 * redacted by `redact` (the caller's abort is not one: the callers rethrow it as is). An
 * `McpEventError` is taken as it is: it was made here.
 */
export function toEventError(serverId: string, operation: string, error: unknown, redact: Redact): McpEventError {
  if (error instanceof McpEventError) return error;
  const failure = classified(serverId, operation, error, redact);
  scrubCauses(failure.cause, redact, failure.data);
  return failure;
}

function classified(serverId: string, operation: string, error: unknown, redact: Redact): McpEventError {
  if (error instanceof McpEventError) return error;
  // A failed session operation carries what the server answered as its cause.
  if (error instanceof McpFleetError && error.code === 'operation_failed' && error.cause !== undefined) {
    const inner = classified(serverId, operation, error.cause, redact);
    // The outer message says more (a deadline, say) unless the server itself answered.
    return inner.kind === 'other' && inner.rpcCode === undefined ? new McpEventError(serverId, 'other', cut(redact(error.message), MAX_MESSAGE), { cause: error }) : inner;
  }
  if (isAuthorizationError(error)) return new McpEventError(serverId, 'authorization_required', error instanceof Error ? redact(error.message) : `MCP server "${serverId}" requires authorization.`, { cause: error });
  if (isMethodNotFound(error)) return new McpEventError(serverId, 'unsupported', `MCP server "${serverId}" does not implement ${operation} (MCP Events).`, { rpcCode: -32601, cause: error });
  if (isProtocolError(error)) return eventErrorFromWire(serverId, operation, { code: Number(error.code), message: error.message, data: (error as { data?: unknown }).data }, redact, error);
  if (error instanceof McpFleetError && error.code === 'server_removed') return new McpEventError(serverId, 'server_removed', error.message, { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new McpEventError(serverId, 'other', cut(redact(message), MAX_MESSAGE), { cause: error });
}

/**
 * Scrubs, in place, the errors an `McpEventError` keeps as its causes (as `redactError`
 * does for connection errors): their messages and stacks, and the `data` of a server's
 * error, replaced by what was kept of it, so that neither a secret nor an oversized value
 * lives on through `cause` (`util.inspect` shows causes whole).
 */
function scrubCauses(cause: unknown, redact: Redact, data: McpEventErrorData | undefined): void {
  const seen = new Set<unknown>();
  for (let current = cause; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    current.message = redact(current.message);
    if (current.stack !== undefined) current.stack = redact(current.stack);
    if (Object.hasOwn(current, 'data')) Object.assign(current, { data });
  }
}
