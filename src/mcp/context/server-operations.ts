/**
 * What resource, prompt and completion operations share: a live session of the named
 * server, a deadline and the caller's signal, paging under the catalog budgets, and
 * errors that name the server and the operation.
 */
import { ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { utf8Bytes } from '../../core/budget.js';
import { OperationSignal } from '../deadline.js';
import { errorMessage, McpFleetError } from '../errors.js';
import { isProtocolError } from '../session/errors-sdk.js';
import { redactSecrets } from '../config/redaction.js';
import type { ServerRegistration } from '../registration.js';
import type { McpSession } from '../session/session.js';

export interface McpRequestOptions {
  signal?: AbortSignal;
}

/** An operation on a server that failed; `operation` names it (e.g. `resources/read`). */
export class McpOperationError extends McpFleetError {
  readonly operation: string;

  constructor(serverId: string, operation: string, message: string, cause?: unknown) {
    super('operation_failed', message, { serverId, cause });
    this.operation = operation;
  }
}

/** Whether the server said it does not implement a method. */
export function isMethodNotFound(error: unknown): boolean {
  if (isProtocolError(error)) return Number(error.code) === Number(ProtocolErrorCode.MethodNotFound);
  return SdkError.isInstance(error) && error.code === SdkErrorCode.MethodNotSupportedByProtocolVersion;
}

/**
 * Runs `work` on a live session of `registration`, bounded by `timeoutMs`, the caller's
 * signal and the server's removal. Failures become `McpOperationError` naming the
 * server and the operation; the caller's abort rejects with its reason.
 */
export async function onSession<T>(
  registration: ServerRegistration,
  operation: string,
  timeoutMs: number,
  options: McpRequestOptions,
  work: (session: McpSession, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  options.signal?.throwIfAborted();
  const deadline = new OperationSignal([options.signal, registration.signal], timeoutMs);
  try {
    const session = await registration.ensureSession(deadline.signal);
    return await session.track(work(session, deadline.signal));
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof McpFleetError) throw error;
    const reason = deadline.timedOut ? `did not finish within ${timeoutMs} ms` : redactSecrets(errorMessage(error), registration.config);
    throw new McpOperationError(registration.id, operation, `MCP server "${registration.id}": ${operation} failed: ${reason}`, error);
  } finally {
    deadline.dispose();
  }
}

/**
 * Lists every item of a paginated method (`resources/list`, `prompts/list`, ...) within
 * the server's page, item and cursor budgets. A server that does not implement the
 * method has nothing to list.
 */
export async function listAll<T>(
  registration: ServerRegistration,
  session: McpSession,
  method: 'resources/list' | 'resources/templates/list' | 'prompts/list',
  key: 'resources' | 'resourceTemplates' | 'prompts',
  signal: AbortSignal,
): Promise<T[]> {
  const { limits, timeouts, id } = registration.config;
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; page <= limits.catalogPages; page++) {
    let result: Record<string, unknown>;
    try {
      result = (await session.client.request({ method, params: cursor === undefined ? {} : { cursor } }, { signal, timeout: timeouts.requestMs }));
    } catch (error) {
      if (page === 1 && isMethodNotFound(error)) return [];
      throw error;
    }
    const pageItems = (result[key] ?? []) as T[];
    if (items.length + pageItems.length > limits.catalogItems) {
      throw new McpOperationError(id, method, `MCP server "${id}" lists more than ${limits.catalogItems} items (limits.catalogItems).`);
    }
    items.push(...pageItems);
    const next = result.nextCursor;
    if (typeof next !== 'string') return items;
    if (utf8Bytes(next) > limits.cursorBytes || seen.has(next)) {
      throw new McpOperationError(id, method, `MCP server "${id}" sent an oversized or repeated ${method} cursor.`);
    }
    seen.add(next);
    cursor = next;
  }
  throw new McpOperationError(id, method, `MCP server "${id}" has more than ${limits.catalogPages} pages of ${method} (limits.catalogPages).`);
}

/** Rejects a URI over `limits.cursorBytes` before anything is sent. */
export function checkUri(registration: ServerRegistration, uri: string, operation: string): void {
  const limit = registration.config.limits.cursorBytes;
  if (utf8Bytes(uri) > limit) {
    throw new McpOperationError(registration.id, operation, `MCP server "${registration.id}": the resource URI is over ${limit} bytes (limits.cursorBytes).`);
  }
}
