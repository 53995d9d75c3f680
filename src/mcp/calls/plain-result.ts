/**
 * The common `tools/call` result, recognised without the SDK's schemas: text blocks, an
 * optional `isError`, and at most the server's own name in `_meta`. Such a result is
 * one the SDK's era codec accepts on both eras and returns unchanged (less the wire-only
 * `resultType`); `test/plain-result.test.ts` holds the two to that, on generated results
 * on both sides of the line. Anything else, however small the difference, is left to the
 * codec: `undefined` here never means invalid, only "ask the SDK".
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/client';
import { isPlainObject, isPlainServerInfo, keyCount } from '../transport/plain-message.js';

/** `{ type: 'text', text }` and nothing else. */
function isPlainText(block: unknown): boolean {
  return isPlainObject(block) && block.type === 'text' && typeof block.text === 'string' && keyCount(block) === 2;
}

function isPlainMeta(meta: unknown): boolean {
  if (!isPlainObject(meta)) return false;
  for (const key in meta) {
    if (key !== SERVER_INFO_META_KEY || !isPlainServerInfo(meta[key])) return false;
  }
  return true;
}

/**
 * The result, as the SDK would return it, when `raw` is plain; otherwise `undefined`.
 * `modern`: the session speaks 2026-07-28, whose results must say `resultType`.
 */
export function plainCallResult(raw: unknown, modern: boolean): CallToolResult | undefined {
  if (!isPlainObject(raw)) return undefined;
  let content: unknown[] | undefined;
  for (const key in raw) {
    const value = raw[key];
    switch (key) {
      case 'content':
        if (!Array.isArray(value) || !value.every(isPlainText)) return undefined;
        content = value;
        break;
      case 'isError':
        if (typeof value !== 'boolean') return undefined;
        break;
      case 'resultType':
        if (value !== 'complete') return undefined;
        break;
      case '_meta':
        if (!isPlainMeta(value)) return undefined;
        break;
      default:
        return undefined;
    }
  }
  if (content === undefined || (modern && raw.resultType !== 'complete')) return undefined;
  const result: CallToolResult = { content: content as CallToolResult['content'] };
  if (raw.isError !== undefined) result.isError = raw.isError as boolean;
  if (raw._meta !== undefined) result._meta = raw._meta as CallToolResult['_meta'];
  return result;
}
