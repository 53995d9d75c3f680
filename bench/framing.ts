/**
 * Framing scenario (issue "security"): reading one large stdio message. The SDK's
 * `ReadBuffer` concatenates its whole buffer with every chunk and searches it again from
 * the start (quadratic in the line length); mcp-fleet's `LineFramer` keeps the chunks and
 * joins them once. Target: mcp-fleet at least 10x faster than the raw SDK transport.
 *
 * (a) In-process: one 8 MiB JSON-RPC result line (newline included), in 64 KiB chunks
 *     (a pipe's read size), fed to each reader the way its transport feeds it:
 *     - mcp-fleet: `LineFramer.push` per chunk; each line is `JSON.parse`d and checked with
 *       `parseJSONRPCMessage` (exactly `StdioTransport.handleLine`);
 *     - raw SDK: `ReadBuffer.append` then `readMessage()` until null per chunk (exactly
 *       `StdioClientTransport`); `readMessage` does the same JSON.parse + schema check.
 *     So both sides do the same decoding; "decode" alone is timed too, and "framing" is
 *     each side's total minus it.
 * (b) End to end: `hostile-stdio.mjs big` returns a text of 8 MiB - 1 KiB on one stdout
 *     line; an SDK `Client` calls it over our `StdioTransport` and over the SDK's
 *     `StdioClientTransport`, legacy era on both, calls alternating between the sides.
 *     The server's own work (building and writing the 8 MiB line) is in both figures.
 */
import { Client, parseJSONRPCMessage, ReadBuffer, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { silentLogger } from '../dist/index.js';
import { LineFramer } from '../dist/mcp/transport/lines.js';
import { StdioTransport } from '../dist/mcp/transport/stdio.js';
import { ERA_VERSION } from './call-latency.js';
import { elapsedMs, fixed, formatTable, KiB, MiB, type MsStats, msStats, plainEnv, repoPath } from './util.js';

export interface FramingOptions {
  /** In-process runs per reader (after 2 unmeasured ones). */
  runs: number;
  /** End-to-end calls per side (after 1 unmeasured one). */
  calls: number;
}

export interface FramingResult {
  inProcess: {
    lineBytes: number;
    chunkBytes: number;
    fleet: MsStats;
    raw: MsStats;
    decode: MsStats;
    /** raw median / fleet median, decoding included. */
    speedup: number;
    /** (raw − decode) / (fleet − decode), medians: the framing alone. */
    framingSpeedup: number;
  };
  endToEnd: {
    textBytes: number;
    protocolVersion: { fleet: string | undefined; raw: string | undefined };
    fleet: MsStats;
    raw: MsStats;
    speedup: number;
  };
  targetSpeedup: number;
}

const TARGET_SPEEDUP = 10;
const LINE_BYTES = 8 * MiB;
const CHUNK_BYTES = 64 * KiB;
const E2E_TEXT_BYTES = 8 * MiB - KiB;
const HOSTILE = repoPath('test/fixtures/hostile-stdio.mjs');

/** A `tools/call` result line of exactly `bytes` bytes, newline included, as separate chunks. */
function resultLine(bytes: number, chunkBytes: number): { chunks: Buffer[]; text: string } {
  const envelope = (text: string) => JSON.stringify({ result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id: 7 });
  const text = 'x'.repeat(bytes - 1 - Buffer.byteLength(envelope('')));
  const line = Buffer.from(`${envelope(text)}\n`, 'utf8');
  if (line.length !== bytes) throw new Error(`built a ${line.length}-byte line, wanted ${bytes}`);
  const chunks: Buffer[] = [];
  // Copies, so each chunk is its own buffer as a pipe read delivers it.
  for (let at = 0; at < line.length; at += chunkBytes) chunks.push(Buffer.from(line.subarray(at, at + chunkBytes)));
  return { chunks, text: line.toString('utf8', 0, line.length - 1) };
}

function fleetRead(chunks: Buffer[]): JSONRPCMessage | undefined {
  let message: JSONRPCMessage | undefined;
  const framer = new LineFramer(LINE_BYTES, (line) => {
    message = parseJSONRPCMessage(JSON.parse(line));
  });
  for (const chunk of chunks) framer.push(chunk);
  return message;
}

function rawRead(chunks: Buffer[]): JSONRPCMessage | undefined {
  let message: JSONRPCMessage | undefined;
  const buffer = new ReadBuffer();
  for (const chunk of chunks) {
    buffer.append(chunk);
    for (let next = buffer.readMessage(); next !== null; next = buffer.readMessage()) message = next;
  }
  return message;
}

function timeOnce(work: () => unknown): number {
  const start = process.hrtime.bigint();
  if (work() === undefined) throw new Error('no message was read');
  return elapsedMs(start);
}

function inProcess(runs: number): FramingResult['inProcess'] {
  const { chunks, text } = resultLine(LINE_BYTES, CHUNK_BYTES);
  const readers = {
    fleet: () => fleetRead(chunks),
    raw: () => rawRead(chunks),
    decode: () => parseJSONRPCMessage(JSON.parse(text)),
  };
  const samples: Record<keyof typeof readers, number[]> = { fleet: [], raw: [], decode: [] };
  const names = Object.keys(readers) as (keyof typeof readers)[];
  for (let run = -2; run < runs; run++) {
    // Rotate the order each run, so none always runs right after the same one (GC debt).
    for (let k = 0; k < names.length; k++) {
      const name = names[(run + 2 + k) % names.length]!;
      const ms = timeOnce(readers[name]);
      if (run >= 0) samples[name].push(ms);
    }
  }
  const fleet = msStats(samples.fleet);
  const raw = msStats(samples.raw);
  const decode = msStats(samples.decode);
  return {
    lineBytes: LINE_BYTES,
    chunkBytes: CHUNK_BYTES,
    fleet,
    raw,
    decode,
    speedup: raw.medianMs / fleet.medianMs,
    framingSpeedup: (raw.medianMs - decode.medianMs) / Math.max(fleet.medianMs - decode.medianMs, 0.01),
  };
}

interface E2eSide {
  client: Client;
  call(): Promise<void>;
}

async function connect(transport: Transport, closers: (() => Promise<void>)[]): Promise<E2eSide> {
  const client = new Client({ name: 'bench-framing', version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  closers.push(() => client.close());
  await client.connect(transport);
  return {
    client,
    call: async () => {
      const result = await client.callTool({ name: 'big', arguments: { bytes: E2E_TEXT_BYTES } });
      const [part] = result.content as { type: string; text?: string }[];
      if (result.isError === true || part?.text?.length !== E2E_TEXT_BYTES) throw new Error('big returned the wrong result');
    },
  };
}

async function endToEnd(calls: number): Promise<FramingResult['endToEnd']> {
  const closers: (() => Promise<void>)[] = [];
  try {
    const fleet = await connect(
      new StdioTransport({
        serverId: 'big',
        command: process.execPath,
        args: [HOSTILE, 'big'],
        env: plainEnv(),
        cwd: undefined,
        maxLineBytes: LINE_BYTES,
        stderrBytes: 64 * KiB,
        logger: silentLogger,
        logStderr: false,
      }),
      closers,
    );
    const raw = await connect(new StdioClientTransport({ command: process.execPath, args: [HOSTILE, 'big'], env: plainEnv(), stderr: 'ignore' }), closers);
    const versions = { fleet: fleet.client.getNegotiatedProtocolVersion(), raw: raw.client.getNegotiatedProtocolVersion() };
    if (versions.fleet !== ERA_VERSION.legacy || versions.raw !== ERA_VERSION.legacy) {
      throw new Error(`expected ${ERA_VERSION.legacy} on both sides, got ${JSON.stringify(versions)}`);
    }
    const samples = { fleet: [] as number[], raw: [] as number[] };
    for (let call = -1; call < calls; call++) {
      const order = call % 2 === 0 ? (['fleet', 'raw'] as const) : (['raw', 'fleet'] as const);
      for (const name of order) {
        const side = name === 'fleet' ? fleet : raw;
        const start = process.hrtime.bigint();
        await side.call();
        if (call >= 0) samples[name].push(elapsedMs(start));
      }
    }
    const fleetStats = msStats(samples.fleet);
    const rawStats = msStats(samples.raw);
    return { textBytes: E2E_TEXT_BYTES, protocolVersion: versions, fleet: fleetStats, raw: rawStats, speedup: rawStats.medianMs / fleetStats.medianMs };
  } finally {
    await Promise.allSettled(closers.map((close) => close()));
  }
}

export async function runFraming(options: FramingOptions): Promise<FramingResult> {
  return { inProcess: inProcess(options.runs), endToEnd: await endToEnd(options.calls), targetSpeedup: TARGET_SPEEDUP };
}

export function framingTable(result: FramingResult): string {
  const { inProcess: local, endToEnd: e2e } = result;
  const mark = (speedup: number) => `${fixed(speedup, 1)}x${speedup < result.targetSpeedup ? ' !' : ''}`;
  const header = ['measurement', 'side', 'median ms', 'min ms', 'max ms', 'raw / fleet'];
  const rows = [
    ['8 MiB line in 64 KiB chunks', 'mcp-fleet LineFramer', fixed(local.fleet.medianMs, 1), fixed(local.fleet.minMs, 1), fixed(local.fleet.maxMs, 1), mark(local.speedup)],
    ['', 'raw SDK ReadBuffer', fixed(local.raw.medianMs, 1), fixed(local.raw.minMs, 1), fixed(local.raw.maxMs, 1), ''],
    ['', 'decode alone (both)', fixed(local.decode.medianMs, 1), fixed(local.decode.minMs, 1), fixed(local.decode.maxMs, 1), ''],
    ['', 'framing alone', '', '', '', mark(local.framingSpeedup)],
    ['big call, 8 MiB - 1 KiB text', 'mcp-fleet StdioTransport', fixed(e2e.fleet.medianMs, 1), fixed(e2e.fleet.minMs, 1), fixed(e2e.fleet.maxMs, 1), mark(e2e.speedup)],
    ['', 'raw SDK StdioClientTransport', fixed(e2e.raw.medianMs, 1), fixed(e2e.raw.minMs, 1), fixed(e2e.raw.maxMs, 1), ''],
  ];
  return formatTable(header, rows, 2);
}
