/**
 * Publish scenario: the in-process cost of turning listed catalogs into the model-facing
 * catalog, with no network and no SDK in the timed path. Ten servers of 2,048 synthetic
 * tools each (see catalog.ts: collisions after normalisation, over-long names, app-only
 * tools, SEP-2243 declarations). Target: all ten well under 100 ms in total.
 *
 * One repetition, timed as a whole and by phase:
 * - budgets: `publishableTools` for each server (filters and per-tool budget checks);
 * - publish: `RouteTable.publish` for each server into a FRESH table (naming, definitions,
 *   groups), i.e. the first publication after start-up;
 * - read: `definitions()` and `groups()` of the whole table.
 * Then, unless it is the first, the same ten servers are budget-checked and published
 * again into that table ("republish"): the path every refresh takes, with retained names.
 *
 * Every repetition also times a floor, the least any publisher must do with the same
 * catalogs: per tool one name string, one entry in a name → route map, one route and one
 * definition with its composed description, and per server its names sorted for the
 * group; no budgets, no normalisation, no collisions, no retained identities. The floor
 * says how fast this machine is, so the ratio to it travels between machines better than
 * milliseconds do.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { InMemoryMcpCredentialStore, silentLogger } from '../dist/index.js';
import { publishableTools } from '../dist/mcp/catalog/catalog.js';
import { resolveServerConfig } from '../dist/mcp/config/config.js';
import { LeftOutTools } from '../dist/mcp/catalog/left-out.js';
import { TOOL_PREFIX } from '../dist/mcp/catalog/naming.js';
import { ServerRegistration } from '../dist/mcp/registration.js';
import { RouteTable } from '../dist/mcp/catalog/routes.js';
import type { McpSession, ServerMeta } from '../dist/mcp/session/session.js';
import { syntheticTools } from './catalog.js';
import { elapsedMs, fixed, formatTable, type MsStats, msStats } from './util.js';

export interface PublishOptions {
  servers: number;
  tools: number;
  repetitions: number;
  warmup: number;
}

export interface PublishPhases {
  budgetsMs: number;
  publishMs: number;
  readMs: number;
  totalMs: number;
}

export interface PublishResult {
  servers: number;
  toolsPerServer: number;
  /** Definitions published in total, and how many of them carry a hash suffix. */
  definitions: number;
  hashedNames: number;
  groups: number;
  first: Record<keyof PublishPhases, MsStats>;
  republish: Record<keyof PublishPhases, MsStats>;
  /** The floor described above, timed in the same repetitions. */
  floor: MsStats;
  targetMs: number;
}

const TARGET_MS = 100;

interface Server {
  registration: ServerRegistration;
  tools: Tool[];
  session: McpSession;
  meta: ServerMeta;
}

function servers(options: PublishOptions): Server[] {
  const store = new InMemoryMcpCredentialStore();
  return Array.from({ length: options.servers }, (_, i) => {
    // Half stdio, half Streamable HTTP on a modern session: the latter also run the SEP-2243 header checks.
    const http = i % 2 === 1;
    const id = `server-${String(i).padStart(2, '0')}`;
    const config = resolveServerConfig({
      id,
      transport: http ? { type: 'http', url: `http://127.0.0.1:9/${id}/mcp` } : { type: 'stdio', command: 'node', args: ['server.js'] },
    });
    // `publishableTools` reads nothing of the session but `era`; no session is opened here.
    const session = { era: http ? 'modern' : 'legacy' } as unknown as McpSession;
    return {
      registration: new ServerRegistration(config, silentLogger, store),
      // Through JSON, as a client receives them: flat strings, no objects shared between tools.
      tools: JSON.parse(JSON.stringify(syntheticTools(options.tools, i))) as Tool[],
      session,
      meta: { name: id, title: `Server ${i}`, description: `Synthetic server ${i} for the publish benchmark.`, instructions: 'Prefer search over list.' },
    };
  });
}

/** Budgets, publication and reads of every server into `table`, timed by phase. */
function publishAll(table: RouteTable, all: Server[]): PublishPhases {
  let budgetsMs = 0;
  let publishMs = 0;
  const start = process.hrtime.bigint();
  for (const server of all) {
    const budgets = process.hrtime.bigint();
    const published = publishableTools(server.tools, server.registration.config, server.session, new LeftOutTools());
    const publish = process.hrtime.bigint();
    budgetsMs += Number(publish - budgets) / 1e6;
    table.publish(server.registration, published, server.meta);
    publishMs += elapsedMs(publish);
  }
  const read = process.hrtime.bigint();
  table.definitions();
  table.groups();
  const readMs = elapsedMs(read);
  return { budgetsMs, publishMs, readMs, totalMs: elapsedMs(start) };
}

/** The floor: what no publisher can skip (see the module comment). Returns what it built, so nothing is optimised away. */
function publishFloor(all: Server[]): Map<string, unknown> {
  const routes = new Map<string, unknown>();
  for (const server of all) {
    const id = server.registration.config.id;
    const names: string[] = [];
    for (const tool of server.tools) {
      const name = `${TOOL_PREFIX}_${id}_${tool.name}`;
      const definition = { name, description: `MCP server \`${id}\` tool \`${tool.name}\`. ${tool.description ?? ''}`, parameters: tool.inputSchema, strict: false };
      routes.set(name, { name, serverId: id, remoteName: tool.name, definition, tool });
      names.push(name);
    }
    names.sort();
  }
  return routes;
}

function summary(samples: PublishPhases[]): Record<keyof PublishPhases, MsStats> {
  const pick = (key: keyof PublishPhases) => msStats(samples.map((sample) => sample[key]));
  return { budgetsMs: pick('budgetsMs'), publishMs: pick('publishMs'), readMs: pick('readMs'), totalMs: pick('totalMs') };
}

export function runPublish(options: PublishOptions): PublishResult {
  const all = servers(options);
  const first: PublishPhases[] = [];
  const republish: PublishPhases[] = [];
  const floor: number[] = [];
  let table: RouteTable | undefined;
  let floorRoutes = 0;
  for (let rep = -options.warmup; rep < options.repetitions; rep++) {
    table = new RouteTable(TOOL_PREFIX, silentLogger);
    const fresh = publishAll(table, all);
    const again = publishAll(table, all);
    const floorStart = process.hrtime.bigint();
    floorRoutes += publishFloor(all).size;
    const floorMs = elapsedMs(floorStart);
    if (rep >= 0) {
      first.push(fresh);
      republish.push(again);
      floor.push(floorMs);
    }
  }
  if (floorRoutes === 0) throw new Error('the floor published nothing');
  if (table === undefined) throw new Error('no repetition ran');
  const definitions = table.definitions();
  return {
    servers: options.servers,
    toolsPerServer: options.tools,
    definitions: definitions.length,
    hashedNames: definitions.filter((definition) => /_[0-9a-f]{8}$/.test(definition.name)).length,
    groups: table.groups().length,
    first: summary(first),
    republish: summary(republish),
    floor: msStats(floor),
    targetMs: TARGET_MS,
  };
}

export function publishTable(result: PublishResult): string {
  const header = ['pass', 'phase', 'median ms', 'max ms'];
  const rows: string[][] = [];
  for (const [pass, data] of [
    ['first (fresh table)', result.first],
    ['republish (refresh)', result.republish],
  ] as const) {
    for (const [phase, key] of [
      ['publishableTools', 'budgetsMs'],
      ['RouteTable.publish', 'publishMs'],
      ['definitions+groups', 'readMs'],
      ['total', 'totalMs'],
    ] as const) {
      const stats = data[key];
      const miss = key === 'totalMs' && stats.medianMs > result.targetMs ? ' !' : '';
      rows.push([pass, phase, `${fixed(stats.medianMs)}${miss}`, fixed(stats.maxMs)]);
    }
  }
  const { floor } = result;
  rows.push(['floor (least possible)', 'total', fixed(floor.medianMs), fixed(floor.maxMs)]);
  const ratio = (ms: number): string => `${(ms / floor.medianMs).toFixed(2)}x`;
  return [
    formatTable(header, rows, 2),
    `median total / floor median: first ${ratio(result.first.totalMs.medianMs)}, republish ${ratio(result.republish.totalMs.medianMs)}`,
  ].join('\n');
}
