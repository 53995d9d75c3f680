/**
 * Call-latency scenario: sequential `echo` calls through mcp-fleet (`ToolHost.call`)
 * versus the raw SDK (`Client.callTool`) against the same fixture server, same
 * transport, same protocol era, in the same process and run.
 *
 * Fairness rules (they are the point of this file):
 * - Same server code: stdio gives each side its own child of the same fixture (a stdio
 *   server has exactly one client); HTTP starts ONE fixture process for both sides.
 * - Same era on both sides, checked against what each side actually negotiated.
 * - Both sides warm up before measuring, and the measured calls are interleaved in
 *   blocks whose order alternates (A B, B A, ...), so drift and noise on this small,
 *   shared machine land on both sides alike.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpToolProvider, ToolHost, type McpServerConfig } from '../src/index.js';

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
  /** fleet median / raw median. */
  ratio: number;
  /**
   * The 25th and 75th percentiles of the per-round ratios (one fleet block against the
   * adjacent raw block): how much the ratio itself moves with machine noise in this run.
   */
  roundRatioIqr: [number, number];
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

export async function startHttpFixture(): Promise<HttpFixture> {
  const child: ChildProcess = spawn(process.execPath, [FIXTURE, '--http'], { env: fixtureEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
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
export async function fleetSide(era: Era, url: string | undefined, closers: Closers): Promise<Side> {
  const server: McpServerConfig = {
    id: SERVER_ID,
    transport: url === undefined ? { type: 'stdio', command: process.execPath, args: [FIXTURE], env: fixtureEnv() } : { type: 'http', url },
    lifecycle: era === 'modern' ? 'discover' : 'initialize',
    required: true,
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
function percentile(sorted: Float64Array, p: number): number {
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

/** Runs one (transport, era) comparison and closes everything it started, even on failure. */
export async function runScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const http = options.transport === 'http' ? await startHttpFixture() : undefined;
  const closers: Closers = [];
  try {
    // Set up one after the other: a concurrent start would make each side's setup time meaningless.
    const fleet = await fleetSide(options.era, http?.url, closers);
    const raw = await rawSide(options.era, http?.url, closers);
    const expected = ERA_VERSION[options.era];
    for (const [label, side] of [['mcp-fleet', fleet], ['raw SDK', raw]] as const) {
      if (side.protocolVersion !== expected) {
        throw new Error(`${label} negotiated ${side.protocolVersion ?? 'nothing'}, expected ${expected} (${options.transport})`);
      }
    }

    // Warm-up is interleaved too, so JIT and connection warm-up finish on both sides.
    const warmBlock = Math.max(1, Math.min(options.block, options.warmup));
    for (let done = 0; done < options.warmup; done += warmBlock) {
      const count = Math.min(warmBlock, options.warmup - done);
      await untimedCalls(fleet, count);
      await untimedCalls(raw, count);
    }

    const fleetSamples: Samples = { latencyUs: new Float64Array(options.calls), cpuUs: 0 };
    const rawSamples: Samples = { latencyUs: new Float64Array(options.calls), cpuUs: 0 };
    const roundRatios: number[] = [];
    for (let done = 0, round = 0; done < options.calls; done += options.block, round++) {
      const count = Math.min(options.block, options.calls - done);
      // ABBA order: neither side always runs right after the other's block.
      if (round % 2 === 0) {
        await timedCalls(fleet, count, fleetSamples, done);
        await timedCalls(raw, count, rawSamples, done);
      } else {
        await timedCalls(raw, count, rawSamples, done);
        await timedCalls(fleet, count, fleetSamples, done);
      }
      const blockMedian = (samples: Samples): number => summarise(samples.latencyUs.subarray(done, done + count)).medianUs;
      roundRatios.push(blockMedian(fleetSamples) / blockMedian(rawSamples));
    }
    const sortedRatios = Float64Array.from(roundRatios).sort();

    const result = (side: Side, samples: Samples): SideResult => ({
      setupMs: side.setupMs,
      protocolVersion: side.protocolVersion,
      stats: summarise(samples.latencyUs),
      cpuUsPerCall: samples.cpuUs / options.calls,
    });
    const fleetResult = result(fleet, fleetSamples);
    const rawResult = result(raw, rawSamples);
    return {
      transport: options.transport,
      era: options.era,
      fleet: fleetResult,
      raw: rawResult,
      ratio: fleetResult.stats.medianUs / rawResult.stats.medianUs,
      roundRatioIqr: [percentile(sortedRatios, 25), percentile(sortedRatios, 75)],
    };
  } finally {
    await Promise.allSettled(closers.map((close) => close()));
    await http?.close();
  }
}
