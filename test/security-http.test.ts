import { afterEach, describe, expect, it } from 'vitest';
import { McpToolProvider, type McpServerConfig } from '../src/index.js';
import { type HttpFixture, observationLog, observed, startHttpFixture } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function hostile(): Promise<{ server: HttpFixture; log: string }> {
  const log = observationLog();
  const server = await startHttpFixture('hostile-http.mjs', { env: { FIXTURE_LOG: log } });
  cleanups.push(() => server.close());
  return { server, log };
}

function provider(config: McpServerConfig): McpToolProvider {
  const created = new McpToolProvider({ servers: [config] });
  cleanups.push(() => created.close());
  return created;
}

const paths = (log: string) => observed(log).filter((entry) => entry.event === 'request').map((entry) => entry.path);

describe('redirects', () => {
  it('never follows a same-origin redirect, and names its target', async () => {
    const { server, log } = await hostile();
    const mcp = provider({ id: 'moved', required: true, transport: { type: 'http', url: `${server.url}/redirect-same` } });
    const failure = await mcp.init().catch((error: unknown) => error as Error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure!.message).toContain(`redirecting to ${server.url}/mcp`);
    expect(failure!.message).toContain('never followed');
    expect(paths(log)).not.toContain('/mcp');
  });

  it('never follows a cross-origin redirect: the other origin receives nothing', async () => {
    const { server, log } = await hostile();
    const mcp = provider({ id: 'moved', required: true, transport: { type: 'http', url: `${server.url}/redirect-cross`, bearerToken: 'secret-token-1234' } });
    await expect(mcp.init()).rejects.toThrow(/HTTP 307 redirecting to http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(observed(log).some((entry) => entry.event === 'cross-origin-hit')).toBe(false);
  });

  it('never follows a redirect met after set-up either, and says so without its target', async () => {
    const { server, log } = await hostile();
    const mcp = provider({ id: 'later', transport: { type: 'http', url: `${server.url}/moves-later` }, lifecycle: 'initialize' });
    await mcp.init();
    expect(mcp.serverStatuses()[0]!.state).toBe('ready');
    await expect(mcp.refreshServer('later')).rejects.toThrow('answered with an HTTP redirect to an unnamed location; redirects are never followed');
    expect(observed(log).some((entry) => entry.event === 'cross-origin-hit')).toBe(false);
  });
});

describe('bounded HTTP responses', () => {
  async function hostileSession(): Promise<{ mcp: McpToolProvider; log: string }> {
    const { server, log } = await hostile();
    const mcp = provider({ id: 'h', transport: { type: 'http', url: `${server.url}/hostile` }, limits: { messageBytes: 1024 * 1024 } });
    await mcp.init();
    expect(mcp.serverStatuses()[0]!.state).toBe('ready');
    return { mcp, log };
  }

  for (const era of ['2026-07-28', '2025-11-25'] as const) {
    it(`never follows a redirect answering a tools/call (${era}): the call fails naming it, the other origin receives nothing, the session goes on`, async () => {
      const { server, log } = await hostile();
      const mcp = provider({ id: 'h', transport: { type: 'http', url: `${server.url}/hostile` }, lifecycle: era === '2026-07-28' ? 'discover' : 'initialize' });
      await mcp.init();
      expect(mcp.serverStatuses()[0]!.protocolVersion).toBe(era);
      const result = await mcp.call('mcp_h_moved', {});
      expect(result.isError).toBe(true);
      expect((result.modelOutput!.parts[0] as { text: string }).text).toContain('answered with an HTTP redirect to an unnamed location; redirects are never followed');
      expect(observed(log).some((entry) => entry.event === 'cross-origin-hit')).toBe(false);
      expect((await mcp.call('mcp_h_echo', {})).isError).toBe(false);
    });
  }

  it('fails a 50 MiB JSON body at the limit, without the body in the error, and keeps the session', async () => {
    const { mcp } = await hostileSession();
    const result = await mcp.call('mcp_h_huge', {});
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'response_too_large' } } });
    const text = (result.modelOutput!.parts[0] as { text: string }).text;
    expect(text).toContain('"h" sent an HTTP body larger than the 1048576-byte limit (limits.messageBytes)');
    expect(text.length).toBeLessThan(500);
    expect((await mcp.call('mcp_h_echo', {})).isError).toBe(false);
  });

  it('refuses a body whose Content-Length is over the limit before reading it', async () => {
    const { mcp } = await hostileSession();
    const result = await mcp.call('mcp_h_huge_declared', {});
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'response_too_large' } } });
    expect((result.modelOutput!.parts[0] as { text: string }).text).toContain('an HTTP body of 52428800 bytes');
  });

  it('counts the unpacked bytes of a gzipped body, whose Content-Length tells only the packed size', async () => {
    const { mcp } = await hostileSession();
    const result = await mcp.call('mcp_h_gzip_bomb', {});
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'response_too_large' } } });
    expect((result.modelOutput!.parts[0] as { text: string }).text).toContain('"h" sent an HTTP body larger than the 1048576-byte limit');
    expect((await mcp.call('mcp_h_echo', {})).isError).toBe(false);
  });

  it('reports a connection dropped mid-call as a disconnection the tool may have survived, and does not replay it', async () => {
    const { mcp, log } = await hostileSession();
    const result = await mcp.call('mcp_h_drop', {});
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'server_disconnected' } } });
    expect(JSON.stringify(result.modelOutput)).toContain('the tool may have run');
    expect(observed(log).filter((entry) => entry.event === 'drop-ran')).toHaveLength(1);
    expect((await mcp.call('mcp_h_echo', {})).isError).toBe(false);
  });

  it('fails an SSE event that never ends as soon as it passes the limit, and closes the stream', async () => {
    const { mcp, log } = await hostileSession();
    const result = await mcp.call('mcp_h_endless', {}, { timeoutMs: 60_000 });
    expect(result.isError).toBe(true);
    const text = (result.modelOutput!.parts[0] as { text: string }).text;
    expect(text).toContain('"h" sent an SSE event larger than the 1048576-byte limit (limits.messageBytes)');
    expect(text).not.toContain('xxxx');
    await expect.poll(() => observed(log).some((entry) => entry.event === 'stream-closed')).toBe(true);
    expect((await mcp.call('mcp_h_echo', {})).isError).toBe(false);
  });
});

describe('request headers', () => {
  it('sends the custom headers and the bearer token, and nothing of the host', async () => {
    const { server, log } = await hostile();
    const mcp = provider({
      id: 'h',
      transport: { type: 'http', url: `${server.url}/mcp`, headers: { 'X-Tenant': 'acme', 'X-Api-Key': 'key-5678' }, bearerToken: 'token-abcd' },
    });
    await mcp.init();
    await mcp.call('mcp_h_echo', {});
    const requests = observed(log).filter((entry) => entry.event === 'request' && entry.path === '/mcp');
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      const headers = request.headers as Record<string, string>;
      expect(headers['x-tenant']).toBe('acme');
      expect(headers['x-api-key']).toBe('key-5678');
      expect(headers.authorization).toBe('Bearer token-abcd');
    }
  });
});
