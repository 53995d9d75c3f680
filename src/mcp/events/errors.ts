/**
 * Errors of the Events extension. Servers of both generations of the draft are read:
 * codes -32023..-32027 (SEP-3415) and the earlier -32011..-32015 (the design sketch,
 * which OpenAI documents). `data.reason` (or `data.kind`) is kept and shown.
 */
import { isAuthorizationError, isProtocolError } from '../errors-sdk.js';
import { McpFleetError } from '../errors.js';
import { isMethodNotFound } from '../server-operations.js';

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
const MAX_REASON = 256;

const cut = (text: string, most: number): string => (text.length > most ? `${text.slice(0, most)}...` : text);

/** An Events operation failed. `kind` says how; `terminal` whether a subscription ends on it. */
export class McpEventError extends McpFleetError {
  readonly kind: McpEventErrorKind;
  /** The JSON-RPC code, when the server answered with one. */
  readonly rpcCode: number | undefined;
  /** `data.reason` (or `data.kind`) of the server's error, when it gave one. */
  readonly reason: string | undefined;

  constructor(serverId: string, kind: McpEventErrorKind, message: string, options: { rpcCode?: number; reason?: string; cause?: unknown } = {}) {
    super('event_failed', message, { serverId, cause: options.cause });
    this.kind = kind;
    this.rpcCode = options.rpcCode;
    this.reason = options.reason;
  }

  get terminal(): boolean {
    return TERMINAL.has(this.kind);
  }
}

/** The kind a JSON-RPC error code means. */
export function eventErrorKind(code: number): McpEventErrorKind {
  return KINDS.get(code) ?? 'other';
}

function reasonOf(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { reason, kind } = data as { reason?: unknown; kind?: unknown };
  const text = typeof reason === 'string' ? reason : typeof kind === 'string' ? kind : undefined;
  return text === undefined ? undefined : cut(text, MAX_REASON);
}

/** An error a server sent (a JSON-RPC error, or the `error` of a `terminated` notice) as an `McpEventError`. */
export function eventErrorFromWire(serverId: string, operation: string, error: { code?: unknown; message?: unknown; data?: unknown }): McpEventError {
  const code = typeof error.code === 'number' ? error.code : -32603;
  const reason = reasonOf(error.data);
  const message = cut(typeof error.message === 'string' ? error.message : 'subscription ended', MAX_MESSAGE);
  return new McpEventError(serverId, eventErrorKind(code), `MCP server "${serverId}": ${operation} failed: ${message}${reason === undefined ? '' : `: ${reason}`}`, {
    rpcCode: code,
    reason,
  });
}

/** Any failure of an Events request as an `McpEventError` (the caller's abort is not one: it is rethrown as is). */
export function toEventError(serverId: string, operation: string, error: unknown): McpEventError {
  if (error instanceof McpEventError) return error;
  // A failed session operation carries what the server answered as its cause.
  if (error instanceof McpFleetError && error.code === 'operation_failed' && error.cause !== undefined) {
    const inner = toEventError(serverId, operation, error.cause);
    return inner.kind === 'other' ? new McpEventError(serverId, 'other', cut(error.message, MAX_MESSAGE), { cause: error }) : inner;
  }
  if (isAuthorizationError(error)) return new McpEventError(serverId, 'authorization_required', error instanceof Error ? error.message : `MCP server "${serverId}" requires authorization.`, { cause: error });
  if (isMethodNotFound(error)) return new McpEventError(serverId, 'unsupported', `MCP server "${serverId}" does not implement ${operation} (MCP Events).`, { rpcCode: -32601, cause: error });
  if (isProtocolError(error)) {
    const wire = eventErrorFromWire(serverId, operation, { code: Number(error.code), message: error.message, data: (error as { data?: unknown }).data });
    return new McpEventError(serverId, wire.kind, wire.message, { rpcCode: wire.rpcCode, reason: wire.reason, cause: error });
  }
  if (error instanceof McpFleetError && error.code === 'server_removed') return new McpEventError(serverId, 'server_removed', error.message, { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new McpEventError(serverId, 'other', cut(message, MAX_MESSAGE), { cause: error });
}
