/**
 * The Streamable HTTP transport of a server: the SDK's transport, with our bounded,
 * redirect-refusing fetch, the configured headers, and a static bearer token or the
 * server's OAuth authorizer.
 */
import { type AuthProvider, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { McpServerAuthorizer } from '../auth/authorizer.js';
import type { ResolvedHttpTransport } from '../config.js';
import { boundedFetch } from './bounded-fetch.js';

export interface HttpTransportOptions {
  serverId: string;
  transport: ResolvedHttpTransport;
  messageBytes: number;
  /** The server's OAuth authorizer, when it uses OAuth. */
  authorizer?: McpServerAuthorizer;
  /** The underlying fetch (tests and custom agents). Default: the global `fetch`. */
  fetch?: FetchLike;
}

export function createHttpTransport(options: HttpTransportOptions): StreamableHTTPClientTransport {
  const { transport, authorizer } = options;
  const token = transport.bearerToken;
  let fetch = boundedFetch({ serverId: options.serverId, messageBytes: options.messageBytes, fetch: options.fetch });
  let authProvider: AuthProvider | undefined;
  if (authorizer !== undefined) {
    fetch = authorizer.tapFetch(fetch);
    authProvider = authorizer.authProvider();
  } else if (token !== undefined) {
    authProvider = { token: () => Promise.resolve(token) };
  }
  return new StreamableHTTPClientTransport(new URL(transport.url), {
    fetch,
    // Redirects reach our fetch, which refuses every one of them (the SDK would follow same-origin ones).
    redirectPolicy: 'follow',
    requestInit: { headers: { ...transport.headers } },
    ...(authProvider === undefined ? {} : { authProvider }),
  });
}
