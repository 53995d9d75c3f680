/**
 * `npm run bench`: mcp-fleet against the raw SDK (and, where issue 16 asks, the leanest peer,
 * `@ai-sdk/mcp`), scenario by scenario. Prints a table per
 * scenario and writes every figure to bench/results/<timestamp>.json.
 *
 *   npm run bench -- [--only <scenario>[,<scenario>...]] [scenario flags]
 *
 * Scenarios (all by default, one at a time: on a 2-core machine anything concurrent
 * would measure contention):
 *   call-latency         sequential calls, per transport and era, mcp-fleet, raw SDK and
 *                        @ai-sdk/mcp (`--only stdio|http` for one transport); target: median
 *                        ratio mcp-fleet / raw SDK <= 1.10 (issue 16: <= 1.00 and <= @ai-sdk/mcp).
 *                        --calls 1000 --warmup 1000 --block 100
 *   parallel-http        N calls in flight over Streamable HTTP, per era, the same three
 *                        (mcp-fleet with concurrency 'parallel'); wall time per batch;
 *                        issue 16: mcp-fleet <= @ai-sdk/mcp.
 *                        --parallel-in-flight 64 --parallel-reps 60 --parallel-warmup 3
 *   cold-start-legacy    whole sessions (connect, list, one call, close) on a legacy HTTP
 *                        server, every side negotiating 'auto', plus the HTTP requests each
 *                        makes per session; issue 16: mcp-fleet <= 1.00x the raw SDK. Timed
 *                        after one untimed session per side, and again after more.
 *                        --cold-sessions 10 --cold-warm 30
 *   idle-heap            V8 heap per connected idle stdio server, one fresh process per client
 *                        kind (the raw SDK also with its own live tool list, like for like);
 *                        issue 16: mcp-fleet <= 1.00x the raw SDK.
 *                        --heap-servers 10 --heap-runs 1 --heap-warm 40
 *   refresh-latency      call latency while a 2,048-tool catalog is refreshed in a loop;
 *                        target: within 2x of the quiet median.
 *                        --refresh-calls 600 --refresh-block 200 --refresh-raw-calls 18
 *                        --refresh-tools 2048 --refresh-server bench|catalog-server
 *                        --refresh-page-sizes 0,128 (tools per tools/list page, 0 = one page;
 *                        one run per size)
 *   publish              budgets + naming + publication of 10 x 2,048 tools, in process;
 *                        target: well under 100 ms in total.
 *                        --publish-reps 20 --publish-servers 10 --publish-tools 2048
 *   framing              one 8 MiB stdio line, in process and end to end;
 *                        target: mcp-fleet at least 10x faster.  --framing-runs 9 --framing-calls 5
 *   hostile-body-memory  memory during a 50 MiB HTTP body, each side in a fresh process;
 *                        target: bounded near the 8 MiB limit.  --memory-runs 1
 *   fleet-start          McpServerManager.startAll of 10 stdio servers vs starting them one by
 *                        one, beside the raw SDK connecting them concurrently; target: not
 *                        slower than serial (approaching 1/10 with cores to spare).
 *                        --fleet-reps 5 --fleet-servers 10 --fleet-tools 16
 *   cli-start            the built command as fresh processes: --version against node -e 0, and
 *                        call against one stdio server against a raw SDK script doing the same.
 *                        --cli-reps 10
 *   tool-search          tools_search over the real catalogs of published servers against task
 *                        queries: top-1, recall@5/10, MRR per kind, beside plain BM25 and hybrid
 *                        ranking; search latency and index heap per tool (issue 27).
 *                        --search-split all|dev|test --search-latency-runs 20 --search-verbose
 *   gateway              the raw SDK client calling one upstream directly vs through mcp-fleet serve
 *                        --http, mcp-proxy and supergateway (stdio upstream; HTTP upstream:
 *                        mcp-fleet only): sequential and 64 in flight, latency and client +
 *                        gateway CPU per call; idle RSS per session and per upstream (issue 29:
 *                        ratio and CPU at most half the best peer's).
 *                        --gateway-calls 1000 --gateway-warmup 300 --gateway-block 100
 *                        --gateway-in-flight 64 --gateway-batches 30 --gateway-sessions 20 --gateway-upstreams 10
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fixed } from './util.js';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { type Era, ERA_VERSION, runScenario, type ScenarioResult, type TransportKind } from './call-latency.js';
import { framingTable, runFraming } from './framing.js';
import { hostileBodyTable, runHostileBody } from './hostile-body-memory.js';
import { publishTable, runPublish } from './publish.js';
import { type CatalogServer, type RefreshLatencyResult, refreshLatencyTable, runRefreshLatency } from './refresh-latency.js';
import { fleetStartTable, runFleetStart } from './fleet-start.js';
import { cliStartTable, runCliStart } from './cli-start.js';
import { parallelHttpTable, runParallelHttp } from './parallel-http.js';
import { coldStartLegacyTable, runColdStartLegacy } from './cold-start-legacy.js';
import { idleHeapTable, runIdleHeap } from './idle-heap.js';
import { runToolSearch, toolSearchTable } from './tool-search.js';
import { gatewayTable, type GatewayBenchOptions, runGateway } from './gateway.js';

const TARGET_RATIO = 1.1;

const SCENARIOS = [
  'call-latency',
  'parallel-http',
  'cold-start-legacy',
  'idle-heap',
  'refresh-latency', 'publish', 'framing', 'hostile-body-memory', 'fleet-start',
  'cli-start',
  'tool-search',
  'gateway',
] as const;
type Scenario = (typeof SCENARIOS)[number];

function searchSplit(value: string): 'all' | 'dev' | 'test' {
  if (value !== 'all' && value !== 'dev' && value !== 'test') throw new Error(`--search-split must be all, dev or test, got "${value}"`);
  return value;
}

function positiveInt(name: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new Error(`--${name} must be a positive integer, got "${value}"`);
  return number;
}

interface Options {
  scenarios: Scenario[];
  calls: number;
  warmup: number;
  block: number;
  transports: TransportKind[];
  refresh: { tools: number; calls: number; block: number; rawCalls: number; server: CatalogServer; pageSizes: number[] };
  publish: { repetitions: number; servers: number; tools: number };
  framing: { runs: number; calls: number };
  memory: { runs: number };
  fleet: { repetitions: number; servers: number; tools: number };
  cli: { reps: number };
  parallel: { inFlight: number; reps: number; warmup: number };
  cold: { sessions: number; warmSessions: number };
  heap: { servers: number; runs: number; warm: number };
  search: { split: 'all' | 'dev' | 'test'; latencyRuns: number; verbose: boolean };
  gateway: GatewayBenchOptions;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string', default: '1000' },
      warmup: { type: 'string', default: '1000' },
      block: { type: 'string', default: '100' },
      only: { type: 'string' },
      'refresh-tools': { type: 'string', default: '2048' },
      'refresh-calls': { type: 'string', default: '600' },
      'refresh-block': { type: 'string', default: '200' },
      'refresh-raw-calls': { type: 'string', default: '18' },
      'refresh-server': { type: 'string', default: 'bench' },
      'refresh-page-sizes': { type: 'string', default: '0,128' },
      'publish-reps': { type: 'string', default: '20' },
      'publish-servers': { type: 'string', default: '10' },
      'publish-tools': { type: 'string', default: '2048' },
      'framing-runs': { type: 'string', default: '9' },
      'framing-calls': { type: 'string', default: '5' },
      'memory-runs': { type: 'string', default: '1' },
      'fleet-reps': { type: 'string', default: '5' },
      'fleet-servers': { type: 'string', default: '10' },
      'fleet-tools': { type: 'string', default: '16' },
      'cli-reps': { type: 'string', default: '10' },
      'parallel-in-flight': { type: 'string', default: '64' },
      'parallel-reps': { type: 'string', default: '60' },
      'parallel-warmup': { type: 'string', default: '3' },
      'cold-sessions': { type: 'string', default: '10' },
      'cold-warm': { type: 'string', default: '30' },
      'heap-servers': { type: 'string', default: '10' },
      'heap-runs': { type: 'string', default: '1' },
      'heap-warm': { type: 'string', default: '40' },
      'search-split': { type: 'string', default: 'all' },
      'search-latency-runs': { type: 'string', default: '20' },
      'search-verbose': { type: 'boolean', default: false },
      'gateway-calls': { type: 'string', default: '1000' },
      'gateway-warmup': { type: 'string', default: '300' },
      'gateway-block': { type: 'string', default: '100' },
      'gateway-in-flight': { type: 'string', default: '64' },
      'gateway-batches': { type: 'string', default: '30' },
      'gateway-sessions': { type: 'string', default: '20' },
      'gateway-upstreams': { type: 'string', default: '10' },
    },
    strict: true,
  });
  // `--only stdio` / `--only http` keep their old meaning: call latency over one transport.
  let transports: TransportKind[] = ['stdio', 'http'];
  const scenarios = new Set<Scenario>();
  for (const name of values.only?.split(',').map((part) => part.trim()) ?? SCENARIOS) {
    if (name === 'stdio' || name === 'http') {
      transports = [name];
      scenarios.add('call-latency');
    } else if ((SCENARIOS as readonly string[]).includes(name)) {
      scenarios.add(name as Scenario);
    } else {
      throw new Error(`--only takes ${[...SCENARIOS, 'stdio', 'http'].join(', ')} (comma-separated), got "${name}"`);
    }
  }
  const server = values['refresh-server'];
  if (server !== 'bench' && server !== 'catalog-server') throw new Error(`--refresh-server must be "bench" or "catalog-server", got "${server}"`);
  return {
    scenarios: SCENARIOS.filter((scenario) => scenarios.has(scenario)),
    calls: positiveInt('calls', values.calls),
    warmup: positiveInt('warmup', values.warmup),
    block: positiveInt('block', values.block),
    transports,
    refresh: {
      tools: positiveInt('refresh-tools', values['refresh-tools']),
      calls: positiveInt('refresh-calls', values['refresh-calls']),
      block: positiveInt('refresh-block', values['refresh-block']),
      rawCalls: positiveInt('refresh-raw-calls', values['refresh-raw-calls']),
      pageSizes: values['refresh-page-sizes'].split(',').map((size) => (size.trim() === '0' ? 0 : positiveInt('refresh-page-sizes', size.trim()))),
      server,
    },
    publish: {
      repetitions: positiveInt('publish-reps', values['publish-reps']),
      servers: positiveInt('publish-servers', values['publish-servers']),
      tools: positiveInt('publish-tools', values['publish-tools']),
    },
    framing: { runs: positiveInt('framing-runs', values['framing-runs']), calls: positiveInt('framing-calls', values['framing-calls']) },
    memory: { runs: positiveInt('memory-runs', values['memory-runs']) },
    fleet: {
      repetitions: positiveInt('fleet-reps', values['fleet-reps']),
      servers: positiveInt('fleet-servers', values['fleet-servers']),
      tools: positiveInt('fleet-tools', values['fleet-tools']),
    },
    cli: { reps: positiveInt('cli-reps', values['cli-reps']) },
    parallel: {
      inFlight: positiveInt('parallel-in-flight', values['parallel-in-flight']),
      reps: positiveInt('parallel-reps', values['parallel-reps']),
      warmup: positiveInt('parallel-warmup', values['parallel-warmup']),
    },
    cold: { sessions: positiveInt('cold-sessions', values['cold-sessions']), warmSessions: positiveInt('cold-warm', values['cold-warm']) },
    heap: { servers: positiveInt('heap-servers', values['heap-servers']), runs: positiveInt('heap-runs', values['heap-runs']), warm: positiveInt('heap-warm', values['heap-warm']) },
    search: { split: searchSplit(values['search-split']), latencyRuns: positiveInt('search-latency-runs', values['search-latency-runs']), verbose: values['search-verbose'] },
    gateway: {
      calls: positiveInt('gateway-calls', values['gateway-calls']),
      warmup: positiveInt('gateway-warmup', values['gateway-warmup']),
      block: positiveInt('gateway-block', values['gateway-block']),
      inFlight: positiveInt('gateway-in-flight', values['gateway-in-flight']),
      batches: positiveInt('gateway-batches', values['gateway-batches']),
      sessions: positiveInt('gateway-sessions', values['gateway-sessions']),
      upstreams: positiveInt('gateway-upstreams', values['gateway-upstreams']),
    },
  };
}

function row(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
}

function table(results: ScenarioResult[]): string {
  const header = ['transport', 'era', 'side', 'setup ms', 'median µs', 'p90 µs', 'p99 µs', 'cpu µs/call', '/ raw', '/ AI SDK', 'IQR / raw', 'IQR / AI SDK'];
  const us = (value: number): string => Math.round(value).toString();
  const spread = ([low, high]: [number, number]): string => `${low.toFixed(2)}-${high.toFixed(2)}`;
  const rows: string[][] = [];
  for (const result of results) {
    const era = `${result.era} ${ERA_VERSION[result.era]}`;
    const sides = [
      ['mcp-fleet', result.fleet],
      ['raw SDK', result.raw],
      ['@ai-sdk/mcp', result.aiSdk],
    ] as const;
    for (const [side, data] of sides) {
      const fleetRow = side === 'mcp-fleet';
      // The fleet row carries both ratios (the targets); the peer's row its ratio to the raw SDK.
      const toRaw = fleetRow ? `${result.ratio.toFixed(3)}${result.ratio > TARGET_RATIO ? ' !' : ''}` : side === 'raw SDK' ? '' : result.aiSdkRatio.toFixed(3);
      rows.push([
        result.transport,
        era,
        side,
        data.setupMs.toFixed(0),
        us(data.stats.medianUs),
        us(data.stats.p90Us),
        us(data.stats.p99Us),
        us(data.cpuUsPerCall),
        toRaw,
        fleetRow ? result.ratioToAiSdk.toFixed(3) : '',
        fleetRow ? spread(result.roundRatioIqr) : '',
        fleetRow ? spread(result.roundRatioIqrToAiSdk) : '',
      ]);
    }
  }
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((cells) => cells[i]!.length)));
  return [row(header, widths), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map((cells) => row(cells, widths))].join('\n');
}

async function callLatency(options: Options): Promise<ScenarioResult[]> {
  const eras: Era[] = ['modern', 'legacy'];
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
  console.log(
    `/ raw = median / raw SDK median (fleet: target <= ${TARGET_RATIO.toFixed(2)}, "!" marks a miss; issue 16 wants <= 1.00); ` +
      '/ AI SDK = fleet median / @ai-sdk/mcp median (issue 16 wants <= 1.00).',
  );
  console.log('IQR = 25th-75th percentile of the per-round ratios (fleet block / the other side\'s block in the same round): the noise.');
  console.log('cpu µs/call = user+system CPU of this process per measured call, per side (the servers are not counted).');
  console.log('@ai-sdk/mcp: callTool(); modern = server/discover (its default), legacy = protocolVersionDiscovery: false (initialize).');
  return results;
}

/** Runs one scenario with a heading and its duration. */
async function section<T>(title: string, run: () => Promise<T> | T): Promise<T> {
  console.log(`\n== ${title} (load average ${loadavg().map((load) => load.toFixed(2)).join(' ')})`);
  const start = process.hrtime.bigint();
  const result = await run();
  console.log(`(${(Number(process.hrtime.bigint() - start) / 1e9).toFixed(1)} s)`);
  return result;
}

async function main(): Promise<void> {
  const options = parseOptions();
  const startedAt = new Date();
  console.log(`scenarios: ${options.scenarios.join(', ')}; node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'})`);
  const scenarios: Record<string, unknown> = {};
  let results: ScenarioResult[] = [];
  for (const scenario of options.scenarios) {
    switch (scenario) {
      case 'call-latency':
        results = await section('call-latency', () => callLatency(options));
        break;
      case 'parallel-http': {
        const result = await section('parallel-http', () => runParallelHttp(options.parallel));
        console.log(parallelHttpTable(result));
        console.log(
          `${result.inFlight} echo calls in flight per batch over Streamable HTTP (one fixture process), ${result.reps} batches per side in turn; ` +
            'ratios of median wall time per batch (issue 16: mcp-fleet / AI SDK <= 1.00); IQR = 25th-75th percentile of the per-round ratios (the noise). ' +
            'mcp-fleet: concurrency "parallel"; the others: Promise.all. Leak warnings = MaxListenersExceededWarning emitted during the side\'s batches, counted instead of printed ' +
            '(a client that passes one long-lived signal to every fetch gets one per request past 1,500).',
        );
        scenarios['parallel-http'] = result;
        break;
      }
      case 'cold-start-legacy': {
        const result = await section('cold-start-legacy', () => runColdStartLegacy(options.cold));
        console.log(coldStartLegacyTable(result));
        for (const [label, side] of [['mcp-fleet', result.sides.fleet], ['raw SDK', result.sides.raw], ['@ai-sdk/mcp', result.sides.aiSdk]] as const) {
          console.log(`  ${label}: ${side.requests.join(' | ')}`);
        }
        console.log(
          `${result.sessions} sessions per side in turn on test/fixtures/legacy-http-server.mjs (v1 SDK, 2025-11-25); a session = create, connect, list tools, ` +
            `one call, close. Timed after 1 untimed session per side (issue 16's figure: mcp-fleet / raw <= 1.00), and again after ${result.warmSessions} more ` +
            '(each client\'s code compiled, as in a process that opens sessions all day). Ratios of medians. Requests: one extra session per side on a counting wrapper of the same server.',
        );
        scenarios['cold-start-legacy'] = result;
        break;
      }
      case 'idle-heap': {
        const result = await section('idle-heap', () => runIdleHeap(options.heap));
        console.log(idleHeapTable(result));
        console.log(
          `${result.servers} idle stdio servers (test/fixtures/v2-server.mjs) per fresh process, after ${result.warm} warm-up servers that pay the one-off costs ` +
            '(lazy state, and JIT code of a connect path getting hot); heapUsed after gc; ratios of medians (issue 16: mcp-fleet / raw <= 1.00; ' +
            '"live list" = the raw SDK with listChanged.tools, keeping a subscriptions/listen stream open as mcp-fleet does for its catalog; ' +
            '"avg incl. warm-up" counts the one-off costs too, like a figure taken from an empty process).',
        );
        scenarios['idle-heap'] = result;
        break;
      }
      case 'refresh-latency': {
        const { tools, calls, block, rawCalls, server, pageSizes } = options.refresh;
        const runs: RefreshLatencyResult[] = [];
        for (const pageSize of pageSizes) {
          const pages = pageSize === 0 ? 'one page' : `pages of ${pageSize}`;
          const result = await section(`refresh-latency, ${pages}`, () => runRefreshLatency({ tools, calls, block, rawCalls, warmup: 30, server, pageSize }));
          console.log(refreshLatencyTable(result));
          console.log(
            `${result.tools} tools in ${pages} (${result.server} server, era ${result.fleet.protocolVersion}), calling ${result.calledTool}; ` +
              `ratio = refreshing median / quiet median, target <= ${result.targetRatio} ("!" marks a miss).`,
          );
          console.log(
            `mcp-fleet refreshing median / raw SDK refreshing median: ${result.refreshingVsRaw.request.toFixed(2)} (vs tools/list), ` +
              `${result.refreshingVsRaw.listTools.toFixed(2)} (vs listTools).`,
          );
          console.log('refreshes = refreshes completed while the calls were timed; loop delay max = longest event-loop stall in this process during those calls.');
          runs.push(result);
        }
        scenarios['refresh-latency'] = runs;
        break;
      }
      case 'gateway': {
        const result = await section('gateway', () => runGateway(options.gateway));
        console.log(gatewayTable(result, options.gateway));
        const peers = result.sides.filter((side) => side.side === 'mcp-proxy' || side.side.startsWith('supergateway'));
        const best = Math.min(...peers.map((side) => side.ratio));
        const bestCpu = Math.min(...peers.map((side) => side.cpuUsPerCall));
        const bestGatewayCpu = Math.min(...peers.map((side) => side.gatewayCpuUsPerCall));
        const fleet = result.sides.find((side) => side.side === 'mcp-fleet serve' && side.upstream === 'stdio')!;
        console.log(
          `echo on test/fixtures/v2-server.mjs; v1 SDK client (2025-11-25) unless marked; ${options.gateway.calls} sequential calls per side in blocks of ${options.gateway.block} taken in turn, ` +
            `then ${options.gateway.batches} batches of ${options.gateway.inFlight} in flight. Ratios of medians over direct to the same upstream. ` +
            `Issue 29 target: mcp-fleet ratio and CPU per call at most half the best peer's: ratio ${fixed(fleet.ratio)}x vs best peer ${fixed(best)}x, ` +
            `client + gateway CPU ${fixed(fleet.cpuUsPerCall, 0)} vs ${fixed(bestCpu, 0)} µs, the gateway's own ${fixed(fleet.gatewayCpuUsPerCall, 0)} vs ${fixed(bestGatewayCpu, 0)} µs.`,
        );
        scenarios.gateway = result;
        break;
      }
      case 'tool-search': {
        const result = await section('tool-search', () => runToolSearch(options.search));
        console.log(toolSearchTable(result));
        console.log(
          'Corpus: bench/fixtures/tool-search (real tools/list of published servers, each replayed by a catalog-server process through McpToolProvider); ' +
            'queries phrased as users phrase them, each with the tools that do it. plain BM25 = MiniSearch defaults over the same fields; ' +
            'stand-in embedding = hashed word stems (deterministic), to check that hybrid ranking does not do worse than lexical.',
        );
        scenarios['tool-search'] = result;
        break;
      }
      case 'publish': {
        const result = await section('publish', () => runPublish({ ...options.publish, warmup: 1 }));
        console.log(publishTable(result));
        console.log(
          `${result.servers} servers x ${result.toolsPerServer} tools -> ${result.definitions} definitions (${result.hashedNames} with a hash suffix), ` +
            `${result.groups} groups; ${options.publish.repetitions} repetitions; target: total well under ${result.targetMs} ms ("!" marks a miss).`,
        );
        scenarios.publish = result;
        break;
      }
      case 'framing': {
        const result = await section('framing', () => runFraming(options.framing));
        console.log(framingTable(result));
        console.log(
          `raw / fleet = how many times faster mcp-fleet is (medians); target >= ${result.targetSpeedup}x ("!" marks a miss). ` +
            `Era ${result.endToEnd.protocolVersion.fleet} end to end.`,
        );
        scenarios.framing = result;
        break;
      }
      case 'hostile-body-memory': {
        const result = await section('hostile-body-memory', () => runHostileBody(options.memory));
        console.log(hostileBodyTable(result));
        console.log(
          `one 50 MiB JSON body without Content-Length; increases are peaks over a post-gc baseline, per fresh process; ` +
            `mcp-fleet limit ${result.limitBytes / (1024 * 1024)} MiB (limits.messageBytes).`,
        );
        scenarios['hostile-body-memory'] = result;
        break;
      }
      case 'fleet-start': {
        const result = await section('fleet-start', () => runFleetStart(options.fleet));
        console.log(fleetStartTable(result));
        console.log(
          `${result.servers} stdio servers of ${result.toolsPerServer} tools, ${result.repetitions} repetitions, fresh processes each time; ` +
            `ratio = median / serial median (target: concurrent <= 1.00, approaching ${fixed(1 / result.servers, 2)} with ${result.servers} cores); ` +
            `startAll / raw SDK concurrent: ${fixed(result.vsRaw, 2)}.`,
        );
        scenarios['fleet-start'] = result;
        break;
      }
      case 'cli-start': {
        const result = await section('cli-start', () => runCliStart(options.cli));
        console.log(cliStartTable(result));
        console.log(`${result.reps} fresh processes per side, in turn; ratios of medians. The call side starts a stdio server each time.`);
        scenarios['cli-start'] = result;
        break;
      }
    }
  }

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
    scenarios,
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`\nwrote ${file.pathname}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
