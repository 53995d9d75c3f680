/**
 * `mcp-fleet serve --http` as its users meet it: the built command serving a fleet of
 * real stdio servers (one on the v1 SDK, one on v2), reached by the v1 SDK client
 * (2025-11-25, sessions) and the v2 client pinned to 2026-07-28 (stateless), and probed
 * with raw HTTP for what it must refuse.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { CreateMessageRequestSchema, ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFileSync } from 'node:child_process';
import { alive, tempDir } from './helpers.js';
import {
  EVERYTHING, INITIALIZE, JSON_HEADERS, LEGAL_NAME, cleanUp, conformanceUpstream, modernClient, onCleanUp,
  raw, rawCall, sendBody, serve, stdioServer, textOf, v1Client, writeConfig,
} from './gateway-helpers.js';

afterEach(cleanUp);

describe('mcp-fleet serve --http', () => {
  test('a 2025-11-25 client and a 2026-07-28 client each call tools of a v1 and a v2 upstream, under legal names that name both', async () => {
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { legacy: stdioServer('v1-server.mjs'), modern: stdioServer('v2-server.mjs') });
    const gateway = await serve(config);

    const old = await v1Client(gateway.url);
    const modern = await modernClient(gateway.url);
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(old.getServerVersion()?.name).toBe('mcp-fleet');

    const names = (await old.listTools()).tools.map((tool) => tool.name).sort();
    expect((await modern.listTools()).tools.map((tool) => tool.name).sort()).toEqual(names);
    for (const name of names) expect(name).toMatch(LEGAL_NAME);
    // Both servers have echo and add: one keeps the bare name, the other is prefixed with its id.
    for (const shared of ['echo', 'add']) {
      expect(names).toContain(shared);
      expect(names.filter((name) => name === `legacy_${shared}` || name === `modern_${shared}`)).toHaveLength(1);
    }
    // Only the v2 server has these: its own names.
    expect(names).toEqual(expect.arrayContaining(['fail', 'pixel']));

    const prefixedEcho = names.find((name) => name.endsWith('_echo'))!;
    for (const client of [old, modern]) {
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'bare' } }))).toBe('bare');
      expect(textOf(await client.callTool({ name: prefixedEcho, arguments: { text: 'prefixed' } }))).toBe('prefixed');
      const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
      expect(sum.structuredContent).toEqual({ sum: 5 });
      const failed = await client.callTool({ name: 'fail', arguments: {} });
      expect(failed.isError).toBe(true);
    }
  });

  test('a server added to mcp.json is announced to a connected client, and renames nothing already published', async () => {
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { modern: stdioServer('v2-server.mjs') });
    const gateway = await serve(config);
    const old = await v1Client(gateway.url);
    const before = (await old.listTools()).tools.map((tool) => tool.name).sort();
    expect(before).toContain('echo');

    // The server is announced as it starts and again once its tools are listed: wait for the list that has them.
    let listed: (names: string[]) => void = () => {};
    const arrived = new Promise<string[]>((resolve) => (listed = resolve));
    old.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      const names = (await old.listTools()).tools.map((tool) => tool.name).sort();
      if (names.includes('whoami')) listed(names);
    });
    const edited = performance.now();
    // fleet-server.mjs has echo too, and whoami, which nothing else has.
    writeConfig(config, { modern: stdioServer('v2-server.mjs'), later: stdioServer('fleet-server.mjs') });
    const after = await arrived;
    const announcedAfterMs = Math.round(performance.now() - edited);
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after).toEqual(expect.arrayContaining(['later_echo', 'whoami']));
    expect(after).toHaveLength(before.length + 2);
    expect(textOf(await old.callTool({ name: 'later_echo', arguments: { text: 'new' } }))).toBe('new');
    console.info(`gateway: tools/list_changed reached a 2025-11-25 client ${announcedAfterMs} ms after the mcp.json edit`);
  });

  test('a foreign Host or Origin is refused before anything is served', async () => {
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { modern: stdioServer('v2-server.mjs') });
    const gateway = await serve(config);
    const port = new URL(gateway.url).port;
    const foreignHost = await raw(gateway.url, { headers: { ...JSON_HEADERS, host: `attacker.example:${port}` }, body: INITIALIZE });
    expect(foreignHost.status).toBe(403);
    const foreignOrigin = await raw(gateway.url, { headers: { ...JSON_HEADERS, origin: 'http://attacker.example' }, body: INITIALIZE });
    expect(foreignOrigin.status).toBe(403);
    const ownOrigin = await raw(gateway.url, { headers: { ...JSON_HEADERS, origin: `http://127.0.0.1:${port}` }, body: INITIALIZE });
    expect(ownOrigin.status).toBe(200);
  });

  test('with a token, a request without it gets 401 with WWW-Authenticate and the token appears in no output', async () => {
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { modern: stdioServer('v2-server.mjs') });
    const token = 'gateway-token-5e1f0c2a9d';
    const gateway = await serve(config, [], { MCP_FLEET_GATEWAY_TOKEN: token });
    const none = await raw(gateway.url, { headers: JSON_HEADERS, body: INITIALIZE });
    expect(none.status).toBe(401);
    expect(String(none.headers['www-authenticate'])).toMatch(/^Bearer/);
    const wrong = await raw(gateway.url, { headers: { ...JSON_HEADERS, authorization: 'Bearer not-it' }, body: INITIALIZE });
    expect(wrong.status).toBe(401);
    const right = await raw(gateway.url, { headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` }, body: INITIALIZE });
    expect(right.status).toBe(200);
    for (const text of [none.body, wrong.body, right.body, gateway.stderr()]) expect(text).not.toContain(token);
  });

  test('a 50 MiB body is refused at the limit, without the gateway reading it', async () => {
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { modern: stdioServer('v2-server.mjs') });
    const gateway = await serve(config);
    const total = 50 * 1024 * 1024;

    // Declared: refused on the headers alone.
    const declared = await sendBody(gateway.url, { 'content-length': total }, total);
    expect(declared.status).toBe(413);
    expect(declared.sent).toBeLessThan(total);

    // Chunked, so no length to read first: refused once the limit is passed.
    const chunked = await sendBody(gateway.url, { 'transfer-encoding': 'chunked' }, total);
    expect(chunked.status).toBe(413);
    expect(chunked.sent).toBeLessThan(total);

    // And the gateway still serves.
    const after = await modernClient(gateway.url);
    expect((await after.listTools()).tools.length).toBeGreaterThan(0);
  });

  test('SIGTERM with 64 calls in flight: every call gets its result or an error, and no child outlives the gateway', async () => {
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } });
    const gateway = await serve(config, ['--drain-ms', '2000']);
    const client = await v1Client(gateway.url);
    const children = execFileSync('pgrep', ['-P', String(gateway.child.pid)]).toString().trim().split('\n').map(Number);
    expect(children.length).toBeGreaterThan(0);

    const calls = Array.from({ length: 64 }, () =>
      client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 2 } }).then(
        (result) => (result.isError === true ? 'tool error' : 'result'),
        () => 'error',
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Exited by itself (not killed by the signal), once drained.
    const exited = new Promise<NodeJS.Signals | null>((resolve) => gateway.child.once('exit', (_code, signal) => resolve(signal)));
    const signalled = performance.now();
    gateway.child.kill('SIGTERM');
    const outcomes = await Promise.all(calls);
    const signal = await exited;
    const exitMs = Math.round(performance.now() - signalled);
    expect(outcomes).toHaveLength(64);
    expect(signal).toBeNull();
    expect(outcomes.every((outcome) => outcome !== 'error')).toBe(true);
    for (const pid of children) expect(alive(pid)).toBe(false);
    const counts = outcomes.reduce<Record<string, number>>((tally, outcome) => ({ ...tally, [outcome]: (tally[outcome] ?? 0) + 1 }), {});
    console.info(`gateway: SIGTERM with 64 calls in flight, --drain-ms 2000: exited in ${exitMs} ms; outcomes ${JSON.stringify(counts)}`);
  });

  test("a 2026-07-28 upstream's input_required reaches a 2025-11-25 client as elicitation/create, and its answer goes back", async () => {
    const upstream = await conformanceUpstream();
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { conformance: { type: 'http', url: upstream } });
    const gateway = await serve(config);

    const asking = new V1Client({ name: 'asks-the-user', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    const asked: unknown[] = [];
    asking.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
    await asking.connect(new V1HttpTransport(new URL(gateway.url)));
    onCleanUp(() => asking.close());
    const answered = await asking.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    expect(asked).toEqual([expect.objectContaining({ message: 'Who are you?' })]);
    expect(textOf(answered)).toBe('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');

    // A client without the capability gets a clean decline, not a hang or a protocol error.
    const plain = await v1Client(gateway.url);
    const declined = await plain.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toMatch(/elicitation/i);
  });
  test("a 2025 upstream's elicitation and sampling reach a 2026-07-28 client as input_required rounds, and its answers go back", async () => {
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { asking: stdioServer('asking-v1-server.mjs') });
    const gateway = await serve(config);

    const client = new Client(
      { name: 'answers-rounds', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } },
    );
    const asked: string[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      const message = String(request.params.message);
      asked.push(message);
      return { action: 'accept', content: { name: message.startsWith('Second') ? 'grace' : 'ada' } };
    });
    client.setRequestHandler('sampling/createMessage', (request) => {
      asked.push(`sampling ${request.params.maxTokens}`);
      return { role: 'assistant', content: { type: 'text', text: 'an old silent pond' }, model: 'test-model' };
    });
    client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///work/project', name: 'project' }] }));
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    onCleanUp(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');

    expect(textOf(await client.callTool({ name: 'ask_name', arguments: {} }))).toBe('hello ada');
    // Two pushes in one call: two rounds, each resumed on the call the gateway held open.
    expect(textOf(await client.callTool({ name: 'ask_twice', arguments: {} }))).toBe('ada and grace');
    expect(textOf(await client.callTool({ name: 'ask_model', arguments: {} }))).toBe('the model wrote: an old silent pond');
    expect(textOf(await client.callTool({ name: 'ask_roots', arguments: {} }))).toBe('file:///work/project');
    expect(asked).toEqual(['What is your name?', 'First name?', 'Second name?', 'sampling 50']);

    // Round by round, on the wire: the state names the held call; a second answer to it finds nothing.
    const first = await rawCall(gateway.url, { name: 'ask_name', arguments: {} });
    expect(first.resultType).toBe('input_required');
    const [key, input] = Object.entries(first.inputRequests as Record<string, { method: string; params: Record<string, unknown> }>)[0]!;
    expect(input).toMatchObject({ method: 'elicitation/create', params: { message: 'What is your name?' } });
    const answered = await rawCall(gateway.url, { name: 'ask_name', arguments: {}, inputResponses: { [key]: { action: 'accept', content: { name: 'lin' } } }, requestState: first.requestState });
    expect(textOf(answered)).toBe('hello lin');
    const again = await rawCall(gateway.url, { name: 'ask_name', arguments: {}, inputResponses: { [key]: { action: 'accept', content: { name: 'lin' } } }, requestState: first.requestState });
    expect(String((again as { error?: { message?: string } }).error?.message)).toMatch(/requestState names no call/);

    // A client that cannot answer: the server reads a decline, the model reads what was needed.
    const plain = await modernClient(gateway.url);
    const declined = await plain.callTool({ name: 'ask_name', arguments: {} });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toMatch(/no name \(decline\).*elicitation/s);
    const unsampled = await plain.callTool({ name: 'ask_model', arguments: {} });
    expect(unsampled.isError).toBe(true);
    expect(textOf(unsampled)).toMatch(/sampling/);
  });
  test("a 2025 upstream's pushed requests reach the 2025-11-25 client whose call they serve, and no other", async () => {
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { asking: stdioServer('asking-v1-server.mjs') });
    const gateway = await serve(config);

    const asking = new V1Client({ name: 'asks-the-user', version: '1.0.0' }, { capabilities: { elicitation: { form: {} }, sampling: {} } });
    asking.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'ada' } }));
    asking.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', content: { type: 'text', text: 'pond' }, model: 'test-model' }));
    await asking.connect(new V1HttpTransport(new URL(gateway.url)));
    onCleanUp(() => asking.close());
    // A bystander that could answer too, connected to the same gateway, is never asked.
    const bystander = new V1Client({ name: 'bystander', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    let bothered = 0;
    bystander.setRequestHandler(ElicitRequestSchema, () => {
      bothered += 1;
      return { action: 'decline' };
    });
    await bystander.connect(new V1HttpTransport(new URL(gateway.url)));
    onCleanUp(() => bystander.close());

    expect(textOf(await asking.callTool({ name: 'ask_twice', arguments: {} }))).toBe('ada and ada');
    expect(textOf(await asking.callTool({ name: 'ask_model', arguments: {} }))).toBe('the model wrote: pond');
    expect(bothered).toBe(0);
    const unsampled = await bystander.callTool({ name: 'ask_model', arguments: {} });
    expect(unsampled.isError).toBe(true);
    expect(textOf(unsampled)).toMatch(/asked the client for sampling/);
  });
});
