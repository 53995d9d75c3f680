/**
 * The application-side context APIs of `McpToolProvider`: resources (list, templates,
 * read, subscriptions), prompts, completion and `callServerTool`, against real servers on
 * both protocol eras: `@modelcontextprotocol/server-everything` (2025 revisions) and the
 * v2 fixture `fixtures/context-server.mjs` (2026-07-28 with `lifecycle: 'discover'`, or
 * 2025-11-25 with `lifecycle: 'initialize'`). No protocol is mocked.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  McpOperationError,
  McpToolCallError,
  McpToolProvider,
  McpUnknownServerError,
  type McpResourceListener,
  type McpServerConfig,
} from '../src/index.js';
import { observationLog, observed, stdioFixture } from './helpers.js';

// The published reference server (2025 revisions), run as a real child process.
const everythingEntry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const everythingDocs = join(dirname(everythingEntry), 'docs');
const EVERYTHING_DOCUMENTS = [
  'architecture.md',
  'extension.md',
  'features.md',
  'how-it-works.md',
  'instructions.md',
  'startup.md',
  'structure.md',
];

/** Generous bound for a notification that is sent at once (the machine may be loaded). */
const DELIVERY = { timeout: 10_000, interval: 20 };

const providers: McpToolProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

async function started(...servers: McpServerConfig[]): Promise<McpToolProvider> {
  const provider = new McpToolProvider({ servers });
  providers.push(provider);
  await provider.init();
  return provider;
}

function everything(config: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    id: 'everything',
    transport: { type: 'stdio', command: process.execPath, args: [everythingEntry, 'stdio'] },
    resources: true,
    ...config,
  };
}

/** The context fixture; 2026-07-28 unless `config.lifecycle` says otherwise. */
function contextServer(options: { id?: string; log?: string; config?: Partial<McpServerConfig> } = {}): McpServerConfig {
  return stdioFixture(options.id ?? 'ctx', 'context-server.mjs', {
    env: options.log === undefined ? {} : { FIXTURE_LOG: options.log },
    config: { lifecycle: 'discover', resources: true, ...options.config },
  });
}

/** The methods a fixture received, in order. */
function methods(log: string): string[] {
  return observed(log)
    .filter((entry) => entry.event === 'message')
    .map((entry) => entry.method!);
}

/** A listener that records the URIs it was called with. */
function recorder(): McpResourceListener & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign((uri: string) => void calls.push(uri), { calls });
}

const decode = (base64: string): string => Buffer.from(base64, 'base64').toString('utf8');

describe('resources of a 2025-era server (server-everything)', () => {
  it('lists its seven static documents and reads one with the exact text of the file it serves', async () => {
    const provider = await started(everything());
    expect(provider.serverStatuses()[0]).toMatchObject({ id: 'everything', state: 'ready', era: 'legacy' });

    const resources = await provider.listResources('everything');
    expect(resources.map((resource) => resource.uri)).toEqual(
      EVERYTHING_DOCUMENTS.map((name) => `demo://resource/static/document/${name}`),
    );
    expect(resources.every((resource) => resource.mimeType === 'text/markdown')).toBe(true);

    const uri = 'demo://resource/static/document/instructions.md';
    const result = await provider.readResource('everything', uri);
    expect(result.contents).toEqual([
      { uri, mimeType: 'text/markdown', text: readFileSync(join(everythingDocs, 'instructions.md'), 'utf8') },
    ]);
  });

  it('lists its two resource templates and reads a text and a blob resource made from them', async () => {
    const provider = await started(everything());
    const templates = await provider.listResourceTemplates('everything');
    expect(templates.map((template) => [template.name, template.uriTemplate])).toEqual([
      ['Dynamic Text Resource', 'demo://resource/dynamic/text/{resourceId}'],
      ['Dynamic Blob Resource', 'demo://resource/dynamic/blob/{resourceId}'],
    ]);

    const text = await provider.readResource('everything', 'demo://resource/dynamic/text/3');
    expect(text.contents).toHaveLength(1);
    expect(text.contents[0]).toMatchObject({ uri: 'demo://resource/dynamic/text/3', mimeType: 'text/plain' });
    expect((text.contents[0] as { text: string }).text).toMatch(/^Resource 3: This is a plaintext resource created at /);

    const blob = await provider.readResource('everything', 'demo://resource/dynamic/blob/4');
    expect(blob.contents).toHaveLength(1);
    expect(blob.contents[0]!.uri).toBe('demo://resource/dynamic/blob/4');
    expect(decode((blob.contents[0] as { blob: string }).blob)).toMatch(/^Resource 4: This is a base64 blob created at /);
  });

  it('rejects a resource the server refuses with an McpOperationError naming the server and the URI', async () => {
    const provider = await started(everything());
    const uri = 'demo://resource/dynamic/text/not-a-number';
    const error = await provider.readResource('everything', uri).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpOperationError);
    expect(error).toMatchObject({ code: 'operation_failed', serverId: 'everything', operation: `resources/read ${uri}` });
    expect((error as Error).message).toContain('"everything"');
    expect((error as Error).message).toContain(`Unknown resource: ${uri}`);
  });

  it('delivers notifications/resources/updated to the listener, and unsubscribeResource stops them, returning true then false', async () => {
    const provider = await started(everything());
    const first = 'demo://resource/static/document/features.md';
    const second = 'demo://resource/static/document/startup.md';
    const onFirst = recorder();
    const onSecond = recorder();
    await provider.subscribeResource('everything', first, onFirst);
    await provider.subscribeResource('everything', second, onSecond);

    // The server sends an update for every subscribed URI at once when the updates are
    // toggled on (and every 5 s after that).
    await provider.callServerTool('everything', 'toggle-subscriber-updates');
    await vi.waitFor(() => {
      expect(onFirst.calls.length).toBeGreaterThanOrEqual(1);
      expect(onSecond.calls.length).toBeGreaterThanOrEqual(1);
    }, DELIVERY);
    expect(new Set(onFirst.calls)).toEqual(new Set([first]));
    expect(new Set(onSecond.calls)).toEqual(new Set([second]));

    expect(await provider.unsubscribeResource('everything', first, onFirst)).toBe(true);
    expect(await provider.unsubscribeResource('everything', first, onFirst)).toBe(false);
    const firstCount = onFirst.calls.length;
    const secondCount = onSecond.calls.length;

    // Off and on again: a fresh round of updates, sent in subscription order (the first
    // URI before the second), so once the second arrives the first would have too.
    await provider.callServerTool('everything', 'toggle-subscriber-updates');
    await provider.callServerTool('everything', 'toggle-subscriber-updates');
    await vi.waitFor(() => expect(onSecond.calls.length).toBeGreaterThan(secondCount), DELIVERY);
    expect(onFirst.calls).toHaveLength(firstCount);
  });
});

describe('resources of a 2026-07-28 server (context fixture, lifecycle discover)', () => {
  it('lists its resources and reads text and blob contents', async () => {
    const provider = await started(contextServer());
    expect(provider.serverStatuses()[0]).toMatchObject({ id: 'ctx', state: 'ready', era: 'modern', protocolVersion: '2026-07-28' });

    const resources = await provider.listResources('ctx');
    expect(resources).toEqual([
      { name: 'readme', title: 'Read me', uri: 'fixture://notes/readme', description: 'The first note.', mimeType: 'text/plain' },
      { name: 'logo', uri: 'fixture://images/logo', description: 'Some bytes.', mimeType: 'application/octet-stream' },
      { name: 'hang', uri: 'fixture://hang', description: 'Never answers (until the client cancels).' },
    ]);

    const readme = await provider.readResource('ctx', 'fixture://notes/readme');
    expect(readme.contents).toEqual([
      { uri: 'fixture://notes/readme', mimeType: 'text/plain', text: 'Read me first: the context fixture serves notes.' },
    ]);
    const logo = await provider.readResource('ctx', 'fixture://images/logo');
    expect(logo.contents).toHaveLength(1);
    expect(logo.contents[0]).toMatchObject({ uri: 'fixture://images/logo', mimeType: 'application/octet-stream' });
    expect(decode((logo.contents[0] as { blob: string }).blob)).toBe('context-fixture-logo');
  });

  it('lists its resource template and reads a resource made from it', async () => {
    const provider = await started(contextServer());
    expect(await provider.listResourceTemplates('ctx')).toEqual([
      { name: 'note', uriTemplate: 'fixture://notes/by-name/{name}', description: 'A note by its name.', mimeType: 'text/plain' },
    ]);
    const note = await provider.readResource('ctx', 'fixture://notes/by-name/beta');
    expect(note.contents).toEqual([{ uri: 'fixture://notes/by-name/beta', mimeType: 'text/plain', text: 'Note beta' }]);
  });

  it('subscribes through a subscriptions/listen stream per URI, delivers updates, and unsubscribing cancels the stream', async () => {
    const log = observationLog();
    const provider = await started(contextServer({ log }));
    const readme = 'fixture://notes/readme';
    const logo = 'fixture://images/logo';
    const onReadme = recorder();
    const onLogo = recorder();
    await provider.subscribeResource('ctx', readme, onReadme);
    await provider.subscribeResource('ctx', logo, onLogo);
    const listens = observed(log).filter((entry) => entry.method === 'subscriptions/listen' && entry.filter !== undefined);
    const readmeListen = listens.find((entry) => JSON.stringify(entry.filter) === JSON.stringify({ resourceSubscriptions: [readme] }));
    expect(readmeListen).toBeDefined();
    expect(listens.some((entry) => JSON.stringify(entry.filter) === JSON.stringify({ resourceSubscriptions: [logo] }))).toBe(true);

    await provider.callServerTool('ctx', 'touch', { uri: readme });
    await vi.waitFor(() => expect(onReadme.calls).toEqual([readme]), DELIVERY);
    expect(onLogo.calls).toEqual([]);

    expect(await provider.unsubscribeResource('ctx', readme)).toBe(true);
    expect(await provider.unsubscribeResource('ctx', readme)).toBe(false);
    // The cancellation is written before unsubscribeResource resolves; the server reads it a little later.
    await vi.waitFor(
      () => expect(observed(log)).toContainEqual(expect.objectContaining({ method: 'notifications/cancelled', requestId: readmeListen!.id })),
      DELIVERY,
    );

    // Updates arrive in the order the server sends them: once the logo's has arrived, a
    // readme update sent before it would have arrived too.
    await provider.callServerTool('ctx', 'touch', { uri: readme });
    await provider.callServerTool('ctx', 'touch', { uri: logo });
    await vi.waitFor(() => expect(onLogo.calls).toEqual([logo]), DELIVERY);
    expect(onReadme.calls).toEqual([readme]);
  });
});

describe('resource subscriptions across a reconnect', () => {
  for (const lifecycle of ['initialize', 'discover'] as const) {
    const era = lifecycle === 'initialize' ? '2025-era' : '2026-07-28';
    it(`renews them on the new session of a ${era} server, so updates keep arriving`, async () => {
      const log = observationLog();
      const provider = await started(contextServer({ log, config: { lifecycle } }));
      const uri = 'fixture://notes/readme';
      const listener = recorder();
      await provider.subscribeResource('ctx', uri, listener);
      const subscriptions = (): number =>
        observed(log).filter((entry) =>
          lifecycle === 'initialize'
            ? entry.method === 'resources/subscribe' && entry.uri === uri
            : entry.method === 'subscriptions/listen' && JSON.stringify(entry.filter) === JSON.stringify({ resourceSubscriptions: [uri] }),
        ).length;
      expect(subscriptions()).toBe(1);

      // The session is retired (its server process ends); the next use opens a new one.
      expect(await provider.disconnectServer('ctx')).toBe(true);
      await provider.callServerTool('ctx', 'touch', { uri: 'fixture://nothing' });
      await vi.waitFor(() => expect(subscriptions()).toBe(2), DELIVERY);

      await provider.callServerTool('ctx', 'touch', { uri });
      await vi.waitFor(() => expect(listener.calls).toEqual([uri]), DELIVERY);
    });
  }
});

describe('resource subscriptions shared by several listeners', () => {
  it('asks a 2025-era server once per URI, keeps the others when one listener leaves, and tells the server when the last one does', async () => {
    const log = observationLog();
    const provider = await started(contextServer({ log, config: { lifecycle: 'initialize' } }));
    expect(provider.serverStatuses()[0]).toMatchObject({ era: 'legacy' });
    const uri = 'fixture://notes/readme';
    const first = recorder();
    const second = recorder();
    await provider.subscribeResource('ctx', uri, first);
    await provider.subscribeResource('ctx', uri, second);
    expect(methods(log).filter((method) => method === 'resources/subscribe')).toHaveLength(1);

    await provider.callServerTool('ctx', 'touch', { uri });
    await vi.waitFor(() => {
      expect(first.calls).toEqual([uri]);
      expect(second.calls).toEqual([uri]);
    }, DELIVERY);

    expect(await provider.unsubscribeResource('ctx', uri, first)).toBe(true);
    expect(methods(log)).not.toContain('resources/unsubscribe');
    await provider.callServerTool('ctx', 'touch', { uri });
    await vi.waitFor(() => expect(second.calls).toEqual([uri, uri]), DELIVERY);
    expect(first.calls).toEqual([uri]);

    // Without a listener: every remaining listener goes, and the server is told.
    expect(await provider.unsubscribeResource('ctx', uri)).toBe(true);
    expect(observed(log)).toContainEqual(expect.objectContaining({ method: 'resources/unsubscribe', uri }));
    expect(await provider.unsubscribeResource('ctx', uri)).toBe(false);
  });

  it('returns false when unsubscribing a URI nobody subscribed, or a listener that never subscribed', async () => {
    const provider = await started(contextServer());
    expect(await provider.unsubscribeResource('ctx', 'fixture://notes/readme')).toBe(false);
    await provider.subscribeResource('ctx', 'fixture://notes/readme', recorder());
    expect(await provider.unsubscribeResource('ctx', 'fixture://notes/readme', recorder())).toBe(false);
    expect(await provider.unsubscribeResource('ctx', 'fixture://notes/readme')).toBe(true);
  });
});

describe('resource APIs of a server without `resources: true`', () => {
  it('reject with resources_disabled naming the server and the field, and send nothing', async () => {
    const log = observationLog();
    const provider = await started(contextServer({ log, config: { resources: false } }));
    const attempts = [
      provider.listResources('ctx'),
      provider.listResourceTemplates('ctx'),
      provider.readResource('ctx', 'fixture://notes/readme'),
      provider.subscribeResource('ctx', 'fixture://notes/readme', recorder()),
    ];
    for (const attempt of attempts) {
      const error = await attempt.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({ name: 'McpFleetError', code: 'resources_disabled', serverId: 'ctx' });
      expect((error as Error).message).toContain('MCP server "ctx"');
      expect((error as Error).message).toContain('`resources: true`');
    }
    // A request sent afterwards arrives: nothing for resources came before it.
    expect(await provider.listPrompts('ctx')).toHaveLength(2);
    expect(methods(log)).toContain('prompts/list');
    expect(methods(log).filter((method) => method.startsWith('resources/'))).toEqual([]);
    expect(observed(log).filter((entry) => JSON.stringify(entry.filter ?? {}).includes('resourceSubscriptions'))).toEqual([]);
  });
});

describe('the resource URI budget (limits.cursorBytes)', () => {
  it('rejects a URI over the budget in UTF-8 bytes before anything is sent, and accepts one exactly at it', async () => {
    const log = observationLog();
    const provider = await started(contextServer({ log, config: { lifecycle: 'initialize', limits: { cursorBytes: 64 } } }));
    const prefix = 'fixture://notes/by-name/'; // 24 bytes
    const over = `${prefix}${'é'.repeat(21)}`; // 45 characters, 66 bytes
    expect(over.length).toBeLessThanOrEqual(64);
    for (const attempt of [provider.readResource('ctx', over), provider.subscribeResource('ctx', over, recorder())]) {
      const error = await attempt.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(McpOperationError);
      expect(error).toMatchObject({ serverId: 'ctx' });
      expect((error as Error).message).toContain('over 64 bytes (limits.cursorBytes)');
    }

    const atLimit = `${prefix}${'e'.repeat(40)}`;
    expect(Buffer.byteLength(atLimit)).toBe(64);
    const note = await provider.readResource('ctx', atLimit);
    expect(note.contents).toEqual([{ uri: atLimit, mimeType: 'text/plain', text: `Note ${'e'.repeat(40)}` }]);
    // Only the URI within budget reached the server.
    expect(observed(log).filter((entry) => entry.method === 'resources/read').map((entry) => entry.uri)).toEqual([atLimit]);
    expect(methods(log)).not.toContain('resources/subscribe');
  });
});

describe('prompts', () => {
  it('lists the four prompts of a 2025-era server with their arguments and gets them filled in', async () => {
    const provider = await started(everything());
    const prompts = await provider.listPrompts('everything');
    expect(prompts.map((prompt) => prompt.name)).toEqual(['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt']);
    expect(prompts.find((prompt) => prompt.name === 'args-prompt')?.arguments).toEqual([
      { name: 'city', description: 'Name of the city', required: true },
      { name: 'state', required: false },
    ]);

    expect((await provider.getPrompt('everything', 'simple-prompt')).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt without arguments.' } },
    ]);
    expect((await provider.getPrompt('everything', 'args-prompt', { city: 'Paris', state: 'Texas' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: "What's weather in Paris, Texas?" } },
    ]);
    const embedded = await provider.getPrompt('everything', 'resource-prompt', { resourceType: 'Text', resourceId: '2' });
    expect(embedded.messages).toHaveLength(2);
    expect(embedded.messages[1]).toMatchObject({
      role: 'user',
      content: { type: 'resource', resource: { uri: 'demo://resource/dynamic/text/2', mimeType: 'text/plain' } },
    });
  });

  it('lists the prompts of a 2026-07-28 server and gets one with its arguments', async () => {
    const provider = await started(contextServer());
    expect(await provider.listPrompts('ctx')).toEqual([
      {
        name: 'greet',
        title: 'Greeting',
        description: 'Greets someone in a language.',
        arguments: [
          { name: 'name', description: 'Who to greet', required: true },
          { name: 'language', description: 'The language', required: true },
        ],
      },
      { name: 'plain', description: 'A prompt without arguments.' },
    ]);
    expect((await provider.getPrompt('ctx', 'greet', { name: 'Ada', language: 'French' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Greet Ada in French.' } },
    ]);
    expect((await provider.getPrompt('ctx', 'plain')).messages).toEqual([
      { role: 'assistant', content: { type: 'text', text: 'A plain prompt.' } },
    ]);
  });

  it.each([
    { era: '2025 (server-everything)', id: 'everything', config: () => everything() },
    { era: '2026-07-28 (context fixture)', id: 'ctx', config: () => contextServer() },
  ])('rejects an unknown prompt on $era with an McpOperationError naming the server and the prompt', async ({ id, config }) => {
    const provider = await started(config());
    const error = await provider.getPrompt(id, 'no-such-prompt').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpOperationError);
    expect(error).toMatchObject({ code: 'operation_failed', serverId: id, operation: 'prompts/get "no-such-prompt"' });
    expect((error as Error).message).toContain(`MCP server "${id}"`);
    expect((error as Error).message).toContain('Prompt no-such-prompt not found');
  });

  it('rejects a prompt whose required argument is missing with the server’s reason', async () => {
    const provider = await started(everything());
    const error = await provider.getPrompt('everything', 'args-prompt', {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpOperationError);
    expect((error as Error).message).toContain('Invalid arguments for prompt args-prompt');
  });
});

describe('completion', () => {
  it('completes prompt arguments of a 2025-era server, using the context of earlier arguments, and resource template variables', async () => {
    const provider = await started(everything());
    const prompt = { type: 'ref/prompt', name: 'completable-prompt' } as const;
    expect((await provider.complete('everything', prompt, { name: 'department', value: 'S' })).values).toEqual(['Sales', 'Support']);
    expect(
      (await provider.complete('everything', prompt, { name: 'name', value: '' }, { context: { department: 'Engineering' } })).values,
    ).toEqual(['Alice', 'Bob', 'Charlie']);
    expect((await provider.complete('everything', prompt, { name: 'name', value: '' }, { context: { department: 'Sales' } })).values).toEqual(
      ['David', 'Eve', 'Frank'],
    );
    const template = { type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' } as const;
    expect((await provider.complete('everything', template, { name: 'resourceId', value: '12' })).values).toEqual(['12']);
    expect((await provider.complete('everything', template, { name: 'resourceId', value: 'x' })).values).toEqual([]);
  });

  it('completes a prompt argument and a template variable of a 2026-07-28 server', async () => {
    const provider = await started(contextServer());
    expect(await provider.complete('ctx', { type: 'ref/prompt', name: 'greet' }, { name: 'language', value: 'E' })).toMatchObject({
      values: ['English', 'Esperanto'],
    });
    expect(
      (await provider.complete('ctx', { type: 'ref/resource', uri: 'fixture://notes/by-name/{name}' }, { name: 'name', value: 'g' })).values,
    ).toEqual(['gamma']);
  });

  it.each([
    { era: '2025 (v1 fixture)', file: 'v1-server.mjs', lifecycle: 'auto' as const },
    { era: '2026-07-28 (v2 fixture)', file: 'v2-server.mjs', lifecycle: 'discover' as const },
  ])('returns no values, without asking, from a server without completions on $era', async ({ file, lifecycle }) => {
    const log = observationLog();
    const provider = await started(stdioFixture('tools', file, { env: { FIXTURE_LOG: log }, config: { lifecycle } }));
    expect(await provider.complete('tools', { type: 'ref/prompt', name: 'greet' }, { name: 'language', value: 'E' })).toEqual({ values: [] });
    expect(methods(log)).not.toContain('completion/complete');
  });
});

describe('servers that offer only tools', () => {
  it.each([
    { era: '2025 (v1 fixture)', file: 'v1-server.mjs', lifecycle: 'auto' as const, expected: 'legacy' },
    { era: '2026-07-28 (v2 fixture)', file: 'v2-server.mjs', lifecycle: 'discover' as const, expected: 'modern' },
  ])('have no prompts, resources or resource templates on $era', async ({ file, lifecycle, expected }) => {
    const provider = await started(stdioFixture('tools', file, { config: { lifecycle, resources: true } }));
    expect(provider.serverStatuses()[0]).toMatchObject({ state: 'ready', era: expected });
    expect(await provider.listPrompts('tools')).toEqual([]);
    expect(await provider.listResources('tools')).toEqual([]);
    expect(await provider.listResourceTemplates('tools')).toEqual([]);
  });
});

describe('callServerTool', () => {
  it('returns the raw CallToolResult of a tool the model does not see (excluded) on a 2025-era server', async () => {
    const provider = await started(everything({ exclude: ['get-sum'] }));
    expect(provider.toolName('everything', 'get-sum')).toBeUndefined();
    expect(provider.has('mcp_everything_get_sum')).toBe(false);
    expect(await provider.callServerTool('everything', 'get-sum', { a: 2, b: 3 })).toEqual({
      content: [{ type: 'text', text: 'The sum of 2 and 3 is 5.' }],
    });
  });

  it('returns structured content of an excluded tool on a 2026-07-28 server', async () => {
    const provider = await started(stdioFixture('v2', 'v2-server.mjs', { config: { lifecycle: 'discover', exclude: ['add'] } }));
    expect(provider.toolName('v2', 'add')).toBeUndefined();
    const result = await provider.callServerTool('v2', 'add', { a: 2, b: 3 });
    expect(result.structuredContent).toEqual({ sum: 5 });
    expect(result.content).toEqual([{ type: 'text', text: '{"sum":5}' }]);
    expect(result.isError).toBeUndefined();
  });

  it('returns a tool-level error as isError: true instead of throwing', async () => {
    const provider = await started(contextServer(), everything());
    const failed = await provider.callServerTool('ctx', 'fail');
    expect(failed.isError).toBe(true);
    expect(failed.content).toEqual([{ type: 'text', text: 'this tool always fails' }]);

    // A 2025-era SDK server reports invalid arguments as a tool-level error too.
    const invalid = await provider.callServerTool('everything', 'get-sum', { a: 'two' });
    expect(invalid.isError).toBe(true);
    expect(JSON.stringify(invalid.content)).toContain('Input validation error');
  });

  it('rejects an unknown server id with McpUnknownServerError', async () => {
    const provider = await started(contextServer());
    const error = await provider.callServerTool('nope', 'fail').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpUnknownServerError);
    expect(error).toMatchObject({ code: 'unknown_server', serverId: 'nope' });
  });

  it('throws McpToolCallError with the reason when the call ends without a result', async () => {
    const provider = await started(contextServer());
    const error = await provider.callServerTool('ctx', 'hang', {}, { timeoutMs: 300 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpToolCallError);
    expect(error).toMatchObject({ code: 'tool_call_failed', serverId: 'ctx', tool: 'hang', reason: 'timeout' });
    // The session survives: the next call answers.
    expect((await provider.callServerTool('ctx', 'touch', { uri: 'fixture://x' })).content).toEqual([
      { type: 'text', text: 'touched fixture://x' },
    ]);
  });
});

describe('catalog listing beside calls in flight', () => {
  it('lists the catalog while a call hangs: paging lets calls go first, but never waits for them to end', async () => {
    const log = observationLog();
    const provider = await started(contextServer({ log }));
    const controller = new AbortController();
    const hung = provider.callServerTool('ctx', 'hang', {}, { signal: controller.signal }).catch((caught: unknown) => caught);
    await vi.waitFor(() => expect(methods(log)).toContain('tools/call'), DELIVERY);
    const listed = methods(log).filter((method) => method === 'tools/list').length;
    await provider.refresh();
    expect(methods(log).filter((method) => method === 'tools/list')).toHaveLength(listed + 1);
    controller.abort();
    expect(await hung).toMatchObject({ name: 'AbortError' });
  });
});

describe("the caller's signal", () => {
  type Operation = (provider: McpToolProvider, id: string, signal: AbortSignal) => Promise<unknown>;
  const operations: [string, Operation, Operation][] = [
    // name, on server-everything, on the context fixture
    ['listResources', (p, id, signal) => p.listResources(id, { signal }), (p, id, signal) => p.listResources(id, { signal })],
    [
      'listResourceTemplates',
      (p, id, signal) => p.listResourceTemplates(id, { signal }),
      (p, id, signal) => p.listResourceTemplates(id, { signal }),
    ],
    [
      'readResource',
      (p, id, signal) => p.readResource(id, 'demo://resource/dynamic/text/1', { signal }),
      (p, id, signal) => p.readResource(id, 'fixture://notes/readme', { signal }),
    ],
    ['listPrompts', (p, id, signal) => p.listPrompts(id, { signal }), (p, id, signal) => p.listPrompts(id, { signal })],
    [
      'getPrompt',
      (p, id, signal) => p.getPrompt(id, 'args-prompt', { city: 'Paris' }, { signal }),
      (p, id, signal) => p.getPrompt(id, 'greet', { name: 'Ada', language: 'French' }, { signal }),
    ],
    [
      'complete',
      (p, id, signal) => p.complete(id, { type: 'ref/prompt', name: 'completable-prompt' }, { name: 'department', value: 'S' }, { signal }),
      (p, id, signal) => p.complete(id, { type: 'ref/prompt', name: 'greet' }, { name: 'language', value: 'E' }, { signal }),
    ],
    [
      'callServerTool',
      (p, id, signal) => p.callServerTool(id, 'get-sum', { a: 1, b: 2 }, { signal }),
      (p, id, signal) => p.callServerTool(id, 'touch', { uri: 'fixture://x' }, { signal }),
    ],
  ];

  it.each([
    { era: '2025 (server-everything)', id: 'everything', config: () => everything(), pick: 1 as const },
    { era: '2026-07-28 (context fixture)', id: 'ctx', config: () => contextServer(), pick: 2 as const },
  ])('already aborted makes every operation on $era reject with its reason', async ({ id, config, pick }) => {
    const provider = await started(config());
    for (const operation of operations) {
      const reason = new Error(`stop ${operation[0]}`);
      await expect(operation[pick](provider, id, AbortSignal.abort(reason)), operation[0]).rejects.toBe(reason);
    }
  });

  it('aborted mid-flight rejects a read and a tool call with its reason and cancels the request on the server', async () => {
    const log = observationLog();
    const provider = await started(contextServer({ log }));

    const reading = new AbortController();
    const read = provider.readResource('ctx', 'fixture://hang', { signal: reading.signal });
    await vi.waitFor(() => expect(observed(log)).toContainEqual(expect.objectContaining({ method: 'resources/read', uri: 'fixture://hang' })), DELIVERY);
    const readReason = new Error('stop reading');
    reading.abort(readReason);
    await expect(read).rejects.toBe(readReason);
    const readId = observed(log).find((entry) => entry.method === 'resources/read')!.id;
    await vi.waitFor(() => expect(observed(log)).toContainEqual(expect.objectContaining({ method: 'notifications/cancelled', requestId: readId })), DELIVERY);

    const calling = new AbortController();
    const call = provider.callServerTool('ctx', 'hang', {}, { signal: calling.signal });
    await vi.waitFor(() => expect(methods(log)).toContain('tools/call'), DELIVERY);
    const callReason = new Error('stop calling');
    calling.abort(callReason);
    await expect(call).rejects.toBe(callReason);
    const callId = observed(log).find((entry) => entry.method === 'tools/call')!.id;
    await vi.waitFor(() => expect(observed(log)).toContainEqual(expect.objectContaining({ method: 'notifications/cancelled', requestId: callId })), DELIVERY);
  });

  // An aborted subscribe must not leave a subscription behind on either era.
  it.each([
    { era: '2025 (server-everything)', id: 'everything', config: () => everything(), uri: 'demo://resource/static/document/features.md' },
    { era: '2026-07-28 (context fixture)', id: 'ctx', config: () => contextServer(), uri: 'fixture://notes/readme' },
  ])('already aborted makes subscribeResource on $era reject with its reason and subscribe nothing', async ({ id, config, uri }) => {
    const provider = await started(config());
    const reason = new Error('stop subscribing');
    const outcome = await provider.subscribeResource(id, uri, recorder(), { signal: AbortSignal.abort(reason) }).then(
      () => 'subscribed',
      (caught: unknown) => caught,
    );
    expect(outcome).toBe(reason);
    expect(await provider.unsubscribeResource(id, uri)).toBe(false);
  });

  // Even an answer the host knows without asking (no capability) honours the caller's signal.
  it('already aborted makes operations on a server without the capability reject with its reason', async () => {
    const provider = await started(stdioFixture('tools', 'v1-server.mjs', { config: { resources: true } }));
    const reason = new Error('stop');
    const signal = AbortSignal.abort(reason);
    const outcomes = await Promise.all(
      [
        provider.listResources('tools', { signal }),
        provider.listResourceTemplates('tools', { signal }),
        provider.listPrompts('tools', { signal }),
        provider.complete('tools', { type: 'ref/prompt', name: 'greet' }, { name: 'language', value: 'E' }, { signal }),
      ].map((pending) => pending.then((value) => ({ resolved: value }), (caught: unknown) => caught)),
    );
    expect(outcomes).toEqual([reason, reason, reason, reason]);
  });
});

describe('the promise contract of the context APIs', () => {
  // Every context API reports a bad server id as a rejected promise, never a synchronous throw.
  it('reports an unknown server id as a rejected promise from every context API', async () => {
    const provider = await started(contextServer());
    const calls: (() => Promise<unknown>)[] = [
      () => provider.listResources('nope'),
      () => provider.listResourceTemplates('nope'),
      () => provider.readResource('nope', 'fixture://notes/readme'),
      () => provider.subscribeResource('nope', 'fixture://notes/readme', recorder()),
      () => provider.unsubscribeResource('nope', 'fixture://notes/readme'),
      () => provider.listPrompts('nope'),
      () => provider.getPrompt('nope', 'greet'),
      () => provider.complete('nope', { type: 'ref/prompt', name: 'greet' }, { name: 'language', value: '' }),
    ];
    for (const call of calls) {
      let pending: Promise<unknown> | undefined;
      expect(() => {
        pending = call();
      }).not.toThrow();
      await expect(pending).rejects.toBeInstanceOf(McpUnknownServerError);
    }
  });
});
