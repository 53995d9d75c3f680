import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpToolProvider, type McpServerConfig } from '../src/index.js';
import { alive, observationLog, observed, stdioFixture } from './helpers.js';

const providers: McpToolProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

function catalogServer(id: string, tools: object[], log: string, config: Partial<McpServerConfig> = {}): McpServerConfig {
  return stdioFixture(id, 'catalog-server.mjs', { env: { FIXTURE_TOOLS: JSON.stringify(tools), FIXTURE_LOG: log }, config });
}

async function started(config: McpServerConfig): Promise<McpToolProvider> {
  const provider = new McpToolProvider({ servers: [config] });
  providers.push(provider);
  await provider.init();
  return provider;
}

const starts = (log: string) => observed(log).filter((entry) => entry.event === 'start');
const callStarts = (log: string, tool: string) => observed(log).filter((entry) => entry.event === 'call-start' && entry.tool === tool);

async function killServer(provider: McpToolProvider, log: string): Promise<void> {
  process.kill(starts(log).at(-1)!.pid, 'SIGKILL');
  await vi.waitFor(() => expect(provider.serverStatuses()[0]!.state).toBe('disconnected'));
}

describe('reconnection', () => {
  it('reconnects a killed stdio server on the next call, which succeeds', async () => {
    const log = observationLog();
    const provider = await started(catalogServer('s', [{ name: 'echo' }], log));
    await killServer(provider, log);
    const result = await provider.call('mcp_s_echo', { n: 1 });
    expect(result.isError).toBe(false);
    expect(starts(log)).toHaveLength(2);
    expect(provider.serverStatuses()[0]!.state).toBe('ready');
  });

  it('starts exactly one new process for 20 concurrent calls after a crash, and warns of no listener leak while they wait', async () => {
    const log = observationLog();
    const provider = await started(catalogServer('s', [{ name: 'echo' }], log, { concurrency: 'parallel' }));
    await killServer(provider, log);
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    let results;
    try {
      results = await Promise.all(Array.from({ length: 20 }, (_, n) => provider.call('mcp_s_echo', { n })));
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    expect(results.every((result) => !result.isError)).toBe(true);
    expect(starts(log)).toHaveLength(2);
    expect(callStarts(log, 'echo')).toHaveLength(20);
    // One tools/list per session: the initial one and the one after the reconnect.
    expect(observed(log).filter((entry) => entry.method === 'tools/list')).toHaveLength(2);
  });

  for (const lifecycle of ['discover', 'initialize'] as const) {
    it(`ends a caller's wait for a reconnect at its abort, and the reconnect goes on to ready without it (${lifecycle})`, async () => {
      const log = observationLog();
      const gate = join(dirname(log), 'boot');
      writeFileSync(gate, '');
      // A new process that never reads its stdin until the gate opens, and that the host would
      // wait 60 s for if it shut it down: a caller held by either would outlive the test's timeout.
      const config = catalogServer('s', [{ name: 'echo' }], log, { lifecycle, timeouts: { closeMs: 60_000 } });
      const provider = await started({ ...config, transport: { ...config.transport, env: { ...(config.transport as { env: Record<string, string> }).env, FIXTURE_BOOT_GATE: gate } } } as McpServerConfig);
      rmSync(gate);
      try {
        await killServer(provider, log);
        const controller = new AbortController();
        const call = provider.call('mcp_s_echo', { n: 1 }, { signal: controller.signal });
        await vi.waitFor(() => expect(starts(log)).toHaveLength(2), { timeout: 10_000 });
        controller.abort(new Error('the caller gave up'));
        await expect(call).rejects.toThrow('the caller gave up');
        // The new process is left to boot, and the status says so once it has.
        expect(alive(starts(log)[1]!.pid)).toBe(true);
      } finally {
        writeFileSync(gate, '');
      }
      await vi.waitFor(() => expect(provider.serverStatuses()[0]).toMatchObject({ state: 'ready', pid: starts(log)[1]!.pid }), { timeout: 10_000 });
      expect(provider.serverStatuses()[0]!.lastError).toBeUndefined();
      const result = await provider.call('mcp_s_echo', { n: 2 });
      expect(result.isError).toBe(false);
      expect(starts(log)).toHaveLength(2);
    });
  }

  it('says a call did not run when its server is killed while the catalog is listed after a reconnect', async () => {
    const log = observationLog();
    const gate = join(dirname(log), 'list');
    writeFileSync(gate, '');
    const config = catalogServer('s', [{ name: 'echo' }], log);
    const provider = await started({ ...config, transport: { ...config.transport, env: { ...(config.transport as { env: Record<string, string> }).env, FIXTURE_LIST_GATE: gate } } } as McpServerConfig);
    rmSync(gate);
    await killServer(provider, log);
    const call = provider.call('mcp_s_echo', { n: 1 });
    const listedBy = (pid: number) => observed(log).some((entry) => entry.pid === pid && entry.method === 'tools/list');
    await vi.waitFor(() => expect(starts(log).length === 2 && listedBy(starts(log)[1]!.pid)).toBe(true), { timeout: 10_000 });
    process.kill(starts(log)[1]!.pid, 'SIGKILL');
    const result = await call;
    expect(result.isError).toBe(true);
    expect(result.output).toMatchObject({ error: { code: 'call_not_sent' } });
    expect(JSON.stringify(result.output)).toMatch(/did not run/);
    expect(callStarts(log, 'echo')).toHaveLength(0);
  });

  it('never replays a call whose server crashed under it, and says so', async () => {
    const log = observationLog();
    const provider = await started(catalogServer('s', [{ name: 'boom', _fixture: { crash: true } }, { name: 'echo' }], log));
    const crashed = await provider.call('mcp_s_boom', {});
    expect(crashed.isError).toBe(true);
    expect(crashed.output).toMatchObject({ error: { code: 'server_disconnected' } });
    expect(JSON.stringify(crashed.modelOutput)).toContain('not retried');
    expect(callStarts(log, 'boom')).toHaveLength(1);
    expect((await provider.call('mcp_s_echo', {})).isError).toBe(false);
    expect(callStarts(log, 'boom')).toHaveLength(1);
    expect(starts(log)).toHaveLength(2);
  });
});

describe('disconnectServer', () => {
  it('lets a call already sent finish, and sends a queued one, which never left the host, on a new session', async () => {
    const log = observationLog();
    const gate = join(dirname(log), 'release-slow');
    const provider = await started(
      catalogServer('s', [{ name: 'slow', _fixture: { gate } }, { name: 'echo' }], log, { concurrency: 'serial' }),
    );
    const running = provider.call('mcp_s_slow', {});
    await vi.waitFor(() => expect(callStarts(log, 'slow')).toHaveLength(1));
    // Serial: this one waits behind the slow call.
    const queued = provider.call('mcp_s_echo', {});
    expect(await provider.disconnectServer('s')).toBe(true);
    expect(await provider.disconnectServer('s')).toBe(false);
    writeFileSync(gate, '');
    expect((await running).isError).toBe(false);
    // The queued call did not run on the retired session: it is the first use of a new one.
    expect((await queued).isError).toBe(false);
    expect(callStarts(log, 'echo')).toHaveLength(1);
    expect(starts(log)).toHaveLength(2);
    // The registration and its tools stay, and the new session serves the next call too.
    expect(provider.definitions().map((definition) => definition.name)).toEqual(['mcp_s_echo', 'mcp_s_slow']);
    expect((await provider.call('mcp_s_echo', {})).isError).toBe(false);
    expect(starts(log)).toHaveLength(2);
  });

  it('names an unknown server id in a clear error', async () => {
    const provider = await started(catalogServer('s', [{ name: 'echo' }], observationLog()));
    await expect(provider.disconnectServer('nope')).rejects.toThrow(/No MCP server is registered with id "nope"/);
  });
});

describe('a 2025-era HTTP session the server forgot (404)', () => {
  it('is re-initialised, and the call that met the 404 (which did not run) is sent once on the new session', async () => {
    const { startHttpFixture } = await import('./helpers.js');
    const log = observationLog();
    const server = await startHttpFixture('legacy-http-server.mjs', { env: { FIXTURE_LOG: log } });
    try {
      const provider = await started({ id: 'old', transport: { type: 'http', url: server.url } });
      await fetch(new URL('/admin/forget', server.url), { method: 'POST' });
      const resent = await provider.call('mcp_old_echo', { text: 'first' });
      expect(resent.isError).toBe(false);
      expect(observed(log).filter((entry) => entry.event === 'call')).toHaveLength(1);
      expect(observed(log).filter((entry) => entry.event === 'session')).toHaveLength(2);
      const again = await provider.call('mcp_old_echo', { text: 'second' });
      expect(again.isError).toBe(false);
      expect(observed(log).filter((entry) => entry.event === 'call')).toHaveLength(2);
      expect(observed(log).filter((entry) => entry.event === 'session')).toHaveLength(2);
      // A refresh that meets a forgotten session initialises once more and lists.
      await fetch(new URL('/admin/forget', server.url), { method: 'POST' });
      await provider.refresh();
      expect(observed(log).filter((entry) => entry.event === 'session')).toHaveLength(3);
      expect(provider.serverStatuses()[0]!.state).toBe('ready');
    } finally {
      await server.close();
    }
  });
});
