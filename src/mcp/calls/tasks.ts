/**
 * Long-running tool calls answered with a task handle: SEP-2663 on 2026-07-28 (the
 * server decides; `tasks/get` inlines the result) and tasks on 2025-11-25 (the client
 * asks with `task: { ttl }`; `tasks/result` returns the result). The call still blocks:
 * the host polls `tasks/get` at the server's suggested interval, clamped to 250 ms-10 s,
 * within `tasks.maxWaitMs` and the logical-call deadline. A task the host walks away from
 * (deadline, the caller's abort, input it cannot give) is cancelled best-effort.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type AbortSource, OperationSignal } from '../deadline.js';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import type { McpLogger } from '../logger.js';
import type { HostClient } from '../session/host-client.js';
import type { TaskHandle } from '../session/tap.js';

/** What task polling needs of a session: its server's id, its client and its in-flight count (not the session itself, which polls through this file). */
export interface TaskSession {
  readonly serverId: string;
  readonly client: Pick<HostClient, 'request'>;
  /** Counts `work` as in flight on the session until it settles. */
  track<T>(work: Promise<T>): Promise<T>;
}

export const MIN_POLL_MS = 250;
export const MAX_POLL_MS = 10_000;
const DEFAULT_POLL_MS = 1_000;
/** How long a `tasks/cancel` acknowledgement may take. */
export const CANCEL_ACK_MS = 2_000;

/** The server's poll interval hint, clamped: servers are untrusted, 1 ms and 1 h both become sane. */
export function pollIntervalMs(hint: number | undefined): number {
  if (hint === undefined || !Number.isFinite(hint)) return DEFAULT_POLL_MS;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, hint));
}

const anyObject = z.looseObject({});

/** Why a task did not produce a result. */
export class McpTaskError extends Error {
  constructor(
    readonly code: 'task_failed' | 'task_cancelled' | 'task_timeout' | 'task_input_required' | 'task_unexpected',
    message: string,
  ) {
    super(message);
    this.name = 'McpTaskError';
  }
}

export interface AwaitTaskOptions {
  serverId: string;
  tool: string;
  /** When the logical call must end (a `performance.now()` time). */
  deadlineAt: number;
  /** The task's own longest wait. */
  maxWaitMs: number;
  requestMs: number;
  /** The caller's signal and the registration's removal signal. */
  signals: (AbortSource | undefined)[];
  logger: McpLogger;
}

/** Asks the server to drop a task, without waiting more than two seconds or failing the caller. */
export function cancelTask(session: TaskSession, handle: TaskHandle, logger: McpLogger): void {
  void session
    .track(session.client.request({ method: 'tasks/cancel', params: { taskId: handle.taskId } }, anyObject, { timeout: CANCEL_ACK_MS }))
    .catch((error: unknown) => logger.debug({ serverId: session.serverId, taskId: handle.taskId, error: errorMessage(error) }, 'tasks/cancel was not acknowledged'));
}

/**
 * Polls the task to a terminal state and returns the tool's result. Throws
 * `McpTaskError` for a failed, cancelled or abandoned task (after asking the server to
 * cancel one still running), and the signal's reason when the caller aborts.
 */
export async function awaitTask(session: TaskSession, handle: TaskHandle, options: AwaitTaskOptions): Promise<CallToolResult> {
  const until = Math.min(options.deadlineAt, performance.now() + options.maxWaitMs);
  const operation = new OperationSignal(options.signals, until - performance.now());
  const signal = operation.signal;
  const describe = `MCP task ${handle.taskId} of tool "${options.tool}" on server "${options.serverId}"`;
  let status = handle.status;
  let interval = handle.pollIntervalMs;
  let finished = false;
  try {
    for (;;) {
      // On 2026-07-28 the result comes with tasks/get (there is no tasks/result), so a handle
      // that is already completed is still polled once.
      if ((status === 'completed' && handle.era !== 'modern') || status === 'failed' || status === 'cancelled') break;
      if (status === 'input_required') {
        throw new McpTaskError('task_input_required', `${describe} asked for input this host cannot give inside a task; it was cancelled.`);
      }
      await sleep(pollIntervalMs(interval), undefined, { signal });
      const timeout = Math.max(1, Math.min(options.requestMs, until - performance.now()));
      const detail = await session.client.request({ method: 'tasks/get', params: { taskId: handle.taskId } }, anyObject, {
        signal,
        timeout,
      });
      status = typeof detail.status === 'string' ? detail.status : 'working';
      const hint = Number(handle.era === 'modern' ? detail.pollIntervalMs : detail.pollInterval);
      interval = Number.isFinite(hint) ? hint : interval;
      if (status === 'completed' && handle.era === 'modern') {
        finished = true;
        if (!('result' in detail)) throw new McpTaskError('task_unexpected', `${describe} completed without a result.`);
        return detail.result as CallToolResult;
      }
      if (status === 'failed') {
        finished = true;
        const reason = detail.error === undefined ? detail.statusMessage : JSON.stringify(detail.error);
        const text = typeof reason === 'string' ? `: ${reason.slice(0, 500)}` : '';
        throw new McpTaskError('task_failed', `${describe} failed${text}.`);
      }
      if (status === 'cancelled') {
        finished = true;
        throw new McpTaskError('task_cancelled', `${describe} was cancelled by the server.`);
      }
    }
    finished = true;
    if (status === 'failed') throw new McpTaskError('task_failed', `${describe} failed.`);
    if (status === 'cancelled') throw new McpTaskError('task_cancelled', `${describe} was cancelled by the server.`);
    // 2025-11-25: the result is fetched separately once the task is done.
    const timeout = Math.max(1, Math.min(options.requestMs, until - performance.now()));
    return (await session.client.request({ method: 'tasks/result', params: { taskId: handle.taskId } }, anyObject, {
      signal,
      timeout,
    })) as CallToolResult;
  } catch (error) {
    if (!finished) cancelTask(session, handle, options.logger);
    if (operation.timedOut) {
      const waited = until === options.deadlineAt ? 'the logical-call deadline (timeouts.callMs)' : `tasks.maxWaitMs (${options.maxWaitMs} ms)`;
      throw new McpTaskError('task_timeout', `${describe} did not finish within ${waited}; it was cancelled.`);
    }
    throw signal.aborted ? signal.reason : error;
  } finally {
    operation.dispose();
  }
}
