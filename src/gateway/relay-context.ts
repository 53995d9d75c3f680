/**
 * What the gateway passes along with a request it relays to a server: the caller's
 * client capabilities and log level (on 2026-07-28 a server reads them from `_meta` of
 * each request), its progress token, and the answers of a resumed `input_required`
 * round. And what comes back that is the gateway's to frame, not the server's.
 */
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY, SERVER_INFO_META_KEY, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { McpProgressUpdate, McpRelayOptions } from '../mcp/calls/relay.js';

/**
 * A request's `_meta` as its client sent it: the SDK lifts the reserved 2026-07-28 keys
 * (protocol version, client info and capabilities, log level) out into `envelope`.
 */
export function requestMeta(ctx: ServerContext): Record<string, unknown> {
  return { ...ctx.mcpReq._meta, ...(ctx.mcpReq.envelope as Record<string, unknown> | undefined) };
}

/** Whether a request came from a 2026-07-28 client (it carries its protocol version in `_meta`). */
export function isModernRequest(ctx: ServerContext): boolean {
  return requestMeta(ctx)[PROTOCOL_VERSION_META_KEY] !== undefined;
}

/** The client capabilities of the caller, in either era. */
export function callerCapabilities(server: Server, ctx: ServerContext): Record<string, unknown> {
  // On 2026-07-28 every request carries them in `_meta`; a 2025 session declared them at `initialize`.
  const declared = requestMeta(ctx)[CLIENT_CAPABILITIES_META_KEY];
  return (declared ?? server.getClientCapabilities() ?? {}) as Record<string, unknown>;
}

/**
 * The relay options of a request: progress re-tagged with the caller's own token,
 * `input_required` handed back to the caller, a resumed round's answers and state as
 * the caller sent them (the server that signed the state checks it).
 */
export function relayOptions(server: Server, ctx: ServerContext, level: string | undefined): McpRelayOptions {
  const meta = ctx.mcpReq._meta;
  const progressToken = meta?.progressToken;
  const state = ctx.mcpReq.requestState<unknown>();
  const inputResponses = ctx.mcpReq.inputResponses;
  return {
    inputRequired: 'return',
    meta: { [CLIENT_CAPABILITIES_META_KEY]: callerCapabilities(server, ctx), ...(level === undefined ? {} : { [LOG_LEVEL_META_KEY]: level }) },
    ...(progressToken === undefined
      ? {}
      : {
          onProgress: (update: McpProgressUpdate) =>
            void ctx.mcpReq.notify({ method: 'notifications/progress', params: { ...update, progressToken } }).catch(() => {}),
        }),
    ...(inputResponses === undefined && typeof state !== 'string'
      ? {}
      : { resume: { ...(inputResponses === undefined ? {} : { inputResponses }), ...(typeof state === 'string' ? { requestState: state } : {}) } }),
  };
}

/**
 * A server's result, less what the gateway frames itself: the result type (the SDK
 * writes it for the caller's era) and the caching hints (what the gateway serves is not
 * the server's to promise: it may change with the fleet).
 */
export function framed<T extends object>(result: T): T {
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, ...rest } = result as T & { resultType?: unknown; ttlMs?: unknown; cacheScope?: unknown };
  const meta = (rest as { _meta?: Record<string, unknown> })._meta;
  if (meta === undefined || !(SERVER_INFO_META_KEY in meta)) return rest as T;
  // The client's server is the gateway, which says so itself: the upstream's identity is not passed on.
  const { [SERVER_INFO_META_KEY]: _server, ...others } = meta;
  const { _meta: _dropped, ...body } = rest as { _meta?: unknown };
  return (Object.keys(others).length === 0 ? body : { ...body, _meta: others }) as T;
}

/** Whether a server's answer is an `input_required` round for the caller. */
export function isInputRequired(result: object): boolean {
  return (result as { resultType?: unknown }).resultType === 'input_required';
}
