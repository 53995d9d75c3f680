/**
 * `npm run bench`: mcp-fleet's per-call overhead over the raw SDK, per transport and era.
 * Prints a table and writes the full result to bench/results/<timestamp>.json.
 *
 *   npm run bench -- [--calls 1000] [--warmup 100] [--block 100] [--only stdio|http]
 *
 * The target is a median ratio (mcp-fleet / raw SDK) of at most 1.10. Scenarios run one
 * at a time: on a 2-core machine anything concurrent would measure contention.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { type Era, ERA_VERSION, runScenario, type ScenarioResult, type TransportKind } from './call-latency.js';

const TARGET_RATIO = 1.1;

function positiveInt(name: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new Error(`--${name} must be a positive integer, got "${value}"`);
  return number;
}

function parseOptions(): { calls: number; warmup: number; block: number; transports: TransportKind[] } {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string', default: '1000' },
      warmup: { type: 'string', default: '100' },
      block: { type: 'string', default: '100' },
      only: { type: 'string' },
    },
    strict: true,
  });
  const only = values.only;
  if (only !== undefined && only !== 'stdio' && only !== 'http') throw new Error(`--only must be "stdio" or "http", got "${only}"`);
  return {
    calls: positiveInt('calls', values.calls),
    warmup: positiveInt('warmup', values.warmup),
    block: positiveInt('block', values.block),
    transports: only === undefined ? ['stdio', 'http'] : [only],
  };
}

function row(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
}

function table(results: ScenarioResult[]): string {
  const header = ['transport', 'era', 'side', 'setup ms', 'median µs', 'p90 µs', 'p99 µs', 'cpu µs/call', 'ratio', 'round IQR'];
  const us = (value: number): string => Math.round(value).toString();
  const rows: string[][] = [];
  for (const result of results) {
    const era = `${result.era} ${ERA_VERSION[result.era]}`;
    for (const [side, data] of [['mcp-fleet', result.fleet], ['raw SDK', result.raw]] as const) {
      const fleetRow = side === 'mcp-fleet';
      const ratio = fleetRow ? `${result.ratio.toFixed(3)}${result.ratio > TARGET_RATIO ? ' !' : ''}` : '';
      const [low, high] = result.roundRatioIqr;
      const spread = fleetRow ? `${low.toFixed(2)}-${high.toFixed(2)}` : '';
      rows.push([
        result.transport,
        era,
        side,
        data.setupMs.toFixed(0),
        us(data.stats.medianUs),
        us(data.stats.p90Us),
        us(data.stats.p99Us),
        us(data.cpuUsPerCall),
        ratio,
        spread,
      ]);
    }
  }
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((cells) => cells[i]!.length)));
  return [row(header, widths), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map((cells) => row(cells, widths))].join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions();
  const eras: Era[] = ['modern', 'legacy'];
  const startedAt = new Date();
  console.log(
    `call latency: ${options.calls} calls/side after ${options.warmup} warm-up, blocks of ${options.block}; ` +
      `node ${process.version}, ${cpus().length} CPUs, load ${loadavg().map((load) => load.toFixed(2)).join(' ')}`,
  );
  const results: ScenarioResult[] = [];
  for (const transport of options.transports) {
    for (const era of eras) {
      process.stdout.write(`  ${transport} ${era}... `);
      const result = await runScenario({ transport, era, calls: options.calls, warmup: options.warmup, block: options.block });
      console.log(`ratio ${result.ratio.toFixed(3)}`);
      results.push(result);
    }
  }
  console.log(`\n${table(results)}\n`);
  console.log(`ratio = mcp-fleet median / raw SDK median; target <= ${TARGET_RATIO.toFixed(2)} ("!" marks a miss).`);
  console.log('round IQR = 25th-75th percentile of the per-round ratios (fleet block / adjacent raw block): the noise.');
  console.log('cpu µs/call = user+system CPU of this process per measured call (the servers are not counted).');

  const directory = new URL('./results/', import.meta.url);
  mkdirSync(directory, { recursive: true });
  const file = new URL(`${startedAt.toISOString().replace(/[:.]/g, '-')}.json`, directory);
  const report = {
    startedAt: startedAt.toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    loadAverageAtEnd: loadavg(),
    options,
    targetRatio: TARGET_RATIO,
    results,
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${file.pathname}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
