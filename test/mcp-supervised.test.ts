import { rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpToolProvider, type McpServerClosedEvent, type McpServerConfig } from '../src/index.js';
import { observationLog, observed, startHttpFixture, stdioFixture, type HttpFixture } from './helpers.js';

const providers: McpToolProvider[] = [];
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.close()));
});

/** A provider in manual reconnect mode over `servers`, recording the closed events it reports. */
async function supervised(servers: McpServerConfig[]): Promise<{ provider: McpToolProvider; closed: McpServerClosedEvent[] }> {
  const closed: McpServerClosedEvent[] = [];
  const provider = new McpToolProvider({ servers, reconnect: 'manual', onServerClosed: (event) => closed.push(event) });
  providers.push(provider);
  await provider.init();
  return { provider, closed };
}

const starts = (log: string) => observed(log).filter((entry) => entry.event === 'start');

describe('manual reconnect mode (a supervisor owns restarts)', () => {
  it('reports how a stdio server ended, and no call starts it again', async () => {
    const log = observationLog();
    const { provider, closed } = await supervised([stdioFixture('s', 'fleet-server.mjs', { env: { FIXTURE_LOG: log } })]);
    expect(provider.serverStatuses()[0]!.pid).toBe(starts(log)[0]!.pid);
    process.kill(starts(log)[0]!.pid, 'SIGKILL');
    await vi.waitFor(() => expect(closed).toHaveLength(1));
    expect(closed[0]).toEqual({ serverId: 's', reason: 'the server process was killed by SIGKILL' });

    const result = await provider.call('mcp_s_echo', { text: 'hi' });
    expect(result.output).toMatchObject({ error: { code: 'server_unavailable' } });
    expect(JSON.stringify(result.output)).toContain('killed by SIGKILL');
    await expect(provider.refreshServer('s')).rejects.toThrow(/is not running/);
    expect(starts(log)).toHaveLength(1);
    // Its tools stay published while it is down: the model's names keep working once it is back.
    expect(provider.definitions().map((tool) => tool.name)).toEqual(['mcp_s_echo', 'mcp_s_whoami']);
    expect(provider.serverStatuses()[0]).toMatchObject({ state: 'failed', lastError: 'the server process was killed by SIGKILL' });
  });

  it('reconnectServer starts one new process and keeps the names', async () => {
    const log = observationLog();
    const { provider } = await supervised([stdioFixture('s', 'fleet-server.mjs', { env: { FIXTURE_LOG: log } })]);
    const names = provider.definitions().map((tool) => tool.name);
    process.kill(starts(log)[0]!.pid, 'SIGKILL');
    await vi.waitFor(() => expect(provider.serverStatuses()[0]!.state).toBe('failed'));

    await provider.reconnectServer('s');
    expect(starts(log)).toHaveLength(2);
    expect(provider.definitions().map((tool) => tool.name)).toEqual(names);
    const result = await provider.call('mcp_s_echo', { text: 'back' });
    expect(result.isError).toBe(false);
    expect(provider.serverStatuses()[0]).toMatchObject({ state: 'ready', pid: starts(log)[1]!.pid });
  });

  it('a failed reconnect holds the server down until the next reconnectServer', async () => {
    const log = observationLog();
    const marker = `${log}.refuse`;
    const { provider } = await supervised([
      stdioFixture('s', 'fleet-server.mjs', { env: { FIXTURE_LOG: log, FIXTURE_FAIL_IF_EXISTS: marker }, config: { lifecycle: 'initialize' } }),
    ]);
    writeFileSync(marker, '');
    process.kill(starts(log)[0]!.pid, 'SIGKILL');
    await vi.waitFor(() => expect(provider.serverStatuses()[0]!.state).toBe('failed'));
    const refused = () => observed(log).filter((entry) => entry.event === 'refused-start');

    await expect(provider.reconnectServer('s')).rejects.toThrow(/could not be set up/);
    expect(refused()).toHaveLength(1);
    const result = await provider.call('mcp_s_echo', { text: 'x' });
    expect(result.output).toMatchObject({ error: { code: 'server_unavailable' } });
    expect(refused()).toHaveLength(1);

    rmSync(marker);
    await provider.reconnectServer('s');
    expect((await provider.call('mcp_s_echo', { text: 'x' })).isError).toBe(false);
    expect(starts(log)).toHaveLength(2);
  });
});

describe('health checks', () => {
  it('a remote server that stopped answering is reported closed, and stays down in manual mode', async () => {
    const fixture = await startHttpFixture('fleet-server.mjs');
    fixtures.push(fixture);
    const { provider, closed } = await supervised([{ id: 'r', transport: { type: 'http', url: fixture.url }, timeouts: { probeMs: 2_000 } }]);
    await expect(provider.checkServer('r')).resolves.toBe(true);
    await fixture.close();
    await expect(provider.checkServer('r')).resolves.toBe(false);
    expect(closed).toHaveLength(1);
    expect(closed[0]!.reason).toMatch(/^the server did not answer a health check: /);
    const result = await provider.call('mcp_r_echo', { text: 'x' });
    expect(result.output).toMatchObject({ error: { code: 'server_unavailable' } });
    // Nothing is connected now: a check says so without connecting.
    await expect(provider.checkServer('r')).resolves.toBe(false);
    expect(closed).toHaveLength(1);
  });

  it('uses ping on a legacy session and server/discover on a 2026-07-28 session', async () => {
    const legacyLog = observationLog();
    const modernLog = observationLog();
    const provider = new McpToolProvider({
      servers: [
        stdioFixture('old', 'fleet-server.mjs', { env: { FIXTURE_LOG: legacyLog }, config: { lifecycle: 'initialize' } }),
        stdioFixture('new', 'fleet-server.mjs', { env: { FIXTURE_LOG: modernLog }, config: { lifecycle: 'discover' } }),
      ],
    });
    providers.push(provider);
    await provider.init();
    const methods = (log: string) => observed(log).flatMap((entry) => (entry.method === undefined ? [] : [entry.method]));
    const discoversBefore = methods(modernLog).filter((method) => method === 'server/discover').length;
    await expect(provider.checkServer('old')).resolves.toBe(true);
    await expect(provider.checkServer('new')).resolves.toBe(true);
    await vi.waitFor(() => expect(methods(legacyLog)).toContain('ping'));
    await vi.waitFor(() => expect(methods(modernLog).filter((method) => method === 'server/discover')).toHaveLength(discoversBefore + 1));
    expect(methods(modernLog)).not.toContain('ping');
  });

  it('in lazy mode a failed check only retires the session: the next call reconnects', async () => {
    const fixture = await startHttpFixture('fleet-server.mjs');
    fixtures.push(fixture);
    const provider = new McpToolProvider({ servers: [{ id: 'r', transport: { type: 'http', url: fixture.url }, timeouts: { probeMs: 2_000 } }] });
    providers.push(provider);
    await provider.init();
    await fixture.close();
    await expect(provider.checkServer('r')).resolves.toBe(false);
    expect(provider.serverStatuses()[0]!.state).not.toBe('ready');
  });
});
