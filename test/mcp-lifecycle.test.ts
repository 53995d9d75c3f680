import { afterEach, describe, expect, it } from 'vitest';
import { McpToolProvider, type McpServerConfig, silentLogger } from '../src/index.js';
import { resolveServerConfig } from '../src/mcp/config/config.js';
import { openSession } from '../src/mcp/session/session.js';
import { type HttpFixture, observationLog, observed, startHttpFixture, stdioFixture } from './helpers.js';

const providers: McpToolProvider[] = [];
const servers: HttpFixture[] = [];

async function connect(config: McpServerConfig): Promise<McpToolProvider> {
  const provider = new McpToolProvider({ servers: [config] });
  providers.push(provider);
  await provider.init();
  return provider;
}

afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function eraOf(provider: McpToolProvider): { era?: string; protocolVersion?: string; state: string } {
  const [status] = provider.serverStatuses();
  return { era: status?.era, protocolVersion: status?.protocolVersion, state: status!.state };
}

describe('protocol lifecycles over stdio', () => {
  it('auto negotiates 2026-07-28 with a v2 server, in one process', async () => {
    const log = observationLog();
    const provider = await connect(stdioFixture('v2', 'v2-server.mjs', { env: { FIXTURE_LOG: log } }));
    expect(eraOf(provider)).toEqual({ era: 'modern', protocolVersion: '2026-07-28', state: 'ready' });
    expect(observed(log).filter((entry) => entry.event === 'start')).toHaveLength(1);
    expect(observed(log).some((entry) => entry.method === 'initialize')).toBe(false);
  });

  it('auto falls back in band to initialize with a v1 server', async () => {
    const log = observationLog();
    const provider = await connect(stdioFixture('v1', 'v1-server.mjs', { env: { FIXTURE_LOG: log } }));
    expect(eraOf(provider)).toEqual({ era: 'legacy', protocolVersion: '2025-11-25', state: 'ready' });
    const methods = observed(log).flatMap((entry) => (entry.method ? [entry.method] : []));
    expect(methods.slice(0, 2)).toEqual(['server/discover', 'initialize']);
    expect(provider.definitions().map((definition) => definition.name)).toEqual(['mcp_v1_add', 'mcp_v1_echo']);
  });

  it('auto retries on a fresh process when a legacy server exits on the probe', async () => {
    const log = observationLog();
    const provider = await connect(stdioFixture('strict', 'legacy-raw-server.mjs', { args: ['exit'], env: { FIXTURE_LOG: log } }));
    expect(eraOf(provider).era).toBe('legacy');
    const starts = observed(log).filter((entry) => entry.event === 'start');
    expect(starts).toHaveLength(2);
    const second = observed(log).filter((entry) => entry.pid === starts[1]!.pid && entry.method);
    expect(second[0]!.method).toBe('initialize');
  });

  it('a reconnect to a 2025-era server reuses the era verdict and spawns one process without probing', async () => {
    const log = observationLog();
    const provider = await connect(stdioFixture('strict', 'legacy-raw-server.mjs', { args: ['exit'], env: { FIXTURE_LOG: log } }));
    expect(observed(log).filter((entry) => entry.event === 'start')).toHaveLength(2);
    expect(await provider.disconnectServer('strict')).toBe(true);
    const result = await provider.call('mcp_strict_echo', { text: 'again' });
    expect(result.isError).toBe(false);
    const starts = observed(log).filter((entry) => entry.event === 'start');
    expect(starts).toHaveLength(3);
    const third = observed(log).filter((entry) => entry.pid === starts[2]!.pid && entry.method);
    expect(third.map((entry) => entry.method)).not.toContain('server/discover');
    expect(third[0]!.method).toBe('initialize');
  });

  it('a reconnect to a 2026-07-28 server reuses the discovery result', async () => {
    const log = observationLog();
    const provider = await connect(stdioFixture('v2', 'v2-server.mjs', { env: { FIXTURE_LOG: log } }));
    await provider.disconnectServer('v2');
    expect((await provider.call('mcp_v2_echo', { text: 'x' })).isError).toBe(false);
    const starts = observed(log).filter((entry) => entry.event === 'start');
    expect(starts).toHaveLength(2);
    const second = observed(log).filter((entry) => entry.pid === starts[1]!.pid && entry.method);
    expect(second.map((entry) => entry.method)).not.toContain('server/discover');
    expect(eraOf(provider).era).toBe('modern');
  });

  it('auto falls back after the probe times out when a legacy server ignores it', async () => {
    const provider = await connect(
      stdioFixture('silent', 'legacy-raw-server.mjs', { args: ['silent'], config: { timeouts: { probeMs: 300 } } }),
    );
    expect(eraOf(provider).era).toBe('legacy');
    expect((await provider.call('mcp_silent_echo', { text: 'x' })).isError).toBe(false);
  });

  it('discover requires the stateless lifecycle and fails on a 2025-era server', async () => {
    const provider = new McpToolProvider({
      servers: [stdioFixture('v1', 'v1-server.mjs', { config: { lifecycle: 'discover', required: true } })],
    });
    providers.push(provider);
    await expect(provider.init()).rejects.toMatchObject({ code: 'server_unavailable', serverId: 'v1' });
    expect(provider.serverStatuses()[0]!.state).toBe('failed');
  });

  it('discover connects to a v2 server on 2026-07-28', async () => {
    const provider = await connect(stdioFixture('v2', 'v2-server.mjs', { config: { lifecycle: 'discover' } }));
    expect(eraOf(provider).protocolVersion).toBe('2026-07-28');
  });

  it('initialize uses the legacy handshake even with a v2 server, and never probes', async () => {
    const log = observationLog();
    const provider = await connect(stdioFixture('v2', 'v2-server.mjs', { env: { FIXTURE_LOG: log }, config: { lifecycle: 'initialize' } }));
    expect(eraOf(provider)).toEqual({ era: 'legacy', protocolVersion: '2025-11-25', state: 'ready' });
    expect(observed(log).map((entry) => entry.method)).not.toContain('server/discover');
  });
});

describe('protocol lifecycles over Streamable HTTP', () => {
  async function httpServer(): Promise<string> {
    const server = await startHttpFixture('v2-server.mjs', { env: { FIXTURE_TITLE: 'HTTP fixture', FIXTURE_INSTRUCTIONS: 'Call echo.' } });
    servers.push(server);
    return server.url;
  }

  for (const [lifecycle, era] of [
    ['auto', 'modern'],
    ['discover', 'modern'],
    ['initialize', 'legacy'],
  ] as const) {
    it(`${lifecycle} reaches the ${era} era of a v2 server and calls a tool`, async () => {
      const url = await httpServer();
      const provider = await connect({ id: 'web', transport: { type: 'http', url }, lifecycle });
      expect(eraOf(provider).era).toBe(era);
      const result = await provider.call('mcp_web_add', { a: 2, b: 40 });
      expect(result.isError).toBe(false);
      expect(result.output).toMatchObject({ server_id: 'web', tool: 'add', structuredContent: { sum: 42 } });
      const [group] = provider.groups();
      expect(group).toMatchObject({ id: 'mcp:web', title: 'HTTP fixture', instructions: 'Call echo.' });
    });
  }
});

describe('closing a session', () => {
  for (const http of [false, true]) {
    it(`closes its ${http ? 'Streamable HTTP' : 'stdio'} transport once, and the SDK handles that close once`, async () => {
      let transport = stdioFixture('once', 'v2-server.mjs').transport;
      if (http) {
        const server = await startHttpFixture('v2-server.mjs');
        servers.push(server);
        transport = { type: 'http', url: server.url };
      }
      const session = await openSession({ config: resolveServerConfig({ id: 'once', transport }), logger: silentLogger, prior: undefined, signal: new AbortController().signal });
      const reported = session.transport.onclose!;
      let closes = 0;
      session.transport.onclose = () => {
        closes++;
        reported();
      };
      await session.close();
      expect(closes).toBe(1);
      expect(session.closed).toBe(true);
    });
  }
});
