/**
 * Hostile-body-memory scenario: what a 50 MiB JSON response without Content-Length costs
 * the client. Target: mcp-fleet's memory bounded near its 8 MiB limit (limits.messageBytes).
 *
 * One hostile-http.mjs server; each side runs in a FRESH child process
 * (bench/hostile-body-probe.ts), one after the other, so neither side's heap, buffers or
 * allocator state leaks into the other's figures: mcp-fleet (`McpToolProvider`, default
 * limits) and the raw SDK (`Client` + `StreamableHTTPClientTransport`, no bound).
 * Reported: the peak increase over the baseline (RSS, V8 heap used, ArrayBuffers) during
 * one `huge` call, and what that call returned.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startHttpFixture } from '../test/helpers.js';
import type { ProbeReport } from './hostile-body-probe.js';
import { fixed, formatTable, median, MiB, repoPath } from './util.js';

export interface HostileBodyOptions {
  /** Probe runs per side, alternating sides. */
  runs: number;
}

export interface HostileBodyResult {
  bodyBytes: number;
  limitBytes: number;
  fleet: ProbeReport[];
  raw: ProbeReport[];
  /** Medians over the runs of each side's peak increases, in bytes. */
  median: Record<'fleet' | 'raw', { rss: number; heapUsed: number; arrayBuffers: number }>;
}

const BODY_BYTES = 50 * MiB;
const LIMIT_BYTES = 8 * MiB;
const PROBE = repoPath('bench/hostile-body-probe.ts');
const PROBE_TIMEOUT_MS = 180_000;

/** Runs one probe in a fresh Node process and returns its report. */
async function probe(side: 'fleet' | 'raw', base: string): Promise<ProbeReport> {
  // Without NODE_OPTIONS (tsx may have put its loader there): the probe loads tsx itself.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', PROBE, side, base], {
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
  if (code !== 0 || last === undefined || last === '') throw new Error(`the ${side} probe exited with ${code ?? signal}`);
  return JSON.parse(last) as ProbeReport;
}

export async function runHostileBody(options: HostileBodyOptions): Promise<HostileBodyResult> {
  const server = await startHttpFixture('hostile-http.mjs');
  try {
    const reports: Record<'fleet' | 'raw', ProbeReport[]> = { fleet: [], raw: [] };
    for (let run = 0; run < options.runs; run++) {
      const order = run % 2 === 0 ? (['fleet', 'raw'] as const) : (['raw', 'fleet'] as const);
      for (const side of order) reports[side].push(await probe(side, server.url));
    }
    const medians = (list: ProbeReport[]) => ({
      rss: median(list.map((report) => report.increase.rss)),
      heapUsed: median(list.map((report) => report.increase.heapUsed)),
      arrayBuffers: median(list.map((report) => report.increase.arrayBuffers)),
    });
    return {
      bodyBytes: BODY_BYTES,
      limitBytes: LIMIT_BYTES,
      fleet: reports.fleet,
      raw: reports.raw,
      median: { fleet: medians(reports.fleet), raw: medians(reports.raw) },
    };
  } finally {
    await server.close();
  }
}

export function hostileBodyTable(result: HostileBodyResult): string {
  const mib = (bytes: number) => fixed(bytes / MiB, 1);
  const header = ['side', 'run', 'rss +MiB', 'heapUsed +MiB', 'arrayBuffers +MiB', 'kept after gc MiB', 'call ms', 'outcome'];
  const rows: string[][] = [];
  for (const [label, reports] of [
    ['mcp-fleet', result.fleet],
    ['raw SDK', result.raw],
  ] as const) {
    reports.forEach((report, run) => {
      const outcome = report.outcome;
      const what = outcome.kind === 'error' ? `threw ${outcome.name ?? 'Error'}: ${outcome.message}` : `${outcome.isError ? 'isError' : 'ok'}${outcome.code ? ` ${outcome.code}` : ''}: ${outcome.message}`;
      rows.push([
        label,
        String(run + 1),
        mib(report.increase.rss),
        mib(report.increase.heapUsed),
        mib(report.increase.arrayBuffers),
        mib(report.retained.heapUsed + report.retained.arrayBuffers),
        fixed(report.callMs, 0),
        what.length > 110 ? `${what.slice(0, 110)}…` : what,
      ]);
    });
  }
  return formatTable(header, rows, 2, [header.length - 1]);
}
