import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpToolProvider, type McpConcurrency } from '../src/index.js';
import { observationLog, observed, stdioFixture } from './helpers.js';

const providers: McpToolProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

async function started(concurrency: McpConcurrency) {
  const log = observationLog();
  const gate = join(dirname(log), 'gate');
  const tools = [
    { name: 'read_a', annotations: { readOnlyHint: true }, _fixture: { gate } },
    { name: 'read_b', annotations: { readOnlyHint: true }, _fixture: { gate } },
    { name: 'write', annotations: { readOnlyHint: false }, _fixture: { gate } },
  ];
  const provider = new McpToolProvider({
    servers: [stdioFixture('s', 'catalog-server.mjs', { env: { FIXTURE_TOOLS: JSON.stringify(tools), FIXTURE_LOG: log }, config: { concurrency } })],
  });
  providers.push(provider);
  await provider.init();
  const open = () => writeFileSync(gate, '');
  const starts = () => observed(log).filter((entry) => entry.event === 'call-start');
  const maxActive = () => Math.max(0, ...starts().map((entry) => entry.active as number));
  return { provider, open, starts, maxActive, log };
}

/**
 * Gives a call that is wrongly allowed to run the time to reach the server, so the test
 * can see that it did not. (A pause here cannot make the test pass wrongly, only slower.)
 */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 300));
}

describe('call concurrency per server', () => {
  it('serial: two calls never overlap on the server', async () => {
    const { provider, open, starts, maxActive } = await started('serial');
    const calls = [provider.call('mcp_s_read_a', {}), provider.call('mcp_s_read_b', {})];
    await vi.waitFor(() => expect(starts()).toHaveLength(1));
    await settle();
    expect(starts()).toHaveLength(1);
    open();
    expect((await Promise.all(calls)).every((result) => !result.isError)).toBe(true);
    expect(maxActive()).toBe(1);
  });

  it('read_only_parallel: read-only calls overlap, a write runs alone', async () => {
    const { provider, open, starts, maxActive } = await started('read_only_parallel');
    const reads = [provider.call('mcp_s_read_a', {}), provider.call('mcp_s_read_b', {})];
    // Both reads are on the server at once; if they were serialised this would time out.
    await vi.waitFor(() => expect(starts()).toHaveLength(2));
    expect(maxActive()).toBe(2);
    const write = provider.call('mcp_s_write', {});
    await settle();
    expect(starts().map((entry) => entry.tool)).not.toContain('write');
    open();
    expect((await Promise.all([...reads, write])).every((result) => !result.isError)).toBe(true);
    const writeStart = starts().find((entry) => entry.tool === 'write')!;
    expect(writeStart.active).toBe(1);
  });

  it('parallel: every call may overlap, writes included', async () => {
    const { provider, open, starts, maxActive } = await started('parallel');
    const calls = [provider.call('mcp_s_write', {}), provider.call('mcp_s_write', {}), provider.call('mcp_s_read_a', {})];
    await vi.waitFor(() => expect(starts()).toHaveLength(3));
    expect(maxActive()).toBe(3);
    open();
    await Promise.all(calls);
  });
});
