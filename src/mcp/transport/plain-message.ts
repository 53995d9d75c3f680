/**
 * The message a client receives most, a result response, recognised without the SDK's
 * JSON-RPC schema. That schema is a union tried in order (request, notification,
 * result, error), so every response first fails two branches, building their issues,
 * before it matches. A response of exactly `jsonrpc`, `id` and an object `result`, whose
 * `_meta` (if any) names the server plainly, is one the schema passes unchanged;
 * anything else is left to `parseJSONRPCMessage` (`test/plain-result.test.ts` holds the
 * two to that).
 */
import { type JSONRPCMessage, SERVER_INFO_META_KEY } from '@modelcontextprotocol/client';

/** An object straight from `JSON.parse`: not an array, not a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** How many keys `value` has, without building an array of them. */
export function keyCount(value: object): number {
  let keys = 0;
  for (const _key in value) keys++;
  return keys;
}

/** Exactly `{ name, version }`, both strings. */
export function isPlainServerInfo(value: unknown): boolean {
  return isPlainObject(value) && typeof value.name === 'string' && typeof value.version === 'string' && keyCount(value) === 2;
}

/** `value` itself when it is a plain result response, otherwise `undefined`. */
export function plainResultResponse(value: unknown): JSONRPCMessage | undefined {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0' || !isPlainObject(value.result)) return undefined;
  const id = value.id;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id))) return undefined;
  if (keyCount(value) !== 3) return undefined;
  const meta = value.result._meta;
  if (meta !== undefined && !(isPlainObject(meta) && (!(SERVER_INFO_META_KEY in meta) || isPlainServerInfo(meta[SERVER_INFO_META_KEY])))) return undefined;
  return value as JSONRPCMessage;
}
