import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  McpConfigError,
  McpServerUnavailableError,
  McpToolProvider,
  type McpServerConfig,
  type McpToolEnvelope,
  ToolHost,
} from '../src/index.js';
import { observationLog, observed, stdioFixture } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

function track<T extends { close(): Promise<void> }>(closable: T): T {
  cleanups.push(() => closable.close());
  return closable;
}

/** A catalog fixture serving `tools` (MCP tool objects) over stdio. */
function catalogServer(id: string, tools: object[], options: { log?: string; config?: Partial<McpServerConfig>; name?: string } = {}) {
  return stdioFixture(id, 'catalog-server.mjs', {
    env: {
      FIXTURE_TOOLS: JSON.stringify(tools),
      ...(options.log ? { FIXTURE_LOG: options.log } : {}),
      ...(options.name ? { FIXTURE_NAME: options.name } : {}),
    },
    config: options.config,
  });
}

async function started(...servers: McpServerConfig[]): Promise<McpToolProvider> {
  const provider = track(new McpToolProvider({ servers }));
  await provider.init();
  return provider;
}

const names = (provider: McpToolProvider): string[] => provider.definitions().map((definition) => definition.name);

describe('the model-facing catalog of an MCP server', () => {
  it('names tools mcp_<server>_<tool>, normalised, and calls them by their original name', async () => {
    const log = observationLog();
    const provider = await started(catalogServer('GitHub-Prod', [{ name: 'issues.get-by-id' }, { name: 'issues/get' }], { log }));
    expect(names(provider)).toEqual(['mcp_github_prod_issues_get', 'mcp_github_prod_issues_get_by_id']);
    const result = await provider.call('MCP_GITHUB_PROD_ISSUES_GET_BY_ID', { id: 7 });
    expect(result.isError).toBe(false);
    expect(observed(log).filter((entry) => entry.event === 'call')).toMatchObject([{ tool: 'issues.get-by-id', arguments: { id: 7 } }]);
    expect(provider.toolOrigin('mcp_github_prod_issues_get')).toMatchObject({ serverId: 'GitHub-Prod', remoteName: 'issues/get' });
    expect(provider.toolName('GitHub-Prod', 'issues.get-by-id')).toBe('mcp_github_prod_issues_get_by_id');
  });

  it('describes each tool with its server, title and description, and lowers only a missing properties', async () => {
    const provider = await started(
      catalogServer('repo', [
        { name: 'plain', inputSchema: { type: 'object' } },
        {
          name: 'rich',
          title: 'Rich tool',
          description: ' Does rich things. ',
          inputSchema: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: { x: { $ref: '#/$defs/x' } },
            $defs: { x: { type: 'integer', minimum: 1 } },
            additionalProperties: false,
          },
        },
      ]),
    );
    const [plain, rich] = provider.definitions();
    expect(plain).toEqual({
      name: 'mcp_repo_plain',
      description: 'MCP server `repo` tool `plain`.',
      parameters: { type: 'object', properties: {} },
      strict: false,
    });
    expect(rich!.description).toBe('MCP server `repo` tool `rich`. Title: Rich tool. Does rich things.');
    expect(rich!.parameters).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { x: { $ref: '#/$defs/x' } },
      $defs: { x: { type: 'integer', minimum: 1 } },
      additionalProperties: false,
    });
  });

  it('filters on remote names: exclude wins, an empty include means everything', async () => {
    const tools = [{ name: 'allowed' }, { name: 'other' }, { name: 'blocked' }];
    const filtered = await started(catalogServer('a', tools, { config: { include: ['allowed', 'blocked'], exclude: ['blocked'] } }));
    expect(names(filtered)).toEqual(['mcp_a_allowed']);
    const unfiltered = await started(catalogServer('b', tools, { config: { exclude: ['other'] } }));
    expect(names(unfiltered)).toEqual(['mcp_b_allowed', 'mcp_b_blocked']);
  });

  it('keeps tools whose MCP Apps visibility leaves out the model out of the catalog', async () => {
    const provider = await started(
      catalogServer('apps', [
        { name: 'widget', _meta: { ui: { visibility: ['app'] } } },
        { name: 'shared', _meta: { ui: { visibility: ['app', 'model'] } }, outputSchema: { type: 'object' } },
        { name: 'odd', _meta: { ui: { visibility: 'model' } } },
        { name: 'plain' },
      ]),
    );
    expect(names(provider)).toEqual(['mcp_apps_plain', 'mcp_apps_shared']);
    expect(provider.toolOrigin('mcp_apps_shared')?.tool).toMatchObject({ outputSchema: { type: 'object' } });
  });

  it('hashes every same-server collision, independently of list order', async () => {
    const first = await started(catalogServer('s', [{ name: 'a.b' }, { name: 'a-b' }, { name: 'c' }]));
    const second = await started(catalogServer('s2', [{ name: 'c' }, { name: 'a-b' }, { name: 'a.b' }]));
    const hashed = names(first).filter((name) => name !== 'mcp_s_c');
    expect(hashed).toHaveLength(2);
    for (const name of hashed) expect(name).toMatch(/^mcp_s_a_b_[0-9a-f]{8}$/);
    // Same remote names, other server: same shape, independent of order.
    expect(names(second).filter((name) => name !== 'mcp_s2_c')).toHaveLength(2);
    const origin = first.toolOrigin(hashed[0]!)!;
    expect(['a.b', 'a-b']).toContain(origin.remoteName);
  });

  it('disambiguates a cross-server collision: the first server id keeps the plain name, whatever the order', async () => {
    for (const order of ['forward', 'reverse']) {
      const log = observationLog();
      const servers = [
        catalogServer('github', [{ name: 'prod_list_issues' }], { log }),
        catalogServer('github_prod', [{ name: 'list_issues' }], { log }),
      ];
      const provider = await started(...(order === 'forward' ? servers : servers.reverse()));
      expect(names(provider)[0]).toBe('mcp_github_prod_list_issues');
      expect(names(provider)[1]).toMatch(/^mcp_github_prod_list_issues_[0-9a-f]{8}$/);
      expect(provider.toolOrigin('mcp_github_prod_list_issues')?.serverId).toBe('github');
      expect(provider.toolOrigin(names(provider)[1]!)?.serverId).toBe('github_prod');
      expect(provider.groups().map((group) => group.id)).toEqual(['mcp:github', 'mcp:github_prod']);
      await provider.call(names(provider)[1]!, {});
      expect(observed(log).filter((entry) => entry.event === 'call').map((entry) => entry.tool)).toEqual(['list_issues']);
    }
  });
});

describe('capability groups', () => {
  it('form one group per server with the title and instructions the server gave', async () => {
    const provider = await started(
      stdioFixture('files', 'v2-server.mjs', {
        env: { FIXTURE_TITLE: 'Filesystem', FIXTURE_DESCRIPTION: 'Reads files.', FIXTURE_INSTRUCTIONS: 'List before reading.' },
      }),
    );
    expect(provider.groups()).toEqual([
      {
        id: 'mcp:files',
        title: 'Filesystem',
        description: 'Reads files.',
        instructions: 'List before reading.',
        members: ['mcp_files_add', 'mcp_files_echo', 'mcp_files_fail', 'mcp_files_issues_get_by_id', 'mcp_files_pixel'],
      },
    ]);
  });

  it('fall back to generic text when the server says nothing useful about itself', async () => {
    const provider = await started(catalogServer('quiet', [{ name: 'x' }], { name: 'quiet' }));
    expect(provider.groups()).toEqual([
      {
        id: 'mcp:quiet',
        title: 'MCP server `quiet`',
        description: 'Tools provided by MCP server `quiet`.',
        members: ['mcp_quiet_x'],
      },
    ]);
  });

  it('hide a provider tool that a static tool shadows', async () => {
    const provider = new McpToolProvider({ servers: [catalogServer('s', [{ name: 'one' }, { name: 'two' }])] });
    const host = track(
      new ToolHost({
        providers: [provider],
        tools: [
          {
            definition: { name: 'mcp_s_one', description: 'static', parameters: { type: 'object', properties: {} } },
            call: () => ({ output: 'static', isError: false }),
          },
        ],
      }),
    );
    await host.init();
    expect(host.groups().find((group) => group.id === 'mcp:s')?.members).toEqual(['mcp_s_two']);
    expect((await host.call('mcp_s_one', {})).output).toBe('static');
    const directory = await host.call('tools_groups', { query: '*' });
    expect(directory.output).toMatchObject({ groups: [{ id: 'mcp:s', member_count: 1 }], total_groups: 1 });
  });
});

describe('calls', () => {
  it('return the audited envelope and a bounded model view', async () => {
    const provider = await started(stdioFixture('fx', 'v2-server.mjs'));
    const result = await provider.call('mcp_fx_add', { a: 1, b: 2 });
    const envelope = result.output as McpToolEnvelope;
    expect(envelope).toMatchObject({ server_id: 'fx', tool: 'add', structuredContent: { sum: 3 }, isError: false });
    expect(envelope.content).toEqual([{ type: 'text', text: '{"sum":3}' }]);
    // The text block only repeats the structured content, so the model sees it once.
    expect(result.modelOutput).toMatchObject({ type: 'ToolPresentation', parts: [{ type: 'text', text: '{"sum":3}' }] });
    const image = await provider.call('mcp_fx_pixel', {});
    expect(image.modelOutput?.parts.map((part) => part.type)).toEqual(['text', 'media']);
  });

  it('pass a tool-level error from the server through as an error result', async () => {
    const provider = await started(stdioFixture('fx', 'v2-server.mjs'));
    const result = await provider.call('mcp_fx_fail', {});
    expect(result.isError).toBe(true);
    expect(result.output).toMatchObject({ server_id: 'fx', tool: 'fail', isError: true });
    expect(result.modelOutput?.parts).toEqual([{ type: 'text', text: 'this tool always fails' }]);
  });

  it('reject non-object arguments before anything reaches the server, and treat null as {}', async () => {
    const log = observationLog();
    const provider = new McpToolProvider({ servers: [catalogServer('s', [{ name: 'echo' }], { log })] });
    const host = track(new ToolHost({ providers: [provider] }));
    await host.init();
    for (const args of [[1, 2], 'text', 42]) {
      const result = await host.call('mcp_s_echo', args);
      expect(result).toMatchObject({ isError: true, output: { error: { code: 'invalid_arguments' } } });
    }
    expect((await provider.call('mcp_s_echo', ['x'])).isError).toBe(true);
    expect(observed(log).filter((entry) => entry.event === 'call')).toHaveLength(0);
    expect((await host.call('mcp_s_echo', null)).isError).toBe(false);
    expect(observed(log).filter((entry) => entry.event === 'call')).toMatchObject([{ tool: 'echo', arguments: {} }]);
  });

  it('answer an unknown tool with an error result that names it and suggests near matches', async () => {
    const host = track(new ToolHost({ providers: [new McpToolProvider({ servers: [stdioFixture('fx', 'v2-server.mjs')] })] }));
    await host.init();
    const result = await host.call('mcp_fx_ecko', { text: 'x' });
    expect(result.isError).toBe(true);
    expect(result.output).toMatchObject({ error: { code: 'tool_not_found', tool: 'mcp_fx_ecko' } });
    expect((result.output as { error: { did_you_mean: string[] } }).error.did_you_mean[0]).toBe('mcp_fx_echo');
    expect(result.modelOutput?.parts[0]).toMatchObject({ type: 'text', text: expect.stringContaining('mcp_fx_echo') as string });
  });

  it('reject with the reason when the caller aborts', async () => {
    const provider = await started(stdioFixture('fx', 'v2-server.mjs'));
    const controller = new AbortController();
    controller.abort(new Error('user stopped'));
    await expect(provider.call('mcp_fx_echo', { text: 'x' }, { signal: controller.signal })).rejects.toThrow('user stopped');
  });
});

describe('configuration and registration', () => {
  it('starts twelve stdio servers through ToolHost.init without a listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const servers = Array.from({ length: 12 }, (_, n) => catalogServer(`s${n}`, [{ name: 'echo' }]));
      const host = track(new ToolHost({ providers: [new McpToolProvider({ servers })] }));
      await host.init();
      expect(host.definitions().filter((definition) => definition.name.startsWith('mcp_s'))).toHaveLength(12);
      // Warnings are emitted on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('rejects duplicate server ids and ids that collide after normalisation', () => {
    expect(() => new McpToolProvider({ servers: [stdioFixture('a', 'v2-server.mjs'), stdioFixture('a', 'v1-server.mjs')] })).toThrow(
      McpConfigError,
    );
    const collision = () => new McpToolProvider({ servers: [stdioFixture('git-hub', 'v2-server.mjs'), stdioFixture('Git_Hub', 'v1-server.mjs')] });
    expect(collision).toThrow(/"git-hub" collides with server "Git_Hub": both normalise to "git_hub"/);
    expect(() => new McpToolProvider({ servers: [{ id: 'bad', transport: { type: 'stdio', command: ' ' } }] })).toThrow(
      expect.objectContaining({ serverId: 'bad', field: 'transport.command' }) as Error,
    );
  });

  it('skips an unreachable optional server at start-up and reports it in its status', async () => {
    const provider = await started(
      { id: 'down', transport: { type: 'stdio', command: '/nonexistent/mcp-server' } },
      stdioFixture('up', 'v2-server.mjs'),
    );
    expect(names(provider)).toContain('mcp_up_echo');
    const down = provider.serverStatuses().find((status) => status.id === 'down')!;
    expect(down.state).toBe('failed');
    expect(down.lastError).toContain('/nonexistent/mcp-server');
  });

  for (const [lifecycle, method] of [['initialize', 'initialize'], ['discover', 'server/discover'], ['auto', 'initialize']] as const) {
    it(`says how a stdio server that dies at start ended, and before which answer (${lifecycle})`, async () => {
      const provider = await started(
        { id: 'quits', lifecycle, transport: { type: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'] } },
        { id: 'killed', lifecycle, transport: { type: 'stdio', command: process.execPath, args: ['-e', "process.kill(process.pid, 'SIGKILL')"] } },
      );
      const [killed, quits] = provider.serverStatuses();
      expect(quits!.lastError).toBe(`MCP server "quits" could not be set up: the server process exited with code 3 before answering ${method}.`);
      expect(killed!.lastError).toBe(`MCP server "killed" could not be set up: the server process was killed by SIGKILL before answering ${method}.`);
    });
  }

  it('says how a stdio server that writes an error and exits at start ended, with what it wrote', async () => {
    const provider = track(
      new McpToolProvider({
        servers: [{ id: 'must', required: true, transport: { type: 'stdio', command: process.execPath, args: ['-e', "console.error('no API key'); process.exit(1)"] } }],
      }),
    );
    const failure = provider.init();
    await expect(failure).rejects.toThrow(/the server process exited with code 1 before answering initialize\. Its stderr ended with: "no API key"/);
  });

  it('fails init, naming the server, when a required server is unreachable', async () => {
    const provider = track(
      new McpToolProvider({ servers: [{ id: 'must', required: true, transport: { type: 'stdio', command: '/nonexistent/mcp-server' } }] }),
    );
    const failure = provider.init();
    await expect(failure).rejects.toBeInstanceOf(McpServerUnavailableError);
    await expect(failure).rejects.toThrow(/Required MCP server "must"/);
  });

  it('runs start-up again on the next init() after a required server failed it, and starts background servers once', async () => {
    const tools = join(dirname(observationLog()), 'tools.json');
    const provider = track(
      new McpToolProvider({
        servers: [
          // tools/list fails while its tools file is missing.
          { ...stdioFixture('must', 'catalog-server.mjs', { env: { FIXTURE_TOOLS_FILE: tools } }), required: true },
          stdioFixture('later', 'v2-server.mjs', { config: { startup: 'background' } }),
        ],
      }),
    );
    await expect(provider.init()).rejects.toBeInstanceOf(McpServerUnavailableError);
    writeFileSync(tools, JSON.stringify([{ name: 'ready' }]));
    await Promise.all([provider.init(), provider.init()]);
    expect(names(provider)).toContain('mcp_must_ready');
    await vi.waitFor(() => expect(names(provider)).toContain('mcp_later_echo'), { timeout: 10_000 });
    await provider.init();
  });

  it('publishes a background server only after live discovery, without making init wait', async () => {
    const provider = track(new McpToolProvider({ servers: [stdioFixture('later', 'v2-server.mjs', { config: { startup: 'background' } })] }));
    await provider.init();
    expect(provider.definitions()).toEqual([]);
    await vi.waitFor(() => expect(names(provider)).toContain('mcp_later_echo'), { timeout: 10_000 });
    expect(provider.serverStatuses()[0]!.state).toBe('ready');
  });

  it('adds and removes servers at run time', async () => {
    const provider = await started();
    await provider.addServer(stdioFixture('late', 'v2-server.mjs'));
    expect(names(provider)).toContain('mcp_late_echo');
    expect((await provider.call('mcp_late_echo', { text: 'hello' })).isError).toBe(false);
    await expect(provider.addServer(stdioFixture('late', 'v1-server.mjs'))).rejects.toThrow(/already exists/);
    expect(await provider.removeServer('late')).toBe(true);
    expect(await provider.removeServer('late')).toBe(false);
    expect(provider.definitions()).toEqual([]);
    const result = await provider.call('mcp_late_echo', { text: 'gone' });
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'tool_not_found' } } });
  });

  it('ends a call that waits for a server set-up when the server is removed, without waiting for the set-up deadline', async () => {
    const provider = await started();
    // A program that reads its input and never answers: the set-up would wait its full minute.
    await provider.addServer({
      id: 'mute',
      transport: { type: 'stdio', command: process.execPath, args: ['-e', 'process.stdin.resume()'] },
      lifecycle: 'initialize',
      startup: 'background',
      timeouts: { setupMs: 60_000, connectAttemptMs: 60_000 },
    });
    // Its outcome is taken at once: the call fails while removeServer runs, before anything awaits it.
    const call = provider.callServerTool('mute', 'anything').then(
      () => undefined,
      (error: unknown) => error,
    );
    await vi.waitFor(() => expect(provider.serverStatuses().find((status) => status.id === 'mute')?.state).toBe('connecting'));
    expect(await provider.removeServer('mute')).toBe(true);
    expect(await call).toMatchObject({ code: 'tool_call_failed', reason: 'server_removed', message: 'MCP server "mute" was removed.' });
  }, 15_000);

  it('rolls back a runtime add whose first refresh fails', async () => {
    const provider = await started();
    const add = provider.addServer({ id: 'broken', transport: { type: 'stdio', command: '/nonexistent/mcp-server' } });
    await expect(add).rejects.toMatchObject({ code: 'server_unavailable', serverId: 'broken' });
    expect(provider.serverIds()).toEqual([]);
    expect(provider.serverStatuses()).toEqual([]);
  });

  it('reports statuses without ever connecting', async () => {
    const log = observationLog();
    const provider = track(new McpToolProvider({ servers: [stdioFixture('idle', 'v2-server.mjs', { env: { FIXTURE_LOG: log } })] }));
    expect(provider.serverStatuses()).toEqual([{ id: 'idle', state: 'disconnected', toolCount: 0 }]);
    await provider.init();
    await provider.disconnectServer('idle');
    expect(provider.serverStatuses()[0]).toMatchObject({ id: 'idle', state: 'disconnected', toolCount: 5 });
    expect(observed(log).filter((entry) => entry.event === 'start')).toHaveLength(1);
  });
});
