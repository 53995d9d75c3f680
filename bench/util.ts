/** Small helpers shared by the benchmark scenarios: timing, statistics in ms, tables, paths. */
import { fileURLToPath } from 'node:url';

export const KiB = 1024;
export const MiB = 1024 * 1024;

/** Milliseconds since `start` (a `process.hrtime.bigint()` reading). */
export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Nearest-rank percentile (the same rule as call-latency's `summarise`). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export interface MsStats {
  n: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
}

export function msStats(values: readonly number[]): MsStats {
  return { n: values.length, medianMs: median(values), minMs: Math.min(...values), maxMs: Math.max(...values) };
}

/**
 * A plain text table: the first `leftColumns` columns (labels) and any listed in
 * `alsoLeft` (free text) left-aligned, the rest (numbers) right-aligned.
 */
export function formatTable(header: string[], rows: string[][], leftColumns = 1, alsoLeft: readonly number[] = []): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((cells) => (cells[i] ?? '').length)));
  const left = (i: number): boolean => i < leftColumns || alsoLeft.includes(i);
  const line = (cells: string[]): string =>
    cells.map((cell, i) => (left(i) ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

/** Fixed decimals, for table cells. */
export function fixed(value: number, digits = 2): string {
  return Number.isFinite(value) ? value.toFixed(digits) : '-';
}

/** Absolute path of a file relative to the repository root. */
export function repoPath(relative: string): string {
  return fileURLToPath(new URL(`../${relative}`, import.meta.url));
}

/**
 * A child environment with only PATH and HOME: no NODE_OPTIONS (tsx puts its loader
 * there), so fixture servers run as plain Node, the same for every side.
 */
export function plainEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ['PATH', 'HOME']) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}
