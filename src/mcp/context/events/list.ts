/**
 * `events/list`: the event types a server publishes, within the server's budgets. The
 * SDK drops `capabilities.events`, and servers advertise the extension in more than one
 * way, so support is found by asking: a server that does not know the method (or does
 * not answer the first page within 10 s) has no events, and the answer is `null`.
 */
import { jsonBytes, utf8Bytes } from '../../../core/budget.js';
import { isJsonObject } from '../../../core/json.js';
import { ANY_RESULT } from './wire.js';
import { isTimeoutError } from '../../session/errors-sdk.js';
import type { ServerRegistration } from '../../registration.js';
import { isMethodNotFound, type McpRequestOptions, onSession } from '../server-operations.js';
import { McpEventError, serverRedact, toEventError } from './errors.js';
import type { McpEventDeliveryMode, McpEventType } from './types.js';

/** How long the first page may take before the server is taken not to know the extension. */
export const EVENTS_PROBE_MS = 10_000;
/** Longest event type name, event id or subscription id, in UTF-8 bytes. */
export const MAX_EVENT_NAME_BYTES = 1024;
const MODES = new Set<McpEventDeliveryMode>(['poll', 'push', 'webhook']);

/** One listed type, or why it is skipped. */
function eventType(registration: ServerRegistration, raw: unknown): McpEventType | string {
  if (!isJsonObject(raw) || typeof raw.name !== 'string') return 'an event type without a string "name"';
  const { name } = raw;
  const { limits } = registration.config;
  const bytes = utf8Bytes(name);
  if (bytes === 0 || bytes > MAX_EVENT_NAME_BYTES) return `an event type whose name is ${bytes} bytes (1 to ${MAX_EVENT_NAME_BYTES})`;
  if (raw.description !== undefined && (typeof raw.description !== 'string' || utf8Bytes(raw.description) > limits.descriptionBytes)) {
    return `event type "${name}": its description is over ${limits.descriptionBytes} bytes (limits.descriptionBytes)`;
  }
  for (const field of ['inputSchema', 'payloadSchema', '_meta'] as const) {
    const value = raw[field];
    if (value === undefined) continue;
    if (!isJsonObject(value)) return `event type "${name}": "${field}" is not an object`;
    if (jsonBytes(value) > limits.schemaBytes) return `event type "${name}": "${field}" is over ${limits.schemaBytes} bytes (limits.schemaBytes)`;
  }
  const delivery = Array.isArray(raw.delivery) ? [...new Set(raw.delivery.filter((mode): mode is McpEventDeliveryMode => MODES.has(mode as McpEventDeliveryMode)))] : [];
  return {
    name,
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
    delivery,
    inputSchema: (raw.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object' },
    ...(raw.payloadSchema === undefined ? {} : { payloadSchema: raw.payloadSchema as Record<string, unknown> }),
    ...(raw._meta === undefined ? {} : { _meta: raw._meta as Record<string, unknown> }),
  };
}

/** The server's event types, or `null` when it does not implement MCP Events. */
export async function listEvents(registration: ServerRegistration, options: McpRequestOptions): Promise<McpEventType[] | null> {
  const { id, limits, timeouts } = registration.config;
  try {
    return await onSession(registration, 'events/list', timeouts.setupMs + timeouts.listMs, options, async (session, signal) => {
      const types: McpEventType[] = [];
      const seen = new Set<string>();
      let cursor: string | undefined;
      for (let page = 1; page <= limits.catalogPages; page++) {
        let result: Record<string, unknown>;
        try {
          const timeout = page === 1 ? Math.min(EVENTS_PROBE_MS, timeouts.requestMs) : timeouts.requestMs;
          result = await session.client.request({ method: 'events/list', params: cursor === undefined ? {} : { cursor } }, ANY_RESULT, { signal, timeout });
        } catch (error) {
          if (page === 1 && (isMethodNotFound(error) || isTimeoutError(error))) return null;
          throw error;
        }
        const listed = Array.isArray(result.events) ? (result.events as unknown[]) : [];
        if (types.length + listed.length > limits.catalogItems) {
          throw new McpEventError(id, 'resource_exhausted', `MCP server "${id}" lists more than ${limits.catalogItems} event types (limits.catalogItems).`);
        }
        for (const raw of listed) {
          const type = eventType(registration, raw);
          if (typeof type === 'string') registration.logger.warn({ serverId: id }, `MCP server "${id}": skipped ${type}.`);
          else types.push(type);
        }
        const next = result.nextCursor;
        if (typeof next !== 'string') return types;
        if (utf8Bytes(next) > limits.cursorBytes || seen.has(next)) {
          throw new McpEventError(id, 'other', `MCP server "${id}" sent an oversized or repeated events/list cursor.`);
        }
        seen.add(next);
        cursor = next;
      }
      throw new McpEventError(id, 'resource_exhausted', `MCP server "${id}" has more than ${limits.catalogPages} pages of events/list (limits.catalogPages).`);
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw toEventError(id, 'events/list', error, serverRedact(registration.config));
  }
}
