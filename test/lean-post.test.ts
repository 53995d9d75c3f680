/**
 * The lean `tools/call` POST over Streamable HTTP (src/mcp/transport/lean-post.ts, issue
 * 16) against real servers on both eras: it sends what the SDK transport's own `send`
 * sends, and reads every answer (hand-written SSE wire forms, a JSON array, refusals)
 * into exactly what the raw SDK `Client` makes of the same answer from the same server.
 */
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpToolProvider, type McpServerConfig } from '../src/index.js';
import { resolveServerConfig } from '../src/mcp/config/config.js';
import { createHttpTransport } from '../src/mcp/transport/http.js';
import { type HttpFixture, startHttpFixture } from './helpers.js';

const ERAS = [
  { era: 'modern', lifecycle: 'discover', mode: { pin: '2026-07-28' } },
  { era: 'legacy', lifecycle: 'initialize', mode: 'legacy' },
] as const;

const HEADERS = { 'X-Team': 'blue', 'X-Trace': 'on' };
const TOKEN = 'token-lean-1234';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(closers.splice(0).map((close) => close()));
});

let v2: HttpFixture;
let wire: HttpFixture;
beforeAll(async () => {
  [v2, wire] = await Promise.all([startHttpFixture('v2-server.mjs'), startHttpFixture('sse-wire-server.mjs')]);
});
afterAll(async () => {
  await Promise.all([v2.close(), wire.close()]);
});

async function fleetOn(url: string, era: (typeof ERAS)[number]): Promise<McpToolProvider> {
  const server: McpServerConfig = { id: 'w', transport: { type: 'http', url, headers: HEADERS, bearerToken: TOKEN }, lifecycle: era.lifecycle };
  const provider = new McpToolProvider({ servers: [server] });
  closers.push(() => provider.close());
  await provider.init();
  return provider;
}

async function rawOn(url: string, era: (typeof ERAS)[number]): Promise<Client> {
  const client = new Client({ name: 'raw', version: '0' }, { versionNegotiation: { mode: era.mode } });
  closers.push(() => client.close());
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: HEADERS }, authProvider: { token: () => Promise.resolve(TOKEN) } });
  await client.connect(transport);
  await client.listTools();
  return client;
}

/**
 * Records the `tools/call` POSTs made through the global fetch, under the label `posts.as`
 * names. Installed before any client exists: a transport keeps the fetch it was made with.
 */
function recordToolCallPosts(): { as: string; made: Map<string, RequestInit[]> } {
  const posts = { as: '', made: new Map<string, RequestInit[]>() };
  const original = globalThis.fetch;
  vi.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"method":"tools/call"')) posts.made.set(posts.as, [...(posts.made.get(posts.as) ?? []), init]);
    return original(input, init);
  });
  return posts;
}

/** Request headers as a sorted list of pairs; a session id (each client has its own) as a mark. */
function comparable(init: RequestInit): [string, string][] {
  return [...new Headers(init.headers)].map(([name, value]): [string, string] => [name, name === 'mcp-session-id' ? '(session)' : value]).sort();
}

describe('the lean tools/call POST', () => {
  it('never shows the configured headers or the bearer token when its transport is inspected or serialised', () => {
    const config = resolveServerConfig({ id: 'w', transport: { type: 'http', url: v2.url, headers: HEADERS, bearerToken: TOKEN } });
    if (config.transport.type !== 'http') throw new Error('expected an HTTP transport');
    const transport = createHttpTransport({ serverId: 'w', transport: config.transport, messageBytes: 1024 });
    for (const shown of [inspect(transport, { depth: null, showHidden: true }), JSON.stringify(transport)]) {
      expect(shown).toContain('"w"');
      for (const secret of [TOKEN, 'blue']) expect(shown).not.toContain(secret);
    }
  });

  for (const era of ERAS) {
    it(`sends the headers the SDK transport sends, the configured ones and the bearer token included (${era.era})`, async () => {
      const posts = recordToolCallPosts();
      const fleet = await fleetOn(v2.url, era);
      const raw = await rawOn(v2.url, era);
      posts.as = 'lean';
      await fleet.callServerTool('w', 'echo', { text: 'hi' });
      posts.as = 'sdk';
      await raw.callTool({ name: 'echo', arguments: { text: 'hi' } });
      const [lean] = posts.made.get('lean') ?? [];
      const [sdk] = posts.made.get('sdk') ?? [];
      // The lean path builds plain header objects; the SDK's send builds a Headers object.
      expect(lean?.headers).not.toBeInstanceOf(Headers);
      expect(sdk?.headers).toBeInstanceOf(Headers);
      expect(comparable(lean!)).toEqual(comparable(sdk!));
      expect(comparable(lean!)).toContainEqual(['authorization', `Bearer ${TOKEN}`]);
    });

    it(`reads every wire form of an SSE answer and a JSON array answer as the SDK does (${era.era})`, async () => {
      const fleet = await fleetOn(wire.url, era);
      const raw = await rawOn(wire.url, era);
      for (const tool of ['wire_forms', 'junk_first', 'json_array']) {
        const ours = await fleet.callServerTool('w', tool, {});
        expect(ours, tool).toEqual(await raw.callTool({ name: tool, arguments: {} }));
        expect(ours.isError, tool).not.toBe(true);
      }
      expect((await fleet.callServerTool('w', 'wire_forms', {})).content).toEqual([{ type: 'text', text: 'héllo ✓ 🚀 wire' }]);
    });

    it(`fails a result no schema accepts and an HTTP refusal where the SDK fails them (${era.era})`, async () => {
      const fleet = await fleetOn(wire.url, era);
      const raw = await rawOn(wire.url, era);
      await expect(raw.callTool({ name: 'bad_result', arguments: {} })).rejects.toThrow(/Invalid result for tools\/call/);
      expect(await fleet.call('mcp_w_bad_result', {})).toMatchObject({ isError: true });
      await expect(raw.callTool({ name: 'status_500', arguments: {} })).rejects.toMatchObject({ status: 500 });
      expect(await fleet.call('mcp_w_status_500', {})).toMatchObject({ isError: true });
      if (era.era === 'modern') {
        // A 2026-07-28 server's 400 may carry the JSON-RPC error of the request: it is that error.
        await expect(raw.callTool({ name: 'refused_400', arguments: {} })).rejects.toThrow(/refused by the wire fixture/);
        expect(JSON.stringify(await fleet.call('mcp_w_refused_400', {}))).toContain('refused by the wire fixture');
      }
    });
  }
});
