/**
 * Call-latency scenario: sequential `echo` calls through mcp-fleet (`ToolHost.call`),
 * the raw SDK (`Client.callTool`) and the leanest peer, `@ai-sdk/mcp` (`callTool`, see
 * ai-sdk-side.ts), against the same fixture server, same transport, same protocol era, in
 * the same process and run.
 *
 * Fairness rules (they are the point of this file):
 * - Same server code: stdio gives each side its own child of the same fixture (a stdio
 *   server has exactly one client); HTTP starts ONE fixture process for every side.
 * - Same era on every side, checked against what each side actually negotiated.
 * - Every side warms up before measuring, and the measured calls are interleaved in
 *   blocks whose order goes through all six orders of the three sides, round by round, so
 *   drift and noise on this small, shared machine land on every side alike, and no side
 *   always runs right after the same other one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpToolProvider, ToolHost, type McpServerConfig } from '../dist/index.js';
import { type AiSdkTarget, aiSdkSide } from './ai-sdk-side.js';

export type TransportKind = 'stdio' | 'http';
export type Era = 'modern' | 'legacy';

/** The protocol version each era must negotiate. */
export const ERA_VERSION: Record<Era, string> = { modern: '2026-07-28', legacy: '2025-11-25' };

export interface ScenarioOptions {
  transport: TransportKind;
  era: Era;
  /** Measured calls per side. */
  calls: number;
  /** Unmeasured calls per side before measuring. */
  warmup: number;
  /** Calls per interleaved block. */
  block: number;
}

export interface LatencyStats {
  n: number;
  medianUs: number;
  p90Us: number;
  p99Us: number;
  meanUs: number;
  minUs: number;
  maxUs: number;
}

export interface SideResult {
  /** Connect plus catalog listing, once, before warm-up. */
  setupMs: number;
  protocolVersion: string | undefined;
  stats: LatencyStats;
  /**
   * CPU time (user + system) this process spent per measured call. Unlike wall time it
   * excludes the server and waiting, so it shows the client-side cost even on a busy box.
   */
  cpuUsPerCall: number;
}

export interface ScenarioResult {
  transport: TransportKind;
  era: Era;
  fleet: SideResult;
  raw: SideResult;
  aiSdk: SideResult;
  /** fleet median / raw median. */
  ratio: number;
  /** fleet median / @ai-sdk/mcp median. */
  ratioToAiSdk: number;
  /** @ai-sdk/mcp median / raw median (the "ratio to the raw SDK" for the peer). */
  aiSdkRatio: number;
  /**
   * The 25th and 75th percentiles of the per-round ratios (one fleet block against the
   * raw block of the same round): how much the ratio itself moves with machine noise.
   */
  roundRatioIqr: [number, number];
  /** The same for fleet blocks against @ai-sdk/mcp blocks. */
  roundRatioIqrToAiSdk: [number, number];
}

/** One way of calling the tool. */
export interface Side {
  setupMs: number;
  protocolVersion: string | undefined;
  call(): Promise<void>;
}

/** Closers registered before set-up starts, so a failed set-up still leaves no child behind. */
export type Closers = (() => Promise<void>)[];

const FIXTURE = fileURLToPath(new URL('../test/fixtures/v2-server.mjs', import.meta.url));
const SERVER_ID = 'bench';
const ARGS = { text: 'hello' };

/**
 * The fixture's environment: no NODE_OPTIONS (tsx puts its loader there), so the server
 * is plain Node and identical for both sides, and no FIXTURE_LOG, so it does no I/O per call.
 */
function fixtureEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ['PATH', 'HOME']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

/** A shared Streamable HTTP fixture: one process, one URL for both sides. */
export interface HttpFixture {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts an HTTP fixture that prints `{"url": ...}` first: by default the v2 fixture, both
 * eras. With `onStderrLine`, its stderr is read line by line instead of passed through.
 */
export async function startHttpFixture(file = FIXTURE, args = ['--http'], onStderrLine?: (line: string) => void): Promise<HttpFixture> {
  const stderr = onStderrLine === undefined ? 'inherit' : 'pipe';
  const child: ChildProcess = spawn(process.execPath, [file, ...args], { env: fixtureEnv(), stdio: ['ignore', 'pipe', stderr] });
  if (onStderrLine !== undefined) createInterface({ input: child.stderr! }).on('line', onStderrLine);
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout! });
  const first = await Promise.race([
    once(lines, 'line').then(([line]) => line as string),
    exited.then(() => {
      throw new Error('HTTP fixture exited before printing its URL');
    }),
  ]);
  lines.close();
  // Keep draining stdout so the fixture can never block on a full pipe.
  child.stdout!.resume();
  const { url } = JSON.parse(first) as { url: string };
  return {
    url,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** The raw SDK, used as a plain application would: connect, `listTools()`, then `callTool()`. `url` selects HTTP. */
export async function rawSide(era: Era, url: string | undefined, closers: Closers): Promise<Side> {
  const client = new Client(
    { name: 'bench-raw', version: '0.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: ERA_VERSION.modern } : 'legacy' } },
  );
  const transport: Transport =
    url === undefined
      ? new StdioClientTransport({ command: process.execPath, args: [FIXTURE], env: fixtureEnv(), stderr: 'ignore' })
      : new StreamableHTTPClientTransport(new URL(url));
  closers.push(() => client.close());
  const start = process.hrtime.bigint();
  await client.connect(transport);
  // Listing first lets the SDK cache the tool definition (output validation, SEP-2243 headers).
  const { tools } = await client.listTools();
  if (!tools.some((tool) => tool.name === 'echo')) throw new Error('raw SDK: the fixture lists no echo tool');
  const setupMs = elapsedMs(start);
  return {
    setupMs,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    call: async () => {
      const result = await client.callTool({ name: 'echo', arguments: ARGS });
      if (result.isError === true) throw new Error('raw SDK: echo returned an error');
    },
  };
}

/** mcp-fleet as an agent runtime uses it: a `ToolHost` over an `McpToolProvider`. */
export async function fleetSide(era: Era, url: string | undefined, closers: Closers, extra: Partial<McpServerConfig> = {}): Promise<Side> {
  const server: McpServerConfig = {
    id: SERVER_ID,
    transport: url === undefined ? { type: 'stdio', command: process.execPath, args: [FIXTURE], env: fixtureEnv() } : { type: 'http', url },
    lifecycle: era === 'modern' ? 'discover' : 'initialize',
    required: true,
    ...extra,
  };
  const provider = new McpToolProvider({ servers: [server] });
  const host = new ToolHost({ providers: [provider] });
  closers.push(() => host.close());
  const start = process.hrtime.bigint();
  await host.init();
  const setupMs = elapsedMs(start);
  const name = provider.toolName(SERVER_ID, 'echo');
  if (name === undefined) throw new Error('mcp-fleet: the fixture published no echo tool');
  return {
    setupMs,
    protocolVersion: provider.serverStatuses()[0]?.protocolVersion,
    call: async () => {
      const result = await host.call(name, ARGS);
      if (result.isError === true) throw new Error(`mcp-fleet: echo returned an error: ${JSON.stringify(result.output)}`);
    },
  };
}

/** Nearest-rank percentile of sorted samples. */
export function percentile(sorted: Float64Array, p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export function summarise(samples: Float64Array): LatencyStats {
  const sorted = Float64Array.from(samples).sort();
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    n: sorted.length,
    medianUs: percentile(sorted, 50),
    p90Us: percentile(sorted, 90),
    p99Us: percentile(sorted, 99),
    meanUs: sum / sorted.length,
    minUs: sorted[0] ?? Number.NaN,
    maxUs: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** A side's measurements, filled block by block. */
interface Samples {
  latencyUs: Float64Array;
  cpuUs: number;
}

/** Runs `count` sequential calls, writing each latency (µs) into `samples` from `offset`. */
async function timedCalls(side: Side, count: number, samples: Samples, offset: number): Promise<void> {
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await side.call();
    samples.latencyUs[offset + i] = Number(process.hrtime.bigint() - start) / 1e3;
  }
  const used = process.cpuUsage(cpu);
  samples.cpuUs += used.user + used.system;
}

async function untimedCalls(side: Side, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await side.call();
}

/** The stdio command of the fixture, or its HTTP URL: what `@ai-sdk/mcp` is pointed at. */
export function fixtureTarget(url: string | undefined): AiSdkTarget {
  return url === undefined ? { command: process.execPath, args: [FIXTURE], env: fixtureEnv() } : { url };
}

/** The six orders of three sides, one per round in turn. */
export const ORDERS = [
  [0, 1, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
  [0, 2, 1],
  [1, 0, 2],
] as const;

/** Runs one (transport, era) comparison and closes everything it started, even on failure. */
export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const http = options.transport === 'http' ? await startHttpFixture() : undefined;
  const closers: Closers = [];
  try {
    // Set up one after the other: a concurrent start would make each side's setup time meaningless.
    const fleet = await fleetSide(options.era, http?.url, closers);
    const raw = await rawSide(options.era, http?.url, closers);
    const aiSdk = await aiSdkSide(options.era, fixtureTarget(http?.url), ARGS, closers);
    const sides = [fleet, raw, aiSdk] as const;
    const expected = ERA_VERSION[options.era];
    for (const [label, side] of [['mcp-fleet', fleet], ['raw SDK', raw], ['@ai-sdk/mcp', aiSdk]] as const) {
      if (side.protocolVersion !== expected) {
        throw new Error(`${label} negotiated ${side.protocolVersion ?? 'nothing'}, expected ${expected} (${options.transport})`);
      }
    }

    // Warm-up is interleaved too, so JIT and connection warm-up finish on every side.
    const warmBlock = Math.max(1, Math.min(options.block, options.warmup));
    for (let done = 0; done < options.warmup; done += warmBlock) {
      const count = Math.min(warmBlock, options.warmup - done);
      for (const side of sides) await untimedCalls(side, count);
    }

    const samples: Samples[] = sides.map(() => ({ latencyUs: new Float64Array(options.calls), cpuUs: 0 }));
    const roundRatios: number[] = [];
    const roundRatiosToAiSdk: number[] = [];
    for (let done = 0, round = 0; done < options.calls; done += options.block, round++) {
      const count = Math.min(options.block, options.calls - done);
      for (const index of ORDERS[round % ORDERS.length]!) await timedCalls(sides[index], count, samples[index]!, done);
      const blockMedian = (index: number): number => summarise(samples[index]!.latencyUs.subarray(done, done + count)).medianUs;
      roundRatios.push(blockMedian(0) / blockMedian(1));
      roundRatiosToAiSdk.push(blockMedian(0) / blockMedian(2));
    }
    const iqr = (ratios: number[]): [number, number] => {
      const sorted = Float64Array.from(ratios).sort();
      return [percentile(sorted, 25), percentile(sorted, 75)];
    };

    const [fleetResult, rawResult, aiSdkResult] = sides.map(
      (side, index): SideResult => ({
        setupMs: side.setupMs,
        protocolVersion: side.protocolVersion,
        stats: summarise(samples[index]!.latencyUs),
        cpuUsPerCall: samples[index]!.cpuUs / options.calls,
      }),
    ) as [SideResult, SideResult, SideResult];
    return {
      transport: options.transport,
      era: options.era,
      fleet: fleetResult,
      raw: rawResult,
      aiSdk: aiSdkResult,
      ratio: fleetResult.stats.medianUs / rawResult.stats.medianUs,
      ratioToAiSdk: fleetResult.stats.medianUs / aiSdkResult.stats.medianUs,
      aiSdkRatio: aiSdkResult.stats.medianUs / rawResult.stats.medianUs,
      roundRatioIqr: iqr(roundRatios),
      roundRatioIqrToAiSdk: iqr(roundRatiosToAiSdk),
    };
  } finally {
    await Promise.allSettled(closers.map((close) => close()));
    await http?.close();
  }
}
