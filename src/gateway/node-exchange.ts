/**
 * What the gateway's HTTP listener hands an MCP endpoint that serves Node's request and
 * response objects itself (instead of a web `Request` built for it): the body already read
 * within the bound and parsed once, so no leg reads or parses it again.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';

/** A request's body: its JSON value, or none (a body-less method, an empty body, or text that is not JSON). */
export type McpRequestBody = { json: true; value: unknown } | { json: false };

export const NO_JSON_BODY: McpRequestBody = { json: false };

/** An MCP handler with a Node face; `listenHttp` prefers it over the web one. */
export interface NodeMcpHandler {
  serveNode(request: IncomingMessage, response: ServerResponse, body: McpRequestBody, authInfo: AuthInfo | undefined): Promise<void>;
}

export function hasNodeFace(handler: object): handler is NodeMcpHandler {
  return typeof (handler as Partial<NodeMcpHandler>).serveNode === 'function';
}

/** The body's text as the listener read it, parsed once. */
export function parseRequestBody(text: string): McpRequestBody {
  if (text === '') return NO_JSON_BODY;
  try {
    return { json: true, value: JSON.parse(text) as unknown };
  } catch {
    return NO_JSON_BODY;
  }
}

/** One header's value as a web `Headers.get` gives it: any case of name, repeated values joined with `, `. */
export function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Writes one JSON answer with a declared length, so that headers and body leave in one write, without chunk framing. */
export function writeJson(response: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

/** Writes a JSON-RPC error without an id, as the SDK's Streamable HTTP transports refuse a request. */
export function refuseJsonRpc(response: ServerResponse, status: number, code: number, message: string, options: { data?: unknown; headers?: Record<string, string> } = {}): void {
  const error = options.data === undefined ? { code, message } : { code, message, data: options.data };
  writeJson(response, status, { jsonrpc: '2.0', error, id: null }, options.headers);
}
