import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpToolProvider, type McpServerConfig, type McpToolEnvelope } from '../src/index.js';
import { alive, fixture, observationLog, observed, stdioFixture } from './helpers.js';

const providers: McpToolProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

async function started(config: McpServerConfig): Promise<McpToolProvider> {
  const provider = new McpToolProvider({ servers: [config] });
  providers.push(provider);
  await provider.init();
  return provider;
}

function textOf(output: unknown): string {
  return (output as McpToolEnvelope).content.map((block) => ('text' in block ? block.text : '')).join('');
}

describe('the stdio child environment', () => {
  it('hides a parent variable from a default child and shows the server its own env', async () => {
    process.env.MCP_FLEET_TEST_SECRET = 'parent-secret-value';
    try {
      const provider = await started(stdioFixture('env', 'hostile-stdio.mjs', { args: ['env'], env: { ONLY_THIS: 'mine' } }));
      const childEnv = JSON.parse(textOf((await provider.call('mcp_env_env', {})).output)) as Record<string, string>;
      expect(childEnv.MCP_FLEET_TEST_SECRET).toBeUndefined();
      expect(childEnv.ONLY_THIS).toBe('mine');
      expect(childEnv.PATH).toBe(process.env.PATH);
    } finally {
      delete process.env.MCP_FLEET_TEST_SECRET;
    }
  });

  it('passes the parent environment with inheritEnv: true', async () => {
    process.env.MCP_FLEET_TEST_SECRET = 'parent-secret-value';
    try {
      const config = stdioFixture('env', 'hostile-stdio.mjs', { args: ['env'] });
      const provider = await started({ ...config, transport: { ...config.transport, type: 'stdio', command: process.execPath, inheritEnv: true } });
      const childEnv = JSON.parse(textOf((await provider.call('mcp_env_env', {})).output)) as Record<string, string>;
      expect(childEnv.MCP_FLEET_TEST_SECRET).toBe('parent-secret-value');
    } finally {
      delete process.env.MCP_FLEET_TEST_SECRET;
    }
  });

  it('runs the server in the configured working directory, and names a missing one', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-fleet-cwd-')));
    const config = stdioFixture('env', 'hostile-stdio.mjs', { args: ['env'] });
    const provider = await started({ ...config, transport: { ...config.transport, type: 'stdio', command: process.execPath, cwd: dir } });
    const childEnv = JSON.parse(textOf((await provider.call('mcp_env_env', {})).output)) as Record<string, string>;
    expect(childEnv.PWD ?? dir).toBe(dir);
    const missing = new McpToolProvider({
      servers: [{ ...config, required: true, transport: { ...config.transport, type: 'stdio', command: process.execPath, cwd: join(dir, 'nope') } }],
    });
    providers.push(missing);
    await expect(missing.init()).rejects.toThrow(/working directory .*nope \(transport\.cwd\) is not a directory/);
  });
});

describe('the stdio process group', () => {
  it('leaves no grandchild behind after close()', async () => {
    const log = observationLog();
    const provider = new McpToolProvider({ servers: [stdioFixture('spawner', 'hostile-stdio.mjs', { args: ['grandchild'], env: { FIXTURE_LOG: log } })] });
    await provider.init();
    const server = observed(log).find((entry) => entry.event === 'start')!.pid;
    const grandchild = observed(log).find((entry) => entry.event === 'grandchild')!.child as number;
    expect(alive(grandchild)).toBe(true);
    await provider.close();
    expect(alive(server)).toBe(false);
    await vi.waitFor(() => expect(alive(grandchild)).toBe(false), { timeout: 3_000 });
  });

  it('terminates a server that ignores stdin EOF and SIGTERM, with SIGKILL after the grace period', async () => {
    const log = observationLog();
    const provider = new McpToolProvider({ servers: [stdioFixture('stubborn', 'hostile-stdio.mjs', { args: ['stubborn'], env: { FIXTURE_LOG: log } })] });
    await provider.init();
    const server = observed(log).find((entry) => entry.event === 'start')!.pid;
    await provider.close();
    expect(alive(server)).toBe(false);
    expect(observed(log).some((entry) => entry.event === 'ignored-sigterm')).toBe(true);
  });

  for (const how of ['SIGTERM', 'SIGINT', 'exit'] as const) {
    it(`leaves no server process behind when the host ${how === 'exit' ? 'exits by itself' : `gets ${how}`}`, async () => {
      const log = observationLog();
      const host = spawn(process.execPath, ['--import', 'tsx', fixture('host-process.ts'), ...(how === 'exit' ? ['exit'] : [])], {
        env: { ...process.env, FIXTURE_LOG: log },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<number | null>((resolve) => host.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
      await new Promise<void>((resolve) => host.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve()));
      const server = observed(log).find((entry) => entry.event === 'start')!.pid;
      const grandchild = observed(log).find((entry) => entry.event === 'grandchild')!.child as number;
      if (how !== 'exit') host.kill(how);
      await exited;
      await vi.waitFor(() => {
        expect(alive(server)).toBe(false);
        expect(alive(grandchild)).toBe(false);
      }, { timeout: 3_000 });
    });
  }
});

describe('an application that handles SIGINT itself', () => {
  it.each([
    ['process.on', 'handle-sigint'],
    ['process.once', 'handle-sigint-once'],
  ])('keeps its servers through the signal (listening with %s), and still leaves none behind when it exits', async (_how, mode) => {
    const log = observationLog();
    const host = spawn(process.execPath, ['--import', 'tsx', fixture('host-process.ts'), mode], {
      env: { ...process.env, FIXTURE_LOG: log },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    host.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => host.once('exit', (code) => resolve(code)));
    await vi.waitFor(() => expect(output).toContain('ready'), { timeout: 20_000 });
    const server = observed(log).find((entry) => entry.event === 'start')!.pid;
    host.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('{"afterSigint":"ok"}');
    // The same process answered: the signal did not kill it (a lazy reconnect would have started a second).
    expect(observed(log).filter((entry) => entry.event === 'start')).toHaveLength(1);
    await vi.waitFor(() => expect(alive(server)).toBe(false), { timeout: 3_000 });
  });
});

describe('stdio output framing', () => {
  it('skips non-JSON noise on stdout and keeps working', async () => {
    const provider = await started(stdioFixture('noisy', 'hostile-stdio.mjs', { args: ['noise'] }));
    for (let n = 0; n < 3; n++) expect((await provider.call('mcp_noisy_echo', { text: `hi ${n}` })).isError).toBe(false);
  });

  it('ends the session when a line passes messageBytes, naming the server and the limit', async () => {
    const log = observationLog();
    const provider = await started(
      stdioFixture('big', 'hostile-stdio.mjs', { args: ['big'], env: { FIXTURE_LOG: log }, config: { limits: { messageBytes: 1024 * 1024 } } }),
    );
    const ok = await provider.call('mcp_big_big', { bytes: 512 * 1024 });
    expect(ok.isError).toBe(false);
    const result = await provider.call('mcp_big_big', { bytes: 20 * 1024 * 1024 });
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'response_too_large' } } });
    const [part] = result.modelOutput!.parts;
    expect(part).toMatchObject({ type: 'text' });
    expect((part as { text: string }).text).toMatch(/"big" sent a stdio line larger than the 1048576-byte limit \(limits\.messageBytes\)/);
    // The session was closed; the next call starts a new server process.
    expect((await provider.call('mcp_big_echo', { text: 'after' })).isError).toBe(false);
    expect(observed(log).filter((entry) => entry.event === 'start')).toHaveLength(2);
  });

  it('passes an 8 MiB result through intact', async () => {
    const provider = await started(stdioFixture('big', 'hostile-stdio.mjs', { args: ['big'] }));
    const result = await provider.call('mcp_big_big', { bytes: 8 * 1024 * 1024 - 1024 });
    expect(result.isError).toBe(false);
    expect(textOf(result.output)).toHaveLength(8 * 1024 * 1024 - 1024);
  });
});
