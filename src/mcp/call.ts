/**
 * The call path of a model-facing MCP tool: route, refresh a dirty catalog, check that
 * the tool the model chose is still the same tool, connect, wait for the concurrency
 * gate, call the original remote name with the arguments only, and adapt the result.
 * Everything the model should read comes back as a result; only the caller's own abort
 * rejects. A call is never replayed after a transport failure.
 */
import { type CallToolResult, InsufficientScopeError } from '@modelcontextprotocol/client';
import type { ToolCallOptions, ToolOutput } from '../core/tool.js';
import { McpCatalogError } from './catalog.js';
import { OperationSignal } from './deadline.js';
import type { McpSession } from './session.js';
import { taskHandleOf, type TaskHandle } from './tap.js';
import { awaitTask, cancelTask, McpTaskError } from './tasks.js';
import { errorMessage, McpAuthorizationRequired, McpServerRemovedError } from './errors.js';
import { isAuthorizationError, isDisconnectError, isSessionExpired, isTimeoutError } from './errors-sdk.js';
import { jsonEqual } from './presentation.js';
import { refreshServers } from './refresh.js';
import type { ServerRegistration } from './registration.js';
import { callError, callOutput } from './results.js';
import type { McpRoute, RouteTable } from './routes.js';
import { type McpLogger, silentLogger } from './logger.js';
import { redactSecrets } from './redaction.js';
import { McpResponseTooLargeError } from './transport/bounded-fetch.js';
import { McpMessageTooLargeError } from './transport/stdio.js';

export interface CallContext {
  table: RouteTable;
  registrations: ReadonlyMap<string, ServerRegistration>;
  logger: McpLogger;
}

/** Why a captured route may no longer run, or `undefined` when it may. */
function staleRouteProblem(context: CallContext, captured: McpRoute): string | undefined {
  const registration = context.registrations.get(captured.serverId);
  if (registration === undefined || registration.generation !== captured.generation) {
    return `MCP server "${captured.serverId}" was re-registered; select the tool again.`;
  }
  const current = context.table.get(captured.name);
  if (current === undefined) return `MCP tool "${captured.name}" was removed; select a tool again.`;
  if (current === captured) return undefined;
  if (current.generation !== captured.generation || current.remoteName !== captured.remoteName || !jsonEqual(current.tool, captured.tool)) {
    return `MCP tool "${captured.name}" changed (catalog changed); select the tool again.`;
  }
  return undefined;
}

function isShared(registration: ServerRegistration, route: McpRoute): boolean {
  switch (registration.config.concurrency) {
    case 'parallel':
      return true;
    case 'read_only_parallel':
      // An annotation is a hint for scheduling, never a permission.
      return route.tool.annotations?.readOnlyHint === true;
    case 'serial':
      return false;
  }
}

/** Calls a published tool. `name` is the lowercased model-facing name. */
export async function callTool(context: CallContext, name: string, args: unknown, options: ToolCallOptions = {}): Promise<ToolOutput> {
  const captured = context.table.get(name);
  if (captured === undefined) {
    return callError('', name, 'tool_not_found', `MCP tool "${name}" was not found; use tools_search to find available tools.`);
  }
  const { serverId, remoteName } = captured;
  if (args === null || args === undefined) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    return callError(serverId, remoteName, 'invalid_arguments', `MCP tool "${name}" expects a JSON object of arguments.`);
  }
  const registration = context.registrations.get(serverId);
  const stale = staleRouteProblem(context, captured);
  if (registration === undefined || stale !== undefined) {
    return callError(serverId, remoteName, 'catalog_changed', stale ?? `MCP server "${serverId}" was removed.`);
  }
  const { timeouts } = registration.config;
  const callerSignal = options.signal;
  const deadlineMs = Math.min(timeouts.callMs, options.timeoutMs ?? Number.POSITIVE_INFINITY);
  const deadlineAt = performance.now() + deadlineMs;
  // Waiting (connecting, refreshing, queueing) needs a signal bound to the logical deadline.
  // The common path waits for nothing and creates none: the request itself carries the
  // deadline as the SDK's total timeout, which also cancels it on the wire.
  let waiting: OperationSignal | undefined;
  const waitSignal = (): AbortSignal => (waiting ??= new OperationSignal([callerSignal, registration.signal], deadlineAt - performance.now())).signal;
  const timedOut = (): boolean => waiting?.timedOut === true || performance.now() >= deadlineAt - 1;
  let dispatched = false;
  try {
    // A new session (after a crash or a disconnect) marks the catalog dirty, so connect first.
    let session = registration.liveSession() ?? (await registration.ensureSession(waitSignal()));
    if (registration.dirty) {
      const [failure] = await refreshServers([registration], context.table, { force: false, signal: waitSignal() });
      // A catalog that broke a budget leaves the last snapshot published, and usable.
      if (failure !== undefined && !(failure.error instanceof McpCatalogError)) throw failure.error;
      const problem = staleRouteProblem(context, captured);
      if (problem !== undefined) return callError(serverId, remoteName, 'catalog_changed', problem);
      session = registration.liveSession() ?? (await registration.ensureSession(waitSignal()));
    }
    const shared = isShared(registration, captured);
    const release = registration.gate.tryAcquire(shared) ?? (await registration.gate.acquire(shared, waitSignal()));
    try {
      // The session may have been retired while this call waited its turn.
      if (session.closed || registration.session !== session) {
        return callError(
          serverId,
          remoteName,
          'server_disconnected',
          `MCP server "${serverId}" was disconnected before the call started; call the tool again.`,
        );
      }
      const remaining = Math.floor(deadlineAt - performance.now());
      if (remaining <= 0) throw new DeadlineExceeded();
      dispatched = true;
      const started = context.logger === silentLogger ? 0 : performance.now();
      // On 2025 revisions a person answering an elicitation keeps the call open: give it the whole deadline.
      const interactive = registration.elicitation !== undefined && session.era === 'legacy';
      const asTask = wantsTask(registration, session, captured);
      const send = () =>
        session.track(
          session.client.callTool(
            {
              name: remoteName,
              arguments: args as Record<string, unknown>,
              ...(asTask ? { task: { ttl: registration.config.tasks!.maxWaitMs } } : {}),
            },
            {
              ...(callerSignal === undefined ? {} : { signal: callerSignal }),
              timeout: interactive ? remaining : Math.min(timeouts.requestMs, remaining),
              // Server progress resets the per-request timeout, never the logical-call deadline.
              resetTimeoutOnProgress: true,
              maxTotalTimeout: remaining,
              onprogress: ignoreProgress,
              toolDefinition: captured.tool,
            },
          ),
        );
      let result = await withStepUp(registration, send);
      const task = taskHandleOf(result);
      if (task !== undefined) result = await runTask(registration, session, task, remoteName, { deadlineAt, callerSignal });
      if (context.logger !== silentLogger) {
        context.logger.debug(
          { serverId, method: 'tools/call', tool: remoteName, durationMs: Math.round(performance.now() - started), isError: result.isError === true },
          'MCP tool call finished',
        );
      }
      return callOutput(serverId, remoteName, result, registration.config.limits);
    } catch (error) {
      if (isSessionExpired(error, session.transport.sessionId)) {
        // The server lost the session before running the call: set up a new one next time, but do not replay.
        registration.expire(session);
        return callError(
          serverId,
          remoteName,
          'server_disconnected',
          `MCP server "${serverId}" no longer knew this session (HTTP 404), so the call did not run. A new session is opened on the next call; call the tool again.`,
        );
      }
      throw error;
    } finally {
      release();
    }
  } catch (error) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    const cause = registration.lastSession?.failure ?? error;
    return failureOutput(registration, captured, cause, { timedOut: timedOut(), deadlineMs, dispatched });
  } finally {
    waiting?.dispose();
  }
}

/** On 2025-11-25 the client asks for a task, for tools that support one on a server that accepts them. */
function wantsTask(registration: ServerRegistration, session: McpSession, route: McpRoute): boolean {
  if (registration.config.tasks === undefined || session.era !== 'legacy') return false;
  const support = (route.tool as { execution?: { taskSupport?: unknown } }).execution?.taskSupport;
  const accepts = (session.capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } }).tasks?.requests?.tools?.call;
  return (support === 'optional' || support === 'required') && accepts !== undefined;
}

/**
 * Waits for a task the server created instead of answering. Without the tasks opt-in
 * the task is cancelled and the call fails (the server should not have made one).
 */
async function runTask(
  registration: ServerRegistration,
  session: McpSession,
  task: TaskHandle,
  tool: string,
  call: { deadlineAt: number; callerSignal: AbortSignal | undefined },
): Promise<CallToolResult> {
  const { config, logger } = registration;
  if (config.tasks === undefined) {
    cancelTask(session, task, logger);
    throw new McpTaskError(
      'task_unexpected',
      `MCP tool "${tool}" on server "${config.id}" returned a task handle, but the tasks extension is not enabled for this server (\`tasks\`).`,
    );
  }
  return awaitTask(session, task, {
    serverId: config.id,
    tool,
    deadlineAt: call.deadlineAt,
    maxWaitMs: config.tasks.maxWaitMs,
    requestMs: config.timeouts.requestMs,
    signals: [call.callerSignal, registration.signal],
    logger,
  });
}

/** The logical-call deadline passed before the request could be sent. */
class DeadlineExceeded extends Error {}

/** Asking for progress lets a server's progress reset the per-request timeout; the updates themselves are not used. */
function ignoreProgress(): void {}

/** At most this many scope step-ups per call (the conformance suite's limit is three). */
const MAX_STEP_UPS = 2;

/**
 * Runs `send`; when the server answers 403 `insufficient_scope` (SEP-2350) and the
 * server uses client credentials, renews the token with the union of scopes and sends
 * again (the server refused before running the tool). The interactive flow records the
 * scopes for the next authorization and fails with `authorization_required`.
 */
async function withStepUp<T>(registration: ServerRegistration, send: () => Promise<T>): Promise<T> {
  for (let stepUps = 0; ; stepUps++) {
    try {
      return await send();
    } catch (error) {
      const authorizer = registration.authorizer;
      if (authorizer === undefined || !InsufficientScopeError.isInstance(error)) throw error;
      if (stepUps >= MAX_STEP_UPS || !(await authorizer.stepUp(error.requiredScope))) throw error;
    }
  }
}

function failureOutput(
  registration: ServerRegistration,
  route: McpRoute,
  error: unknown,
  state: { timedOut: boolean; deadlineMs: number; dispatched: boolean },
): ToolOutput {
  const { serverId, remoteName } = route;
  if (registration.removed || error instanceof McpServerRemovedError) {
    return callError(serverId, remoteName, 'server_removed', `MCP server "${serverId}" was removed.`);
  }
  if (error instanceof McpAuthorizationRequired || isAuthorizationError(error)) {
    registration.recordFailure(error instanceof McpAuthorizationRequired ? error : new McpAuthorizationRequired(serverId, undefined, error));
    const output = callError(serverId, remoteName, 'authorization_required', `MCP server "${serverId}" requires authorization.`);
    output.output = { error: { code: 'authorization_required', server_id: serverId } };
    return output;
  }
  if (state.timedOut) {
    return callError(
      serverId,
      remoteName,
      'timeout',
      `MCP tool "${remoteName}" on server "${serverId}" did not finish within ${state.deadlineMs} ms (${
        state.deadlineMs < registration.config.timeouts.callMs ? 'the call\'s timeoutMs' : 'timeouts.callMs'
      }).`,
    );
  }
  if (isTimeoutError(error)) {
    return callError(
      serverId,
      remoteName,
      'timeout',
      `MCP tool "${remoteName}" on server "${serverId}" did not answer within ${registration.config.timeouts.requestMs} ms (timeouts.requestMs).`,
    );
  }
  if (error instanceof McpTaskError) return callError(serverId, remoteName, error.code, error.message);
  if (error instanceof McpMessageTooLargeError || error instanceof McpResponseTooLargeError) {
    return callError(serverId, remoteName, 'response_too_large', `${error.message} The call is not retried.`);
  }
  if (state.dispatched && isDisconnectError(error)) {
    return callError(
      serverId,
      remoteName,
      'server_disconnected',
      `MCP server "${serverId}" disconnected during the call. It was not retried, because the tool may have run; ` +
        'check its effect before calling it again.',
    );
  }
  const message = redactSecrets(errorMessage(error), registration.config);
  return callError(serverId, remoteName, 'call_failed', `MCP tool "${remoteName}" on server "${serverId}" failed: ${message}`);
}
