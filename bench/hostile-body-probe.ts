/**
 * One side of the hostile-body-memory scenario, alone in this process so its memory is
 * its own (bench/hostile-body-memory.ts starts it, once per side and run):
 *
 *   node --expose-gc --import tsx bench/hostile-body-probe.ts fleet|raw <base url>
 *
 * Connects to `<base>/hostile` (test/fixtures/hostile-http.mjs), calls `echo` once (so
 * lazily allocated client state is in the baseline), collects garbage, takes the
 * baseline, then calls `huge` (a 50 MiB JSON body without Content-Length) once while
 * memory is sampled, and prints one JSON line: baseline, peaks, what the call returned.
 *
 * Sampling: heap and ArrayBuffer figures on the main thread every 2 ms; RSS also from a
 * worker thread every 1 ms, which keeps sampling while the main thread is busy parsing.
 */
import { Worker } from 'node:worker_threads';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpToolProvider } from '../dist/index.js';
import { ERA_VERSION } from './call-latency.js';

type SideName = 'fleet' | 'raw';

interface Memory {
  rss: number;
  heapUsed: number;
  arrayBuffers: number;
  external: number;
}

export interface ProbeReport {
  side: SideName;
  protocolVersion: string | undefined;
  baseline: Memory;
  peak: Memory;
  /** peak − baseline, per field, in bytes. */
  increase: Memory;
  /** After the call, once garbage is collected, minus the baseline: what the call left behind. */
  retained: Memory;
  /** The kernel's high-water mark of RSS (bytes) before and after the call. */
  maxRssBefore: number;
  maxRssAfter: number;
  samples: number;
  callMs: number;
  outcome: { kind: 'result' | 'error'; isError?: boolean; code?: string; name?: string; message: string };
}

const CALL_TIMEOUT_MS = 120_000;
const SAMPLE_MS = 2;
const AFTER_CALL_MS = 250;

function memory(): Memory {
  const { rss, heapUsed, arrayBuffers, external } = process.memoryUsage();
  return { rss, heapUsed, arrayBuffers, external };
}

/** At most 300 characters: enough to see what happened, never the body. */
function excerpt(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text;
}

/** A worker that samples the process RSS every millisecond and reports its maximum on request. */
function rssWorker(): { stop(): Promise<number> } {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     let max = process.memoryUsage.rss();
     const timer = setInterval(() => { max = Math.max(max, process.memoryUsage.rss()); }, 1);
     parentPort.once('message', () => { clearInterval(timer); parentPort.postMessage(max); });`,
    { eval: true },
  );
  return {
    stop: async () => {
      const max = new Promise<number>((resolve) => worker.once('message', (value: number) => resolve(value)));
      worker.postMessage('stop');
      const value = await max;
      await worker.terminate();
      return value;
    },
  };
}

interface Side {
  protocolVersion: string | undefined;
  echo(): Promise<void>;
  huge(): Promise<ProbeReport['outcome']>;
  close(): Promise<void>;
}

async function fleetSide(url: string): Promise<Side> {
  // Default limits: messageBytes is 8 MiB.
  const provider = new McpToolProvider({ servers: [{ id: 'hostile', transport: { type: 'http', url }, lifecycle: 'discover', required: true }] });
  await provider.init();
  const name = (tool: string): string => {
    const published = provider.toolName('hostile', tool);
    if (published === undefined) throw new Error(`mcp-fleet did not publish ${tool}`);
    return published;
  };
  return {
    protocolVersion: provider.serverStatuses()[0]?.protocolVersion,
    echo: async () => {
      if ((await provider.call(name('echo'), {})).isError) throw new Error('echo failed');
    },
    huge: async () => {
      const result = await provider.call(name('huge'), {}, { timeoutMs: CALL_TIMEOUT_MS });
      const error = (result.output as { error?: { code?: string } }).error;
      const text = result.modelOutput?.parts.map((part) => ('text' in part ? part.text : `[${part.type}]`)).join(' ') ?? JSON.stringify(result.output);
      return { kind: 'result', isError: result.isError, ...(error?.code ? { code: error.code } : {}), message: excerpt(text) };
    },
    close: () => provider.close(),
  };
}

async function rawSide(url: string): Promise<Side> {
  const client = new Client({ name: 'bench-raw', version: '0.0.0' }, { versionNegotiation: { mode: { pin: ERA_VERSION.modern } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.listTools();
  return {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    echo: async () => {
      if ((await client.callTool({ name: 'echo', arguments: {} })).isError === true) throw new Error('echo failed');
    },
    huge: async () => {
      try {
        const result = await client.callTool({ name: 'huge', arguments: {} }, { timeout: CALL_TIMEOUT_MS });
        return { kind: 'result', isError: result.isError === true, message: excerpt(JSON.stringify(result)) };
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        return { kind: 'error', name: failure.name, message: excerpt(failure.message) };
      }
    },
    close: () => client.close(),
  };
}

async function main(): Promise<void> {
  const [sideName, base] = process.argv.slice(2);
  if ((sideName !== 'fleet' && sideName !== 'raw') || base === undefined) throw new Error('usage: hostile-body-probe.ts fleet|raw <base url>');
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  const url = `${base}/hostile`;
  const side = sideName === 'fleet' ? await fleetSide(url) : await rawSide(url);
  try {
    await side.echo();
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
    gc();
    const baseline = memory();
    const maxRssBefore = process.resourceUsage().maxRSS * 1024;
    const peak = { ...baseline };
    let samples = 0;
    const sample = (): void => {
      const now = memory();
      samples++;
      for (const key of Object.keys(peak) as (keyof Memory)[]) peak[key] = Math.max(peak[key], now[key]);
    };
    const worker = rssWorker();
    const timer = setInterval(sample, SAMPLE_MS);
    const start = process.hrtime.bigint();
    const outcome = await side.huge();
    const callMs = Number(process.hrtime.bigint() - start) / 1e6;
    sample();
    // Keep sampling a little: memory is often released (or still growing) after the call returns.
    await new Promise((resolve) => setTimeout(resolve, AFTER_CALL_MS));
    clearInterval(timer);
    sample();
    peak.rss = Math.max(peak.rss, await worker.stop());
    const increase = {} as Memory;
    for (const key of Object.keys(peak) as (keyof Memory)[]) increase[key] = peak[key] - baseline[key];
    // ArrayBuffer backing stores are released after the collection that finds them dead: collect, pause, collect.
    gc();
    await new Promise((resolve) => setTimeout(resolve, 100));
    gc();
    const after = memory();
    const retained = {} as Memory;
    for (const key of Object.keys(after) as (keyof Memory)[]) retained[key] = after[key] - baseline[key];
    const report: ProbeReport = {
      side: sideName,
      protocolVersion: side.protocolVersion,
      baseline,
      peak,
      increase,
      retained,
      maxRssBefore,
      maxRssAfter: process.resourceUsage().maxRSS * 1024,
      samples,
      callMs,
      outcome,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await side.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
