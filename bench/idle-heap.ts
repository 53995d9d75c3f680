/**
 * Idle-heap scenario: V8 heap kept per connected, idle stdio server, for mcp-fleet, the raw
 * SDK (`auto`) and `@ai-sdk/mcp`, each kind in a FRESH process (bench/idle-heap-probe.ts)
 * so no kind's heap, caches or lazily built state count for another. The figure is the
 * marginal heap per server after a gc, past warm-up servers that pay the one-off costs
 * (lazy state and JIT code; see idle-heap-probe.ts); beside it the average over all
 * servers with the warm-up ones included (what a figure
 * taken from an empty process shows, dominated by one-off costs at small N).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { HeapKind, IdleHeapReport } from './idle-heap-probe.js';
import { fixed, formatTable, KiB, median, repoPath } from './util.js';

export interface IdleHeapOptions {
  /** Measured servers per probe. */
  servers: number;
  /** Probes per kind, kinds in turn. */
  runs: number;
  /** Servers each probe connects before its baseline. */
  warm: number;
}

export interface IdleHeapResult {
  servers: number;
  runs: number;
  warm: number;
  reports: Record<HeapKind, IdleHeapReport[]>;
  /** Median marginal heapUsed per server, bytes, and its ratios. */
  medianPerServer: Record<HeapKind, number>;
  ratio: number;
  /** mcp-fleet against the raw SDK keeping its tool list live (`rawLive`): the like-for-like comparison. */
  ratioToRawLive: number;
  rawLiveRatio: number;
  ratioToAiSdk: number;
  aiSdkRatio: number;
  /** Median average heapUsed per server with the warm-up ones included, bytes, and its ratios. */
  medianAverage: Record<HeapKind, number>;
  averageRatio: number;
  averageRatioToAiSdk: number;
  averageAiSdkRatio: number;
}

const PROBE = repoPath('bench/idle-heap-probe.ts');
const PROBE_TIMEOUT_MS = 120_000;
const KINDS: HeapKind[] = ['fleet', 'raw', 'rawLive', 'aiSdk'];

async function probe(kind: HeapKind, servers: number, warm: number): Promise<IdleHeapReport> {
  // Without NODE_OPTIONS (tsx may have put its loader there): the probe loads tsx itself.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', PROBE, kind, String(servers), String(warm)], {
    cwd: repoPath(''),
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  const last = stdout.trim().split('\n').at(-1);
  if (code !== 0 || last === undefined || last === '') throw new Error(`the ${kind} idle-heap probe exited with ${code ?? signal}`);
  return JSON.parse(last) as IdleHeapReport;
}

export async function runIdleHeap(options: IdleHeapOptions): Promise<IdleHeapResult> {
  const reports: Record<HeapKind, IdleHeapReport[]> = { fleet: [], raw: [], rawLive: [], aiSdk: [] };
  for (let run = 0; run < options.runs; run++) {
    // Rotate who goes first: the machine's state (page cache, load) drifts between probes.
    for (let i = 0; i < KINDS.length; i++) {
      const kind = KINDS[(run + i) % KINDS.length]!;
      reports[kind].push(await probe(kind, options.servers, options.warm));
    }
  }
  const medians = (pick: (report: IdleHeapReport) => number): Record<HeapKind, number> => ({
    fleet: median(reports.fleet.map(pick)),
    raw: median(reports.raw.map(pick)),
    rawLive: median(reports.rawLive.map(pick)),
    aiSdk: median(reports.aiSdk.map(pick)),
  });
  const medianPerServer = medians((report) => report.perServer.heapUsed);
  const medianAverage = medians((report) => report.averageHeapUsed);
  return {
    servers: options.servers,
    warm: options.warm,
    runs: options.runs,
    reports,
    medianPerServer,
    ratio: medianPerServer.fleet / medianPerServer.raw,
    ratioToRawLive: medianPerServer.fleet / medianPerServer.rawLive,
    rawLiveRatio: medianPerServer.rawLive / medianPerServer.raw,
    ratioToAiSdk: medianPerServer.fleet / medianPerServer.aiSdk,
    aiSdkRatio: medianPerServer.aiSdk / medianPerServer.raw,
    medianAverage,
    averageRatio: medianAverage.fleet / medianAverage.raw,
    averageRatioToAiSdk: medianAverage.fleet / medianAverage.aiSdk,
    averageAiSdkRatio: medianAverage.aiSdk / medianAverage.raw,
  };
}

/** RSS per server stays in the JSON only: the allocator returns pages in lumps, so it can even go negative. */
export function idleHeapTable(result: IdleHeapResult): string {
  const kib = (bytes: number) => fixed(bytes / KiB, 1);
  const labels: Record<HeapKind, string> = {
    fleet: 'mcp-fleet (auto)',
    raw: 'raw SDK (auto)',
    rawLive: 'raw SDK (auto, live list)',
    aiSdk: '@ai-sdk/mcp (default)',
  };
  // Ratios of the medians over the runs, shown once per kind.
  const ratios: Record<HeapKind, string[]> = {
    fleet: [fixed(result.ratio, 2), fixed(result.ratioToRawLive, 2), fixed(result.ratioToAiSdk, 2), fixed(result.averageRatio, 2), fixed(result.averageRatioToAiSdk, 2)],
    raw: ['', '', '', '', ''],
    rawLive: [fixed(result.rawLiveRatio, 2), '', '', '', ''],
    aiSdk: [fixed(result.aiSdkRatio, 2), '', '', fixed(result.averageAiSdkRatio, 2), ''],
  };
  const rows = KINDS.flatMap((kind) =>
    result.reports[kind].map((report, run) => {
      const [toRaw, toRawLive, toAiSdk, averageToRaw, averageToAiSdk] = run === 0 ? ratios[kind] : ['', '', '', '', ''];
      return [
        labels[kind],
        String(run + 1),
        report.protocolVersion ?? '?',
        kib(report.perServer.heapUsed),
        toRaw!,
        toRawLive!,
        toAiSdk!,
        kib(report.averageHeapUsed),
        averageToRaw!,
        averageToAiSdk!,
        kib(report.firstServerHeapUsed),
        kib(report.perServer.external),
      ];
    }),
  );
  return formatTable(
    ['kind', 'run', 'era', 'heap KiB/server', '/ raw', '/ raw live', '/ AI SDK', 'avg incl. warm-up KiB', '/ raw', '/ AI SDK', 'first server KiB', 'external KiB/server'],
    rows,
    3,
  );
}
