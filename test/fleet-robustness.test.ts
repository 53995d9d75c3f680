/**
 * The fleet under the conditions that break naive supervisors: starts that hang, crash
 * loops, saves racing the watcher, other writers, failed edits, and secrets in a command
 * line. Each case was a real defect found in review.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadMcpConfig, type McpFleetServerConfig, type McpFleetServerStatus, McpServerManager } from '../src/index.js';
import { alive, fixture, observed, tempDir } from './helpers.js';

const managers: McpServerManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.shutdown()));
});

function track(manager: McpServerManager): McpServerManager {
  managers.push(manager);
  return manager;
}

function fleetServer(id: string, env: Record<string, string> = {}, extra: Partial<McpFleetServerConfig> = {}): McpFleetServerConfig {
  return { id, transport: { type: 'stdio', command: process.execPath, args: [fixture('fleet-server.mjs')], env }, ...extra };
}

/** A Claude Desktop file of fleet-server entries in a temporary folder. */
function fleetFile(servers: Record<string, Record<string, string>>): { path: string; entry: (env: Record<string, string>) => object } {
  const path = join(tempDir(), 'mcp.json');
  const entry = (env: Record<string, string>) => ({ command: process.execPath, args: [fixture('fleet-server.mjs')], env });
  writeFileSync(path, `${JSON.stringify({ mcpServers: Object.fromEntries(Object.entries(servers).map(([id, env]) => [id, entry(env)])) }, null, 2)}\n`);
  return { path, entry };
}

const starts = (log: string) => observed(log).filter((entry) => entry.event === 'start');

describe('starts that hang', () => {
  it('shutdown during a start that hangs in its handshake leaves no child process', async () => {
    const log = join(tempDir(), 'silent.jsonl');
    const manager = track(new McpServerManager({ servers: [fleetServer('silent', { FIXTURE_LOG: log, FIXTURE_SILENT: '1' })] }));
    const outcomes = manager.startAll();
    await vi.waitFor(() => expect(starts(log)).toHaveLength(1));
    await manager.shutdown();
    expect(alive(starts(log)[0]!.pid)).toBe(false);
    expect((await outcomes)[0]).toMatchObject({ id: 'silent', ok: false });
    expect(starts(log)).toHaveLength(1);
  });

  it('stopServer does not wait for a start that waits for an input; the prompt is told to close', async () => {
    const signals: AbortSignal[] = [];
    const file = (await loadMcpConfig(
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'key', description: 'API key' }],
        servers: { s: { type: 'stdio', command: process.execPath, args: [fixture('fleet-server.mjs')], env: { KEY: '${input:key}' } } },
      }),
    ));
    const manager = track(
      new McpServerManager({
        file,
        inputs: ({ signal }) => {
          signals.push(signal!);
          return new Promise<string>(() => {});
        },
      }),
    );
    const start = manager.startServer('s');
    await vi.waitFor(() => expect(signals).toHaveLength(1));
    await manager.stopServer('s');
    await expect(start).rejects.toThrow(/abandoned: it was stopped/);
    expect(signals[0]!.aborted).toBe(true);
    expect(manager.status('s').state).toBe('stopped');
  });
});

describe('supervision', () => {
  it('a failed refresh of a live server is not taken for a crash', async () => {
    const dir = tempDir();
    const tools = join(dir, 'tools.json');
    const log = join(dir, 'catalog.jsonl');
    writeFileSync(tools, JSON.stringify([{ name: 'one' }, { name: 'two' }]));
    const manager = track(
      new McpServerManager({
        healthCheckIntervalMs: 20,
        // The catalog fixture does not exit when its stdin closes.
        gracePeriodMs: 200,
        servers: [
          {
            id: 'cat',
            limits: { catalogItems: 2 },
            restartPolicy: { initialDelayMs: 10 },
            transport: { type: 'stdio', command: process.execPath, args: [fixture('catalog-server.mjs')], env: { FIXTURE_TOOLS_FILE: tools, FIXTURE_LOG: log } },
          },
        ],
      }),
    );
    await manager.init();
    writeFileSync(tools, JSON.stringify([{ name: 'one' }, { name: 'two' }, { name: 'three' }]));
    await expect(manager.refresh()).rejects.toThrow(/more than 2/);
    // Several health rounds later the server still runs its first process, with its last good catalog.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(manager.status('cat')).toMatchObject({ state: 'running', toolCount: 2 });
    expect(starts(log)).toHaveLength(1);
  });

  it('a server that dies soon after every start is a crash loop: its delays grow and it is given up', async () => {
    const log = join(tempDir(), 'loop.jsonl');
    const delays: number[] = [];
    const manager = track(
      new McpServerManager({
        servers: [
          fleetServer('loop', { FIXTURE_LOG: log, FIXTURE_EXIT_AFTER_MS: '150' }, {
            lifecycle: 'initialize',
            restartPolicy: { initialDelayMs: 20, backoffMultiplier: 2, maxDelayMs: 2_000, maxRestartAttempts: 3 },
          }),
        ],
      }),
    );
    // Each scheduled attempt once (under load a start can fail, not crash, when the server dies during it,
    // and the first attempt is then scheduled when monitoring starts).
    manager.on('status', (status: McpFleetServerStatus) => {
      if (status.restartDelayMs !== undefined) delays[status.restartAttempts - 1] = status.restartDelayMs;
    });
    await manager.init();
    await vi.waitFor(() => expect(manager.status('loop').lastError).toMatch(/gave up after 3 restart attempts/), { timeout: 10_000 });
    expect(delays).toEqual([20, 40, 80]);
    expect(starts(log)).toHaveLength(4);
  });

  it('the backoff is reset once a restarted server has stayed up for the longest delay', async () => {
    const log = join(tempDir(), 'once.jsonl');
    const manager = track(new McpServerManager({ servers: [fleetServer('once', { FIXTURE_LOG: log }, { restartPolicy: { initialDelayMs: 10, maxDelayMs: 100 } })] }));
    await manager.init();
    process.kill(manager.status('once').pid!, 'SIGKILL');
    await vi.waitFor(() => expect(starts(log)).toHaveLength(2), { timeout: 5_000 });
    await vi.waitFor(() => expect(manager.status('once').state).toBe('running'));
    expect(manager.status('once').restartAttempts).toBe(1);
    await vi.waitFor(() => expect(manager.status('once').restartAttempts).toBe(0));
  });

  it('restartServer stops the old process before the new one starts', async () => {
    const log = join(tempDir(), 'r.jsonl');
    const manager = track(new McpServerManager({ servers: [fleetServer('r', { FIXTURE_LOG: log })] }));
    await manager.startAll();
    const old = manager.status('r').pid!;
    await manager.restartServer('r');
    expect(alive(old)).toBe(false);
    expect(manager.status('r').pid).not.toBe(old);
  });
});

describe('secrets', () => {
  it('a missing command whose arguments hold an expanded secret shows it nowhere, not even in util.inspect of the error', async () => {
    const manager = track(
      new McpServerManager({
        env: { TOKEN: 'spawn-token-5555' },
        servers: [{ id: 'gone', transport: { type: 'stdio', command: join(tempDir(), 'missing-program'), args: ['--token', '${TOKEN}'] } }],
      }),
    );
    const [outcome] = await manager.startAll();
    expect(outcome!.ok).toBe(false);
    const error = (outcome as { error: Error }).error;
    expect(inspect(error, { depth: 10 })).not.toContain('spawn-token-5555');
    expect(JSON.stringify(manager.statuses())).not.toContain('spawn-token-5555');
  });
});

describe('the file', () => {
  it('saves racing the watcher never bring back a server the application removed', async () => {
    const { path } = fleetFile({ a: {} });
    const manager = track(await McpServerManager.fromFile(path, { autoSave: true }));
    await manager.startAll();
    manager.watch();
    const reloads: unknown[] = [];
    manager.on('reload', (reload) => reloads.push(reload));
    for (let i = 0; i < 25; i++) {
      await manager.addServer(fleetServer(`x${i}`, {}, { disabled: true }));
      await new Promise((resolve) => setTimeout(resolve, 40 + (i % 4) * 8));
      await manager.removeServer(`x${i}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(manager.serverIds()).toEqual(['a']);
    expect((await loadMcpConfig(path)).servers().map((server) => server.id)).toEqual(['a']);
    expect(reloads).toEqual([]);
  });

  it('save keeps what another writer put in the file since it was loaded', async () => {
    const { path, entry } = fleetFile({ a: {} });
    const manager = track(await McpServerManager.fromFile(path));
    // Another program rewrites the file: a top-level setting and a server of its own.
    writeFileSync(path, JSON.stringify({ numStartups: 7, mcpServers: { a: entry({}), b: entry({ FROM: 'other' }) } }, null, 2));
    await manager.disableServer('a');
    await manager.save();
    const saved = JSON.parse(readFileSync(path, 'utf8')) as { numStartups: number; mcpServers: Record<string, { disabled?: boolean; env?: object }> };
    expect(saved.numStartups).toBe(7);
    expect(saved.mcpServers.a!.disabled).toBe(true);
    expect(saved.mcpServers.b!.env).toEqual({ FROM: 'other' });
  });

  it('an edit of only autoApprove or restartPolicy restarts nothing', async () => {
    const { path, entry } = fleetFile({ a: {} });
    const manager = track(await McpServerManager.fromFile(path));
    await manager.startAll();
    manager.watch();
    const pid = manager.status('a').pid;
    const reloads: unknown[] = [];
    manager.on('reload', (reload) => reloads.push(reload));
    writeFileSync(path, JSON.stringify({ mcpServers: { a: { ...entry({}), autoApprove: ['echo'], restartPolicy: { initialDelayMs: 5 } } } }, null, 2));
    await vi.waitFor(() => expect(reloads).toHaveLength(1), { timeout: 10_000 });
    expect(manager.status('a')).toMatchObject({ state: 'running', pid });
    expect(manager.serverConfig('a').autoApprove).toEqual(['echo']);
  });

  it('a file edit that fails is reported, is not retried by later edits of other servers, and is not undone by save', async () => {
    const dir = tempDir();
    const logs = { a: join(dir, 'a.jsonl'), b: join(dir, 'b.jsonl') };
    const { path, entry } = fleetFile({ a: { FIXTURE_LOG: logs.a }, b: { FIXTURE_LOG: logs.b } });
    const manager = track(await McpServerManager.fromFile(path));
    await manager.startAll();
    manager.watch();
    const reloads: { failed: string[] }[] = [];
    const errors: Error[] = [];
    manager.on('reload', (reload) => reloads.push(reload));
    manager.on('reloadError', (error) => errors.push(error));
    const broken = { command: join(dir, 'no-such-program'), args: [] };
    writeFileSync(path, JSON.stringify({ mcpServers: { a: broken, b: entry({ FIXTURE_LOG: logs.b }) } }, null, 2));
    await vi.waitFor(() => expect(reloads).toHaveLength(1), { timeout: 10_000 });
    expect(reloads[0]!.failed).toEqual(['a']);
    expect(errors[0]!.message).toMatch(/replacement for MCP server "a" failed and the previous configuration was restored/);
    expect(manager.status('a').state).toBe('running');
    const pidA = manager.status('a').pid;

    // An edit of b alone leaves a (still running its previous configuration) alone.
    writeFileSync(path, JSON.stringify({ mcpServers: { a: broken, b: entry({ FIXTURE_LOG: logs.b, CHANGED: '1' }) } }, null, 2));
    await vi.waitFor(() => expect(reloads).toHaveLength(2), { timeout: 10_000 });
    expect(reloads[1]).toMatchObject({ updated: ['b'], failed: [] });
    expect(manager.status('a').pid).toBe(pidA);
    expect(starts(logs.a)).toHaveLength(2);

    // Saving keeps the person's edit of a in the file.
    await manager.save();
    const saved = JSON.parse(readFileSync(path, 'utf8')) as { mcpServers: { a: { command: string } } };
    expect(saved.mcpServers.a.command).toBe(broken.command);
  });
});
