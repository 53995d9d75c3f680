/**
 * The 2025-11-25 session framing the gateway writes on Node's objects (NodeSessionTransport):
 * a POST is answered as JSON unless something related must go out before its answer, and
 * every refusal is the one the SDK's web-standard session transport gives (the endpoint's
 * `fetch` face still serves sessions on that transport, so the two are compared directly).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { isLegacyRequest, localhostAllowedHostnames, localhostAllowedOrigins, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { McpEndpoint } from '../src/gateway/endpoint.js';
import { isLegacyExchange } from '../src/gateway/era.js';
import { parseRequestBody } from '../src/gateway/node-exchange.js';
import { listenHttp, type HttpListener } from '../src/gateway/http-listener.js';

const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const BOTH = 'application/json, text/event-stream';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function build(): McpServer {
  const server = new McpServer({ name: 'framing', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('progress', {}, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: 1, total: 2 } });
    await sleep(20);
    return { content: [{ type: 'text', text: 'done' }] };
  });
  server.registerTool('slow', {}, async () => {
    await sleep(250);
    return { content: [{ type: 'text', text: 'late' }] };
  });
  return server;
}

interface Answer {
  status: number;
  type: string | null;
  session: string | null;
  allow: string | null;
  text: string;
}

type Face = (method: string, headers: Record<string, string>, body?: unknown) => Promise<Answer>;

async function read(response: Response): Promise<Answer> {
  const h = response.headers;
  return { status: response.status, type: h.get('content-type'), session: h.get('mcp-session-id'), allow: h.get('allow'), text: await response.text() };
}

let listener: HttpListener | undefined;
let endpoint: McpEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  await listener?.close();
  listener = endpoint = undefined;
});

async function faces(keepAliveMs = 15_000): Promise<{ node: Face; web: Face }> {
  endpoint = new McpEndpoint(build, { keepAliveMs });
  const served = endpoint;
  listener = await listenHttp({
    host: '127.0.0.1',
    port: 0,
    allowedHostnames: localhostAllowedHostnames(),
    allowedOriginHostnames: localhostAllowedOrigins(),
    maxRequestBodyBytes: 1024 * 1024,
    route: () => ({ kind: 'mcp', handler: served }),
  });
  const url = `${listener.origin}/mcp`;
  const init = (method: string, headers: Record<string, string>, body: unknown): RequestInit => ({
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return {
    node: async (method, headers, body) => read(await fetch(url, init(method, headers, body))),
    web: async (method, headers, body) => read(await served.fetch(new Request(url, init(method, headers, body)))),
  };
}

async function open(face: Face): Promise<Record<string, string>> {
  const answer = await face('POST', { 'content-type': 'application/json', accept: BOTH }, INIT);
  expect(answer.status).toBe(200);
  const session = { 'content-type': 'application/json', accept: BOTH, 'mcp-session-id': answer.session! };
  expect((await face('POST', session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  return session;
}

const call = (id: number, name: string, extra: Record<string, unknown> = {}): unknown => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...extra } });

describe('the gateway 2025-11-25 session framing', () => {
  it('answers a call as JSON, a batch as a JSON array in request order, and a call with progress as an SSE stream', async () => {
    const { node } = await faces();
    const initialized = await node('POST', { 'content-type': 'application/json', accept: BOTH }, INIT);
    expect(initialized.type).toBe('application/json');
    expect(JSON.parse(initialized.text)).toMatchObject({ id: 0, result: { protocolVersion: '2025-11-25' } });
    const session = { 'content-type': 'application/json', accept: BOTH, 'mcp-session-id': initialized.session! };
    expect(await node('POST', session, { jsonrpc: '2.0', method: 'notifications/initialized' })).toMatchObject({ status: 202, text: '' });

    const echoed = await node('POST', session, call(1, 'echo', { arguments: { text: 'hi' } }));
    expect(echoed).toMatchObject({ status: 200, type: 'application/json', session: initialized.session });
    expect(JSON.parse(echoed.text)).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }] } });

    const batch = await node('POST', session, [call(3, 'progress'), call(2, 'echo', { arguments: { text: 'b' } })]);
    expect(batch.type).toBe('application/json');
    expect((JSON.parse(batch.text) as { id: number }[]).map((each) => each.id)).toEqual([3, 2]);

    const streamed = await node('POST', session, call(4, 'progress', { _meta: { progressToken: 'p' } }));
    expect(streamed).toMatchObject({ status: 200, type: 'text/event-stream', session: initialized.session });
    const events = streamed.text.split('\n\n').filter((event) => event !== '').map((event) => JSON.parse(event.split('data: ')[1]!) as { method?: string; id?: number });
    expect(events.map((event) => event.method ?? event.id)).toEqual(['notifications/progress', 4]);
  });

  it('turns a call that runs past keepAliveMs into a stream with keep-alive comments before its answer', async () => {
    const { node } = await faces(100);
    const session = await open(node);
    const slow = await node('POST', session, call(1, 'slow'));
    expect(slow.type).toBe('text/event-stream');
    expect(slow.text.startsWith(': keepalive\n\n')).toBe(true);
    expect(slow.text).toContain('"text":"late"');
  });

  it('refuses what the SDK session transport refuses, with the same status and body', async () => {
    const both = await faces();
    const outcomes: Record<'node' | 'web', Answer[]> = { node: [], web: [] };
    for (const name of ['node', 'web'] as const) {
      const face = both[name];
      const session = await open(face);
      const unversioned = { ...session, 'mcp-protocol-version': '1999-01-01' };
      const answers = [
        await face('POST', { ...session, accept: 'application/json' }, call(1, 'echo')),
        await face('POST', { ...session, 'content-type': 'text/plain' }, call(1, 'echo')),
        await face('POST', session, '{not json'),
        await face('POST', session, Array.from({ length: 101 }, (_, index) => call(index, 'echo'))),
        await face('POST', session, { jsonrpc: '2.0', id: 1, nonsense: true }),
        await face('POST', session, INIT),
        await face('POST', { 'content-type': 'application/json', accept: BOTH }, call(1, 'echo')),
        await face('POST', { ...session, 'mcp-session-id': 'no-such-session' }, call(1, 'echo')),
        await face('POST', unversioned, call(1, 'echo')),
        await face('GET', { ...session, accept: 'application/json' }),
        await face('PUT', session, call(1, 'echo')),
        await face('DELETE', unversioned),
      ];
      // The GET stream: one at a time (the first is left open; the endpoint's close ends it).
      const stream = await (name === 'node' ? fetch(`${listener!.origin}/mcp`, { headers: { ...session, accept: 'text/event-stream' } }) : endpoint!.fetch(new Request(`${listener!.origin}/mcp`, { headers: { ...session, accept: 'text/event-stream' } })));
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
      answers.push(await face('GET', { ...session, accept: 'text/event-stream' }));
      const ended = await face('DELETE', session);
      expect(ended.status).toBe(200);
      answers.push(await face('POST', session, call(1, 'echo')));
      void stream.body?.cancel().catch(() => {});
      outcomes[name] = answers.map((answer) => ({ ...answer, session: null, type: answer.type?.split(';')[0] ?? null }));
    }
    expect(outcomes.node.map((answer) => answer.status)).toEqual([406, 415, 400, 400, 400, 400, 400, 404, 400, 406, 405, 400, 409, 404]);
    expect(outcomes.node).toEqual(outcomes.web);
  });

  it('decides the era of a request from its parsed body exactly as the SDK decides it from the web request', async () => {
    const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const cases: { method: string; headers?: Record<string, string>; body?: string }[] = [
      { method: 'POST', body: JSON.stringify(INIT) },
      { method: 'POST', body: JSON.stringify(call(1, 'echo')) },
      { method: 'POST', body: JSON.stringify(call(1, 'echo', { _meta: modernMeta })), headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' } },
      { method: 'POST', body: JSON.stringify(call(1, 'echo')), headers: { 'mcp-protocol-version': '2026-07-28' } },
      { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) },
      { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers: { 'mcp-protocol-version': '2026-07-28' } },
      { method: 'POST', body: JSON.stringify([call(1, 'echo'), call(2, 'echo')]) },
      { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 7, result: {} }) },
      { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, nonsense: true }) },
      { method: 'POST', body: 'null' },
      { method: 'POST', body: '{not json' },
      { method: 'POST', body: '' },
      { method: 'GET' },
      { method: 'DELETE' },
      { method: 'PUT', body: JSON.stringify(call(1, 'echo', { _meta: modernMeta })) },
    ];
    const seen = new Set<boolean>();
    for (const each of cases) {
      const headers = { 'content-type': 'application/json', ...each.headers };
      const web = new Request('http://127.0.0.1/mcp', { method: each.method, headers, ...(each.body === undefined ? {} : { body: each.body }) });
      const node = { method: each.method, headers } as unknown as IncomingMessage;
      const body = each.method === 'POST' ? parseRequestBody(each.body ?? '') : parseRequestBody('');
      const legacy = await isLegacyRequest(web);
      seen.add(legacy);
      expect({ ...each, legacy: isLegacyExchange(node, body) }).toEqual({ ...each, legacy });
    }
    expect([...seen].sort()).toEqual([false, true]);
  });
});
