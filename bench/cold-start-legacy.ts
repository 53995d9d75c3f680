/**
 * Cold-start-legacy scenario: whole sessions against a legacy (2025-era, v1 SDK, sessionful)
 * Streamable HTTP server, each side left to find that out itself: mcp-fleet with
 * `lifecycle: 'auto'`, the raw SDK with `versionNegotiation: { mode: 'auto' }`, `@ai-sdk/mcp`
 * with its default (probe with `server/discover`, then `initialize`). One session = create
 * the client, connect, list the tools, call `echo` once, close; timed whole.
 *
 * The timed sessions run against test/fixtures/legacy-http-server.mjs, sides taking turns
 * in all six orders. Then one more session per side runs against the same server wrapped by
 * bench/fixtures/counted-legacy-http.mjs, which reports each HTTP request it gets: what a
 * session costs in round trips, which is where a negotiation gap should show.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpToolProvider, ToolHost } from '../dist/index.js';
import { aiSdkClient } from './ai-sdk-side.js';
import { ORDERS, startHttpFixture } from './call-latency.js';
import { elapsedMs, fixed, formatTable, type MsStats, msStats, repoPath, sleep } from './util.js';

export interface ColdStartLegacyOptions {
  /** Timed sessions per side. */
  sessions: number;
}

export type ColdSideName = 'fleet' | 'raw' | 'aiSdk';

export interface ColdSideResult extends MsStats {
  protocolVersion: string | undefined;
  /** The HTTP requests of one session as the server saw them, e.g. `POST initialize`, `GET`. */
  requests: string[];
}

export interface ColdStartLegacyResult {
  sessions: number;
  sides: Record<ColdSideName, ColdSideResult>;
  /** Median ratios. */
  ratio: number;
  ratioToAiSdk: number;
  aiSdkRatio: number;
}

const ARGS = { text: 'hello' };
const LEGACY = repoPath('test/fixtures/legacy-http-server.mjs');
const COUNTED = repoPath('bench/fixtures/counted-legacy-http.mjs');

/** One whole session; resolves with the protocol version it negotiated. */
type Session = (url: string) => Promise<string | undefined>;

const SESSIONS: Record<ColdSideName, Session> = {
  fleet: async (url) => {
    const provider = new McpToolProvider({ servers: [{ id: 'legacy', transport: { type: 'http', url }, lifecycle: 'auto', required: true }] });
    const host = new ToolHost({ providers: [provider] });
    try {
      await host.init();
      const result = await host.call(provider.toolName('legacy', 'echo') ?? 'missing', ARGS);
      if (result.isError === true) throw new Error(`mcp-fleet: echo failed: ${JSON.stringify(result.output)}`);
      return provider.serverStatuses()[0]?.protocolVersion;
    } finally {
      await host.close();
    }
  },
  raw: async (url) => {
    const client = new Client({ name: 'bench-raw', version: '0.0.0' }, { versionNegotiation: { mode: 'auto' } });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      await client.listTools();
      const result = await client.callTool({ name: 'echo', arguments: ARGS });
      if (result.isError === true) throw new Error('raw SDK: echo failed');
      return client.getNegotiatedProtocolVersion();
    } finally {
      await client.close();
    }
  },
  aiSdk: async (url) => {
    const client = await aiSdkClient('auto', { url });
    try {
      await client.listTools();
      const result = await client.callTool({ name: 'echo', arguments: ARGS });
      if (result.isError === true) throw new Error('@ai-sdk/mcp: echo failed');
      return client.initializeResult.protocolVersion;
    } finally {
      await client.close();
    }
  },
};

const NAMES: ColdSideName[] = ['fleet', 'raw', 'aiSdk'];

/** One session per side against the counting wrapper: the requests each one makes. */
async function countRequests(): Promise<Record<ColdSideName, string[]>> {
  let lines: string[] = [];
  const server = await startHttpFixture(COUNTED, [], (line) => lines.push(line));
  try {
    const counted = {} as Record<ColdSideName, string[]>;
    for (const name of NAMES) {
      lines = [];
      await SESSIONS[name](server.url);
      // Requests still in flight when close() returns (a DELETE, a GET stream) log a moment later.
      await sleep(200);
      counted[name] = lines.map((line) => {
        const { http, method } = JSON.parse(line) as { http: string; method?: string };
        return method === undefined ? http : `${http} ${method}`;
      });
    }
    return counted;
  } finally {
    await server.close();
  }
}

export async function runColdStartLegacy(options: ColdStartLegacyOptions): Promise<ColdStartLegacyResult> {
  const server = await startHttpFixture(LEGACY, []);
  const times: Record<ColdSideName, number[]> = { fleet: [], raw: [], aiSdk: [] };
  const versions: Partial<Record<ColdSideName, string>> = {};
  try {
    // One untimed session each loads and compiles every side's code first.
    for (const name of NAMES) await SESSIONS[name](server.url);
    for (let session = 0; session < options.sessions; session++) {
      for (const index of ORDERS[session % ORDERS.length]!) {
        const name = NAMES[index]!;
        const start = process.hrtime.bigint();
        versions[name] = await SESSIONS[name](server.url);
        times[name].push(elapsedMs(start));
      }
    }
  } finally {
    await server.close();
  }
  const requests = await countRequests();
  const side = (name: ColdSideName): ColdSideResult => ({ ...msStats(times[name]), protocolVersion: versions[name], requests: requests[name] });
  const sides = { fleet: side('fleet'), raw: side('raw'), aiSdk: side('aiSdk') };
  return {
    sessions: options.sessions,
    sides,
    ratio: sides.fleet.medianMs / sides.raw.medianMs,
    ratioToAiSdk: sides.fleet.medianMs / sides.aiSdk.medianMs,
    aiSdkRatio: sides.aiSdk.medianMs / sides.raw.medianMs,
  };
}

/** `POST 5, GET 1, DELETE 1`: the session's requests by HTTP method. */
function byVerb(requests: string[]): string {
  const counts = new Map<string, number>();
  for (const request of requests) {
    const verb = request.split(' ')[0]!;
    counts.set(verb, (counts.get(verb) ?? 0) + 1);
  }
  return [...counts].map(([verb, count]) => `${verb} ${count}`).join(', ');
}

export function coldStartLegacyTable(result: ColdStartLegacyResult): string {
  const rows = [
    ['mcp-fleet (auto)', result.sides.fleet, fixed(result.ratio, 3), fixed(result.ratioToAiSdk, 3)],
    ['raw SDK (auto)', result.sides.raw, '', ''],
    ['@ai-sdk/mcp (default)', result.sides.aiSdk, fixed(result.aiSdkRatio, 3), ''],
  ] as const;
  return formatTable(
    ['side', 'era', 'median ms', 'min ms', 'max ms', '/ raw', '/ AI SDK', 'requests per session'],
    rows.map(([label, side, toRaw, toAiSdk]) => [label, side.protocolVersion ?? '?', fixed(side.medianMs, 1), fixed(side.minMs, 1), fixed(side.maxMs, 1), toRaw, toAiSdk, byVerb(side.requests)]),
    2,
    [7],
  );
}
