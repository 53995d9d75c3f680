/**
 * The direct `tools/call` path (`HostClient.directCallTool`, issue 16) against a real v2
 * server on both eras and both transports: which calls take it (the server logs each
 * request id; direct ones are negative), and that what they return is exactly what the
 * raw SDK `Client.callTool` returns for the same call on the same server.
 */
import { getMaxListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpToolProvider, type McpServerConfig } from '../src/index.js';
import { fixture, type HttpFixture, observationLog, observed, startHttpFixture, stdioFixture } from './helpers.js';

const ERAS = [
  { era: 'modern', lifecycle: 'discover', mode: { pin: '2026-07-28' } },
  { era: 'legacy', lifecycle: 'initialize', mode: 'legacy' },
] as const;

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

let http: HttpFixture;
beforeAll(async () => {
  http = await startHttpFixture('v2-server.mjs');
});
afterAll(async () => {
  await http.close();
});

async function provider(server: McpServerConfig): Promise<McpToolProvider> {
  const instance = new McpToolProvider({ servers: [server] });
  closers.push(() => instance.close());
  await instance.init();
  return instance;
}

async function rawClient(era: (typeof ERAS)[number], transport: Transport): Promise<Client> {
  const client = new Client({ name: 'raw', version: '0' }, { versionNegotiation: { mode: era.mode } });
  closers.push(() => client.close());
  await client.connect(transport);
  await client.listTools();
  return client;
}

const CALLS: [string, Record<string, unknown>][] = [
  ['echo', { text: 'hello' }],
  ['fail', {}],
  ['pixel', {}],
  ['add', { a: 2, b: 3 }],
];

describe('the direct call path', () => {
  for (const era of ERAS) {
    it(`takes plain tools directly and leaves a tool with an outputSchema to the SDK over stdio (${era.era})`, async () => {
      const log = observationLog();
      const server = stdioFixture('v', 'v2-server.mjs', { env: { FIXTURE_LOG: log }, config: { lifecycle: era.lifecycle } });
      const fleet = await provider(server);
      for (const [tool, args] of CALLS) await fleet.callServerTool('v', tool, args);
      // The stdio fixture logs ids, not tool names: calls went out in CALLS order.
      const ids = observed(log)
        .filter((entry) => entry.event === 'message' && entry.method === 'tools/call')
        .map((entry) => entry.id as number);
      expect(ids).toHaveLength(CALLS.length);
      expect(ids.slice(0, 3).every((id) => id < 0)).toBe(true);
      expect(ids[3]).toBeGreaterThanOrEqual(0);
    });

    for (const transport of ['stdio', 'http'] as const) {
      it(`returns what the raw SDK returns for the same calls over ${transport} (${era.era})`, async () => {
        const server: McpServerConfig =
          transport === 'stdio'
            ? stdioFixture('v', 'v2-server.mjs', { config: { lifecycle: era.lifecycle } })
            : { id: 'v', transport: { type: 'http', url: http.url }, lifecycle: era.lifecycle };
        const fleet = await provider(server);
        const raw = await rawClient(
          era,
          transport === 'stdio'
            ? new StdioClientTransport({ command: process.execPath, args: [fixture('v2-server.mjs')], stderr: 'ignore' })
            : new StreamableHTTPClientTransport(new URL(http.url)),
        );
        expect(fleet.serverStatuses()[0]?.protocolVersion).toBe(raw.getNegotiatedProtocolVersion());
        for (const [tool, args] of CALLS) {
          expect(await fleet.callServerTool('v', tool, args), tool).toEqual(await raw.callTool({ name: tool, arguments: args }));
        }
      });
    }
  }

  for (const era of ERAS) {
    it(`cancels a call it gave up on over HTTP, as the SDK does on that era (${era.era})`, async () => {
      const log = observationLog();
      const server = await startHttpFixture('context-server.mjs', { args: ['--http'], env: { FIXTURE_LOG: log } });
      closers.push(() => server.close());
      const fleet = await provider({ id: 'c', transport: { type: 'http', url: server.url }, lifecycle: era.lifecycle });
      const result = await fleet.call('mcp_c_hang', {}, { timeoutMs: 300 });
      expect(result).toMatchObject({ isError: true, output: { error: { code: 'timeout' } } });
      // 2026-07-28 ends the request's own stream, which aborts the handler; a 2025 stateless
      // server gets notifications/cancelled naming the (negative, direct) request id.
      const expected = era.era === 'modern' ? 'hang-aborted' : 'cancelled';
      await vi.waitFor(() => expect(observed(log).some((entry) => entry.event === expected)).toBe(true));
      if (era.era === 'legacy') expect(observed(log).find((entry) => entry.event === 'cancelled')?.requestId).toBeLessThan(0);
    });
  }

  it('makes thousands of calls in flight over a 2025-11-25 HTTP session without a listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const fleet = await provider({ id: 'v', transport: { type: 'http', url: http.url }, lifecycle: 'initialize', concurrency: 'parallel' });
      for (let batch = 0; batch < 30; batch++) {
        const results = await Promise.all(Array.from({ length: 64 }, () => fleet.call('mcp_v_echo', { text: 'hi' })));
        expect(results.every((result) => !result.isError)).toBe(true);
      }
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('leaves the signal of every HTTP request readable by events.getMaxListeners, which undici calls for each request', async () => {
    // A limit of 0 on an EventTarget makes getMaxListeners throw; undici catches that in
    // every Request constructor, which cost a built error (about 33 µs) per call.
    const unreadable: string[] = [];
    let signals = 0;
    const realFetch = globalThis.fetch;
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
      if (init?.signal) {
        signals++;
        try {
          getMaxListeners(init.signal);
        } catch (error) {
          unreadable.push(String(error));
        }
      }
      return realFetch(input, init);
    });
    try {
      for (const lifecycle of ['discover', 'initialize'] as const) {
        const fleet = await provider({ id: `s-${lifecycle}`, transport: { type: 'http', url: http.url }, lifecycle });
        for (let call = 0; call < 3; call++) expect((await fleet.call(`mcp_s_${lifecycle}_echo`, { text: 'hi' })).isError).toBeFalsy();
      }
      expect(spy).toHaveBeenCalled();
      // Not vacuous: the requests did carry signals to read.
      expect(signals).toBeGreaterThan(0);
      expect(unreadable).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  it('hands an input round with nothing to answer to the SDK, which resumes it with the server\'s state', async () => {
    const log = observationLog();
    const fleet = await provider(stdioFixture('t', 'task-server.mjs', { env: { FIXTURE_LOG: log }, config: { lifecycle: 'discover' } }));
    const result = await fleet.callServerTool('t', 'again', {});
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'resumed again-state' }] });
    const rounds = observed(log).filter((entry) => entry.event === 'again-round');
    expect(rounds.map((entry) => entry.requestState)).toEqual([null, 'again-state']);
    // The first leg went out on the direct path, the resumed one on the SDK's.
    const ids = observed(log)
      .filter((entry) => entry.event === 'message' && entry.method === 'tools/call')
      .map((entry) => entry.id as number);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBeLessThan(0);
    expect(ids[1]).toBeGreaterThanOrEqual(0);
  });

  it('leaves a tool with an x-mcp-header argument to the SDK, which mirrors it into the header the server requires', async () => {
    const server = await startHttpFixture('v2-server.mjs', { args: ['--http'], env: { FIXTURE_HEADER_TOOL: '1' } });
    closers.push(() => server.close());
    const fleet = await provider({ id: 'h', transport: { type: 'http', url: server.url }, lifecycle: 'discover' });
    const listed = fleet.definitions().find((definition) => definition.name === 'mcp_h_regional');
    expect(JSON.stringify(listed?.parameters)).toContain('"x-mcp-header":"Region"');
    // The server answers -32020 (header mismatch) to a call whose Mcp-Param-Region is missing.
    expect(await fleet.callServerTool('h', 'regional', { region: 'eu-west' })).toMatchObject({ content: [{ type: 'text', text: 'served from eu-west' }] });
  });
});
