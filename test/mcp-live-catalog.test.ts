import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpRefreshError, McpToolProvider, type McpLifecycle, type McpServerConfig } from '../src/index.js';
import { type HttpFixture, observationLog, observed, startHttpFixture, stdioFixture } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function started(...servers: McpServerConfig[]): Promise<McpToolProvider> {
  const provider = new McpToolProvider({ servers });
  cleanups.push(() => provider.close());
  await provider.init();
  return provider;
}

async function httpFixture(file: string, env: Record<string, string>): Promise<HttpFixture> {
  const server = await startHttpFixture(file, { env });
  cleanups.push(() => server.close());
  return server;
}

const names = (provider: McpToolProvider): string[] => provider.definitions().map((definition) => definition.name);

/** A tools file the catalog fixture re-reads on every tools/list (and watches, to notify). */
function toolsFile(tools: object[]): string {
  const file = join(dirname(observationLog()), 'tools.json');
  writeFileSync(file, JSON.stringify(tools));
  return file;
}

describe('tools/list_changed', () => {
  const cases: { label: string; lifecycle: McpLifecycle; http: boolean; era: string }[] = [
    { label: 'a 2026-07-28 stdio server (subscriptions/listen)', lifecycle: 'auto', http: false, era: 'modern' },
    { label: 'a 2025-era stdio server (unsolicited notification)', lifecycle: 'initialize', http: false, era: 'legacy' },
    { label: 'a 2026-07-28 Streamable HTTP server (subscriptions/listen)', lifecycle: 'auto', http: true, era: 'modern' },
  ];
  for (const { label, lifecycle, http, era } of cases) {
    it(`refreshes the catalog of ${label} on the next call, without an explicit refresh`, async () => {
      const file = toolsFile([{ name: 'first' }]);
      const log = observationLog();
      const env = { FIXTURE_TOOLS_FILE: file, FIXTURE_LOG: log };
      const transport = http
        ? ({ type: 'http', url: (await httpFixture('catalog-server.mjs', env)).url } as const)
        : stdioFixture('live', 'catalog-server.mjs', { env }).transport;
      const provider = await started({ id: 'live', transport, lifecycle });
      expect(provider.serverStatuses()[0]!.era).toBe(era);
      expect(names(provider)).toEqual(['mcp_live_first']);
      writeFileSync(file, JSON.stringify([{ name: 'first' }, { name: 'second' }]));
      await vi.waitFor(
        async () => {
          expect((await provider.call('mcp_live_first', {})).isError).toBe(false);
          expect(names(provider)).toEqual(['mcp_live_first', 'mcp_live_second']);
        },
        { timeout: 10_000, interval: 100 },
      );
      expect((await provider.call('mcp_live_second', {})).isError).toBe(false);
    });
  }

  it('refreshes the catalog of a sessionful 2025-era HTTP server that pushes the notification', async () => {
    const file = toolsFile([]);
    const server = await httpFixture('legacy-http-server.mjs', { FIXTURE_TOOLS_FILE: file });
    const provider = await started({ id: 'old', transport: { type: 'http', url: server.url } });
    expect(provider.serverStatuses()[0]!.era).toBe('legacy');
    expect(names(provider)).toEqual(['mcp_old_echo']);
    writeFileSync(file, 'extra');
    await vi.waitFor(
      async () => {
        await provider.call('mcp_old_echo', { text: 'x' });
        expect(names(provider)).toEqual(['mcp_old_echo', 'mcp_old_extra']);
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it('fails a call to a tool that changed under it with "select the tool again", reaching no server', async () => {
    const file = toolsFile([{ name: 'tool', description: 'v1' }]);
    const log = observationLog();
    const provider = await started(stdioFixture('s', 'catalog-server.mjs', { env: { FIXTURE_TOOLS_FILE: file, FIXTURE_LOG: log } }));
    writeFileSync(file, JSON.stringify([{ name: 'tool', description: 'v2, with other semantics' }]));
    let result;
    await vi.waitFor(
      async () => {
        result = await provider.call('mcp_s_tool', {});
        expect(result.isError).toBe(true);
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(result).toMatchObject({ output: { error: { code: 'catalog_changed' } } });
    expect(JSON.stringify(result)).toContain('select the tool again');
    expect(provider.definitions()[0]!.description).toContain('v2, with other semantics');
    // The calls before the change reached the server; the stale one did not.
    const before = observed(log).filter((entry) => entry.event === 'call-start').length;
    expect((await provider.call('mcp_s_tool', {})).isError).toBe(false);
    expect(observed(log).filter((entry) => entry.event === 'call-start')).toHaveLength(before + 1);
  });
});

describe('refresh coordination', () => {
  it('shares one tools/list between concurrent callers of a dirty server', async () => {
    const log = observationLog();
    const provider = await started(
      stdioFixture('s', 'catalog-server.mjs', { env: { FIXTURE_TOOLS: '[{"name":"a"}]', FIXTURE_LOG: log }, config: { concurrency: 'parallel' } }),
    );
    await provider.disconnectServer('s');
    const results = await Promise.all([provider.call('mcp_s_a', {}), provider.call('mcp_s_a', {}), provider.call('mcp_s_a', {})]);
    expect(results.every((result) => !result.isError)).toBe(true);
    expect(observed(log).filter((entry) => entry.method === 'tools/list')).toHaveLength(2);
  });

  it('keeps the catalog dirty when a refresh is cancelled before publication, so the next use lists again', async () => {
    const log = observationLog();
    const gate = join(dirname(log), 'list-gate');
    writeFileSync(gate, '');
    const provider = await started(
      stdioFixture('s', 'catalog-server.mjs', { env: { FIXTURE_TOOLS: '[{"name":"a"}]', FIXTURE_LOG: log, FIXTURE_LIST_GATE: gate } }),
    );
    const { rmSync } = await import('node:fs');
    rmSync(gate);
    const controller = new AbortController();
    const refresh = provider.refresh({ signal: controller.signal });
    await vi.waitFor(() => expect(observed(log).filter((entry) => entry.method === 'tools/list')).toHaveLength(2));
    controller.abort(new Error('changed my mind'));
    await expect(refresh).rejects.toBeInstanceOf(McpRefreshError);
    // The caller changed its mind; the server did nothing wrong.
    expect(provider.serverStatuses()[0]).not.toMatchObject({ state: 'failed' });
    writeFileSync(gate, '');
    expect((await provider.call('mcp_s_a', {})).isError).toBe(false);
    expect(observed(log).filter((entry) => entry.method === 'tools/list')).toHaveLength(3);
  });

  it('lets a call give up at its deadline while another server holds up the refresh of its server, without marking that server failed', async () => {
    // "a" lists behind a gate; a bulk refresh publishes in server-id order, so "b" (listed
    // already) waits for "a" holding b's refresh lock. A call to b after b reconnects needs a
    // refresh of b, and must not outwait its own deadline for that lock.
    const logA = observationLog();
    const logB = observationLog();
    const gate = join(dirname(logA), 'list-gate');
    writeFileSync(gate, '');
    const provider = await started(
      stdioFixture('a', 'catalog-server.mjs', { env: { FIXTURE_TOOLS: '[{"name":"x"}]', FIXTURE_LOG: logA, FIXTURE_LIST_GATE: gate } }),
      stdioFixture('b', 'catalog-server.mjs', { env: { FIXTURE_TOOLS: '[{"name":"echo"}]', FIXTURE_LOG: logB } }),
    );
    const lists = (log: string) => observed(log).filter((entry) => entry.method === 'tools/list').length;
    rmSync(gate);
    const bulk = provider.refresh().catch((error: unknown) => error);
    await vi.waitFor(() => expect(lists(logB)).toBe(2));
    await provider.disconnectServer('b');
    // Safety net only: without the fix the call would wait for the gate.
    let openedByTimer = false;
    const safety = setTimeout(() => {
      openedByTimer = true;
      writeFileSync(gate, '');
    }, 20_000);
    const result = await provider.call('mcp_b_echo', {}, { timeoutMs: 300 });
    clearTimeout(safety);
    expect(openedByTimer).toBe(false);
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'timeout' } } });
    expect(provider.serverStatuses().find((status) => status.id === 'b')?.state).not.toBe('failed');
    writeFileSync(gate, '');
    await bulk;
    expect((await provider.call('mcp_b_echo', {})).isError).toBe(false);
    expect(provider.serverStatuses().find((status) => status.id === 'b')?.state).toBe('ready');
  });

  it('keeps the catalog dirty when a change is notified while a catalog that is rejected as a whole is listed', async () => {
    const log = observationLog();
    const gate = join(dirname(log), 'list-gate');
    writeFileSync(gate, '');
    const file = toolsFile([{ name: 'ok' }]);
    const provider = await started(
      stdioFixture('s', 'catalog-server.mjs', {
        env: { FIXTURE_TOOLS_FILE: file, FIXTURE_LOG: log, FIXTURE_LIST_GATE: gate },
      }),
    );
    const lists = () => observed(log).filter((entry) => entry.method === 'tools/list').length;
    const changes = () => observed(log).filter((entry) => entry.event === 'tools-changed').length;
    // A tool listed twice: a listing no one can trust, where a tool over a budget would only be left out.
    const broken = JSON.stringify([{ name: 'ok' }, { name: 'twin' }, { name: 'twin' }]);
    rmSync(gate);
    writeFileSync(file, broken);
    await vi.waitFor(() => expect(changes()).toBeGreaterThan(0));
    const listedBefore = lists();
    const refresh = provider.refresh().catch((error: unknown) => error);
    await vi.waitFor(() => expect(lists()).toBe(listedBefore + 1));
    // While the server is listing, it says its tools changed again (the notification precedes the answer on the wire).
    const changesBefore = changes();
    writeFileSync(file, broken);
    await vi.waitFor(() => expect(changes()).toBeGreaterThan(changesBefore));
    writeFileSync(gate, '');
    expect(await refresh).toBeInstanceOf(McpRefreshError);
    // The change notified during that listing is not lost: the next call lists again.
    expect((await provider.call('mcp_s_ok', {})).isError).toBe(false);
    expect(lists()).toBe(listedBefore + 2);
  });

  it('reports each failing server from an explicit refresh and keeps publishing the others', async () => {
    const log = observationLog();
    const provider = await started(
      stdioFixture('good', 'catalog-server.mjs', { env: { FIXTURE_TOOLS: '[{"name":"a"}]' } }),
      stdioFixture('bad', 'catalog-server.mjs', { env: { FIXTURE_TOOLS: '[{"name":"b"}]', FIXTURE_LOG: log } }),
    );
    process.kill(observed(log)[0]!.pid, 'SIGKILL');
    await vi.waitFor(() => expect(provider.serverStatuses()[0]!.state).toBe('disconnected'));
    // Replace the program so the reconnect fails: remove and re-add is the config change path,
    // here we only check that a failure is reported per server.
    await provider.removeServer('bad');
    await provider.addServer({ id: 'bad', transport: { type: 'stdio', command: process.execPath, args: ['-e', 'process.exit(1)'] }, startup: 'background' });
    const failure = await provider.refresh().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpRefreshError);
    expect((failure as McpRefreshError).failures.map((entry) => entry.serverId)).toEqual(['bad']);
    expect((failure as McpRefreshError).message).toMatch(/^Failed to refresh MCP servers: bad: /);
    expect(names(provider)).toEqual(['mcp_good_a']);
  });
});
