/**
 * A message tap on a session's transport: it sees outgoing requests and incoming
 * responses before the SDK dispatches them (handlers pre-set on a transport are chained
 * by the SDK, and patching the instance's `send` keeps the SDK's stdio and probe logic
 * intact, unlike a wrapper object). It rewrites the two `tools/call` answers the SDK
 * cannot take, into results the call path understands:
 *
 * - a task handle (SEP-2663 `resultType: "task"` on 2026-07-28, `{ task }` on
 *   2025-11-25), which the SDK rejects, becomes a result carrying the handle in
 *   `_meta`, for the call path to poll;
 * - an `input_required` round that asks for something this host will not answer
 *   (sampling, roots, or elicitation without the opt-ins) becomes a tool-level error,
 *   before any prompt is opened (the SDK would dispatch the round's requests at once).
 *
 * A call that hands `input_required` back to its caller (a relay, marked with
 * `HAND_BACK_INPUT_KEY` in `_meta`, which the tap takes out) keeps its round whatever it asks.
 *
 * It also moves the `tools` of a `tools/list` answer aside (see `RAW_TOOLS_KEY`), so the
 * SDK validates an empty list and the catalog code shape-checks the tools itself.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { isJsonObject } from '../../core/json.js';
import { type McpElicitationHandler, unsupportedInputMessage, unsupportedInputs } from '../calls/interaction.js';
import { HAND_BACK_INPUT_KEY } from '../calls/relay.js';
import { type EventRouter, STREAM_TOKEN_KEY } from '../context/events/router.js';

/** Where a rewritten task result carries the task handle. */
export const TASK_HANDLE_KEY = 'io.mcp-fleet/task-handle';

/**
 * Where a `tools/list` result carries the server's tools, unvalidated by the SDK. The
 * SDK's result schema re-validates every value of every tool schema as JSON, which for
 * a 2,048-tool catalog holds the event loop for tens of milliseconds while calls wait;
 * the page came out of `JSON.parse`, so it is JSON already. Unknown top-level result
 * keys pass the SDK's loose result schemas by reference, on both eras.
 */
export const RAW_TOOLS_KEY = 'io.mcp-fleet/raw-tools';

/** A task the server created instead of answering a `tools/call`. */
export interface TaskHandle {
  era: 'modern' | 'legacy';
  taskId: string;
  status: string;
  /** The server's suggested poll interval, in milliseconds. */
  pollIntervalMs: number | undefined;
}

export interface TapPolicy {
  serverId: string;
  /** The era the session negotiated (`undefined` while negotiating). */
  era: () => 'modern' | 'legacy' | undefined;
  /** The elicitation handler, only when the server and the application both opted in. */
  elicitation: McpElicitationHandler | undefined;
  /** Where MCP Events notifications go, in arrival order. */
  events?: EventRouter;
}

/** Most outgoing request ids remembered while their answers are pending. */
const MAX_PENDING = 4096;

type Message = Record<string, unknown>;


/** An `events/stream` request with its stream token taken out of `_meta` and bound to the request id. */
function bindStream(request: Message, router: EventRouter): Message {
  const params = isJsonObject(request.params) ? request.params : {};
  const meta = isJsonObject(params._meta) ? params._meta : {};
  const token = meta[STREAM_TOKEN_KEY];
  if (typeof token !== 'string' || (typeof request.id !== 'string' && typeof request.id !== 'number')) return request;
  router.bind(token, request.id);
  const { [STREAM_TOKEN_KEY]: _token, ...rest } = meta;
  return { ...request, params: { ...params, _meta: rest } };
}

/** A request with the hand-back marker taken out of `_meta`, and whether it had it. */
function unmarked(request: Message): { request: Message; handBack: boolean } {
  const params = request.params;
  if (!isJsonObject(params) || !isJsonObject(params._meta) || !(HAND_BACK_INPUT_KEY in params._meta)) return { request, handBack: false };
  const { [HAND_BACK_INPUT_KEY]: _marker, ...meta } = params._meta;
  return { request: { ...request, params: { ...params, _meta: meta } }, handBack: true };
}

/** The task handle of a `tools/call` result, if it is one. */
function taskOf(result: Message): TaskHandle | undefined {
  if (result.resultType === 'task' && typeof result.taskId === 'string') {
    const interval = Number(result.pollIntervalMs);
    return { era: 'modern', taskId: result.taskId, status: typeof result.status === 'string' ? result.status : 'working', pollIntervalMs: Number.isFinite(interval) ? interval : undefined };
  }
  const task = result.task;
  if (isJsonObject(task) && typeof task.taskId === 'string' && !('content' in result)) {
    const interval = Number(task.pollInterval);
    return { era: 'legacy', taskId: task.taskId, status: typeof task.status === 'string' ? task.status : 'working', pollIntervalMs: Number.isFinite(interval) ? interval : undefined };
  }
  return undefined;
}

/** The task handle a rewritten result carries, if any. */
export function taskHandleOf(result: { _meta?: Record<string, unknown> | undefined }): TaskHandle | undefined {
  const handle = result._meta?.[TASK_HANDLE_KEY];
  return isJsonObject(handle) ? (handle as unknown as TaskHandle) : undefined;
}

/** Installs the tap; call before the SDK client connects the transport. */
export function installTap(transport: Transport, policy: TapPolicy): void {
  /**
   * Outgoing `tools/list` and `tools/call` ids → the method and, for a call, the tool: the
   * answers the tap rewrites. Nothing else is kept, so an answer that never comes back
   * through here (the SDK's stdio probe reads `server/discover`'s itself) leaves nothing behind.
   */
  const methods = new Map<string | number, { method: string; tool?: string; handBack?: true }>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    let request = message as Message;
    if (request.method === 'events/stream' && policy.events !== undefined) request = bindStream(request, policy.events);
    const marked = unmarked(request);
    request = marked.request;
    const handBack = marked.handBack;
    if ((request.method === 'tools/call' || request.method === 'tools/list') && (typeof request.id === 'string' || typeof request.id === 'number')) {
      if (methods.size >= MAX_PENDING) methods.delete(methods.keys().next().value!);
      const name = isJsonObject(request.params) && typeof request.params.name === 'string' ? request.params.name : undefined;
      methods.set(request.id, { method: request.method, ...(name === undefined ? {} : { tool: name }), ...(handBack ? { handBack } : {}) });
    }
    return send(request as JSONRPCMessage, options);
  };
  transport.onmessage = (message: JSONRPCMessage) => {
    const response = message as Message;
    if (typeof response.method === 'string' && response.method.startsWith('notifications/events/') && !('id' in response)) {
      policy.events?.route(response.method, response.params);
      return;
    }
    const id = response.id;
    if ((typeof id !== 'string' && typeof id !== 'number') || !('result' in response || 'error' in response)) return;
    const sent = methods.get(id);
    methods.delete(id);
    if (sent?.method === 'tools/list' && isJsonObject(response.result) && Array.isArray(response.result.tools)) {
      response.result[RAW_TOOLS_KEY] = response.result.tools;
      response.result.tools = [];
      return;
    }
    if (sent?.method !== 'tools/call' || !isJsonObject(response.result)) return;
    const result = response.result;
    const modern = policy.era() === 'modern' || 'resultType' in result;
    // SEP-2322: a 2026-07-28 result without `resultType` is complete (the SDK would reject it).
    if (modern && !('resultType' in result)) result.resultType = 'complete';
    const task = taskOf(result);
    if (task !== undefined) {
      response.result = { ...(modern ? { resultType: 'complete' } : {}), content: [], isError: true, _meta: { [TASK_HANDLE_KEY]: task } };
      return;
    }
    if (result.resultType === 'input_required' && isJsonObject(result.inputRequests) && sent.handBack !== true) {
      const unsupported = unsupportedInputs(result.inputRequests, policy.elicitation);
      if (unsupported.length === 0) return;
      const text = unsupportedInputMessage(policy.serverId, sent.tool ?? 'unknown', unsupported);
      response.result = { resultType: 'complete', content: [{ type: 'text', text }], isError: true };
    }
  };
}

/**
 * Makes the SDK handle each response after the notifications that came before it. The SDK
 * runs notification handlers a microtask late but settles a response at once, so a
 * server's last progress notification, sent just before its result, reached a caller
 * after its call had ended (and was dropped). Responses now take the same microtask
 * turn, which keeps the order the server sent. Install once the client is connected (the
 * SDK has then chained its own handler onto the tap's).
 */
export function keepResponsesInOrder(transport: Transport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message, extra) => {
    const response = message as Message;
    if ('id' in response && !('method' in response)) void Promise.resolve().then(() => deliver(message, extra));
    else deliver(message, extra);
  };
}
