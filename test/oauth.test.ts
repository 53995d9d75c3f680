import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import {
  discoverHttpOauth,
  FileMcpCredentialStore,
  InMemoryMcpCredentialStore,
  McpAuthorizationCallbackError,
  McpAuthorizationRequired,
  type McpCredentialStore,
  type McpLogger,
  type McpOAuthConfig,
  McpToolProvider,
  startOAuthCallbackListener,
} from '../src/index.js';
import { fixture, followAuthorization, type HttpFixture, observationLog, observed, startHttpFixture } from './helpers.js';

let stack: HttpFixture;
let log: string;
beforeAll(async () => {
  log = observationLog();
  stack = await startHttpFixture('oauth-stack.mjs', { env: { FIXTURE_LOG: log } });
});
afterAll(async () => stack.close());

const providers: McpToolProvider[] = [];
afterEach(async () => {
  await tokenEndpoint('up');
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

/** Makes the authorization server's token endpoint work, answer 503, or never answer. */
const tokenEndpoint = async (state: 'up' | 'down' | 'hang') => {
  await fetch(new URL(`/admin/token-endpoint?state=${state}`, stack.url), { method: 'POST' });
};

const CLIENT_CREDENTIALS: McpOAuthConfig = { flow: 'client_credentials', clientId: 'cc-client', clientSecret: 'cc-secret' };
const AUTHORIZATION_CODE: McpOAuthConfig = { flow: 'authorization_code', redirectUri: 'http://127.0.0.1:9/callback' };

function provider(oauth: McpOAuthConfig, options: { store?: McpCredentialStore; logger?: McpLogger; id?: string } = {}): McpToolProvider {
  const created = new McpToolProvider({
    servers: [{ id: options.id ?? 'api', transport: { type: 'http', url: stack.url, oauth } }],
    ...(options.store ? { credentialStore: options.store } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  providers.push(created);
  return created;
}

/** Token requests the authorization server handled since `mark`. */
function tokenRequests(mark: number, grant?: string) {
  return observed(log)
    .slice(mark)
    .filter((entry) => entry.event === 'token' && (grant === undefined || entry.grant === grant));
}

const mark = () => observed(log).length;
const expireTokens = () => fetch(new URL('/admin/expire', stack.url), { method: 'POST' });

/** Runs the interactive flow the way a person on another machine would: open the URL, paste the redirect back. */
async function authorize(mcp: McpToolProvider, serverId = 'api'): Promise<void> {
  const url = await mcp.beginAuthorization(serverId);
  await mcp.completeAuthorization(serverId, await followAuthorization(url));
}

describe('client credentials', () => {
  it('gets a token during set-up and calls the protected server, the call carrying the token at the first try', async () => {
    const before = mark();
    const mcp = provider(CLIENT_CREDENTIALS);
    await mcp.init();
    expect(mcp.serverStatuses()[0]!.state).toBe('ready');
    const called = mark();
    expect((await mcp.call('mcp_api_whoami', {})).isError).toBe(false);
    expect(tokenRequests(before, 'client_credentials')).toHaveLength(1);
    // One POST, accepted: a call sent without its token would be refused first and sent again.
    const seen = observed(log).slice(called).filter((entry) => entry.event === 'mcp');
    expect(seen.map((entry) => [entry.outcome, entry.method])).toEqual([['ok', 'tools/call']]);
  });

  it('makes exactly one token request when 10 parallel calls meet an expired token', async () => {
    const mcp = new McpToolProvider({
      servers: [{ id: 'api', concurrency: 'parallel', transport: { type: 'http', url: stack.url, oauth: CLIENT_CREDENTIALS } }],
    });
    providers.push(mcp);
    await mcp.init();
    await expireTokens();
    const before = mark();
    const results = await Promise.all(Array.from({ length: 10 }, () => mcp.call('mcp_api_whoami', {})));
    expect(results.map((result) => result.isError)).toEqual(Array(10).fill(false));
    expect(tokenRequests(before)).toHaveLength(1);
  });

  it('steps up to the union of scopes when a call needs more, within a bounded number of tries', async () => {
    const mcp = provider({ ...CLIENT_CREDENTIALS, scopes: ['mcp:read'] });
    await mcp.init();
    const before = mark();
    const result = await mcp.call('mcp_api_write', {});
    expect(result.isError).toBe(false);
    expect(tokenRequests(before, 'client_credentials')).toHaveLength(1);
    expect(observed(log).slice(before).some((entry) => entry.outcome === 'insufficient-scope')).toBe(true);
  });

  it('gives up a scope step-up at the call deadline when the token endpoint never answers, and frees the server for other calls', async () => {
    const mcp = provider({ ...CLIENT_CREDENTIALS, scopes: ['mcp:read'] });
    await mcp.init();
    await tokenEndpoint('hang');
    const result = await mcp.call('mcp_api_write', {}, { timeoutMs: 1_500 });
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'timeout' } } });
    // The gate is free again and the current token still in use, while the token request
    // hangs on (until OAUTH_REQUEST_MS): a call that needs no more scope goes through.
    expect((await mcp.call('mcp_api_whoami', {}, { timeoutMs: 5_000 })).isError).toBe(false);
  });

  it('keeps using a token that still works when its early renewal fails', async () => {
    const store = new InMemoryMcpCredentialStore();
    const first = provider(CLIENT_CREDENTIALS, { store });
    await first.init();
    await first.close();
    // The token has 100 s left: inside the renewal window, but still good.
    const key = { serverId: 'api', endpoint: stack.url };
    const stored = (await store.load(key))!;
    await store.save(key, { ...stored, tokens: { ...stored.tokens!, expires_at: Date.now() + 100_000 } });
    await tokenEndpoint('down');
    const before = mark();
    const mcp = provider(CLIENT_CREDENTIALS, { store });
    await mcp.init();
    expect(observed(log).slice(before).some((entry) => entry.event === 'token-endpoint')).toBe(true);
    expect(mcp.serverStatuses()[0]).toMatchObject({ state: 'ready' });
    expect((await mcp.call('mcp_api_whoami', {})).isError).toBe(false);
  });

  it('reports wrong client credentials as an authorization error naming the server', async () => {
    const mcp = new McpToolProvider({
      servers: [{ id: 'api', required: true, transport: { type: 'http', url: stack.url, oauth: { ...CLIENT_CREDENTIALS, clientSecret: 'wrong-secret' } } }],
    });
    providers.push(mcp);
    const failure = await mcp.init().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpAuthorizationRequired);
    expect((failure as Error).message).toMatch(/MCP server "api" could not be authorized: the authorization server answered invalid_client/);
    expect(String(failure)).not.toContain('wrong-secret');
  });
});

describe('a short-lived access token', () => {
  let short: HttpFixture;
  let shortLog: string;
  beforeAll(async () => {
    shortLog = observationLog();
    short = await startHttpFixture('oauth-stack.mjs', { env: { FIXTURE_LOG: shortLog, FIXTURE_TOKEN_TTL: '5' } });
  });
  afterAll(async () => short.close());

  it('of 5 seconds is renewed once for ten parallel calls after it expired, and a fresh one is not renewed again', async () => {
    const requests = (since: number) => observed(shortLog).slice(since).filter((entry) => entry.event === 'token');
    const mcp = new McpToolProvider({ servers: [{ id: 'api', concurrency: 'parallel', transport: { type: 'http', url: short.url, oauth: CLIENT_CREDENTIALS } }] });
    providers.push(mcp);
    await mcp.init();
    // In the first half of its life the token is used as it is.
    let since = observed(shortLog).length;
    expect((await mcp.call('mcp_api_whoami', {})).isError).toBe(false);
    expect(requests(since)).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 5_200));
    since = observed(shortLog).length;
    const results = await Promise.all(Array.from({ length: 10 }, () => mcp.call('mcp_api_whoami', {})));
    expect(results.every((result) => !result.isError)).toBe(true);
    expect(requests(since)).toHaveLength(1);
    since = observed(shortLog).length;
    expect((await mcp.call('mcp_api_whoami', {})).isError).toBe(false);
    expect(requests(since)).toHaveLength(0);
  }, 30_000);
});

describe('authorization code with PKCE, no browser', () => {
  it('fails set-up with McpAuthorizationRequired, without touching the network, until authorized', async () => {
    const before = mark();
    const mcp = new McpToolProvider({ servers: [{ id: 'api', required: true, transport: { type: 'http', url: stack.url, oauth: AUTHORIZATION_CODE } }] });
    providers.push(mcp);
    const failure = await mcp.init().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpAuthorizationRequired);
    expect((failure as McpAuthorizationRequired).serverId).toBe('api');
    expect(observed(log).slice(before).filter((entry) => entry.event === 'mcp')).toHaveLength(0);
    expect(mcp.serverStatuses()[0]!.state).toBe('authorization_required');
  });

  it('completes with the redirect URL a person pastes, then calls', async () => {
    const mcp = provider(AUTHORIZATION_CODE);
    await mcp.init();
    const url = await mcp.beginAuthorization('api');
    const authorization = new URL(url);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('resource')).toBe(stack.url);
    expect(authorization.searchParams.get('state')).toBeTruthy();
    const redirect = await followAuthorization(url);
    expect(new URL(redirect).searchParams.get('iss')).toBe(stack.info.issuer);
    await mcp.completeAuthorization('api', redirect);
    expect((await mcp.call('mcp_api_whoami', {})).isError).toBe(false);
    expect(mcp.serverStatuses()[0]!.state).toBe('ready');
  });

  it('completes through a one-shot loopback listener (the SSH port-forwarding variant)', async () => {
    const listener = await startOAuthCallbackListener();
    try {
      const mcp = provider({ ...AUTHORIZATION_CODE, redirectUri: listener.redirectUri });
      await mcp.init();
      const redirect = await followAuthorization(await mcp.beginAuthorization('api'));
      // A stray request to the callback path (no code, no error) does not end the wait.
      expect((await fetch(listener.redirectUri)).status).toBe(400);
      // The browser (through the tunnel) reaches the listener.
      expect((await fetch(redirect)).status).toBe(200);
      await mcp.completeAuthorization('api', await listener.redirect);
      expect((await mcp.call('mcp_api_whoami', {})).isError).toBe(false);
    } finally {
      await listener.close();
    }
  });

  it('rejects a redirect URL whose state this provider did not issue, and consumes the pending flow', async () => {
    const mcp = provider(AUTHORIZATION_CODE);
    await mcp.init();
    const redirect = new URL(await followAuthorization(await mcp.beginAuthorization('api')));
    redirect.searchParams.set('state', 'forged');
    await expect(mcp.completeAuthorization('api', redirect.href)).rejects.toBeInstanceOf(McpAuthorizationCallbackError);
    await expect(mcp.completeAuthorization('api', redirect.href)).rejects.toThrow(/No OAuth authorization is pending/);
    expect(mcp.cancelAuthorization('api')).toBe(false);
  });

  it('refreshes once for 10 parallel calls that meet an expired token, with refresh-token rotation', async () => {
    const mcp = new McpToolProvider({
      servers: [{ id: 'api', concurrency: 'parallel', transport: { type: 'http', url: stack.url, oauth: AUTHORIZATION_CODE } }],
    });
    providers.push(mcp);
    await mcp.init();
    await authorize(mcp);
    await expireTokens();
    const before = mark();
    const results = await Promise.all(Array.from({ length: 10 }, () => mcp.call('mcp_api_whoami', {})));
    expect(results.map((result) => result.isError)).toEqual(Array(10).fill(false));
    expect(tokenRequests(before)).toMatchObject([{ grant: 'refresh_token', ok: true }]);
  });

  it('turns a revoked refresh token into authorization_required, logging the cause', async () => {
    const store = new InMemoryMcpCredentialStore();
    const warnings: string[] = [];
    const logger: McpLogger = { debug() {}, info() {}, error() {}, warn: (fields, message) => warnings.push(`${message} ${JSON.stringify(fields)}`) };
    const mcp = provider(AUTHORIZATION_CODE, { store, logger });
    await mcp.init();
    await authorize(mcp);
    const stored = await store.load({ serverId: 'api', endpoint: stack.url });
    const client = stored!.client!;
    const revoke = await fetch(new URL('/token/revocation', stack.info.issuer), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: stored!.tokens!.refresh_token!, client_id: client.client_id }),
    });
    expect(revoke.ok).toBe(true);
    await expireTokens();
    const result = await mcp.call('mcp_api_whoami', {});
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'authorization_required', server_id: 'api' } } });
    expect(mcp.serverStatuses()[0]!.state).toBe('authorization_required');
    expect(warnings.some((line) => line.includes('OAuth token renewal failed'))).toBe(true);
    // The flow runs again and the server is usable.
    await authorize(mcp);
    expect((await mcp.call('mcp_api_whoami', {})).isError).toBe(false);
  });

  it('asks for the union of scopes after an insufficient_scope answer', async () => {
    const mcp = provider({ ...AUTHORIZATION_CODE, scopes: ['mcp:read'] });
    await mcp.init();
    const first = new URL(await mcp.beginAuthorization('api'));
    expect(first.searchParams.get('scope')).toContain('mcp:read');
    expect(first.searchParams.get('scope')).not.toContain('mcp:write');
    await mcp.completeAuthorization('api', await followAuthorization(first.href));
    const refused = await mcp.call('mcp_api_write', {});
    expect(refused).toMatchObject({ isError: true, output: { error: { code: 'authorization_required' } } });
    const second = new URL(await mcp.beginAuthorization('api'));
    expect(second.searchParams.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['mcp:read', 'mcp:write']));
    await mcp.completeAuthorization('api', await followAuthorization(second.href));
    expect((await mcp.call('mcp_api_write', {})).isError).toBe(false);
  });

  it('never puts back a refresh token another process has rotated, when it starts an authorization', async () => {
    const store = new InMemoryMcpCredentialStore();
    const a = provider(AUTHORIZATION_CODE, { store });
    await a.init();
    await authorize(a);
    const b = provider(AUTHORIZATION_CODE, { store });
    await b.init();
    const key = { serverId: 'api', endpoint: stack.url };
    const before = (await store.load(key))!.tokens!.refresh_token;
    // b's token stops working; b renews, and the authorization server rotates the refresh token.
    await expireTokens();
    expect((await b.call('mcp_api_whoami', {})).isError).toBe(false);
    const rotated = (await store.load(key))!.tokens!.refresh_token;
    expect(rotated).not.toBe(before);
    // a (still holding the old grant in memory) starts a re-consent, which saves discovery state.
    await a.beginAuthorization('api');
    expect((await store.load(key))!.tokens!.refresh_token).toBe(rotated);
  });

  it('signs out with clearCredentials: the next call needs authorization again', async () => {
    const mcp = provider(AUTHORIZATION_CODE);
    await mcp.init();
    await authorize(mcp);
    expect((await mcp.call('mcp_api_whoami', {})).isError).toBe(false);
    await mcp.clearCredentials('api');
    const result = await mcp.call('mcp_api_whoami', {});
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'authorization_required' } } });
  });

  it('refuses OAuth operations on servers without OAuth', async () => {
    const mcp = new McpToolProvider({ servers: [{ id: 'plain', transport: { type: 'stdio', command: process.execPath, args: [fixture('v2-server.mjs')] } }] });
    providers.push(mcp);
    await expect(mcp.beginAuthorization('plain')).rejects.toThrow(/does not use the HTTP transport/);
    const cc = provider(CLIENT_CREDENTIALS, { id: 'cc' });
    await expect(cc.beginAuthorization('cc')).rejects.toThrow(/not configured for the OAuth authorization_code flow/);
  });
});

describe('the file credential store', () => {
  it('keeps one owner-only file per server and endpoint', async () => {
    const directory = join(mkdtempSync(join(tmpdir(), 'mcp-fleet-store-')), 'credentials');
    const mcp = provider(AUTHORIZATION_CODE, { store: new FileMcpCredentialStore({ directory }) });
    await mcp.init();
    await authorize(mcp);
    const files = readdirSync(directory);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^api-[0-9a-f]{16}\.json$/);
    expect(statSync(join(directory, files[0]!)).mode & 0o777).toBe(0o600);
    expect(statSync(directory).mode & 0o777).toBe(0o700);
    // Another endpoint under the same server id never sees this grant.
    const store = new FileMcpCredentialStore({ directory });
    expect(await store.load({ serverId: 'api', endpoint: stack.url })).toBeDefined();
    expect(await store.load({ serverId: 'api', endpoint: `${stack.url}/other` })).toBeUndefined();
  });

  it('lets two processes that share it refresh an expired grant once', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'mcp-fleet-shared-'));
    // The same server id and endpoint as the host processes use.
    const mcp = provider(AUTHORIZATION_CODE, { store: new FileMcpCredentialStore({ directory }), id: 'shared' });
    await mcp.init();
    await authorize(mcp, 'shared');
    await mcp.close();
    await expireTokens();
    const before = mark();
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', fixture('oauth-host.ts'), directory, stack.url], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`host exited with ${code}`))));
      });
    const outputs = await Promise.all([run(), run()]);
    expect(outputs).toEqual(['{"isError":false}', '{"isError":false}']);
    expect(tokenRequests(before)).toMatchObject([{ grant: 'refresh_token', ok: true }]);
  });
});

describe('discoverHttpOauth', () => {
  it('tells from a bare URL that a server uses OAuth, and how', async () => {
    const found = await discoverHttpOauth(stack.url);
    expect(found).toMatchObject({
      resource: stack.url,
      authorizationServer: stack.info.issuer,
      scopesSupported: ['mcp:read', 'mcp:write'],
      registrationSupported: true,
    });
    expect(found!.grantTypesSupported).toEqual(expect.arrayContaining(['authorization_code', 'client_credentials', 'refresh_token']));
  });

  it('says undefined for a server without OAuth metadata', async () => {
    const plain = await startHttpFixture('v2-server.mjs');
    try {
      expect(await discoverHttpOauth(plain.url)).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});

describe('OAuth secrets', () => {
  it('never appear in errors, logs or inspected objects', async () => {
    const lines: string[] = [];
    const write = (fields: Record<string, unknown>, message: string) => lines.push(`${message} ${inspect(fields, { depth: null })}`);
    const store = new InMemoryMcpCredentialStore();
    const mcp = provider({ ...CLIENT_CREDENTIALS, clientSecret: 'cc-secret' }, { store, logger: { debug: write, info: write, warn: write, error: write } });
    await mcp.init();
    await mcp.call('mcp_api_whoami', {});
    const token = (await store.load({ serverId: 'api', endpoint: stack.url }))!.tokens!.access_token;
    const wrong = provider({ ...CLIENT_CREDENTIALS, clientSecret: 'wrong-secret-1234' }, { logger: { debug: write, info: write, warn: write, error: write }, id: 'bad' });
    await wrong.init();
    const texts = [
      ...lines,
      inspect(mcp, { depth: null }),
      inspect(wrong, { depth: null }),
      JSON.stringify(wrong.serverStatuses()),
      JSON.stringify(mcp.serverConfig('api')),
      inspect(store, { depth: null }),
    ];
    for (const text of texts) {
      expect(text).not.toContain('cc-secret');
      expect(text).not.toContain('wrong-secret-1234');
      expect(text).not.toContain(token);
    }
  });
});
