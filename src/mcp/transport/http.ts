/**
 * The Streamable HTTP transport of a server: the SDK's transport, with our bounded,
 * redirect-refusing fetch and the configured headers and bearer token.
 */
import { type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ResolvedHttpTransport } from '../config.js';
import { boundedFetch } from './bounded-fetch.js';

export interface HttpTransportOptions {
  serverId: string;
  transport: ResolvedHttpTransport;
  messageBytes: number;
  /** The underlying fetch (tests and custom agents). Default: the global `fetch`. */
  fetch?: FetchLike;
}

export function createHttpTransport(options: HttpTransportOptions): StreamableHTTPClientTransport {
  const { transport } = options;
  const token = transport.bearerToken;
  return new StreamableHTTPClientTransport(new URL(transport.url), {
    fetch: boundedFetch({ serverId: options.serverId, messageBytes: options.messageBytes, fetch: options.fetch }),
    // Redirects reach our fetch, which refuses every one of them (the SDK would follow same-origin ones).
    redirectPolicy: 'follow',
    requestInit: { headers: { ...transport.headers } },
    ...(token === undefined ? {} : { authProvider: { token: () => Promise.resolve(token) } }),
  });
}
