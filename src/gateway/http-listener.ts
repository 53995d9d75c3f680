/**
 * The gateway's HTTP listener: everything checked on a request's headers before its
 * body is read (Host and Origin against DNS rebinding, the declared length, the route
 * and its credentials), then the body, read within the same bound whether its length is
 * declared or not, and the MCP exchange. A handler with a Node face (`McpEndpoint`) is
 * handed Node's objects and the parsed body; any other goes through the SDK's Node adapter.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler, type FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import { validateHostHeader, validateOriginHeader, type AuthInfo } from '@modelcontextprotocol/server';
import { errorMessage } from '../mcp/errors.js';
import { jsonRpcErrorBody } from './http-answers.js';
import { hasNodeFace, parseRequestBody, NO_JSON_BODY } from './node-exchange.js';

/** What a route answers: an MCP exchange, or a response the gateway writes itself. */
export type HttpRouteResult =
  | { kind: 'mcp'; handler: FetchLikeMcpHandler; authInfo?: AuthInfo }
  | { kind: 'response'; status: number; body: string; headers?: Record<string, string> };

export interface HttpListenerOptions {
  host: string;
  port: number;
  /** Hostnames (no port) a `Host` header may name; IPv6 in brackets. */
  allowedHostnames: string[];
  /** Hostnames an `Origin` header may name; a request without `Origin` passes. */
  allowedOriginHostnames: string[];
  /** Largest request body, in bytes. */
  maxRequestBodyBytes: number;
  route(request: IncomingMessage, url: URL): HttpRouteResult | Promise<HttpRouteResult>;
  onerror?: (error: Error) => void;
}

export interface HttpListener {
  /** `http://host:port` as bound (the port filled in when 0 was asked for). */
  origin: string;
  server: HttpServer;
  /** Stops accepting, ends every open connection, resolves once the server is closed. */
  close(): Promise<void>;
}

export async function listenHttp(options: HttpListenerOptions): Promise<HttpListener> {
  const adapters = new WeakMap<FetchLikeMcpHandler, ReturnType<typeof toNodeHandler>>();
  const adapter = (handler: FetchLikeMcpHandler): ReturnType<typeof toNodeHandler> => {
    let node = adapters.get(handler);
    if (node === undefined) {
      node = toNodeHandler(handler, { maxRequestBodySize: options.maxRequestBodyBytes, ...(options.onerror ? { onerror: options.onerror } : {}) });
      adapters.set(handler, node);
    }
    return node;
  };
  const server = createServer((request, response) => {
    void serve(request, response).catch((error: unknown) => {
      options.onerror?.(error instanceof Error ? error : new Error(errorMessage(error)));
      if (!response.headersSent) refuse(response, 500, -32603, 'internal error');
      else response.destroy();
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const host = validateHostHeader(request.headers.host, options.allowedHostnames);
    if (!host.ok) return refuse(response, 403, -32000, `Forbidden: ${host.message}`);
    const origin = validateOriginHeader(request.headers.origin, options.allowedOriginHostnames);
    if (!origin.ok) return refuse(response, 403, -32000, `Forbidden: ${origin.message}`);
    const declared = Number(request.headers['content-length'] ?? 0);
    if (Number.isFinite(declared) && declared > options.maxRequestBodyBytes) {
      // Answered from the headers alone; the body is never kept.
      return refuseUnreadBody(request, response, `Payload Too Large: the body is ${declared} bytes, the limit ${options.maxRequestBodyBytes}`);
    }
    const url = new URL(request.url ?? '/', 'http://gateway.invalid');
    const routed = await options.route(request, url);
    if (routed.kind === 'response') {
      response.writeHead(routed.status, { 'content-type': 'application/json', ...routed.headers });
      response.end(routed.body);
      return;
    }
    if (hasNodeFace(routed.handler)) {
      // Only a POST's body means anything to MCP; another method's is left for Node to drop.
      if (request.method !== 'POST') return routed.handler.serveNode(request, response, NO_JSON_BODY, routed.authInfo);
      const text = await readBounded(request, options.maxRequestBodyBytes);
      if (text === undefined) return refuseUnreadBody(request, response, `Payload Too Large: the body passed the limit of ${options.maxRequestBodyBytes} bytes`);
      return routed.handler.serveNode(request, response, parseRequestBody(text), routed.authInfo);
    }
    if (routed.authInfo !== undefined) Object.assign(request, { auth: routed.authInfo });
    if (request.headers['content-length'] !== undefined || request.method === 'GET' || request.method === 'DELETE') {
      // A declared length within the bound: the adapter reads the body, which cannot pass it.
      return adapter(routed.handler)(request, response);
    }
    // A chunked body is read here, so that one passing the bound is refused as a declared one is.
    const body = await readBounded(request, options.maxRequestBodyBytes);
    if (body === undefined) return refuseUnreadBody(request, response, `Payload Too Large: the body passed the limit of ${options.maxRequestBodyBytes} bytes`);
    if (body === '') return adapter(routed.handler)(request, response);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return refuse(response, 400, -32700, 'Parse error: Invalid JSON');
    }
    await adapter(routed.handler)(request, response, parsed);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    origin: `http://${hostPart}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function refuse(response: ServerResponse, status: number, code: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(jsonRpcErrorBody(code, message));
}

/**
 * Refuses a request whose body is too large, without reading it into memory. Closing the
 * connection with the body unread sends a reset that can reach the client before it reads
 * the answer (it then sees only a broken pipe), and Node closes so on `connection: close`.
 * So the rest of the body is read and dropped, for at most a second, then the connection
 * is closed.
 */
function refuseUnreadBody(request: IncomingMessage, response: ServerResponse, message: string): void {
  const socket = response.socket;
  refuse(response, 413, -32000, message);
  request.resume();
  if (socket !== null) setTimeout(() => socket.destroy(), UNREAD_BODY_LINGER_MS).unref();
}

/** The body as text, or `undefined` once it passes `limit` bytes (reading stops there: the rest is not kept). */
function readBounded(request: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) {
        request.off('data', onData).off('end', onEnd).off('error', reject);
        request.pause();
        chunks.length = 0;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => resolve(Buffer.concat(chunks).toString('utf8'));
    request.on('data', onData).once('end', onEnd).once('error', reject);
  });
}

/** How long the rest of a refused body is read and dropped before its connection is closed. */
const UNREAD_BODY_LINGER_MS = 1_000;
