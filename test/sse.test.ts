import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { McpAuthorizationRequired, type McpLogger, McpToolProvider, type McpServerConfig, ToolHost } from '../src/index.js';
import { type HttpFixture, observationLog, observed, startHttpFixture } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  // Hosts first, then the servers they talk to.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sseServer(env: Record<string, string> = {}): Promise<{ server: HttpFixture; log: string }> {
  const log = observationLog();
  const server = await startHttpFixture('sse-server.mjs', { env: { FIXTURE_LOG: log, ...env } });
  cleanups.push(() => server.close());
  return { server, log };
}

function provider(config: McpServerConfig, logger?: McpLogger): McpToolProvider {
  const created = new McpToolProvider({ servers: [config], ...(logger ? { logger } : {}) });
  cleanups.push(() => created.close());
  return created;
}

/** A logger that resolves `closed` when the provider reports a server's connection closed. */
function closeWatcher(): { logger: McpLogger; closed: Promise<void> } {
  let resolve = (): void => {};
  const closed = new Promise<void>((done) => (resolve = done));
  const ignore = (): void => {};
  const logger: McpLogger = {
    debug: ignore,
    info: ignore,
    error: ignore,
    warn: (_fields, message) => {
      if (message.startsWith('MCP server connection closed')) resolve();
    },
  };
  return { logger, closed };
}

const requests = (log: string) => observed(log).filter((entry) => entry.event === 'request');
const streamGets = (log: string) => requests(log).filter((entry) => entry.method === 'GET' && entry.path === '/sse');
const methods = (log: string) => observed(log).filter((entry) => entry.event === 'message').map((entry) => entry.method);
const errorOf = (result: { output: unknown }) => (result.output as { error?: { code?: string; message?: string } }).error;
const errorCode = (result: { output: unknown }) => errorOf(result)?.code;
const errorMessage = (result: { output: unknown }) => errorOf(result)?.message;

describe('legacy HTTP+SSE servers', () => {
  it('lists and calls the tools of an SSE server through the provider and the host, on the legacy era', async () => {
    const { server, log } = await sseServer();
    const mcp = provider({ id: 'legacy', transport: { type: 'sse', url: server.url } });
    const host = new ToolHost({ providers: [mcp], discovery: false });
    cleanups.push(() => host.close());
    await host.init();

    expect(host.definitions().map((tool) => tool.name)).toEqual(['mcp_legacy_big', 'mcp_legacy_drop', 'mcp_legacy_echo']);
    const result = await host.call('mcp_legacy_echo', { text: 'over SSE' });
    expect(result.isError).toBe(false);
    expect(result.output).toMatchObject({ server_id: 'legacy', tool: 'echo', content: [{ type: 'text', text: 'over SSE' }] });
    const [status] = mcp.serverStatuses();
    expect(status).toMatchObject({ id: 'legacy', state: 'ready', era: 'legacy', toolCount: 3 });
    expect(status!.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(streamGets(log)).toHaveLength(1);
    expect(methods(log)).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call']);
  });

  it('opens with initialize and never probes server/discover, even with lifecycle auto', async () => {
    const { server, log } = await sseServer();
    const mcp = provider({ id: 'legacy', lifecycle: 'auto', transport: { type: 'sse', url: server.url } });
    await mcp.init();
    expect(mcp.serverStatuses()[0]!.state).toBe('ready');
    expect(methods(log)[0]).toBe('initialize');
    expect(methods(log)).not.toContain('server/discover');
  });

  it("sends the configured headers and the bearer token on the stream's GET and on every POST", async () => {
    const { server, log } = await sseServer({ SSE_REQUIRE_TOKEN: 'sse-token-1234' });
    const mcp = provider({
      id: 'legacy',
      transport: { type: 'sse', url: server.url, bearerToken: 'sse-token-1234', headers: { 'X-Api-Key': 'key-5678' } },
    });
    await mcp.init();
    expect((await mcp.call('mcp_legacy_echo', { text: 'hi' })).isError).toBe(false);
    const seen = requests(log);
    expect(seen.map((entry) => entry.method)).toContain('GET');
    expect(seen.filter((entry) => entry.method === 'POST').length).toBeGreaterThanOrEqual(4);
    for (const entry of seen) expect(entry).toMatchObject({ authorization: 'Bearer sse-token-1234', apiKey: 'key-5678' });
  });

  it("asks for authorization when the server refuses the stream's GET with 401", async () => {
    const { server, log } = await sseServer({ SSE_REQUIRE_TOKEN: 'sse-token-1234' });
    const mcp = provider({ id: 'legacy', transport: { type: 'sse', url: server.url } });
    await mcp.init();
    expect(mcp.serverStatuses()[0]).toMatchObject({ state: 'authorization_required' });
    expect(mcp.serverStatuses()[0]!.lastError).toContain('unauthorized');
    expect(requests(log).filter((entry) => entry.method === 'POST')).toEqual([]);
  });
});

describe('bounds of the SSE transport', () => {
  it("refuses a redirect of the stream's GET, names its target, and never requests it", async () => {
    const { server, log } = await sseServer({ SSE_REDIRECT: '1' });
    const mcp = provider({ id: 'moved', required: true, transport: { type: 'sse', url: server.url, bearerToken: 'sse-token-1234' } });
    const failure = await mcp.init().catch((error: unknown) => error as Error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure!.message).toContain(`HTTP 302 redirecting to ${new URL('/sse-moved', server.url).href}`);
    expect(failure!.message).toContain('never followed');
    expect(requests(log).map((entry) => entry.path)).toEqual(['/sse']);
  });

  it('refuses a POST endpoint on another origin than the stream and posts nothing', async () => {
    const { server, log } = await sseServer({ SSE_FOREIGN_ENDPOINT: '1' });
    const mcp = provider({ id: 'foreign', required: true, transport: { type: 'sse', url: server.url } });
    await expect(mcp.init()).rejects.toThrow(/Endpoint origin does not match connection origin: http:\/\/localhost:\d+/);
    expect(requests(log).filter((entry) => entry.method === 'POST')).toEqual([]);
    expect(mcp.serverStatuses()[0]!.state).toBe('failed');
  });

  it('ends the session on an SSE event over limits.messageBytes, failing the call in flight with response_too_large', async () => {
    const { server, log } = await sseServer();
    // A call left hanging would end as `timeout` after 10 s instead.
    const mcp = provider({ id: 'legacy', transport: { type: 'sse', url: server.url }, limits: { messageBytes: 64 * 1024 }, timeouts: { callMs: 10_000 } });
    await mcp.init();
    const result = await mcp.call('mcp_legacy_big', { bytes: 256 * 1024 });
    expect(errorCode(result)).toBe('response_too_large');
    expect(errorMessage(result)).toContain('"legacy" sent an SSE event larger than the 65536-byte limit (limits.messageBytes)');
    expect(mcp.serverStatuses()[0]!.state).toBe('disconnected');
    // The next call sets up a new session on one new stream.
    expect((await mcp.call('mcp_legacy_echo', { text: 'again' })).isError).toBe(false);
    expect(streamGets(log)).toHaveLength(2);
  });

  it('closes the session when the server drops the stream mid-call, and the next call opens exactly one new stream', async () => {
    const { server, log } = await sseServer();
    const mcp = provider({ id: 'legacy', transport: { type: 'sse', url: server.url }, timeouts: { callMs: 10_000 } });
    await mcp.init();
    const dropped = await mcp.call('mcp_legacy_drop', {});
    expect(errorCode(dropped)).toBe('server_disconnected');
    expect(mcp.serverStatuses()[0]!.state).toBe('disconnected');
    expect((await mcp.call('mcp_legacy_echo', { text: 'again' })).isError).toBe(false);
    // The server asked for `retry: 1`: an EventSource reopening the dropped stream would have done so long before.
    expect(streamGets(log)).toHaveLength(2);
    expect(new Set(observed(log).filter((entry) => entry.event === 'message').map((entry) => entry.session)).size).toBe(2);
  });

  it('closes an idle session whose stream the server ends, and reconnects only on the next call', async () => {
    const { server, log } = await sseServer();
    const { logger, closed } = closeWatcher();
    const mcp = provider({ id: 'legacy', transport: { type: 'sse', url: server.url } }, logger);
    await mcp.init();
    await fetch(new URL('/admin/drop', server.url), { method: 'POST' });
    await closed;
    expect(mcp.serverStatuses()[0]!.state).toBe('disconnected');
    expect((await mcp.call('mcp_legacy_echo', { text: 'again' })).isError).toBe(false);
    expect(streamGets(log)).toHaveLength(2);
  });

  it("retries set-up when the stream's GET meets a transient HTTP status, as for Streamable HTTP", async () => {
    const { server, log } = await sseServer({ SSE_FAIL_FIRST_GET: '503' });
    const mcp = provider({ id: 'legacy', required: true, transport: { type: 'sse', url: server.url } });
    await mcp.init();
    expect(mcp.serverStatuses()[0]!.state).toBe('ready');
    expect(streamGets(log)).toHaveLength(2);
  });

  it('gives up on a stream that never names its endpoint, within timeouts.connectAttemptMs', async () => {
    const { server } = await sseServer({ SSE_NO_ENDPOINT: '1' });
    const mcp = provider({ id: 'mute', required: true, transport: { type: 'sse', url: server.url }, timeouts: { connectAttemptMs: 200 } });
    await expect(mcp.init()).rejects.toThrow(/did not announce its message endpoint on the SSE stream in time/);
  });
});

describe('secrets over SSE', () => {
  const secretHeader = 'header-secret-5678';
  const secretToken = 'token-secret-1234';
  const config = (url: string): McpServerConfig => ({
    id: 'echoing',
    transport: { type: 'sse', url, bearerToken: secretToken, headers: { 'X-Api-Key': secretHeader } },
  });

  it('never shows a header the server echoes in a failed call, neither in the result nor in the status', async () => {
    const { server, log } = await sseServer({ SSE_ECHO_HEADERS: 'tools/call' });
    const mcp = provider(config(server.url));
    await mcp.init();
    const result = await mcp.call('mcp_echoing_echo', { text: 'hi' });
    expect(errorCode(result)).toBe('call_failed');
    const shown = JSON.stringify([result, mcp.serverStatuses()]);
    // The server did echo the headers: what reached the host shows them redacted.
    expect(shown).toContain('[REDACTED]');
    expect(shown).not.toContain(secretHeader);
    expect(shown).not.toContain(secretToken);
    expect(requests(log).some((entry) => entry.apiKey === secretHeader)).toBe(true);
  });

  it('never shows a header the server echoes while setting up, neither in the error nor in the status', async () => {
    const { server } = await sseServer({ SSE_ECHO_HEADERS: 'initialize' });
    const mcp = provider({ ...config(server.url), required: true });
    const failure = await mcp.init().catch((error: unknown) => error as Error);
    expect(failure).toBeInstanceOf(Error);
    const shown = `${inspect(failure, { depth: 10 })} ${JSON.stringify(mcp.serverStatuses())}`;
    expect(shown).toContain('[REDACTED]');
    expect(shown).not.toContain(secretHeader);
    expect(shown).not.toContain(secretToken);
  });
});

describe('OAuth over SSE', () => {
  const oauth = { flow: 'client_credentials', clientId: 'sse-client', clientSecret: 'sse-secret' } as const;
  const tokenRequests = (log: string) => observed(log).filter((entry) => entry.event === 'token');

  it('gets a client-credentials token for the SSE endpoint at set-up, sends it on the stream and the POSTs, and renews it on a 401', async () => {
    const { server, log } = await sseServer({ SSE_OAUTH: '1' });
    const mcp = provider({ id: 'guarded', transport: { type: 'sse', url: server.url, oauth } });
    await mcp.init();
    expect(mcp.serverStatuses()[0]).toMatchObject({ state: 'ready', toolCount: 3 });
    expect(tokenRequests(log)).toEqual([expect.objectContaining({ resource: server.url })]);
    const mcpRequests = requests(log).filter((entry) => entry.path === '/sse' || entry.path === '/messages');
    expect(mcpRequests.filter((entry) => entry.authorization === 'Bearer sse-oauth-token-1').length).toBeGreaterThanOrEqual(4);

    // Every token so far stops working: the next POST meets a 401, renews once and is sent again.
    await fetch(new URL('/admin/expire', server.url), { method: 'POST' });
    expect((await mcp.call('mcp_guarded_echo', { text: 'renewed' })).isError).toBe(false);
    expect(tokenRequests(log)).toHaveLength(2);
    expect(requests(log).at(-1)).toMatchObject({ method: 'POST', path: '/messages', authorization: 'Bearer sse-oauth-token-2' });

    // A new session whose stream's GET meets a 401 renews and opens the stream once more.
    await fetch(new URL('/admin/expire', server.url), { method: 'POST' });
    await mcp.disconnectServer('guarded');
    expect((await mcp.call('mcp_guarded_echo', { text: 'reopened' })).isError).toBe(false);
    expect(tokenRequests(log)).toHaveLength(3);
    expect(streamGets(log).slice(-2).map((entry) => entry.authorization)).toEqual(['Bearer sse-oauth-token-2', 'Bearer sse-oauth-token-3']);
  });

  it('reports wrong client credentials as an authorization error naming the server', async () => {
    const { server } = await sseServer({ SSE_OAUTH: '1' });
    const mcp = provider({ id: 'guarded', required: true, transport: { type: 'sse', url: server.url, oauth: { ...oauth, clientSecret: 'wrong-secret' } } });
    const failure = await mcp.init().catch((error: unknown) => error as Error);
    expect(failure).toBeInstanceOf(McpAuthorizationRequired);
    expect(failure!.message).toMatch(/MCP server "guarded" could not be authorized: the authorization server answered invalid_client/);
    expect(String(failure)).not.toContain('wrong-secret');
    expect(mcp.serverStatuses()[0]!.state).toBe('authorization_required');
  });

  it('begins an interactive authorization for an SSE server, naming the SSE endpoint as the resource', async () => {
    const { server } = await sseServer({ SSE_OAUTH: '1' });
    const mcp = provider({
      id: 'guarded',
      transport: { type: 'sse', url: server.url, oauth: { flow: 'authorization_code', redirectUri: 'http://127.0.0.1:8765/callback', clientId: 'sse-app' } },
    });
    const url = new URL(await mcp.beginAuthorization('guarded'));
    expect(url.origin + url.pathname).toBe(new URL('/authorize', server.url).href);
    expect(url.searchParams.get('resource')).toBe(server.url);
    expect(url.searchParams.get('client_id')).toBe('sse-app');
  });
});
