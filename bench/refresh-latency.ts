/**
 * Refresh-latency scenario (issue "live catalogs"): does re-listing a big catalog hurt
 * calls that run meanwhile? One stdio server with a 2,048-tool catalog; sequential calls
 * of one tool are timed with nothing else going on ("quiet"), then while a loop keeps
 * forcing a full refresh ("refreshing"). Target: the refreshing median within 2x of the
 * quiet one.
 *
 * - mcp-fleet: `McpToolProvider.call` with `concurrency: 'parallel'` (calls never wait for
 *   the refresh's lock), against `provider.refreshServer(id)` in a loop: each a full
 *   `tools/list` of 2,048 tools, budget checks, naming and publication.
 * - raw SDK, two references, each a `Client.callTool` loop of its own:
 *   - "raw tools/list": against `client.request({ method: 'tools/list' })` in a loop: the
 *     wire work every client must do (transfer, JSON.parse, schema validation of 2,048
 *     tools) and nothing else: the floor for mcp-fleet's refresh;
 *   - "raw listTools": against `client.listTools(undefined, { cacheMode: 'refresh' })`, what
 *     a plain SDK application does; it rewrites the SDK's tool cache, after which the next
 *     `callTool` recompiles the output-schema validator of every listed tool (256 here). Its
 *     calls take ~0.5 s while refreshing, so it gets fewer (`rawCalls`).
 * All sides use the same era (2026-07-28, pinned) and their own child of the same server.
 * Blocks of all conditions are interleaved, order reversed every round, so machine
 * drift lands on all of them. A refreshing block starts its loop, times its calls, then
 * stops the loop and waits for the refresh in flight, so the next quiet block is quiet.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpToolProvider } from '../dist/index.js';
import { ERA_VERSION, type LatencyStats, summarise } from './call-latency.js';
import { syntheticTools } from './catalog.js';
import { elapsedMs, fixed, formatTable, median, plainEnv, repoPath } from './util.js';

/** Which server serves the catalog (see bench/fixtures/catalog-stdio.mjs for why the default is ours). */
export type CatalogServer = 'bench' | 'catalog-server';

export interface RefreshLatencyOptions {
  tools: number;
  /** Measured calls per condition of mcp-fleet and of the "raw tools/list" reference. */
  calls: number;
  /** Calls per block of those two; `calls / block` rounds. */
  block: number;
  /** Measured calls per condition of the "raw listTools" reference, spread over the same rounds. */
  rawCalls: number;
  warmup: number;
  server: CatalogServer;
  /** Tools per `tools/list` page (bench server only); 0 = the whole catalog in one page. */
  pageSize: number;
}

interface Side {
  label: string;
  protocolVersion: string | undefined;
  call(): Promise<void>;
  refresh(): Promise<void>;
}

export interface ConditionResult {
  stats: LatencyStats;
  /** Refreshes that completed while this condition's calls were being timed. */
  refreshesCompleted: number;
  /** Time spent timing this condition's calls, in ms. */
  windowMs: number;
  /**
   * Event-loop delay in this process while the calls were timed, in ms: how long the
   * main thread was held by synchronous work (parsing, validation, publication), which
   * no call can overlap.
   */
  loopDelayP50Ms: number;
  loopDelayMaxMs: number;
}

export interface RefreshSideResult {
  protocolVersion: string | undefined;
  quiet: ConditionResult;
  refreshing: ConditionResult;
  /** refreshing median / quiet median. */
  ratio: number;
  /** Duration of one refresh (every refresh run, measured windows or not), in ms. */
  refreshMedianMs: number;
  refreshMaxMs: number;
}

export interface RefreshLatencyResult {
  tools: number;
  /** Tools per `tools/list` page; 0 = one page. */
  pageSize: number;
  calledTool: string;
  server: CatalogServer;
  fleet: RefreshSideResult;
  /** The raw SDK refreshing with a bare `tools/list` request. */
  rawRequest: RefreshSideResult;
  /** The raw SDK refreshing with `listTools({ cacheMode: 'refresh' })`. */
  rawListTools: RefreshSideResult;
  /** mcp-fleet's refreshing median / each raw reference's refreshing median. */
  refreshingVsRaw: { request: number; listTools: number };
  targetRatio: number;
}

const SERVER_ID = 'catalog';
const TARGET_RATIO = 2;

function serverCommand(server: CatalogServer, toolsFile: string, pageSize: number): { args: string[]; env: Record<string, string> } {
  return server === 'bench'
    ? { args: [repoPath('bench/fixtures/catalog-stdio.mjs')], env: { BENCH_TOOLS_FILE: toolsFile, BENCH_PAGE_SIZE: String(pageSize) } }
    : { args: [repoPath('test/fixtures/catalog-server.mjs')], env: { FIXTURE_TOOLS_FILE: toolsFile, ...(pageSize > 0 ? { FIXTURE_PAGE_SIZE: String(pageSize) } : {}) } };
}

/** Every page of `tools/list` through bare requests: the wire work and nothing else. */
async function listEveryPage(client: Client): Promise<number> {
  let listed = 0;
  let cursor: string | undefined;
  do {
    const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } });
    listed += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return listed;
}

async function fleetSide(command: { args: string[]; env: Record<string, string> }, tool: string, closers: (() => Promise<void>)[]): Promise<Side> {
  const provider = new McpToolProvider({
    servers: [
      {
        id: SERVER_ID,
        transport: { type: 'stdio', command: process.execPath, args: command.args, env: command.env },
        lifecycle: 'discover',
        concurrency: 'parallel',
        required: true,
      },
    ],
  });
  closers.push(() => provider.close());
  await provider.init();
  const name = provider.toolName(SERVER_ID, tool);
  if (name === undefined) throw new Error(`mcp-fleet: "${tool}" was not published`);
  return {
    label: 'mcp-fleet',
    protocolVersion: provider.serverStatuses()[0]?.protocolVersion,
    call: async () => {
      const result = await provider.call(name, { limit: 5 });
      if (result.isError) throw new Error(`mcp-fleet: ${tool} failed: ${JSON.stringify(result.output)}`);
    },
    refresh: () => provider.refreshServer(SERVER_ID),
  };
}

async function rawSide(
  command: { args: string[]; env: Record<string, string> },
  tool: string,
  expected: number,
  mode: 'request' | 'listTools',
  closers: (() => Promise<void>)[],
): Promise<Side> {
  const client = new Client({ name: 'bench-raw', version: '0.0.0' }, { versionNegotiation: { mode: { pin: ERA_VERSION.modern } } });
  closers.push(() => client.close());
  await client.connect(new StdioClientTransport({ command: process.execPath, args: command.args, env: plainEnv(command.env), stderr: 'ignore' }));
  const check = (listed: number): void => {
    if (listed !== expected) throw new Error(`raw SDK listed ${listed} tools, expected ${expected}`);
  };
  check((await client.listTools()).tools.length);
  return {
    label: mode === 'request' ? 'raw tools/list' : 'raw listTools',
    protocolVersion: client.getNegotiatedProtocolVersion(),
    call: async () => {
      const result = await client.callTool({ name: tool, arguments: { limit: 5 } });
      if (result.isError === true) throw new Error(`raw SDK: ${tool} failed`);
    },
    refresh:
      mode === 'request'
        ? async () => check(await listEveryPage(client))
        : async () => check((await client.listTools(undefined, { cacheMode: 'refresh' })).tools.length),
  };
}

/** A loop that refreshes back to back until stopped; counts completions and times each refresh. */
class RefreshLoop {
  completed = 0;
  private stopped = false;
  private readonly done: Promise<void>;

  constructor(
    private readonly refresh: () => Promise<void>,
    private readonly durationsMs: number[],
  ) {
    this.done = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const start = process.hrtime.bigint();
      await this.refresh();
      this.durationsMs.push(elapsedMs(start));
      this.completed++;
    }
  }

  /** Stops after the refresh in flight; rejects if a refresh failed. */
  stop(): Promise<void> {
    this.stopped = true;
    return this.done;
  }
}

/** What one side collects over the run. */
class Collector {
  readonly quiet: number[] = [];
  readonly refreshing: number[] = [];
  readonly refreshDurationsMs: number[] = [];
  refreshesInWindows = 0;
  quietWindowMs = 0;
  refreshingWindowMs = 0;
  private readonly quietLoop: number[][] = [];
  private readonly refreshingLoop: number[][] = [];

  /** `loopDelay` stays enabled for the whole run (re-enabling one records the pause as a delay); it is reset per window. */
  constructor(
    readonly side: Side,
    private readonly loopDelay: IntervalHistogram,
  ) {}

  /** Times `count` calls into `into`; records the window's event-loop delay [p50, max] in ns. */
  private async timed(count: number, into: number[], loopDelays: number[][]): Promise<number> {
    const windowStart = process.hrtime.bigint();
    this.loopDelay.reset();
    for (let i = 0; i < count; i++) {
      const start = process.hrtime.bigint();
      await this.side.call();
      into.push(Number(process.hrtime.bigint() - start) / 1e3);
    }
    loopDelays.push([this.loopDelay.percentile(50), this.loopDelay.max]);
    return elapsedMs(windowStart);
  }

  async quietBlock(count: number): Promise<void> {
    this.quietWindowMs += await this.timed(count, this.quiet, this.quietLoop);
  }

  async refreshingBlock(count: number): Promise<void> {
    const loop = new RefreshLoop(() => this.side.refresh(), this.refreshDurationsMs);
    try {
      this.refreshingWindowMs += await this.timed(count, this.refreshing, this.refreshingLoop);
      this.refreshesInWindows += loop.completed;
    } finally {
      await loop.stop();
    }
  }

  result(): RefreshSideResult {
    const quiet = summarise(Float64Array.from(this.quiet));
    const refreshing = summarise(Float64Array.from(this.refreshing));
    // Histogram values are nanoseconds and include the 1 ms sampling interval; per window [p50, max].
    const delay = (windows: number[][]) => ({
      loopDelayP50Ms: median(windows.map(([p50]) => p50!)) / 1e6,
      loopDelayMaxMs: Math.max(...windows.map(([, max]) => max!)) / 1e6,
    });
    return {
      protocolVersion: this.side.protocolVersion,
      quiet: { stats: quiet, refreshesCompleted: 0, windowMs: this.quietWindowMs, ...delay(this.quietLoop) },
      refreshing: { stats: refreshing, refreshesCompleted: this.refreshesInWindows, windowMs: this.refreshingWindowMs, ...delay(this.refreshingLoop) },
      ratio: refreshing.medianUs / quiet.medianUs,
      refreshMedianMs: median(this.refreshDurationsMs),
      refreshMaxMs: Math.max(...this.refreshDurationsMs),
    };
  }
}

export async function runRefreshLatency(options: RefreshLatencyOptions): Promise<RefreshLatencyResult> {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-fleet-bench-'));
  const closers: (() => Promise<void>)[] = [];
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  try {
    const tools = syntheticTools(options.tools);
    const toolsFile = join(directory, 'tools.json');
    writeFileSync(toolsFile, JSON.stringify(tools));
    // A read-only `list` tool without an output schema: the fixtures answer with plain text.
    const calledTool = tools[0]!.name;
    const command = serverCommand(options.server, toolsFile, options.pageSize);
    loopDelay.enable();
    const fleet = new Collector(await fleetSide(command, calledTool, closers), loopDelay);
    const rawRequest = new Collector(await rawSide(command, calledTool, tools.length, 'request', closers), loopDelay);
    const rawListTools = new Collector(await rawSide(command, calledTool, tools.length, 'listTools', closers), loopDelay);
    const collectors = [fleet, rawRequest, rawListTools];
    for (const collector of collectors) {
      if (collector.side.protocolVersion !== ERA_VERSION.modern) {
        throw new Error(`${collector.side.label} negotiated ${collector.side.protocolVersion ?? 'nothing'}, expected ${ERA_VERSION.modern}`);
      }
    }

    // Warm-up of both paths on every side (JIT, caches), unmeasured.
    for (const collector of collectors) {
      for (let i = 0; i < options.warmup; i++) await collector.side.call();
      for (let i = 0; i < 3; i++) await collector.side.refresh();
      collector.refreshDurationsMs.length = 0;
    }

    // Each step: [calls in total, block runner]; every round runs a share of each, order reversed on odd rounds.
    const steps: [number, (count: number) => Promise<void>][] = [];
    for (const [collector, calls] of [
      [fleet, options.calls],
      [rawRequest, options.calls],
      [rawListTools, options.rawCalls],
    ] as const) {
      steps.push([calls, (count) => collector.quietBlock(count)], [calls, (count) => collector.refreshingBlock(count)]);
    }
    const rounds = Math.ceil(options.calls / options.block);
    const share = (total: number, round: number): number => Math.floor((total * (round + 1)) / rounds) - Math.floor((total * round) / rounds);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? steps : [...steps].reverse();
      for (const [total, run] of order) {
        const count = share(total, round);
        if (count > 0) await run(count);
      }
    }
    const results = { fleet: fleet.result(), rawRequest: rawRequest.result(), rawListTools: rawListTools.result() };
    const busy = (side: RefreshSideResult): number => side.refreshing.stats.medianUs;
    return {
      tools: options.tools,
      pageSize: options.pageSize,
      calledTool,
      server: options.server,
      ...results,
      refreshingVsRaw: {
        request: busy(results.fleet) / busy(results.rawRequest),
        listTools: busy(results.fleet) / busy(results.rawListTools),
      },
      targetRatio: TARGET_RATIO,
    };
  } finally {
    loopDelay.disable();
    await Promise.allSettled(closers.map((close) => close()));
    rmSync(directory, { recursive: true, force: true });
  }
}

export function refreshLatencyTable(result: RefreshLatencyResult): string {
  const header = ['side', 'condition', 'median ms', 'p90 ms', 'p99 ms', 'max ms', 'loop delay max ms', 'refreshes', 'window s', 'ratio', 'refresh median ms'];
  const rows: string[][] = [];
  for (const side of [
    ['mcp-fleet', result.fleet],
    ['raw tools/list', result.rawRequest],
    ['raw listTools', result.rawListTools],
  ] as const) {
    const [label, data] = side;
    for (const [condition, cond] of [
      ['quiet', data.quiet],
      ['refreshing', data.refreshing],
    ] as const) {
      const busy = condition === 'refreshing';
      const miss = label === 'mcp-fleet' && data.ratio > result.targetRatio ? ' !' : '';
      rows.push([
        label,
        condition,
        fixed(cond.stats.medianUs / 1e3, 3),
        fixed(cond.stats.p90Us / 1e3, 3),
        fixed(cond.stats.p99Us / 1e3, 2),
        fixed(cond.stats.maxUs / 1e3, 1),
        fixed(cond.loopDelayMaxMs, 1),
        busy ? String(cond.refreshesCompleted) : '',
        fixed(cond.windowMs / 1e3, 1),
        busy ? `${fixed(data.ratio, 2)}${miss}` : '',
        busy ? fixed(data.refreshMedianMs, 1) : '',
      ]);
    }
  }
  return formatTable(header, rows, 2);
}
