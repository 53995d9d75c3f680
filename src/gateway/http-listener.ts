/**
 * The gateway's HTTP listener: everything checked on a request's headers before its
 * body is read (Host and Origin against DNS rebinding, the declared length, the route
 * and its credentials), then the MCP exchange through the SDK's Node adapter, which
 * reads the body under the same bound and streams the answer back.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler, type FetchLikeMcpHandler } from '@modelcontextprotocol/node';
import { validateHostHeader, validateOriginHeader, type AuthInfo } from '@modelcontextprotocol/server';
import { errorMessage } from '../mcp/errors.js';
import { jsonRpcErrorBody } from './http-answers.js';

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
      // Answered from the headers alone; the connection is closed so the body is never read.
      return refuse(response, 413, -32000, `Payload Too Large: the body is ${declared} bytes, the limit ${options.maxRequestBodyBytes}`, true);
    }
    const url = new URL(request.url ?? '/', 'http://gateway.invalid');
    const routed = await options.route(request, url);
    if (routed.kind === 'response') {
      response.writeHead(routed.status, { 'content-type': 'application/json', ...routed.headers });
      response.end(routed.body);
      return;
    }
    if (routed.authInfo !== undefined) Object.assign(request, { auth: routed.authInfo });
    await adapter(routed.handler)(request, response);
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

function refuse(response: ServerResponse, status: number, code: number, message: string, closeConnection = false): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (closeConnection) headers.connection = 'close';
  response.writeHead(status, headers);
  response.end(jsonRpcErrorBody(code, message), () => {
    if (closeConnection) response.socket?.destroy();
  });
}
