/**
 * Running one `tools/call` on a registration, for the model (`call.ts`) and for the
 * application (`callServerTool`): refresh a dirty catalog, connect, wait for the
 * concurrency gate, send the arguments only, step up scopes, wait for a task, and
 * describe a failure in words the model (or the application) can act on. A call is
 * never replayed after a transport failure.
 */
import { waitBounded } from '../../core/wait.js';
import { type CallToolResult, InsufficientScopeError, ProtocolError, type Tool } from '@modelcontextprotocol/client';
import { mayDeclareHeaders, McpCatalogError } from '../catalog/catalog.js';
import { OperationSignal } from '../deadline.js';
import { errorMessage, McpAuthorizationRequired, McpServerRemovedError, McpServerUnavailableError } from '../errors.js';
import { isAuthorizationError, isDisconnectError, isProtocolError, isSessionExpired, isTimeoutError } from '../session/errors-sdk.js';
import { type McpLogger, silentLogger } from '../logger.js';
import { redactSecrets } from '../config/redaction.js';
import { refreshServers } from '../catalog/refresh.js';
import type { McpServerAuthorizer } from '../auth/authorizer.js';
import type { ServerRegistration } from '../registration.js';
import type { RouteTable } from '../catalog/routes.js';
import { McpConnectError, type McpSession } from '../session/session.js';
import { taskHandleOf, type TaskHandle } from '../session/tap.js';
import { awaitTask, cancelTask, McpTaskError } from './tasks.js';
import { McpResponseTooLargeError } from '../transport/bounded-fetch.js';
import { McpMessageTooLargeError } from '../transport/stdio.js';
import { type McpServerCallOptions, relays, relayParams } from './relay.js';

export interface InvokeContext {
  table: RouteTable;
  logger: McpLogger;
}

/** What to call. */
export interface InvokeTarget {
  remoteName: string;
  /** The tool as listed, when known: used for SEP-2243 header mirroring, output validation and task support. */
  tool: Tool | undefined;
  /** Whether the call may share the server with others (the concurrency policy). */
  shared: boolean;
  /** Checked again after a refresh: why the call must not run any more, if it must not. */
  stillValid?: () => string | undefined;
}

/** A call that ended without a result: a code and a message naming the server and tool. */
export interface InvokeFailure {
  code: string;
  message: string;
  /** The server's own JSON-RPC error, when it answered the call with one (a gateway relays it as it came). */
  serverError?: ProtocolError;
}

export type InvokeOutcome = { result: CallToolResult } | { failure: InvokeFailure };

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
 * scopes for the next authorization and fails with `authorization_required`. A server
 * without an authorizer has no scope to step up, so its calls skip the retry loop.
 */
function withStepUp<T>(registration: ServerRegistration, send: () => Promise<T>, waitSignal: () => AbortSignal): Promise<T> {
  const authorizer = registration.authorizer;
  return authorizer === undefined ? send() : sendStepping(authorizer, send, waitSignal);
}

async function sendStepping<T>(authorizer: McpServerAuthorizer, send: () => Promise<T>, waitSignal: () => AbortSignal): Promise<T> {
  for (let stepUps = 0; ; stepUps++) {
    try {
      return await send();
    } catch (error) {
      if (!InsufficientScopeError.isInstance(error)) throw error;
      // The new token is waited for within the call's deadline and the caller's signal.
      if (stepUps >= MAX_STEP_UPS || !(await waitBounded(authorizer.stepUp(error.requiredScope), { signal: waitSignal() }))) throw error;
    }
  }
}

/** On 2025-11-25 the client asks for a task, for tools that support one on a server that accepts them. */
function wantsTask(registration: ServerRegistration, session: McpSession, tool: Tool | undefined): boolean {
  if (registration.config.tasks === undefined || session.era !== 'legacy') return false;
  // `undefined` for a tool the catalog does not publish (callServerTool may name any tool).
  const support = (tool as { execution?: { taskSupport?: unknown } } | undefined)?.execution?.taskSupport;
  const accepts = (session.capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } }).tasks?.requests?.tools?.call;
  return (support === 'optional' || support === 'required') && accepts !== undefined;
}

/**
 * Whether a call may take the client's direct path (`HostClient.directCallTool`): the
 * tool is known and asks for nothing only `callTool` does, namely validating structured
 * output against an `outputSchema` or, on 2026-07-28, mirroring arguments into
 * `Mcp-Param-*` headers. Interactive rounds and tasks are ruled out by the caller.
 */
function canCallDirectly(tool: Tool | undefined, era: 'modern' | 'legacy'): boolean {
  if (tool === undefined || tool.outputSchema !== undefined) return false;
  // The catalog's budget walk already looked for the key in every published schema.
  return era === 'legacy' || !mayDeclareHeaders(tool);
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

/** What sending a call needs to know of its caller: the deadline, the caller's signal, and the waiting signal. */
interface CallState {
  deadlineAt: number;
  callerSignal: AbortSignal | undefined;
  waitSignal: () => AbortSignal;
}

/** Sends the call on `session` (steps up scopes, waits for a task) and returns its result. */
async function sendCall(
  context: InvokeContext,
  registration: ServerRegistration,
  session: McpSession,
  target: InvokeTarget,
  args: Record<string, unknown>,
  call: CallState,
  relay: McpServerCallOptions,
): Promise<CallToolResult> {
  const { remoteName } = target;
  const { timeouts } = registration.config;
  const { deadlineAt, callerSignal, waitSignal } = call;
  const started = context.logger === silentLogger ? 0 : performance.now();
  // On 2025 revisions a person answering an elicitation (or a relayed caller answering a
  // server's request) keeps the call open: give it the whole deadline.
  const interactive = (registration.elicitation !== undefined || relay.onServerRequest !== undefined) && session.era === 'legacy';
  const asTask = wantsTask(registration, session, target.tool);
  const direct = !asTask && registration.elicitation === undefined && !relays(relay) && canCallDirectly(target.tool, session.era);
  // Worked out at each send: a resend after a scope step-up has only what is left.
  const send = () => {
    const remaining = Math.floor(deadlineAt - performance.now());
    if (remaining <= 0) return Promise.reject(new DeadlineExceeded());
    if (direct) {
      const request = { name: remoteName, arguments: args };
      const timing = { timeout: Math.min(timeouts.requestMs, remaining), maxTotalTimeout: remaining };
      return session.track(session.client.directCallTool(request, callerSignal === undefined ? timing : { ...timing, signal: callerSignal }));
    }
    return session.track(
      session.client.callTool(
        {
          name: remoteName,
          arguments: args,
          ...(asTask ? { task: { ttl: registration.config.tasks!.maxWaitMs } } : {}),
          ...relayParams(relay),
        },
        {
          // With elicitation on, the SDK hands this signal to the prompts a round opens: it must
          // carry the deadline and the server's removal too. Otherwise the caller's is enough
          // (the deadline travels as maxTotalTimeout) and the common path creates no signal.
          ...(registration.elicitation !== undefined ? { signal: waitSignal() } : callerSignal === undefined ? {} : { signal: callerSignal }),
          timeout: interactive ? remaining : Math.min(timeouts.requestMs, remaining),
          // Server progress resets the per-request timeout, never the logical-call deadline.
          resetTimeoutOnProgress: true,
          maxTotalTimeout: remaining,
          onprogress: relay.onProgress ?? ignoreProgress,
          ...(relay.inputRequired === 'return' ? { allowInputRequired: true } : {}),
          ...(target.tool === undefined ? {} : { toolDefinition: target.tool }),
        },
      ),
    );
  };
  // The server's requests during the call go to its caller while it is in flight (2025 servers push them).
  const release = relay.onServerRequest === undefined ? undefined : session.serverRequests.hold(relay.onServerRequest);
  let result: CallToolResult;
  try {
    result = await withStepUp(registration, send, waitSignal);
  } finally {
    release?.();
  }
  const task = taskHandleOf(result);
  // Counted as work in flight, so a session retired meanwhile stays open for the polls and a cancellation.
  if (task !== undefined) result = await session.track(runTask(registration, session, task, remoteName, { deadlineAt, callerSignal }));
  if (context.logger !== silentLogger) {
    context.logger.debug(
      { serverId: registration.id, method: 'tools/call', tool: remoteName, durationMs: Math.round(performance.now() - started), isError: result.isError === true },
      'MCP tool call finished',
    );
  }
  return result;
}

/**
 * Why a call did not run: its session was retired before it was sent (`gone`), or the
 * server answered 404 for the session (`expired`), which it does before running anything.
 */
type NotRun = 'gone' | 'expired';

/**
 * A call that did not run, and could not be sent on a new session either: `call_not_sent`
 * (see `notSent`), never `server_disconnected`, whose tool may have run.
 */
function notRunFailure(serverId: string, first: NotRun, second: NotRun | undefined, setupError?: string): InvokeFailure {
  const lost = first === 'expired' ? 'no longer knew its session (HTTP 404)' : 'was disconnected before the call started';
  const again =
    setupError !== undefined
      ? 'a new session could not be set up'
      : second === 'expired'
        ? 'forgot the new session too (HTTP 404)'
        : 'the new session was disconnected too before the call started';
  const message = `MCP server "${serverId}" ${lost}, and ${again}, so the call did not run; call the tool again later.`;
  return { code: 'call_not_sent', message: setupError === undefined ? message : `${message} ${setupError}` };
}

/**
 * Calls `target` on `registration`. Resolves with the result, or with a failure to show;
 * rejects only with the caller's abort reason.
 */
export async function invokeTool(
  context: InvokeContext,
  registration: ServerRegistration,
  target: InvokeTarget,
  args: Record<string, unknown>,
  options: McpServerCallOptions = {},
): Promise<InvokeOutcome> {
  const { remoteName } = target;
  const { timeouts } = registration.config;
  const serverId = registration.id;
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
  // Why the call is being sent again, on a new session: its first session was gone before it ran.
  let resent: NotRun | undefined;
  try {
    for (;;) {
      // A new session (after a crash or a disconnect) marks the catalog dirty, so connect first.
      let session = registration.liveSession() ?? (await registration.ensureSession(waitSignal()));
      if (registration.dirty) {
        const [failure] = await refreshServers([registration], context.table, { force: false, signal: waitSignal() });
        // A catalog rejected as a whole leaves the last snapshot published, and usable.
        if (failure !== undefined && !(failure.error instanceof McpCatalogError)) throw failure.error;
        const problem = target.stillValid?.();
        if (problem !== undefined) return { failure: { code: 'catalog_changed', message: problem } };
        session = registration.liveSession() ?? (await registration.ensureSession(waitSignal()));
      }
      const release = registration.gate.tryAcquire(target.shared) ?? (await registration.gate.acquire(target.shared, waitSignal()));
      // Set when the call provably did not run: it goes once more, on a new session.
      let notRun: NotRun | undefined;
      try {
        // The session may have been retired (or the server may have forgotten it) while this call waited its turn.
        if (session.closed || registration.session !== session) {
          notRun = 'gone';
        } else {
          if (deadlineAt - performance.now() < 1) throw new DeadlineExceeded();
          dispatched = true;
          return { result: await sendCall(context, registration, session, target, args, { deadlineAt, callerSignal, waitSignal }, options) };
        }
      } catch (error) {
        if (!isSessionExpired(error, session.transport.sessionId)) throw error;
        // The server lost the session before running the call (its transport expired the session at the 404 already).
        registration.expire(session);
        dispatched = false;
        notRun = 'expired';
      } finally {
        release();
      }
      if (resent !== undefined) return { failure: notRunFailure(serverId, resent, notRun) };
      resent = notRun;
    }
  } catch (error) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    // A new session for a call that did not run could not be set up: it still did not run.
    if (resent !== undefined && !dispatched && error instanceof McpConnectError) {
      return { failure: notRunFailure(serverId, resent, undefined, redactSecrets(errorMessage(error), registration.config)) };
    }
    // What the transport reported (an over-limit message) explains the call it broke, once:
    // an HTTP session outlives it, and later failures on it have causes of their own.
    const session = registration.lastSession;
    const cause = session?.failure ?? error;
    if (session !== undefined) session.failure = undefined;
    return { failure: describeFailure(registration, remoteName, cause, { timedOut: timedOut(), deadlineMs, dispatched }) };
  } finally {
    waiting?.dispose();
  }
}

/**
 * A call that provably never reached the server: `call_not_sent`, which (unlike
 * `server_disconnected`) says the tool did not run and calling it again is safe.
 */
function notSent(serverId: string, what: string): InvokeFailure {
  return { code: 'call_not_sent', message: `MCP server "${serverId}" ${what}, so the tool did not run; call it again.` };
}

/** A failed call in words: what happened, to which tool on which server, and what to do. */
function describeFailure(
  registration: ServerRegistration,
  remoteName: string,
  error: unknown,
  state: { timedOut: boolean; deadlineMs: number; dispatched: boolean },
): InvokeFailure {
  const serverId = registration.id;
  if (registration.removed || error instanceof McpServerRemovedError) {
    return { code: 'server_removed', message: `MCP server "${serverId}" was removed.` };
  }
  if (error instanceof McpAuthorizationRequired || isAuthorizationError(error)) {
    registration.recordFailure(error instanceof McpAuthorizationRequired ? error : new McpAuthorizationRequired(serverId, undefined, error));
    return { code: 'authorization_required', message: `MCP server "${serverId}" requires authorization.` };
  }
  // A supervised server that is down says so itself (the manager restarts it).
  if (error instanceof McpServerUnavailableError) return { code: 'server_unavailable', message: error.message };
  if (state.timedOut) {
    const budget = state.deadlineMs < registration.config.timeouts.callMs ? "the call's timeoutMs" : 'timeouts.callMs';
    return { code: 'timeout', message: `MCP tool "${remoteName}" on server "${serverId}" did not finish within ${state.deadlineMs} ms (${budget}).` };
  }
  if (isTimeoutError(error)) {
    return {
      code: 'timeout',
      message: `MCP tool "${remoteName}" on server "${serverId}" did not answer within ${registration.config.timeouts.requestMs} ms (timeouts.requestMs).`,
    };
  }
  if (error instanceof McpTaskError) return { code: error.code, message: error.message };
  if (error instanceof McpMessageTooLargeError || error instanceof McpResponseTooLargeError) {
    return { code: 'response_too_large', message: `${error.message} The call is not retried.` };
  }
  // Before the request went out (the connection ended while the catalog was listed, say), nothing ran.
  if (!state.dispatched && isDisconnectError(error)) return notSent(serverId, 'disconnected before the call was sent');
  if (state.dispatched && isDisconnectError(error)) {
    return {
      code: 'server_disconnected',
      message:
        `MCP server "${serverId}" disconnected during the call. It was not retried, because the tool may have run; ` +
        'check its effect before calling it again.',
    };
  }
  const message = redactSecrets(errorMessage(error), registration.config);
  return {
    code: 'call_failed',
    message: `MCP tool "${remoteName}" on server "${serverId}" failed: ${message}`,
    // Its message redacted like ours; its code and data as the server sent them.
    ...(isProtocolError(error) ? { serverError: new ProtocolError(error.code, redactSecrets(error.message, registration.config), error.data) } : {}),
  };
}
