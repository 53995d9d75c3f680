/**
 * Fleet start scenario: `McpServerManager.startAll()` of N stdio servers (all handshakes
 * at once) against a serial start of the same servers (`startServer` one after the
 * other), in the same run, plus the raw SDK connecting the same servers concurrently
 * (one `Client` + `StdioClientTransport` each, then `listTools`) as the floor.
 *
 * Each repetition starts every side on fresh processes and shuts them down before the
 * next side; sides alternate so drift on a shared machine hits them alike. Target: the
 * concurrent start approaches 1/N of the serial one on a machine with cores to spare, and
 * is not slower than serial on 2 cores (each server is a Node.js process whose own
 * start-up needs a core).
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type McpFleetServerConfig, McpServerManager } from '../dist/index.js';
import { syntheticTools } from './catalog.js';
import { elapsedMs, fixed, formatTable, type MsStats, msStats, repoPath } from './util.js';

export interface FleetStartOptions {
  servers: number;
  tools: number;
  repetitions: number;
}

export interface FleetStartResult {
  servers: number;
  toolsPerServer: number;
  repetitions: number;
  concurrent: MsStats;
  serial: MsStats;
  raw: MsStats;
  /** concurrent median / serial median. */
  ratio: number;
  /** concurrent median / raw SDK concurrent median. */
  vsRaw: number;
}

function configs(count: number, toolsFile: string): McpFleetServerConfig[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `s${i}`,
    transport: { type: 'stdio', command: process.execPath, args: [repoPath('bench/fixtures/catalog-stdio.mjs')], env: { BENCH_TOOLS_FILE: toolsFile } },
  }));
}

async function timeConcurrent(servers: McpFleetServerConfig[]): Promise<number> {
  const manager = new McpServerManager({ servers });
  try {
    const start = process.hrtime.bigint();
    const outcomes = await manager.startAll();
    const ms = elapsedMs(start);
    if (outcomes.some((outcome) => !outcome.ok)) throw new Error(`a server did not start: ${JSON.stringify(outcomes)}`);
    return ms;
  } finally {
    await manager.shutdown();
  }
}

async function timeSerial(servers: McpFleetServerConfig[]): Promise<number> {
  const manager = new McpServerManager({ servers });
  try {
    const start = process.hrtime.bigint();
    for (const id of manager.serverIds()) await manager.startServer(id);
    return elapsedMs(start);
  } finally {
    await manager.shutdown();
  }
}

async function timeRaw(servers: McpFleetServerConfig[]): Promise<number> {
  const clients: Client[] = [];
  try {
    const start = process.hrtime.bigint();
    await Promise.all(
      servers.map(async (server) => {
        const transport = server.transport as { command: string; args: string[]; env: Record<string, string> };
        const client = new Client({ name: 'bench-raw', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
        clients.push(client);
        await client.connect(new StdioClientTransport({ command: transport.command, args: transport.args, env: transport.env }));
        await client.listTools();
      }),
    );
    return elapsedMs(start);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

export async function runFleetStart(options: FleetStartOptions): Promise<FleetStartResult> {
  const toolsFile = join(tmpdir(), `mcp-fleet-bench-fleet-${process.pid}.json`);
  writeFileSync(toolsFile, JSON.stringify(syntheticTools(options.tools, 0)));
  const servers = configs(options.servers, toolsFile);
  // One untimed round warms the module caches of this process and the disk cache.
  await timeConcurrent(servers);
  const concurrent: number[] = [];
  const serial: number[] = [];
  const raw: number[] = [];
  for (let rep = 0; rep < options.repetitions; rep++) {
    // Alternating order, so neither side always runs right after the other's shutdown.
    if (rep % 2 === 0) {
      concurrent.push(await timeConcurrent(servers));
      serial.push(await timeSerial(servers));
    } else {
      serial.push(await timeSerial(servers));
      concurrent.push(await timeConcurrent(servers));
    }
    raw.push(await timeRaw(servers));
  }
  const result = { concurrent: msStats(concurrent), serial: msStats(serial), raw: msStats(raw) };
  return {
    servers: options.servers,
    toolsPerServer: options.tools,
    repetitions: options.repetitions,
    ...result,
    ratio: result.concurrent.medianMs / result.serial.medianMs,
    vsRaw: result.concurrent.medianMs / result.raw.medianMs,
  };
}

export function fleetStartTable(result: FleetStartResult): string {
  const rows = [
    ['startAll (concurrent)', result.concurrent, fixed(result.ratio, 2)],
    ['startServer one by one', result.serial, '1.00'],
    ['raw SDK, concurrent', result.raw, fixed(result.raw.medianMs / result.serial.medianMs, 2)],
  ] as const;
  return formatTable(
    ['side', 'median ms', 'min ms', 'max ms', 'ratio to serial'],
    rows.map(([side, stats, ratio]) => [side, fixed(stats.medianMs, 0), fixed(stats.minMs, 0), fixed(stats.maxMs, 0), ratio]),
  );
}
