/**
 * Streamable HTTP faults a server commits in the middle of an answer (issue 26, points 10
 * to 12), against a real MCP server whose faults the test switches on and off while it
 * runs (test/fixtures/faulty-http.mjs): a stalled answer releases its socket once its call
 * gives up on it, a stream cut before its answer fails its call at once as a disconnect,
 * and a 2025-11-25 session the server forgot ends for everyone, with the calls that did not
 * run sent once on a new session. What the server observed (its open sockets, the requests
 * it got and on which session) decides; wall-clock bounds are only generous liveness bounds.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpToolProvider, type McpServerConfig, type ToolOutput } from '../src/index.js';
import { type HttpFixture, type Observation, observationLog, observed, startHttpFixture } from './helpers.js';

// A garbage collection takes undici's own link from a request's signal to its body
// (nodejs/node#55428): the stalls are tested after one, where only a body read by
// mcp-fleet itself still hears the abort.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ERAS = [
  { era: '2025-11-25', lifecycle: 'initialize', path: '/legacy' },
  { era: '2026-07-28', lifecycle: 'discover', path: '/modern' },
] as const;
type Era = (typeof ERAS)[number];

/** `echo` takes mcp-fleet's direct path (the lean POST); `echo_structured`, with an output schema, the SDK's callTool and send. */
const TOOLS = ['echo', 'echo_structured'] as const;

/** Far more than releasing a socket or failing a call takes; the faults held them for minutes. */
const PROMPTLY_MS = 5_000;

interface Faulty {
  server: HttpFixture;
  log: string;
  /** Posts to a control route; resolves with the fixture's state. */
  control(path: string, settings?: object): Promise<{ connections: number; stalled: number; sessions: number }>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function faulty(): Promise<Faulty> {
  const log = observationLog();
  const server = await startHttpFixture('faulty-http.mjs', { env: { FIXTURE_LOG: log } });
  cleanups.push(() => server.close());
  const control: Faulty['control'] = async (path, settings = {}) => {
    const response = await fetch(`${server.info.control}${path}`, { method: 'POST', body: JSON.stringify(settings) });
    return (await response.json()) as Awaited<ReturnType<Faulty['control']>>;
  };
  return { server, log, control };
}

async function connected(fixture: Faulty, era: Era, config: Partial<McpServerConfig> = {}): Promise<McpToolProvider> {
  const provider = new McpToolProvider({
    servers: [{ id: 'f', required: true, lifecycle: era.lifecycle, transport: { type: 'http', url: `${fixture.server.url}${era.path}` }, concurrency: 'parallel', ...config }],
  });
  cleanups.push(() => provider.close());
  await provider.init();
  expect(provider.serverStatuses()[0]!.protocolVersion).toBe(era.era);
  return provider;
}

const codeOf = (output: ToolOutput): string => (output.isError ? ((output.output as { error?: { code?: string } }).error?.code ?? 'tool_error') : 'ok');
const textOf = (output: ToolOutput): string => JSON.stringify(output.modelOutput);

/** Waits for calls while collecting garbage now and then, as a busy host would. */
async function withCollections<T>(work: Promise<T>): Promise<T> {
  let done = false;
  void work.finally(() => (done = true)).catch(() => {});
  while (!done) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    gc();
  }
  return work;
}

/** Five calls to `tool` at once, all of which must time out on the stalled answer. */
async function fiveTimeOut(provider: McpToolProvider, tool: string, label: string): Promise<void> {
  const calls = Array.from({ length: 5 }, (_, n) => provider.call(provider.toolName('f', tool)!, { text: `call ${n}` }));
  const outputs = await withCollections(Promise.all(calls));
  expect(outputs.map(codeOf), label).toEqual(['timeout', 'timeout', 'timeout', 'timeout', 'timeout']);
}

/** Waits (within PROMPTLY_MS) until no socket of a faulted answer is open at the server. */
async function socketsReleased(fixture: Faulty, label: string): Promise<void> {
  await vi.waitFor(async () => expect((await fixture.control('/state')).stalled, label).toBe(0), { timeout: PROMPTLY_MS, interval: 100 });
}

describe('a stalled answer (issue 26, point 10)', () => {
  for (const fault of ['stall-json', 'stall-sse'] as const) {
    const half = fault === 'stall-json' ? 'a JSON body' : 'an SSE event';
    it(`releases the socket of every call that timed out on ${half} stalled halfway, on both eras and both call paths, after a garbage collection too`, async () => {
      const fixture = await faulty();
      for (const era of ERAS) {
        const provider = await connected(fixture, era, { timeouts: { requestMs: 1_000 } });
        for (const tool of TOOLS) {
          const label = `${era.era}, ${tool}`;
          await fixture.control('/fault', { fault });
          await fiveTimeOut(provider, tool, label);
          await socketsReleased(fixture, label);
          await fixture.control('/fault', { fault: null });
          // The session goes on.
          expect(codeOf(await provider.call(provider.toolName('f', tool)!, { text: 'after' })), label).toBe('ok');
        }
      }
    });
  }

  it('releases the GET that resumes an SSE answer when its call times out, on both eras', async () => {
    const fixture = await faulty();
    for (const era of ERAS) {
      const provider = await connected(fixture, era, { timeouts: { requestMs: 1_500 } });
      await fixture.control('/fault', { fault: 'resume-stall' });
      await fiveTimeOut(provider, 'echo', era.era);
      const resumed = observed(fixture.log).filter((entry) => entry.event === 'request' && entry.httpMethod === 'GET' && entry.status === 'resume-stall');
      expect(resumed.length, era.era).toBeGreaterThan(0);
      await socketsReleased(fixture, era.era);
      await fixture.control('/fault', { fault: null });
    }
  });

  it('releases a stalled tools/list when the listing times out, on both eras', async () => {
    const fixture = await faulty();
    for (const era of ERAS) {
      const provider = await connected(fixture, era, { timeouts: { listMs: 1_000 } });
      await fixture.control('/fault', { fault: 'stall-json', methods: ['tools/list'] });
      await expect(withCollections(provider.refreshServer('f')), era.era).rejects.toThrow('did not finish tools/list within 1000 ms');
      await socketsReleased(fixture, era.era);
      await fixture.control('/fault', { fault: null });
    }
  });
});

describe('an SSE answer cut mid-event (issue 26, point 11)', () => {
  it('fails its call at once as a disconnect the tool may have survived, not after requestMs, on both eras and both call paths', async () => {
    const fixture = await faulty();
    await fixture.control('/fault', { fault: 'cut-sse' });
    const runs = ERAS.flatMap((era) =>
      TOOLS.map(async (tool) => {
        const provider = await connected(fixture, era, { timeouts: { requestMs: 60_000 } });
        const started = performance.now();
        // Bounded below requestMs, so a call left waiting fails here as a timeout.
        const output = await provider.call(provider.toolName('f', tool)!, { text: 'cut' }, { timeoutMs: 15_000 });
        return { label: `${era.era}, ${tool}`, output, ms: performance.now() - started, provider };
      }),
    );
    const outcomes = await Promise.all(runs);
    await fixture.control('/fault', { fault: null });
    for (const { label, output, ms, provider } of outcomes) {
      expect(codeOf(output), label).toBe('server_disconnected');
      expect(textOf(output), label).toContain('the tool may have run');
      expect(ms, label).toBeLessThan(PROMPTLY_MS);
      // The session outlives the cut stream.
      expect(codeOf(await provider.call(provider.toolName('f', 'echo')!, { text: 'after' })), label).toBe('ok');
    }
  });
});

describe('a JSON answer cut halfway (issue 26, point 11)', () => {
  it('fails its call as a disconnect the tool may have survived, on both eras and both call paths', async () => {
    const fixture = await faulty();
    for (const era of ERAS) {
      const provider = await connected(fixture, era);
      for (const tool of TOOLS) {
        const label = `${era.era}, ${tool}`;
        await fixture.control('/fault', { fault: 'cut-json' });
        const output = await provider.call(provider.toolName('f', tool)!, { text: 'cut' });
        expect(codeOf(output), label).toBe('server_disconnected');
        expect(textOf(output), label).toContain('the tool may have run');
        await fixture.control('/fault', { fault: null });
        expect(codeOf(await provider.call(provider.toolName('f', tool)!, { text: 'after' })), label).toBe('ok');
      }
    }
  });
});

describe('a 2025-11-25 session the server forgot (issue 26, point 12)', () => {
  const legacy = ERAS[0];
  const sessionsStarted = (log: string): string[] => observed(log).filter((entry) => entry.event === 'session').map((entry) => entry.id as string);
  const toolCalls = (log: string): Observation[] => observed(log).filter((entry) => entry.event === 'request' && entry.method === 'tools/call');

  it('sends a burst of parallel calls that met the 404 once more, all on one new session, and every one succeeds', async () => {
    const fixture = await faulty();
    const provider = await connected(fixture, legacy);
    const [first] = sessionsStarted(fixture.log);
    await fixture.control('/forget');
    const outputs = await Promise.all(Array.from({ length: 20 }, (_, n) => provider.call(provider.toolName('f', 'echo')!, { text: `call ${n}` })));
    expect(outputs.map(codeOf)).toEqual(Array.from({ length: 20 }, () => 'ok'));
    const sessions = sessionsStarted(fixture.log);
    expect(sessions).toHaveLength(2);
    // Each call ran once, on the new session.
    const ran = observed(fixture.log).filter((entry) => entry.event === 'call');
    expect(ran).toHaveLength(20);
    expect(new Set(ran.map((entry) => entry.session))).toEqual(new Set([sessions[1]]));
    expect(sessions[1]).not.toBe(first);
    expect(provider.serverStatuses()[0]!.state).toBe('ready');
  });

  it('ends the session for everyone when its GET stream meets the 404: the next call goes straight to a new session', async () => {
    const fixture = await faulty();
    const provider = await connected(fixture, legacy);
    const [first] = sessionsStarted(fixture.log);
    await fixture.control('/forget');
    // The forgotten session's GET stream ends; the SDK reopens it, and meets the 404.
    await vi.waitFor(
      () => expect(observed(fixture.log).some((entry) => entry.event === 'request' && entry.httpMethod === 'GET' && entry.session === first && entry.status === 404)).toBe(true),
      { timeout: 10_000, interval: 100 },
    );
    // Seen by the server before the host reads the answer: the host says so once it has.
    await vi.waitFor(() => expect(provider.serverStatuses()[0]!.state).toBe('disconnected'), { timeout: PROMPTLY_MS, interval: 50 });
    expect(codeOf(await provider.call(provider.toolName('f', 'echo')!, { text: 'next' }))).toBe('ok');
    expect(toolCalls(fixture.log).filter((entry) => entry.session === first)).toHaveLength(0);
  });

  it('ends the session when a notification meets the 404: the next call goes straight to a new session', async () => {
    const fixture = await faulty();
    const provider = await connected(fixture, legacy, { timeouts: { requestMs: 1_000 } });
    const [first] = sessionsStarted(fixture.log);
    // The call times out on a stalled answer; its notifications/cancelled finds the session gone.
    await fixture.control('/fault', { fault: 'stall-json' });
    await fixture.control('/amnesia', { on: true, methods: ['notifications/cancelled'] });
    expect(codeOf(await provider.call(provider.toolName('f', 'echo')!, { text: 'stalls' }))).toBe('timeout');
    await vi.waitFor(
      () => expect(observed(fixture.log).some((entry) => entry.event === 'request' && entry.method === 'notifications/cancelled' && entry.status === 404)).toBe(true),
      { timeout: PROMPTLY_MS, interval: 50 },
    );
    await vi.waitFor(() => expect(provider.serverStatuses()[0]!.state).toBe('disconnected'), { timeout: PROMPTLY_MS, interval: 50 });
    await fixture.control('/fault', { fault: null });
    await fixture.control('/amnesia', { on: false });
    expect(codeOf(await provider.call(provider.toolName('f', 'echo')!, { text: 'next' }))).toBe('ok');
    // One tools/call on the forgotten session: the stalled one, before the 404.
    expect(toolCalls(fixture.log).filter((entry) => entry.session === first)).toHaveLength(1);
  });

  it('fails a call whose new session is forgotten too as call_not_sent, saying it did not run, and never runs it', async () => {
    const fixture = await faulty();
    const provider = await connected(fixture, legacy);
    await fixture.control('/amnesia', { on: true });
    const output = await provider.call(provider.toolName('f', 'echo')!, { text: 'never runs' });
    expect(codeOf(output)).toBe('call_not_sent');
    expect(textOf(output)).toContain('forgot the new session too (HTTP 404), so the call did not run');
    // Sent once on the first session and once on the second, and run on neither.
    expect(toolCalls(fixture.log)).toHaveLength(2);
    expect(sessionsStarted(fixture.log)).toHaveLength(2);
    expect(observed(fixture.log).filter((entry) => entry.event === 'call')).toHaveLength(0);
    await fixture.control('/amnesia', { on: false });
    expect(codeOf(await provider.call(provider.toolName('f', 'echo')!, { text: 'runs' }))).toBe('ok');
  });
});
