import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { McpToolProvider, type McpLifecycle, type McpServerConfig, type McpTimeouts } from '../src/index.js';
import { observationLog, observed, stdioFixture } from './helpers.js';

const providers: McpToolProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

const TOOLS = (gate: string) => [
  { name: 'hang', _fixture: { hang: true } },
  { name: 'gated', _fixture: { gate } },
  { name: 'progress', _fixture: { progressMs: 100, durationMs: 1_500 } },
  { name: 'echo' },
];

async function started(timeouts: Partial<McpTimeouts>, lifecycle: McpLifecycle = 'auto') {
  const log = observationLog();
  const gate = join(dirname(log), 'gate');
  const config: McpServerConfig = stdioFixture('s', 'catalog-server.mjs', {
    env: { FIXTURE_TOOLS: JSON.stringify(TOOLS(gate)), FIXTURE_LOG: log },
    config: { timeouts, lifecycle },
  });
  const provider = new McpToolProvider({ servers: [config] });
  providers.push(provider);
  await provider.init();
  return { provider, log, gate };
}

const cancellations = (log: string) => observed(log).filter((entry) => entry.method === 'notifications/cancelled');
const callStarts = (log: string, tool: string) => observed(log).filter((entry) => entry.event === 'call-start' && entry.tool === tool);

describe('deadlines', () => {
  for (const lifecycle of ['auto', 'initialize'] as const) {
    it(`ends a hung call at the logical deadline with a tool-level error and cancels it on the server (${lifecycle})`, async () => {
      const { provider, log } = await started({ callMs: 800 }, lifecycle);
      const result = await provider.call('mcp_s_hang', {});
      expect(result.isError).toBe(true);
      expect(result.output).toMatchObject({ error: { code: 'timeout' } });
      expect(JSON.stringify(result.modelOutput)).toContain('timeouts.callMs');
      await vi.waitFor(() => expect(cancellations(log)).toHaveLength(1));
      // The session survives: the next call works.
      expect((await provider.call('mcp_s_echo', {})).isError).toBe(false);
    });
  }

  it('ends a request at the per-request timeout, naming it', async () => {
    const { provider, log } = await started({ requestMs: 500 });
    const result = await provider.call('mcp_s_hang', {});
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'timeout' } } });
    expect(JSON.stringify(result.modelOutput)).toContain('timeouts.requestMs');
    await vi.waitFor(() => expect(cancellations(log)).toHaveLength(1));
  });

  it('lets server progress reset the per-request timeout', async () => {
    const { provider } = await started({ requestMs: 700 });
    const result = await provider.call('mcp_s_progress', {});
    expect(result.isError).toBe(false);
  });

  it('never lets progress extend the logical-call deadline', async () => {
    const { provider } = await started({ requestMs: 700, callMs: 900 });
    const result = await provider.call('mcp_s_progress', {});
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'timeout' } } });
    expect(JSON.stringify(result.modelOutput)).toContain('timeouts.callMs');
  });

  it('counts time spent waiting for the concurrency gate, and a call that times out there never reaches the server', async () => {
    const { provider, log, gate } = await started({});
    const holder = provider.call('mcp_s_gated', {});
    await vi.waitFor(() => expect(callStarts(log, 'gated')).toHaveLength(1));
    const queued = await provider.call('mcp_s_echo', {}, { timeoutMs: 500 });
    expect(JSON.stringify(queued.modelOutput)).toContain("the call's timeoutMs");
    expect(queued).toMatchObject({ isError: true, output: { error: { code: 'timeout' } } });
    expect(callStarts(log, 'echo')).toHaveLength(0);
    writeFileSync(gate, '');
    await holder;
  });

  it('cancels the request on the wire when the caller aborts, and rejects with the reason', async () => {
    const { provider, log } = await started({});
    const controller = new AbortController();
    const call = provider.call('mcp_s_hang', {}, { signal: controller.signal });
    await vi.waitFor(() => expect(callStarts(log, 'hang')).toHaveLength(1));
    controller.abort(new Error('the user pressed stop'));
    await expect(call).rejects.toThrow('the user pressed stop');
    await vi.waitFor(() => expect(cancellations(log)).toHaveLength(1));
  });
});
