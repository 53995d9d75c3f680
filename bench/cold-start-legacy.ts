/**
 * Cold-start-legacy scenario: whole sessions against a legacy (2025-era, v1 SDK, sessionful)
 * Streamable HTTP server, each side left to find that out itself: mcp-fleet with
 * `lifecycle: 'auto'`, the raw SDK with `versionNegotiation: { mode: 'auto' }`, `@ai-sdk/mcp`
 * with its default (probe with `server/discover`, then `initialize`). One session = create
 * the client, connect, list the tools, call `echo` once, close; timed whole.
 *
 * The timed sessions run against test/fixtures/legacy-http-server.mjs, sides taking turns
 * in all six orders, twice: first after one untimed session per side (the code of each
 * client still mostly interpreted: mcp-fleet's own layers, run by its sessions only, warm
 * up slower than the SDK code both sides share), then again after `warmSessions` more per
 * side (a process that opens sessions all day, each client's code compiled). Then one
 * more session per side runs against the same server wrapped by
 * bench/fixtures/counted-legacy-http.mjs, which reports each HTTP request it gets: what a
 * session costs in round trips, which is where a negotiation gap should show.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpToolProvider, ToolHost } from '../dist/index.js';
import { aiSdkClient } from './ai-sdk-side.js';
import { ORDERS, startHttpFixture } from './call-latency.js';
import { elapsedMs, fixed, formatTable, type MsStats, msStats, repoPath, sleep } from './util.js';

export interface ColdStartLegacyOptions {
  /** Timed sessions per side, in each phase. */
  sessions: number;
  /** Untimed sessions per side before the second, warm phase. */
  warmSessions: number;
}

export type ColdSideName = 'fleet' | 'raw' | 'aiSdk';

export interface ColdSideResult extends MsStats {
  protocolVersion: string | undefined;
  /** The HTTP requests of one session as the server saw them, e.g. `POST initialize`, `GET`. */
  requests: string[];
}

export interface ColdStartLegacyResult {
  sessions: number;
  warmSessions: number;
  /** After one untimed session per side: the issue 16 figure. */
  sides: Record<ColdSideName, ColdSideResult>;
  /** Median ratios. */
  ratio: number;
  ratioToAiSdk: number;
  aiSdkRatio: number;
  /** The same sessions after `warmSessions` more untimed ones per side. */
  warm: { sides: Record<ColdSideName, MsStats>; ratio: number; ratioToAiSdk: number; aiSdkRatio: number };
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

type Times = Record<ColdSideName, number[]>;

/** `sessions` timed sessions per side, the sides taking turns in every order. */
async function timedSessions(url: string, sessions: number, versions: Partial<Record<ColdSideName, string>>): Promise<Times> {
  const times: Times = { fleet: [], raw: [], aiSdk: [] };
  for (let session = 0; session < sessions; session++) {
    for (const index of ORDERS[session % ORDERS.length]!) {
      const name = NAMES[index]!;
      const start = process.hrtime.bigint();
      versions[name] = await SESSIONS[name](url);
      times[name].push(elapsedMs(start));
    }
  }
  return times;
}

export async function runColdStartLegacy(options: ColdStartLegacyOptions): Promise<ColdStartLegacyResult> {
  const server = await startHttpFixture(LEGACY, []);
  const versions: Partial<Record<ColdSideName, string>> = {};
  let cold: Times;
  let warm: Times;
  try {
    // One untimed session each loads and compiles every side's code first.
    for (const name of NAMES) await SESSIONS[name](server.url);
    cold = await timedSessions(server.url, options.sessions, versions);
    for (let session = 0; session < options.warmSessions; session++) for (const name of NAMES) await SESSIONS[name](server.url);
    warm = await timedSessions(server.url, options.sessions, versions);
  } finally {
    await server.close();
  }
  const requests = await countRequests();
  const side = (name: ColdSideName): ColdSideResult => ({ ...msStats(cold[name]), protocolVersion: versions[name], requests: requests[name] });
  const sides = { fleet: side('fleet'), raw: side('raw'), aiSdk: side('aiSdk') };
  const warmSides = { fleet: msStats(warm.fleet), raw: msStats(warm.raw), aiSdk: msStats(warm.aiSdk) };
  return {
    sessions: options.sessions,
    warmSessions: options.warmSessions,
    sides,
    ratio: sides.fleet.medianMs / sides.raw.medianMs,
    ratioToAiSdk: sides.fleet.medianMs / sides.aiSdk.medianMs,
    aiSdkRatio: sides.aiSdk.medianMs / sides.raw.medianMs,
    warm: {
      sides: warmSides,
      ratio: warmSides.fleet.medianMs / warmSides.raw.medianMs,
      ratioToAiSdk: warmSides.fleet.medianMs / warmSides.aiSdk.medianMs,
      aiSdkRatio: warmSides.aiSdk.medianMs / warmSides.raw.medianMs,
    },
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

const LABELS: Record<ColdSideName, string> = { fleet: 'mcp-fleet (auto)', raw: 'raw SDK (auto)', aiSdk: '@ai-sdk/mcp (default)' };

export function coldStartLegacyTable(result: ColdStartLegacyResult): string {
  const { sides, warm } = result;
  // One phase's rows; the era and requests are the side's, counted once.
  const phase = (title: string, stats: Record<ColdSideName, MsStats>, ratios: { ratio: number; ratioToAiSdk: number; aiSdkRatio: number }): string[][] =>
    NAMES.map((name, i) => {
      const toRaw = name === 'fleet' ? ratios.ratio : name === 'aiSdk' ? ratios.aiSdkRatio : undefined;
      const { medianMs, minMs, maxMs } = stats[name];
      return [
        i === 0 ? title : '',
        LABELS[name],
        sides[name].protocolVersion ?? '?',
        fixed(medianMs, 1),
        fixed(minMs, 1),
        fixed(maxMs, 1),
        toRaw === undefined ? '' : fixed(toRaw, 3),
        name === 'fleet' ? fixed(ratios.ratioToAiSdk, 3) : '',
        byVerb(sides[name].requests),
      ];
    });
  return formatTable(
    ['untimed sessions first', 'side', 'era', 'median ms', 'min ms', 'max ms', '/ raw', '/ AI SDK', 'requests per session'],
    [...phase('after 1', sides, result), ...phase(`after ${result.warmSessions + 1}`, warm.sides, warm)],
    3,
    [8],
  );
}
