/**
 * Gateway scenario (issue 29): the raw SDK client calling one upstream directly, and through
 * a gateway over Streamable HTTP: `mcp-fleet serve --http`, `mcp-proxy` and `supergateway
 * --stateful` (its default starts a process per request), all fronting the same stdio
 * fixture; and, for an HTTP upstream, directly vs through mcp-fleet (the peers front only
 * stdio). Every client is the v1 SDK client (2025-11-25: the era every side speaks), plus
 * the v2 client pinned to 2026-07-28 through mcp-fleet.
 *
 * Figures: sequential `echo` calls (median and p95 latency), 64 calls in flight (wall time
 * per batch), and CPU per call of the client process plus the gateway process (from
 * /proc; the upstream is not counted). Sides take turns block by block so the shared
 * machine's noise lands on all alike. Also: idle memory (RSS) of mcp-fleet per downstream
 * session and per upstream server.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHttpFixture } from './call-latency.js';
import { fixed, formatTable, median, percentile, plainEnv, repoPath, sleep } from './util.js';

export interface GatewayBenchOptions {
  /** Sequential calls measured per side (after `warmup`). */
  calls: number;
  warmup: number;
  /** Calls per turn before the next side's turn. */
  block: number;
  inFlight: number;
  /** Batches of `inFlight` measured per side. */
  batches: number;
  /** Sessions opened to measure memory per downstream session. */
  sessions: number;
  /** Extra upstream servers started to measure memory per upstream server. */
  upstreams: number;
}

export interface GatewaySideResult {
  side: string;
  upstream: 'stdio' | 'http';
  seqMedianUs: number;
  seqP95Us: number;
  /** Sequential median, this side over direct to the same upstream. */
  ratio: number;
  parallelMedianMs: number;
  parallelRatio: number;
  /** Client + gateway CPU per sequential call, µs (direct: client only, and the upstream is never counted). */
  cpuUsPerCall: number;
  /** The gateway process's own CPU per sequential call, µs (direct: 0); the client's is the rest of cpuUsPerCall. */
  gatewayCpuUsPerCall: number;
}

export interface GatewayBenchResult {
  sides: GatewaySideResult[];
  memory: { perSessionKiB: number; perUpstreamKiB: number; sessions: number; upstreams: number };
}

const UPSTREAM = repoPath('test/fixtures/v2-server.mjs');
const BIN = repoPath('dist/cli/main.js');
const require = createRequire(import.meta.url);
const ARGS = { text: 'hello' };

interface Side {
  name: string;
  upstream: 'stdio' | 'http';
  call(): Promise<unknown>;
  /** The gateway's pid, whose CPU counts with the client's. */
  gatewayPid?: number;
  close(): Promise<void>;
}

/** utime + stime of a process in µs, from /proc (clock ticks of 10 ms). */
function processCpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
}

/** Starts a gateway process and waits until `url` answers HTTP at all. */
async function startGateway(command: string[], url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, command, { env: plainEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  for (let tries = 0; tries < 300; tries++) {
    if (child.exitCode !== null) throw new Error(`${command.join(' ')} exited: ${stderr}`);
    const answered = await fetch(url, { method: 'GET', headers: { accept: 'text/event-stream' } }).then(
      async (response) => {
        await response.body?.cancel();
        return true;
      },
      () => false,
    );
    if (answered) return child;
    await sleep(50);
  }
  throw new Error(`${command.join(' ')} did not listen on ${url}: ${stderr}`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(5_000).then(() => child.kill('SIGKILL'))]);
}

async function v1Side(name: string, upstream: 'stdio' | 'http', transport: V1StdioTransport | V1HttpTransport, gateway?: ChildProcess): Promise<Side> {
  const client = new V1Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    name,
    upstream,
    call: () => client.callTool({ name: 'echo', arguments: ARGS }),
    ...(gateway?.pid === undefined ? {} : { gatewayPid: gateway.pid }),
    close: async () => {
      await client.close();
      if (gateway !== undefined) await stopProcess(gateway);
    },
  };
}

let nextPort = 18_900 + Math.floor(Math.random() * 500);

function mcpFleetConfig(servers: Record<string, unknown>): string {
  const file = join(tmpdir(), `mcp-fleet-bench-gateway-${process.pid}-${nextPort}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

async function mcpFleetGateway(servers: Record<string, unknown>): Promise<{ url: string; child: ChildProcess }> {
  const port = nextPort++;
  const url = `http://127.0.0.1:${port}/mcp`;
  const child = await startGateway([BIN, 'serve', '--http', '--port', String(port), '--no-watch', '--config', mcpFleetConfig(servers)], url);
  return { url, child };
}

async function sides(httpUpstream: string): Promise<Side[]> {
  const stdioUpstream = { command: process.execPath, args: [UPSTREAM] };
  const built: Side[] = [];
  built.push(await v1Side('direct', 'stdio', new V1StdioTransport({ ...stdioUpstream, env: plainEnv() })));
  const fleet = await mcpFleetGateway({ bench: stdioUpstream });
  built.push(await v1Side('mcp-fleet serve', 'stdio', new V1HttpTransport(new URL(fleet.url)), fleet.child));
  const modern = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modern.connect(new StreamableHTTPClientTransport(new URL(fleet.url)));
  built.push({
    name: 'mcp-fleet serve, 2026-07-28 client',
    upstream: 'stdio',
    call: () => modern.callTool({ name: 'echo', arguments: ARGS }),
    ...(fleet.child.pid === undefined ? {} : { gatewayPid: fleet.child.pid }),
    close: () => modern.close(),
  });

  const proxyPort = nextPort++;
  const proxy = await startGateway(
    [require.resolve('mcp-proxy/dist/bin/mcp-proxy.mjs'), '--port', String(proxyPort), '--host', '127.0.0.1', '--server', 'stream', '--', process.execPath, UPSTREAM],
    `http://127.0.0.1:${proxyPort}/mcp`,
  );
  built.push(await v1Side('mcp-proxy', 'stdio', new V1HttpTransport(new URL(`http://127.0.0.1:${proxyPort}/mcp`)), proxy));

  const superPort = nextPort++;
  const supergateway = await startGateway(
    [require.resolve('supergateway/dist/index.js'), '--stdio', `${process.execPath} ${UPSTREAM}`, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(superPort)],
    `http://127.0.0.1:${superPort}/mcp`,
  );
  built.push(await v1Side('supergateway --stateful', 'stdio', new V1HttpTransport(new URL(`http://127.0.0.1:${superPort}/mcp`)), supergateway));

  built.push(await v1Side('direct', 'http', new V1HttpTransport(new URL(httpUpstream))));
  const fleetHttp = await mcpFleetGateway({ bench: { type: 'http', url: httpUpstream } });
  built.push(await v1Side('mcp-fleet serve', 'http', new V1HttpTransport(new URL(fleetHttp.url)), fleetHttp.child));
  return built;
}

interface Tally {
  latenciesUs: number[];
  cpuUs: number;
  gatewayCpuUs: number;
  batchesMs: number[];
}

async function sequentialTurn(side: Side, calls: number, tally: Tally | undefined): Promise<void> {
  const clientBefore = process.cpuUsage();
  const gatewayBefore = side.gatewayPid === undefined ? 0 : processCpuUs(side.gatewayPid);
  for (let index = 0; index < calls; index++) {
    const start = process.hrtime.bigint();
    await side.call();
    tally?.latenciesUs.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
  if (tally === undefined) return;
  const client = process.cpuUsage(clientBefore);
  const gateway = side.gatewayPid === undefined ? 0 : processCpuUs(side.gatewayPid) - gatewayBefore;
  tally.cpuUs += client.user + client.system + gateway;
  tally.gatewayCpuUs += gateway;
}

async function parallelTurn(side: Side, inFlight: number, tally: Tally | undefined): Promise<void> {
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: inFlight }, () => side.call()));
  tally?.batchesMs.push(Number(process.hrtime.bigint() - start) / 1e6);
}

/** Idle RSS of mcp-fleet serve: per downstream session (v1 clients held open) and per upstream server. */
async function memory(options: GatewayBenchOptions): Promise<GatewayBenchResult['memory']> {
  const upstream = { command: process.execPath, args: [UPSTREAM] };
  const one = await mcpFleetGateway({ bench: upstream });
  await sleep(1_000);
  const before = rssKiB(one.child.pid!);
  const clients: V1Client[] = [];
  for (let index = 0; index < options.sessions; index++) {
    const client = new V1Client({ name: `idle-${index}`, version: '1.0.0' });
    await client.connect(new V1HttpTransport(new URL(one.url)));
    await client.listTools();
    clients.push(client);
  }
  await sleep(1_000);
  const perSessionKiB = (rssKiB(one.child.pid!) - before) / options.sessions;
  await Promise.all(clients.map((client) => client.close()));
  const servers = Object.fromEntries(Array.from({ length: options.upstreams + 1 }, (_, index) => [`bench${index}`, upstream]));
  const many = await mcpFleetGateway(servers);
  await sleep(1_000);
  const perUpstreamKiB = (rssKiB(many.child.pid!) - before) / options.upstreams;
  await stopProcess(one.child);
  await stopProcess(many.child);
  return { perSessionKiB, perUpstreamKiB, sessions: options.sessions, upstreams: options.upstreams };
}

export async function runGateway(options: GatewayBenchOptions): Promise<GatewayBenchResult> {
  const http = await startHttpFixture();
  let built: Side[] = [];
  try {
    built = await sides(http.url);
    const tallies = built.map((): Tally => ({ latenciesUs: [], cpuUs: 0, gatewayCpuUs: 0, batchesMs: [] }));
    for (const side of built) await sequentialTurn(side, options.warmup, undefined);
    for (let done = 0; done < options.calls; done += options.block) {
      for (const [index, side] of built.entries()) await sequentialTurn(side, options.block, tallies[index]);
    }
    for (const side of built) await parallelTurn(side, options.inFlight, undefined);
    for (let batch = 0; batch < options.batches; batch++) {
      for (const [index, side] of built.entries()) await parallelTurn(side, options.inFlight, tallies[index]);
    }
    const results = built.map((side, index): Omit<GatewaySideResult, 'ratio' | 'parallelRatio'> => ({
      side: side.name,
      upstream: side.upstream,
      seqMedianUs: median(tallies[index]!.latenciesUs),
      seqP95Us: percentile(tallies[index]!.latenciesUs, 95),
      parallelMedianMs: median(tallies[index]!.batchesMs),
      cpuUsPerCall: tallies[index]!.cpuUs / tallies[index]!.latenciesUs.length,
      gatewayCpuUsPerCall: tallies[index]!.gatewayCpuUs / tallies[index]!.latenciesUs.length,
    }));
    const sidesOut = results.map((result) => {
      const direct = results.find((other) => other.side === 'direct' && other.upstream === result.upstream)!;
      return { ...result, ratio: result.seqMedianUs / direct.seqMedianUs, parallelRatio: result.parallelMedianMs / direct.parallelMedianMs };
    });
    for (const side of built.splice(0)) await side.close();
    return { sides: sidesOut, memory: await memory(options) };
  } finally {
    for (const side of built) await side.close().catch(() => {});
    await http.close();
  }
}

export function gatewayTable(result: GatewayBenchResult, options: GatewayBenchOptions): string {
  const rows = result.sides.map((side) => [
    side.side,
    side.upstream,
    fixed(side.seqMedianUs, 0),
    fixed(side.seqP95Us, 0),
    `${fixed(side.ratio)}x`,
    fixed(side.parallelMedianMs, 1),
    `${fixed(side.parallelRatio)}x`,
    fixed(side.cpuUsPerCall, 0),
    side.side === 'direct' ? '-' : fixed(side.gatewayCpuUsPerCall, 0),
  ]);
  const table = formatTable(
    ['side', 'upstream', 'seq median µs', 'seq p95 µs', 'vs direct', `${options.inFlight} in flight ms`, 'vs direct', 'client+gateway CPU µs/call', 'of it gateway'],
    rows,
    2,
  );
  const memoryLine = `mcp-fleet serve idle RSS: ${fixed(result.memory.perSessionKiB, 0)} KiB per 2025-11-25 session (${result.memory.sessions} held), ${fixed(result.memory.perUpstreamKiB, 0)} KiB per stdio upstream server (${result.memory.upstreams} more)`;
  return `${table}\n${memoryLine}`;
}
