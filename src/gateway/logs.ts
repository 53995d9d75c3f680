/**
 * Servers' log messages through the gateway: tagged with the server id, and asked for
 * at the level the caller wants (on 2026-07-28 per request in `_meta`; a 2025 session
 * hears everything until it calls `logging/setLevel`).
 */
import { LOG_LEVEL_META_KEY, type LoggingLevel, type ServerContext } from '@modelcontextprotocol/server';
import { isModernRequest, requestMeta } from './relay-context.js';

const LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** A server's `notifications/message` params as the gateway sends them on: the logger names the server. */
export function relayedLog(serverId: string, params: Record<string, unknown>): { level: LoggingLevel; logger: string; data: unknown } {
  const level = typeof params.level === 'string' && LEVELS.has(params.level) ? (params.level as LoggingLevel) : 'info';
  const logger = typeof params.logger === 'string' && params.logger !== '' ? `${serverId}/${params.logger}` : serverId;
  return { level, logger, data: params.data };
}

/** The log level to ask a server for on behalf of this caller, or `undefined` for none. */
export function callerLogLevel(ctx: ServerContext, sessionLevel: LoggingLevel | undefined): string | undefined {
  if (isModernRequest(ctx)) return requestMeta(ctx)[LOG_LEVEL_META_KEY] as string | undefined;
  return sessionLevel ?? 'debug';
}

