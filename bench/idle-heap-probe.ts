/**
 * One client kind of the idle-heap scenario, alone in this process so the heap is its own
 * (bench/idle-heap.ts starts it once per kind and run):
 *
 *   node --expose-gc --import tsx bench/idle-heap-probe.ts fleet|raw|rawLive|aiSdk <servers> [<warm>]
 *
 * Connects <warm> stdio servers first (default 40) and keeps them: that pays for every
 * lazily built module singleton and schema, and for the code V8 compiles and optimises
 * as the connect path gets hot, none of which is a per-server cost. (Heap snapshot diffs:
 * with one warm-up server, about 40 of mcp-fleet's 84 KiB per server were JIT code and
 * feedback vectors; with 11, still 28 of 48 KiB (the raw SDK's: 14 of 22); with 41, 6 of
 * 24 KiB (raw: 3 of 10).) Then,
 * after a full gc, the baseline; then <servers> more servers, connected and listed one
 * by one and kept; then a quiet moment, gc again, and the figure: heap used now minus
 * the baseline, over <servers>. Prints one JSON line.
 *
 * Each kind connects the way its users do: mcp-fleet one `McpToolProvider` (`lifecycle:
 * 'auto'`) under a `ToolHost`, servers added with `addServer`; the raw SDK one `Client`
 * (`versionNegotiation: 'auto'`) per server, `listTools` once; `rawLive` the same with the SDK's
 * own live tool list (`listChanged.tools`, which on 2026-07-28 keeps a `subscriptions/listen`
 * stream open, as mcp-fleet does for its catalog); `@ai-sdk/mcp` one client per server (its
 * default, discovery first), `tools()` once. Each keeps the catalog it listed.
 */
import { plainEnv, repoPath, sleep } from './util.js';

export type HeapKind = 'fleet' | 'raw' | 'rawLive' | 'aiSdk';

export interface HeapMemory {
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  rss: number;
}

export interface IdleHeapReport {
  kind: HeapKind;
  servers: number;
  protocolVersion: string | undefined;
  /** After loading the client's modules (and, for mcp-fleet, an empty host) and a gc. */
  empty: HeapMemory;
  /** Servers connected before the baseline. */
  warmServers: number;
  /** After the warm-up servers and a gc, before the measured ones. */
  baseline: HeapMemory;
  /** After the measured servers and a gc. */
  after: HeapMemory;
  /** (after − baseline) / servers, per field, in bytes. */
  perServer: HeapMemory;
  /** Heap used by the first (unmeasured) server, lazy one-off state included, in bytes. */
  firstServerHeapUsed: number;
  /** (after − empty) / (servers + warm): the average over every server, warm-up ones included, in bytes. */
  averageHeapUsed: number;
}

const COMMAND = process.execPath;
const ARGS = [repoPath('test/fixtures/v2-server.mjs')];
const ENV = plainEnv();
const SETTLE_MS = 500;

type Connect = () => Promise<string | undefined>;

/** Returns a function that connects (and keeps) one more server, resolving with its era. */
async function connector(kind: HeapKind): Promise<Connect> {
  if (kind === 'fleet') {
    const { McpToolProvider, ToolHost } = await import('../dist/index.js');
    const provider = new McpToolProvider({ servers: [] });
    const host = new ToolHost({ providers: [provider] });
    await host.init();
    let next = 0;
    return async () => {
      const id = `s${next++}`;
      await provider.addServer({ id, transport: { type: 'stdio', command: COMMAND, args: ARGS, env: ENV }, lifecycle: 'auto' });
      // The model-facing catalog an agent would hold (computed from the provider on demand).
      host.definitions();
      return provider.serverStatuses().find((status) => status.id === id)?.protocolVersion;
    };
  }
  if (kind === 'raw' || kind === 'rawLive') {
    const { Client } = await import('@modelcontextprotocol/client');
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const kept: unknown[] = [];
    // The fresh list a change brings is kept too, as mcp-fleet keeps its refreshed catalog.
    const live = kind === 'rawLive' ? { listChanged: { tools: { onChanged: (_error: unknown, tools: unknown) => void kept.push(tools) } } } : {};
    return async () => {
      const client = new Client({ name: 'bench-raw', version: '0.0.0' }, { versionNegotiation: { mode: 'auto' }, ...live });
      await client.connect(new StdioClientTransport({ command: COMMAND, args: ARGS, env: ENV, stderr: 'ignore' }));
      // The listing an app would hold, as the other kinds hold their catalogs.
      kept.push(client, await client.listTools());
      return client.getNegotiatedProtocolVersion();
    };
  }
  const { aiSdkClient } = await import('./ai-sdk-side.js');
  const kept: unknown[] = [];
  return async () => {
    const client = await aiSdkClient('auto', { command: COMMAND, args: ARGS, env: ENV });
    kept.push(client, await client.tools());
    return client.initializeResult.protocolVersion;
  };
}

async function settledMemory(): Promise<HeapMemory> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  // Twice, a turn apart: the first pass can leave finalizers and weak callbacks to run.
  gc();
  await sleep(20);
  gc();
  const { heapUsed, external, arrayBuffers, rss } = process.memoryUsage();
  return { heapUsed, external, arrayBuffers, rss };
}

async function main(): Promise<void> {
  const [kind, count, warm] = [process.argv[2] as HeapKind, Number(process.argv[3]), Number(process.argv[4] ?? 40)];
  if (!['fleet', 'raw', 'rawLive', 'aiSdk'].includes(kind) || !Number.isInteger(count) || count < 1 || !Number.isInteger(warm) || warm < 1) {
    throw new Error('usage: idle-heap-probe.ts fleet|raw|rawLive|aiSdk <servers> [<warm>]');
  }
  const connect = await connector(kind);
  const empty = await settledMemory();
  await connect();
  await sleep(SETTLE_MS);
  const first = await settledMemory();
  for (let i = 1; i < warm; i++) await connect();
  await sleep(SETTLE_MS);
  const baseline = await settledMemory();
  let protocolVersion: string | undefined;
  for (let i = 0; i < count; i++) protocolVersion = await connect();
  // Idle: whatever a connection does after its handshake (streams, timers) has happened.
  await sleep(SETTLE_MS);
  const after = await settledMemory();
  const per = (field: keyof HeapMemory): number => (after[field] - baseline[field]) / count;
  const report: IdleHeapReport = {
    kind,
    servers: count,
    warmServers: warm,
    protocolVersion,
    empty,
    baseline,
    after,
    perServer: { heapUsed: per('heapUsed'), external: per('external'), arrayBuffers: per('arrayBuffers'), rss: per('rss') },
    firstServerHeapUsed: first.heapUsed - empty.heapUsed,
    averageHeapUsed: (after.heapUsed - empty.heapUsed) / (count + warm),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  // The servers are children of this process: exiting ends their stdin and so them.
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
