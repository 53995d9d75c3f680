/**
 * SEP-2243 on the serving side: a 2026-07-28 client mirrors each argument a tool declares
 * with `x-mcp-header` into an `Mcp-Param-<Name>` header, so that proxies can route on it;
 * the server must refuse a call whose headers and arguments disagree (-32020, HTTP 400),
 * or an intermediary could be shown one value while the tool runs with another. The check
 * runs before the request is dispatched, because only then can the answer's HTTP status
 * still be 400 (the SDK's handler answers every JSON-RPC error with 200 or on a stream).
 */
import type { JSONRPCErrorResponse } from '@modelcontextprotocol/server';
import { xMcpHeaderDeclarations, type XMcpHeaderDeclaration } from '../mcp/catalog/x-mcp-header.js';
import type { GatewayView } from './view.js';

/** SEP-2243's HeaderMismatch error code. */
export const HEADER_MISMATCH = -32020;

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

const declarationsOf = new WeakMap<object, XMcpHeaderDeclaration[]>();

/** A header's value as the client meant it (a Base64 sentinel decoded as UTF-8); `undefined` when the sentinel's payload is not canonical. */
function decoded(value: string): string | undefined {
  if (!value.startsWith(SENTINEL_PREFIX) || !value.endsWith(SENTINEL_SUFFIX)) return value;
  const payload = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(payload)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64'));
  } catch {
    return undefined;
  }
}

/** An argument as its header carries it; `undefined` for a value no header is sent for. */
function asHeaderText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value);
  return undefined;
}

function argumentAt(args: Record<string, unknown>, path: string[]): unknown {
  let node: unknown = args;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Why a call's `Mcp-Param-*` headers disagree with its arguments, or `undefined` when they agree. */
export function paramHeaderMismatch(inputSchema: object, args: Record<string, unknown>, headerOf: (name: string) => string | undefined): { header: string; message: string } | undefined {
  let declarations = declarationsOf.get(inputSchema);
  if (declarations === undefined) declarationsOf.set(inputSchema, (declarations = xMcpHeaderDeclarations(inputSchema)));
  for (const declaration of declarations) {
    const header = `Mcp-Param-${declaration.header}`;
    const value = argumentAt(args, declaration.path);
    const expected = value === undefined || value === null ? undefined : asHeaderText(value);
    if (expected === undefined) continue;
    const where = declaration.path.join('.');
    const sent = headerOf(header);
    if (sent === undefined) return { header, message: `the arguments carry ${where} but the ${header} header is missing` };
    const text = decoded(sent);
    if (text === undefined) return { header, message: `the ${header} header carries an invalid Base64 value` };
    const numeric = declaration.type === 'integer' && typeof value === 'number' && DECIMAL.test(text);
    if (numeric ? Number(text) !== value : text !== expected) return { header, message: `the ${header} header says ${JSON.stringify(text)} but the arguments carry ${where}=${JSON.stringify(value)}` };
  }
  return undefined;
}

/**
 * The refusal of a 2026-07-28 `tools/call` (a lone request, as that era sends them) whose
 * `Mcp-Param-*` headers disagree with its arguments for the tool `view` routes it to; HTTP
 * 400 carries it. `undefined` for anything else: another method, a tool the view does not
 * have (the handler answers that), a discovery helper (its arguments are not the tool's).
 */
export function paramHeaderRefusal(view: GatewayView, body: unknown, headerOf: (name: string) => string | undefined): JSONRPCErrorResponse | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, id, params } = body as { method?: unknown; id?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (method !== 'tools/call' || (typeof id !== 'string' && typeof id !== 'number') || typeof params?.name !== 'string') return undefined;
  const route = view.toolRoute(params.name);
  const args = params.arguments ?? {};
  if (route === undefined || typeof args !== 'object' || args === null) return undefined;
  const mismatch = paramHeaderMismatch(route.tool.inputSchema, args as Record<string, unknown>, headerOf);
  if (mismatch === undefined) return undefined;
  return {
    jsonrpc: '2.0',
    id,
    error: { code: HEADER_MISMATCH, message: `Bad Request: the request headers and body disagree: ${mismatch.message}`, data: { mismatch: { header: mismatch.header, body: mismatch.message } } },
  };
}
