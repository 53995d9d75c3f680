/**
 * CLI start-up scenario: how long a person waits for the command, as fresh processes,
 * beside what nothing can beat. Sides, each run `reps` times in turn:
 * - `node -e 0`: Node.js itself starting and exiting (the floor of any Node command);
 * - `mcp-fleet --version`: the command loading just enough to answer (no SDK);
 * - `mcp-fleet call <server>.echo text=hi` against one stdio server (the built command);
 * - a raw SDK script doing the same: connect one `Client` over stdio, `callTool`, close.
 * Ratios: `--version` to `node -e 0`, and `call` to the raw SDK script.
 */
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { fixed, formatTable, type MsStats, msStats, repoPath } from './util.js';

const run = promisify(execFile);

export interface CliStartOptions {
  reps: number;
}

export interface CliStartResult {
  reps: number;
  node: MsStats;
  version: MsStats;
  call: MsStats;
  raw: MsStats;
  /** `mcp-fleet --version` median / `node -e 0` median. */
  versionVsNode: number;
  /** `mcp-fleet call` median / raw SDK script median. */
  callVsRaw: number;
}

/** The raw SDK side: one stdio client, one call, close (the SDK's own transport, default negotiation). */
const RAW_SCRIPT = `
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const [command, server] = process.argv.slice(2);
const client = new Client({ name: 'bench-raw', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command, args: [server] }));
const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
if (result.content[0].text !== 'hi') throw new Error('unexpected result');
await client.close();
`;

async function time(file: string, args: string[]): Promise<number> {
  const start = process.hrtime.bigint();
  await run(file, args, { cwd: repoPath('.') });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function runCliStart(options: CliStartOptions): Promise<CliStartResult> {
  const bin = repoPath('dist/cli/main.js');
  const server = repoPath('test/fixtures/fleet-server.mjs');
  // The raw script must resolve the SDK from the repository: it lives in bench/ for the run.
  const raw = repoPath(`bench/.raw-call-${process.pid}.mjs`);
  writeFileSync(raw, RAW_SCRIPT);
  const node = process.execPath;
  const sides = {
    node: () => time(node, ['-e', '0']),
    version: () => time(node, [bin, '--version']),
    call: () => time(node, [bin, 'call', 'fleet-server.echo', 'text=hi', '--stdio', `${node} ${server}`]),
    raw: () => time(node, [raw, node, server]),
  };
  const samples: Record<keyof typeof sides, number[]> = { node: [], version: [], call: [], raw: [] };
  try {
    // Warm the disk cache once.
    for (const side of Object.values(sides)) await side();
    for (let rep = 0; rep < options.reps; rep++) {
      for (const [name, side] of Object.entries(sides) as [keyof typeof sides, () => Promise<number>][]) samples[name].push(await side());
    }
  } finally {
    rmSync(raw, { force: true });
  }
  const stats = { node: msStats(samples.node), version: msStats(samples.version), call: msStats(samples.call), raw: msStats(samples.raw) };
  return {
    reps: options.reps,
    ...stats,
    versionVsNode: stats.version.medianMs / stats.node.medianMs,
    callVsRaw: stats.call.medianMs / stats.raw.medianMs,
  };
}

export function cliStartTable(result: CliStartResult): string {
  const rows: [string, MsStats, string][] = [
    ['node -e 0', result.node, ''],
    ['mcp-fleet --version', result.version, `${fixed(result.versionVsNode)} x node`],
    ['mcp-fleet call (1 stdio server)', result.call, `${fixed(result.callVsRaw)} x raw`],
    ['raw SDK script, same call', result.raw, ''],
  ];
  return formatTable(
    ['process', 'median ms', 'min ms', 'max ms', 'ratio'],
    rows.map(([label, stats, ratio]) => [label, fixed(stats.medianMs, 0), fixed(stats.minMs, 0), fixed(stats.maxMs, 0), ratio]),
  );
}
