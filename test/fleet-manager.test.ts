import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ENV_ALLOWLIST,
  loadMcpConfig,
  McpConfigError,
  type McpFleetServerConfig,
  type McpFleetServerStatus,
  McpServerManager,
  McpUnknownServerError,
  parseMcpConfig,
  ToolHost,
} from '../src/index.js';
import { alive, fixture, FIXTURES, type HttpFixture, observationLog, observed, startHttpFixture, tempDir } from './helpers.js';

const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

const managers: McpServerManager[] = [];
const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.shutdown()));
  await Promise.all(fixtures.splice(0).map((server) => server.close()));
});

function track(manager: McpServerManager): McpServerManager {
  managers.push(manager);
  return manager;
}

async function httpServer(): Promise<HttpFixture> {
  const server = await startHttpFixture('fleet-server.mjs');
  fixtures.push(server);
  return server;
}

/** A fleet-server.mjs entry run with this Node.js. */
function fleetServer(id: string, env: Record<string, string> = {}, extra: Partial<McpFleetServerConfig> = {}): McpFleetServerConfig {
  return { id, transport: { type: 'stdio', command: process.execPath, args: [fixture('fleet-server.mjs')], env }, ...extra };
}

const starts = (log: string) => observed(log).filter((entry) => entry.event === 'start');
const refusals = (log: string) => observed(log).filter((entry) => entry.event === 'refused-start');

interface WhoAmI {
  pid: number;
  env: Record<string, string>;
  headers: Record<string, string>;
}

async function whoami(host: ToolHost, name: string): Promise<WhoAmI> {
  const result = await host.call(name, {});
  expect(result.isError).toBe(false);
  return (result.output as { structuredContent: WhoAmI }).structuredContent;
}

/** Arguments that satisfy a tool's input schema: required fields only, from defaults, enums and types. */
function sampleArguments(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const args: Record<string, unknown> = {};
  for (const key of (schema.required ?? []) as string[]) {
    const property = properties[key] ?? {};
    if (property.default !== undefined) args[key] = property.default;
    else if (Array.isArray(property.enum)) args[key] = property.enum[0];
    else if (property.type === 'number' || property.type === 'integer') args[key] = 1;
    else if (property.type === 'boolean') args[key] = false;
    else if (property.type === 'array') args[key] = [];
    else if (property.type === 'object') args[key] = {};
    else args[key] = 'x';
  }
  return args;
}

/** Tools of server-everything that need particular arguments to finish quickly and offline. */
const EVERYTHING_ARGUMENTS: Record<string, Record<string, unknown>> = {
  'trigger-long-running-operation': { duration: 0.2, steps: 1 },
  'gzip-file-as-resource': { name: 'hello.gz', data: 'data:text/plain;base64,aGVsbG8=' },
};

/** Calls every tool the host offers; each must reach its server and come back with the server's own result. */
async function callEveryTool(host: ToolHost, manager: McpServerManager): Promise<string[]> {
  const called: string[] = [];
  for (const definition of host.definitions()) {
    const origin = manager.toolOrigin(definition.name);
    if (origin === undefined) continue;
    const args = EVERYTHING_ARGUMENTS[origin.remoteName] ?? sampleArguments(definition.parameters);
    if (origin.remoteName === 'echo' && origin.serverId !== 'everything') args.text = 'hello';
    const result = await host.call(definition.name, args, { timeoutMs: 15_000 });
    // The server's own answer carries content; a host-side failure (not found, unavailable, timeout) carries an error code.
    expect(result.output, definition.name).toHaveProperty('content');
    called.push(definition.name);
  }
  return called;
}

/** The states a server went through, from the status events, without repeats. */
function stateSequence(events: McpFleetServerStatus[], id: string): string[] {
  const states = events.filter((status) => status.id === id).map((status) => status.state);
  return states.filter((state, i) => i === 0 || states[i - 1] !== state);
}

describe('each editor dialect', () => {
  it('a Claude Desktop file starts, and every tool of server-memory and the fixture is callable through a ToolHost', async () => {
    const dir = tempDir();
    const log = join(dir, 'notes.jsonl');
    const manager = track(
      await McpServerManager.fromFile(join(FIXTURES, 'configs/claude-desktop/claude_desktop_config.json'), {
        env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl'), FIXTURE_LOG: log },
      }),
    );
    const host = new ToolHost({ providers: [manager] });
    await host.init();
    expect(manager.statuses().map(({ id, state }) => ({ id, state }))).toEqual([
      { id: 'memory', state: 'running' },
      { id: 'notes', state: 'running' },
    ]);
    const called = await callEveryTool(host, manager);
    expect(called).toContain('mcp_memory_read_graph');
    expect(called).toContain('mcp_notes_whoami');
    // The child saw the platform allowlist and its own env, nothing of the host's.
    const seen = await whoami(host, 'mcp_notes_whoami');
    expect(seen.env.FIXTURE_NAME).toBe('notes');
    for (const key of Object.keys(seen.env)) expect([...ENV_ALLOWLIST, 'FIXTURE_NAME', 'FIXTURE_LOG']).toContain(key);
  });

  it('a Claude Code file expands ${VAR} and ${VAR:-default} at start, in stdio env and HTTP headers', async () => {
    const remote = await httpServer();
    const manager = track(
      await McpServerManager.fromFile(join(FIXTURES, 'configs/claude-code/.mcp.json'), {
        env: { REMOTE_URL: remote.url, REMOTE_TOKEN: 'remote-token-123', TASKS_API_KEY: 'tasks-key-456', FIXTURES_DIR: FIXTURES },
      }),
    );
    const host = new ToolHost({ providers: [manager] });
    await host.init();
    await callEveryTool(host, manager);
    const tasks = await whoami(host, 'mcp_tasks_whoami');
    expect(tasks.env).toMatchObject({ FIXTURE_NAME: 'tasks', TASKS_API_KEY: 'tasks-key-456' });
    const seen = await whoami(host, 'mcp_remote_whoami');
    expect(seen.headers).toMatchObject({ authorization: 'Bearer remote-token-123', 'x-team': 'platform' });
    expect(manager.status('remote')).toMatchObject({ state: 'running', transport: 'http' });
    // What came from the environment is a secret: never in a status, nor in the configuration it keeps.
    const shown = JSON.stringify([manager.statuses(), manager.configs()]);
    expect(shown).not.toContain('remote-token-123');
    expect(shown).not.toContain('tasks-key-456');
  });

  it('a VS Code JSONC file asks its inputs once and merges envFile under env', async () => {
    const asked: string[] = [];
    const manager = track(
      await McpServerManager.fromFile(join(FIXTURES, 'configs/vscode/.vscode/mcp.json'), {
        // server-everything keeps running after its stdin closes once its timers are on (a tool turns them on).
        gracePeriodMs: 500,
        inputs: ({ input, serverId }) => {
          asked.push(`${serverId}:${input.id}`);
          return 'typed-search-key';
        },
      }),
    );
    const host = new ToolHost({ providers: [manager] });
    await host.init();
    await callEveryTool(host, manager);
    const seen = await whoami(host, 'mcp_search_whoami');
    // env wins over the env file, which still brings what env does not set.
    expect(seen.env).toMatchObject({ SEARCH_API_KEY: 'typed-search-key', SEARCH_REGION: 'eu-west' });
    await manager.restartServer('search');
    expect((await whoami(host, 'mcp_search_whoami')).pid).not.toBe(seen.pid);
    expect(asked).toEqual(['search:search-key']);
  });

  it('a Cursor file expands ${env:NAME} and connects its url entry over Streamable HTTP', async () => {
    const weather = await httpServer();
    const manager = track(
      await McpServerManager.fromFile(join(FIXTURES, 'configs/cursor/.cursor/mcp.json'), {
        env: { DOCS_TOKEN: 'docs-token-789', WEATHER_URL: weather.url, WEATHER_KEY: 'weather-key-012' },
      }),
    );
    const host = new ToolHost({ providers: [manager] });
    await host.init();
    await callEveryTool(host, manager);
    expect((await whoami(host, 'mcp_docs_whoami')).env.DOCS_TOKEN).toBe('docs-token-789');
    expect((await whoami(host, 'mcp_weather_whoami')).headers['x-api-key']).toBe('weather-key-012');
  });

  it('a type "sse" entry connects a legacy HTTP+SSE server, with its bearer token from the environment', async () => {
    const legacy = await startHttpFixture('sse-server.mjs', { env: { SSE_REQUIRE_TOKEN: 'sse-token-2468' } });
    fixtures.push(legacy);
    const file = JSON.stringify({ mcpServers: { old: { type: 'sse', url: legacy.url, bearerToken: '${OLD_TOKEN}' } } });
    const manager = track(new McpServerManager({ file: await loadMcpConfig(file), env: { OLD_TOKEN: 'sse-token-2468' } }));
    const host = new ToolHost({ providers: [manager] });
    await host.init();
    expect(manager.status('old')).toMatchObject({ state: 'running', transport: 'sse', era: 'legacy' });
    const result = await host.call('mcp_old_echo', { text: 'over sse' });
    expect(result.isError).toBe(false);
    expect(JSON.stringify(result.output)).toContain('over sse');
  });

  it('an unset variable fails that server alone, naming the server, field and variable but no value', async () => {
    const remote = await httpServer();
    const manager = track(
      await McpServerManager.fromFile(join(FIXTURES, 'configs/claude-code/.mcp.json'), {
        env: { REMOTE_URL: remote.url, REMOTE_TOKEN: 'remote-token-123', FIXTURES_DIR: FIXTURES },
      }),
    );
    const outcomes = await manager.startAll();
    expect(outcomes.map((outcome) => [outcome.id, outcome.ok])).toEqual([
      ['tasks', false],
      ['remote', true],
    ]);
    const failure = outcomes[0]!.ok ? undefined : outcomes[0]!.error;
    expect(failure).toBeInstanceOf(McpConfigError);
    expect(failure!.message).toContain('"tasks"');
    expect(failure!.message).toContain('TASKS_API_KEY');
    expect(failure!.message).toContain('transport.env.TASKS_API_KEY');
    expect(manager.status('tasks')).toMatchObject({ state: 'failed_to_start', lastError: failure!.message });
  });
});

describe('supervision', () => {
  it('a killed stdio server comes back under its restart policy, then is given up past its attempts', async () => {
    const log = observationLog();
    const marker = `${log}.refuse`;
    const events: (McpFleetServerStatus & { at: number })[] = [];
    const manager = track(
      new McpServerManager({
        servers: [
          fleetServer('flaky', { FIXTURE_LOG: log, FIXTURE_FAIL_IF_EXISTS: marker }, {
            lifecycle: 'initialize',
            restartPolicy: { initialDelayMs: 40, backoffMultiplier: 2, maxDelayMs: 100, maxRestartAttempts: 3 },
          }),
        ],
      }),
    );
    manager.on('status', (status) => events.push({ ...status, at: performance.now() }));
    await manager.init();
    expect(manager.monitoring).toBe(true);
    const first = manager.status('flaky').pid!;

    process.kill(first, 'SIGKILL');
    await vi.waitFor(() => expect(starts(log)).toHaveLength(2), { timeout: 5_000 });
    await vi.waitFor(() => expect(manager.status('flaky').state).toBe('running'));
    expect(stateSequence(events, 'flaky')).toEqual(['starting', 'running', 'crashed', 'restarting', 'running']);
    const crashed = events.find((status) => status.state === 'crashed' && status.nextRestartAt !== undefined)!;
    expect(crashed).toMatchObject({ restartAttempts: 1, restartDelayMs: 40 });
    const restarting = events.find((status) => status.state === 'restarting')!;
    expect(restarting.at - crashed.at).toBeGreaterThanOrEqual(38);
    // The backoff is reset once the restarted server has stayed up for the longest delay (100 ms).
    expect(manager.status('flaky')).toMatchObject({ restartAttempts: 1, pid: starts(log)[1]!.pid });
    await vi.waitFor(() => expect(manager.status('flaky').restartAttempts).toBe(0));

    // From now on every restart fails: 40, 80, then 100 ms (capped), and then no more.
    events.length = 0;
    writeFileSync(marker, '');
    process.kill(manager.status('flaky').pid!, 'SIGKILL');
    await vi.waitFor(() => expect(manager.status('flaky').lastError).toContain('gave up after 3 restart attempts'), { timeout: 5_000 });
    expect(events.filter((status) => status.nextRestartAt !== undefined).map((status) => status.restartDelayMs)).toEqual([40, 80, 100]);
    expect(refusals(log)).toHaveLength(3);
    expect(manager.status('flaky')).toMatchObject({ state: 'failed_to_start', restartAttempts: 3, toolCount: 0 });
    expect(manager.status('flaky').nextRestartAt).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(refusals(log)).toHaveLength(3);
    expect(starts(log)).toHaveLength(2);
  });

  it('a crashed server without a restart policy stays down, and its calls say so', async () => {
    const log = observationLog();
    const manager = track(new McpServerManager({ servers: [fleetServer('solo', { FIXTURE_LOG: log })] }));
    const host = new ToolHost({ providers: [manager] });
    await host.init();
    process.kill(manager.status('solo').pid!, 'SIGKILL');
    await vi.waitFor(() => expect(manager.status('solo').state).toBe('crashed'));
    const result = await host.call('mcp_solo_echo', { text: 'x' });
    expect(result.output).toMatchObject({ error: { code: 'server_unavailable' } });
    expect(starts(log)).toHaveLength(1);
    await manager.startServer('solo');
    expect((await host.call('mcp_solo_echo', { text: 'x' })).isError).toBe(false);
    expect(starts(log)).toHaveLength(2);
  });

  it('a remote server that stops answering is noticed by the health check and restarted under its policy', async () => {
    const remote = await httpServer();
    const events: McpFleetServerStatus[] = [];
    const manager = track(
      new McpServerManager({
        healthCheckIntervalMs: 50,
        servers: [{ id: 'remote', transport: { type: 'http', url: remote.url }, timeouts: { probeMs: 1_000 }, restartPolicy: { initialDelayMs: 30, maxRestartAttempts: 2 } }],
      }),
    );
    manager.on('status', (status) => events.push(status));
    await manager.init();
    await remote.close();
    await vi.waitFor(() => expect(manager.status('remote').lastError).toMatch(/gave up after 2 restart attempts/), { timeout: 10_000 });
    expect(stateSequence(events, 'remote')).toEqual([
      'starting',
      'running',
      'crashed',
      'restarting',
      'failed_to_start',
      'restarting',
      'failed_to_start',
    ]);
    expect(events.find((status) => status.state === 'crashed')!.lastError).toMatch(/^the server did not answer a health check/);
  });

  it('startAll starts every server at once, without waiting for one handshake before the next', async () => {
    const dir = tempDir();
    const gate = join(dir, 'gate');
    const logs = ['a', 'b', 'c'].map((id) => join(dir, `${id}.jsonl`));
    const manager = track(
      new McpServerManager({
        servers: ['a', 'b', 'c'].map((id, i) => ({
          id,
          transport: {
            type: 'stdio' as const,
            command: process.execPath,
            args: [fixture('catalog-server.mjs')],
            env: { FIXTURE_TOOLS: JSON.stringify([{ name: 'echo' }]), FIXTURE_LIST_GATE: gate, FIXTURE_LOG: logs[i]! },
          },
        })),
      }),
    );
    const started = manager.startAll();
    // Every server is listing (all three handshakes done) before any may finish.
    await vi.waitFor(() => expect(logs.every((log) => observed(log).some((entry) => entry.method === 'tools/list'))).toBe(true), {
      timeout: 10_000,
    });
    writeFileSync(gate, '');
    expect(await started).toEqual([
      { id: 'a', ok: true },
      { id: 'b', ok: true },
      { id: 'c', ok: true },
    ]);
  });
});

describe('the registry', () => {
  it('updateServer with a broken replacement restores the previous server, which answers afterwards', async () => {
    const log = observationLog();
    const original = fleetServer('svc', { FIXTURE_LOG: log });
    const manager = track(new McpServerManager({ servers: [original] }));
    const host = new ToolHost({ providers: [manager] });
    await host.init();
    const broken: McpFleetServerConfig = { id: 'svc', transport: { type: 'stdio', command: join(tempDir(), 'no-such-program') } };
    const error = await manager.updateServer('svc', broken).then(
      () => new Error('updateServer did not fail'),
      (failure: unknown) => failure as Error,
    );
    expect(error.message).toMatch(/replacement for MCP server "svc" failed/);
    expect(error.message).toMatch(/previous configuration was restored/);
    expect(error.message).toContain('no-such-program');
    expect((await host.call('mcp_svc_echo', { text: 'still here' })).isError).toBe(false);
    expect(manager.status('svc').state).toBe('running');
    expect(manager.serverConfig('svc')).toEqual(original);
    expect(starts(log)).toHaveLength(2);
  });

  it('refuses unsafe and unknown ids on every path', async () => {
    expect(() => new McpServerManager({ servers: [fleetServer('../../x')] })).toThrow(McpConfigError);
    const manager = track(new McpServerManager({ servers: [fleetServer('ok')] }));
    await expect(manager.addServer(fleetServer('a/b'))).rejects.toThrow(McpConfigError);
    await expect(manager.addServer(fleetServer('ok'))).rejects.toThrow(/already exists/);
    for (const operation of [
      () => manager.startServer('../../x'),
      () => manager.stopServer('../../x'),
      () => manager.removeServer('../../x'),
      () => manager.updateServer('../../x', fleetServer('../../x')),
    ]) {
      await expect(operation()).rejects.toThrow(McpConfigError);
    }
    await expect(manager.startServer('missing')).rejects.toThrow(McpUnknownServerError);
    expect(() => manager.status('missing')).toThrow(/No MCP server is registered with id "missing"/);
  });

  it('a disabled server never spawns, and shutdown leaves no child process', async () => {
    const dir = tempDir();
    const onLog = join(dir, 'on.jsonl');
    const offLog = join(dir, 'off.jsonl');
    const manager = track(new McpServerManager({ servers: [fleetServer('on', { FIXTURE_LOG: onLog }), fleetServer('off', { FIXTURE_LOG: offLog }, { disabled: true })] }));
    expect(await manager.startAll()).toEqual([{ id: 'on', ok: true }]);
    await expect(manager.startServer('off')).rejects.toThrow(/disabled; enable it/);
    await manager.restartServer('on');
    expect(manager.statuses().map(({ id, state }) => [id, state])).toEqual([
      ['on', 'running'],
      ['off', 'disabled'],
    ]);
    await manager.enableServer('off');
    expect(manager.status('off').state).toBe('stopped');
    await manager.startServer('off');
    const pids = [...starts(onLog), ...starts(offLog)].map((entry) => entry.pid);
    expect(pids).toHaveLength(3);
    await manager.shutdown();
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(manager.statuses().map((status) => status.state)).toEqual(['stopped', 'stopped']);
    await manager.disableServer('off').catch(() => {});
    expect(observed(offLog).filter((entry) => entry.event === 'start')).toHaveLength(1);
  });
});

describe('per-server operations and secrets', () => {
  it('offers the provider operations on a running server, and refuses a stopped one', async () => {
    const everything = { id: 'everything', resources: true, transport: { type: 'stdio' as const, command: process.execPath, args: [EVERYTHING] } };
    const manager = track(new McpServerManager({ servers: [everything], gracePeriodMs: 500 }));
    await expect(manager.listResources('everything')).rejects.toMatchObject({ code: 'server_not_running' });
    await manager.startServer('everything');
    const resources = await manager.listResources('everything');
    expect(resources.length).toBeGreaterThan(0);
    const read = await manager.readResource('everything', resources[0]!.uri);
    expect(read.contents.length).toBeGreaterThan(0);
    expect((await manager.listPrompts('everything')).length).toBeGreaterThan(0);
    const result = await manager.callServerTool('everything', 'echo', { message: 'app' });
    expect(JSON.stringify(result.content)).toContain('app');
  });

  it('a value expanded into args is redacted from the error of a server that prints it and dies', async () => {
    const manager = track(
      new McpServerManager({
        env: { LEAKY_TOKEN: 'leaky-token-6789' },
        servers: [
          {
            id: 'leaky',
            lifecycle: 'initialize',
            transport: { type: 'stdio', command: process.execPath, args: ['-e', 'console.error("token: " + process.argv[1]); process.exit(2)', '${LEAKY_TOKEN}'] },
          },
        ],
      }),
    );
    const [outcome] = await manager.startAll();
    expect(outcome!.ok).toBe(false);
    const shown = JSON.stringify([outcome, String((outcome as { error: Error }).error), manager.statuses(), inspect(manager, { depth: 8 })]);
    expect(shown).toContain('token: [REDACTED]');
    expect(shown).not.toContain('leaky-token-6789');
  });
});

describe('the file', () => {
  /** A Claude Code file in a temporary folder, with fields mcp-fleet does not know and an autoApprove list. */
  function claudeCodeFile(): string {
    const dir = tempDir();
    const path = join(dir, '.mcp.json');
    const text = `{
  "mcpServers": {
    "tasks": {
      "type": "stdio",
      "command": "${process.execPath.replace(/\\/g, '\\\\')}",
      "args": ["${fixture('fleet-server.mjs').replace(/\\/g, '\\\\')}"],
      "env": { "TASKS_API_KEY": "\${TASKS_API_KEY}", "FIXTURE_NAME": "\${TASKS_NAME:-tasks}" },
      "autoApprove": ["echo"],
      "x-team-owner": { "name": "platform", "pager": true }
    }
  },
  "x-top-level-note": "kept"
}
`;
    writeFileSync(path, text);
    return path;
  }

  it('save keeps unknown fields, autoApprove and templates, writes no expanded secret, and reloads to equal configs', async () => {
    const path = claudeCodeFile();
    const original = readFileSync(path, 'utf8');
    const manager = track(await McpServerManager.fromFile(path, { env: { TASKS_API_KEY: 'secret-api-key-345' } }));
    await manager.startAll();
    await manager.save();
    // Nothing changed: the file is byte for byte what it was.
    expect(readFileSync(path, 'utf8')).toBe(original);

    await manager.addServer(fleetServer('extra', { EXTRA_TOKEN: '${EXTRA_TOKEN:-none}' }, { autoApprove: ['whoami'], disabled: true }));
    await manager.updateServer('tasks', { ...manager.serverConfig('tasks'), timeouts: { callMs: 60_000 } });
    await manager.save();
    const saved = readFileSync(path, 'utf8');
    expect(saved).not.toContain('secret-api-key-345');
    expect(saved).toContain('"TASKS_API_KEY": "${TASKS_API_KEY}"');
    expect(saved).toContain('"x-team-owner": { "name": "platform", "pager": true }');
    expect(saved).toContain('"x-top-level-note": "kept"');
    expect(saved).toContain('"autoApprove": ["echo"]');
    expect(saved).toContain('${EXTRA_TOKEN:-none}');
    const reloaded = await loadMcpConfig(path);
    expect(reloaded.dialect).toBe('claude_code');
    expect(reloaded.servers()).toEqual(manager.configs());
  });

  it('autoSave writes every registry change to the file', async () => {
    const path = claudeCodeFile();
    const manager = track(await McpServerManager.fromFile(path, { autoSave: true }));
    await manager.disableServer('tasks');
    expect((await loadMcpConfig(path)).servers()[0]!.disabled).toBe(true);
    await manager.removeServer('tasks');
    expect((await loadMcpConfig(path)).servers()).toEqual([]);
  });

  it('save(path) writes a new file in the chosen dialect for a fleet built in code', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.vscode'));
    const manager = track(new McpServerManager({ servers: [fleetServer('one')], dialect: 'vscode' }));
    const path = join(dir, '.vscode', 'mcp.json');
    await manager.save(path);
    const reloaded = await loadMcpConfig(path);
    expect(reloaded.dialect).toBe('vscode');
    expect(reloaded.servers()).toEqual(manager.configs());
  });

  it('save(otherPath) writes what the loaded file had, unknown fields, top-level keys, comments and templates included, over whatever was there', async () => {
    const path = claudeCodeFile();
    const original = readFileSync(path, 'utf8');
    const manager = track(await McpServerManager.fromFile(path));
    // Nothing changed: a backup is the file byte for byte.
    const backup = join(tempDir(), 'backup.json');
    await manager.save(backup);
    expect(readFileSync(backup, 'utf8')).toBe(original);

    await manager.addServer(fleetServer('extra'));
    const exported = join(tempDir(), 'export.json');
    writeFileSync(exported, JSON.stringify({ mcpServers: { stale: { command: 'old' } }, "x-stale": true }));
    await manager.save(exported);
    const saved = readFileSync(exported, 'utf8');
    expect(saved).toContain('"x-team-owner": { "name": "platform", "pager": true }');
    expect(saved).toContain('"x-top-level-note": "kept"');
    expect(saved).toContain('"TASKS_API_KEY": "${TASKS_API_KEY}"');
    // What was there before is replaced, not merged.
    expect(saved).not.toContain('stale');
    const reloaded = await loadMcpConfig(exported, { dialect: 'claude_code' });
    expect(reloaded.servers()).toEqual(manager.configs());
    // The fleet's own file is still its own: untouched by the export, and where save() goes.
    expect(readFileSync(path, 'utf8')).toBe(original);
    await manager.save();
    expect((await loadMcpConfig(path)).servers().map((server) => server.id)).toEqual(['tasks', 'extra']);
  });

  it('save(path, { dialect }) exports to another editor, and addServer carries the unknown fields of a server from another file', async () => {
    const path = claudeCodeFile();
    const manager = track(await McpServerManager.fromFile(path));
    const source = parseMcpConfig('{ "mcpServers": { "copied": { "command": "node", "args": ["c.js"], "x-team": "core" } } }');
    await manager.addServer(source.servers()[0]!, { unknownFields: source.unknownFields('copied') });
    await expect(manager.addServer(fleetServer('bad'), { unknownFields: { env: {} } })).rejects.toThrow(/`env` is a field mcp-fleet reads/);
    expect(manager.serverIds()).toEqual(['tasks', 'copied']);
    const project = tempDir();
    mkdirSync(join(project, '.vscode'));
    const vscode = join(project, '.vscode', 'mcp.json');
    await manager.save(vscode, { dialect: 'vscode' });
    const exported = await loadMcpConfig(vscode);
    expect(exported.dialect).toBe('vscode');
    expect(exported.servers()).toEqual(manager.configs());
    expect(exported.unknownFields('tasks')).toEqual({ 'x-team-owner': { name: 'platform', pager: true } });
    expect(exported.unknownFields('copied')).toEqual({ 'x-team': 'core' });
    expect(exported.text).toContain('"x-top-level-note": "kept"');
    // The fleet's own file keeps its dialect.
    await manager.save();
    const own = await loadMcpConfig(path);
    expect(own.dialect).toBe('claude_code');
    expect(own.unknownFields('copied')).toEqual({ 'x-team': 'core' });
  });

  it('save(otherPath) of a Claude Desktop file keeps its other settings and comments', async () => {
    const dir = tempDir();
    const path = join(dir, 'claude_desktop_config.json');
    const text = `{
  // Claude Desktop's own settings live next to the servers.
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "notes": { "command": "node", "args": ["notes.js"], "x-team": "core" }
  }
}
`;
    writeFileSync(path, text);
    const manager = track(await McpServerManager.fromFile(path));
    await manager.disableServer('notes');
    const copy = join(dir, 'copy', 'claude_desktop_config.json');
    mkdirSync(join(dir, 'copy'));
    await manager.save(copy);
    expect(readFileSync(copy, 'utf8')).toBe(text.replace('"x-team": "core" }', '"x-team": "core", "disabled": true }'));
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('watch applies an edit as exactly the adds, updates and removes it makes; a broken edit changes nothing', async () => {
    const dir = tempDir();
    const path = join(dir, 'mcp.json');
    const logs = Object.fromEntries(['a', 'b', 'c', 'd'].map((id) => [id, join(dir, `${id}.jsonl`)]));
    const entry = (id: string, name = id) => ({
      command: process.execPath,
      args: [fixture('fleet-server.mjs')],
      env: { FIXTURE_LOG: logs[id], FIXTURE_NAME: name },
    });
    const write = (servers: Record<string, unknown>) => writeFileSync(path, `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`);
    write({ a: entry('a'), b: entry('b'), c: entry('c') });
    const manager = track(await McpServerManager.fromFile(path));
    await manager.startAll();
    manager.watch();
    const pid = (id: string) => manager.status(id).pid;
    const before = { a: pid('a')!, b: pid('b')!, c: pid('c')! };

    const reloads: unknown[] = [];
    manager.on('reload', (reload) => reloads.push(reload));
    // An editor's save: a new file renamed over the old one.
    writeFileSync(`${path}.new`, JSON.stringify({ mcpServers: { a: entry('a'), b: entry('b', 'b-renamed'), d: entry('d') } }, null, 2));
    copyFileSync(`${path}.new`, path);
    await vi.waitFor(() => expect(reloads).toHaveLength(1), { timeout: 10_000 });
    expect(reloads[0]).toEqual({ added: ['d'], updated: ['b'], removed: ['c'], failed: [] });
    await vi.waitFor(() => expect(manager.status('d').state).toBe('running'));
    expect(manager.serverIds()).toEqual(['a', 'b', 'd']);
    expect(pid('a')).toBe(before.a);
    expect(pid('b')).not.toBe(before.b);
    expect(alive(before.c)).toBe(false);
    expect(starts(logs.a!)).toHaveLength(1);

    const errors: Error[] = [];
    manager.on('reloadError', (error) => errors.push(error));
    writeFileSync(path, '{ "mcpServers": { "a": ');
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 10_000 });
    expect(errors[0]!.message).toContain(path);
    expect(manager.serverIds()).toEqual(['a', 'b', 'd']);
    expect([pid('a'), manager.status('b').state, manager.status('d').state]).toEqual([before.a, 'running', 'running']);
    expect(reloads).toHaveLength(1);
  });
});
