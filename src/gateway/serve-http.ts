/**
 * The gateway on a port: its MCP endpoint at one path, `/healthz` and `/readyz`, Host and
 * Origin checked on every request, and a bearer token required when it is configured
 * (always, off loopback). Health answers carry states, never configuration or secrets.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { localhostAllowedHostnames, localhostAllowedOrigins } from '@modelcontextprotocol/server';
import { McpConfigError } from '../mcp/errors.js';
import { ENDPOINT_DEFAULTS, type McpEndpoint, type McpEndpointOptions } from './endpoint.js';
import type { McpGateway } from './gateway.js';
import { jsonRpcErrorBody } from './http-answers.js';
import { type HttpListener, type HttpRouteResult, listenHttp } from './http-listener.js';
import { checkOAuthOptions, GatewayResourceServer, type McpGatewayOAuthOptions, protectedResourceMetadataPath } from './oauth-resource.js';

/** One server's readiness as `/readyz` reports it. */
export interface McpGatewayServerHealth {
  id: string;
  state: string;
  /** Whether the gateway is not ready without it. */
  required: boolean;
}

export interface McpGatewayHttpOptions {
  /** Interface to bind. Default `127.0.0.1`; any other needs `token`. */
  host?: string;
  /** Port; 0 picks a free one. Default 8808. */
  port?: number;
  /** Path of the MCP endpoint (a profile's is `<path>/<name>`). Default `/mcp`. */
  path?: string;
  /** Bearer token every MCP request must carry (compared in constant time). Default: none (loopback only). Not with `oauth`. */
  token?: string;
  /**
   * Act as an OAuth 2.1 resource server instead: publish Protected Resource Metadata and
   * accept only JWT access tokens of this authorization server meant for this gateway. Default: off.
   */
  oauth?: McpGatewayOAuthOptions;
  /** More hostnames a `Host` or `Origin` header may name, besides the loopback names. Default: none. */
  allowedHostnames?: string[];
  /** Per-server states for `/readyz`. Default: ready whenever the process answers. */
  health?: () => McpGatewayServerHealth[];
  /** Bounds of the endpoint. */
  endpoint?: McpEndpointOptions;
}

export interface McpGatewayHttp {
  /** The MCP endpoint's URL, e.g. `http://127.0.0.1:8808/mcp`. */
  url: string;
  listener: HttpListener;
  /** Stops listening and ends every connection (the gateway's sessions end with `gateway.close()`). */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Whether `authorization` carries the token: hashed first, so the comparison takes the same time whatever was sent. */
function bearerMatches(authorization: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}

export async function serveGatewayHttp(gateway: McpGateway, options: McpGatewayHttpOptions = {}): Promise<McpGatewayHttp> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  if (!LOOPBACK.has(host) && options.token === undefined && options.oauth === undefined) {
    throw new McpConfigError(`The gateway would listen on ${host}, beyond this machine, without a token: give one (--token-file or MCP_FLEET_GATEWAY_TOKEN), or OAuth (--oauth-issuer), or bind 127.0.0.1.`, {
      field: 'host',
    });
  }
  if (options.token !== undefined && options.oauth !== undefined) throw new McpConfigError('The gateway takes a token or OAuth, not both.', { field: 'oauth' });
  if (options.oauth !== undefined) checkOAuthOptions(options.oauth);
  const expected = options.token === undefined ? undefined : digest(options.token);
  const endpoint = gateway.endpoint(options.endpoint);
  // A profile's endpoint is made when it is first asked for (and kept while the profile is).
  const profileEndpoints = new Map<string, McpEndpoint>();
  const profileEndpoint = (name: string): McpEndpoint | undefined => {
    if (gateway.profileScopes(name) === undefined) return undefined;
    let found = profileEndpoints.get(name);
    if (found === undefined) profileEndpoints.set(name, (found = gateway.endpoint(options.endpoint, name)));
    return found;
  };
  const maxRequestBodyBytes = options.endpoint?.maxRequestBodyBytes ?? ENDPOINT_DEFAULTS.maxRequestBodyBytes;
  const extra = options.allowedHostnames ?? [];
  const bound = LOOPBACK.has(host) || host === '0.0.0.0' || host === '::' ? [] : [host.includes(':') ? `[${host}]` : host];

  // Filled in once the port is known: the resource's URL is its audience.
  let oauth: { server: GatewayResourceServer; metadataUrl: string } | undefined;
  const metadataPath = protectedResourceMetadataPath(path);

  const route = async (request: IncomingMessage, url: URL): Promise<HttpRouteResult> => {
    if (oauth !== undefined && (url.pathname === metadataPath || url.pathname === '/.well-known/oauth-protected-resource')) {
      return { kind: 'response', status: 200, body: JSON.stringify(oauth.server.metadata()) };
    }
    if (url.pathname === '/healthz') return { kind: 'response', status: 200, body: JSON.stringify({ status: 'ok' }) };
    if (url.pathname === '/readyz') {
      const servers = options.health?.() ?? [];
      const ready = servers.every((server) => !server.required || server.state === 'running');
      return { kind: 'response', status: ready ? 200 : 503, body: JSON.stringify({ status: ready ? 'ready' : 'not_ready', servers }) };
    }
    const profile = url.pathname.startsWith(`${path}/`) ? decodeURIComponent(url.pathname.slice(path.length + 1)) : undefined;
    const target = profile === undefined ? (url.pathname === path ? endpoint : undefined) : profileEndpoint(profile);
    if (target === undefined) {
      const profiles = gateway.profileNames().map((name) => `${path}/${name}`);
      const where = profiles.length === 0 ? path : `${path} (or a profile's: ${profiles.join(', ')})`;
      return { kind: 'response', status: 404, body: jsonRpcErrorBody(-32601, `Not found: the MCP endpoint is ${where}`) };
    }
    if (expected !== undefined && !bearerMatches(request.headers.authorization, expected)) {
      return {
        kind: 'response',
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="mcp-fleet"' },
        body: jsonRpcErrorBody(-32001, 'Unauthorized: send the gateway token as "Authorization: Bearer <token>"'),
      };
    }
    if (oauth !== undefined) {
      const scopes = profile === undefined ? [] : (gateway.profileScopes(profile) ?? []);
      const checked = await oauth.server.check(request.headers.authorization, scopes);
      if (checked.ok) return { kind: 'mcp', handler: target, authInfo: checked.auth };
      const status = checked.error === 'insufficient_scope' ? 403 : 401;
      return {
        kind: 'response',
        status,
        headers: { 'www-authenticate': oauth.server.challenge(oauth.metadataUrl, checked, scopes) },
        body: jsonRpcErrorBody(-32001, `${status === 403 ? 'Forbidden' : 'Unauthorized'}: ${checked.description}; the authorization server is named at ${oauth.metadataUrl}`),
      };
    }
    return { kind: 'mcp', handler: target };
  };

  const listener = await listenHttp({
    host,
    port: options.port ?? 8808,
    allowedHostnames: [...localhostAllowedHostnames(), ...bound, ...extra],
    allowedOriginHostnames: [...localhostAllowedOrigins(), ...bound, ...extra],
    maxRequestBodyBytes,
    route,
  });
  if (options.oauth !== undefined) {
    oauth = { server: new GatewayResourceServer(options.oauth, `${listener.origin}${path}`), metadataUrl: `${listener.origin}${metadataPath}` };
  }
  return {
    url: `${listener.origin}${path}`,
    listener,
    close: async () => {
      await Promise.all([endpoint, ...profileEndpoints.values()].map((each) => each.close()));
      await listener.close();
    },
  };
}
