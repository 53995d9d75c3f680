/**
 * Parallel-HTTP scenario: N `echo` calls in flight at once over Streamable HTTP, per era;
 * the figure is the wall time until the last one has answered. mcp-fleet with
 * `concurrency: 'parallel'` (the default `serial` would queue them on purpose), the raw SDK
 * and `@ai-sdk/mcp` each with `Promise.all` over the same single fixture process.
 *
 * As in call-latency, the sides take turns batch by batch in all six orders, so noise on
 * this shared machine lands on every side alike; CPU is this process's user+system time
 * per call over the measured batches (the server is not counted).
 */
import { aiSdkSide } from './ai-sdk-side.js';
import { type Closers, ERA_VERSION, type Era, fixtureTarget, fleetSide, ORDERS, percentile, rawSide, type Side, startHttpFixture } from './call-latency.js';
import { elapsedMs, fixed, formatTable, type MsStats, msStats } from './util.js';

export interface ParallelHttpOptions {
  /** Calls in flight per batch. */
  inFlight: number;
  /** Measured batches per side. */
  reps: number;
  /** Unmeasured batches per side first. */
  warmup: number;
}

export interface ParallelSideResult extends MsStats {
  protocolVersion: string | undefined;
  cpuUsPerCall: number;
  /** `MaxListenersExceededWarning`s emitted while this side's batches ran (counted, not printed). */
  leakWarnings: number;
}

export interface ParallelEraResult {
  era: Era;
  fleet: ParallelSideResult;
  raw: ParallelSideResult;
  aiSdk: ParallelSideResult;
  /** Wall-time median ratios. */
  ratio: number;
  ratioToAiSdk: number;
  aiSdkRatio: number;
  /** 25th and 75th percentiles of the per-round ratios mcp-fleet / AI SDK (each round runs every side's batch once): the noise. */
  roundRatioIqrToAiSdk: [number, number];
}

export interface ParallelHttpResult {
  inFlight: number;
  reps: number;
  eras: ParallelEraResult[];
}

const ARGS = { text: 'hello' };

async function batch(side: Side, inFlight: number): Promise<void> {
  await Promise.all(Array.from({ length: inFlight }, () => side.call()));
}

/**
 * Counts the `MaxListenersExceededWarning`s emitted while `run` goes, by the side whose
 * batch is running (`current()`), instead of printing each: a side that passes one
 * long-lived signal to every request prints one per request past 1,500. Other warnings
 * are printed as usual.
 */
async function countingLeakWarnings<T>(current: () => number, counts: number[], run: () => Promise<T>): Promise<T> {
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  const count = (warning: Error): void => {
    if (warning.name === 'MaxListenersExceededWarning' && current() >= 0) counts[current()]!++;
    else for (const print of printers) print(warning);
  };
  process.on('warning', count);
  try {
    return await run();
  } finally {
    process.off('warning', count);
    for (const print of printers) process.on('warning', print);
  }
}

async function runEra(era: Era, options: ParallelHttpOptions): Promise<ParallelEraResult> {
  const http = await startHttpFixture();
  const closers: Closers = [];
  try {
    const sides = [
      await fleetSide(era, http.url, closers, { concurrency: 'parallel' }),
      await rawSide(era, http.url, closers),
      await aiSdkSide(era, fixtureTarget(http.url), ARGS, closers),
    ] as const;
    for (const side of sides) {
      if (side.protocolVersion !== ERA_VERSION[era]) throw new Error(`a side negotiated ${side.protocolVersion ?? 'nothing'}, expected ${ERA_VERSION[era]}`);
    }
    const wallMs: number[][] = sides.map(() => []);
    const cpuUs = sides.map(() => 0);
    const roundRatios: number[] = [];
    const warnings = sides.map(() => 0);
    let running = -1;
    await countingLeakWarnings(() => running, warnings, async () => {
      for (let rep = 0; rep < options.warmup; rep++) {
        for (const [index, side] of sides.entries()) {
          running = index;
          await batch(side, options.inFlight);
        }
      }
      for (let rep = 0; rep < options.reps; rep++) {
        for (const index of ORDERS[rep % ORDERS.length]!) {
          running = index;
          const cpu = process.cpuUsage();
          const start = process.hrtime.bigint();
          await batch(sides[index], options.inFlight);
          wallMs[index]!.push(elapsedMs(start));
          const used = process.cpuUsage(cpu);
          cpuUs[index]! += used.user + used.system;
        }
        roundRatios.push(wallMs[0]![rep]! / wallMs[2]![rep]!);
      }
      // A warning is emitted a tick after the listener that set it off.
      await new Promise((resolve) => setImmediate(resolve));
    });
    const [fleet, raw, aiSdk] = sides.map(
      (side, index): ParallelSideResult => ({
        ...msStats(wallMs[index]!),
        protocolVersion: side.protocolVersion,
        cpuUsPerCall: cpuUs[index]! / (options.reps * options.inFlight),
        leakWarnings: warnings[index]!,
      }),
    ) as [ParallelSideResult, ParallelSideResult, ParallelSideResult];
    const sorted = Float64Array.from(roundRatios).sort();
    return {
      era,
      fleet,
      raw,
      aiSdk,
      ratio: fleet.medianMs / raw.medianMs,
      ratioToAiSdk: fleet.medianMs / aiSdk.medianMs,
      aiSdkRatio: aiSdk.medianMs / raw.medianMs,
      roundRatioIqrToAiSdk: [percentile(sorted, 25), percentile(sorted, 75)],
    };
  } finally {
    await Promise.allSettled(closers.map((close) => close()));
    await http.close();
  }
}

export async function runParallelHttp(options: ParallelHttpOptions): Promise<ParallelHttpResult> {
  const eras: ParallelEraResult[] = [];
  for (const era of ['modern', 'legacy'] as const) eras.push(await runEra(era, options));
  return { inFlight: options.inFlight, reps: options.reps, eras };
}

export function parallelHttpTable(result: ParallelHttpResult): string {
  const rows: string[][] = [];
  for (const era of result.eras) {
    const sides = [
      ['mcp-fleet', era.fleet, fixed(era.ratio, 3), fixed(era.ratioToAiSdk, 3), era.roundRatioIqrToAiSdk.map((value) => fixed(value, 2)).join('-')],
      ['raw SDK', era.raw, '', '', ''],
      ['@ai-sdk/mcp', era.aiSdk, fixed(era.aiSdkRatio, 3), '', ''],
    ] as const;
    for (const [label, side, toRaw, toAiSdk, spread] of sides) {
      rows.push([
        `${era.era} ${ERA_VERSION[era.era]}`,
        label,
        fixed(side.medianMs, 1),
        fixed(side.minMs, 1),
        fixed(side.maxMs, 1),
        fixed(side.cpuUsPerCall, 0),
        toRaw,
        toAiSdk,
        spread,
        String(side.leakWarnings),
      ]);
    }
  }
  return formatTable(['era', 'side', 'median ms', 'min ms', 'max ms', 'cpu µs/call', '/ raw', '/ AI SDK', 'IQR / AI SDK', 'leak warnings'], rows, 2);
}
