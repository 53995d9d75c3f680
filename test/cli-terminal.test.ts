/**
 * The `mcp-fleet` command as a person sees it, in a real pseudo-terminal (test/pty.ts):
 * colours and live progress lines on a terminal and none when piped, NO_COLOR, an
 * elicitation form answered at the prompt, and Ctrl-C during a hung call.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { alive, fixture, observed, tempDir } from './helpers.js';
import { runInPty } from './pty.js';

const BIN = join(fileURLToPath(new URL('..', import.meta.url)), 'dist', 'cli', 'main.js');
const ESC = '\x1b[';

const fleetServer = (env = '') => `${env}${process.execPath} ${fixture('fleet-server.mjs')}`;

/** A config file of fleet-server.mjs entries with these ids: `list` then shows the server table. */
function fleetConfig(...ids: string[]): string {
  const path = join(tempDir(), 'mcp.json');
  writeFileSync(path, JSON.stringify({ mcpServers: Object.fromEntries(ids.map((id) => [id, { command: process.execPath, args: [fixture('fleet-server.mjs')] }])) }));
  return path;
}

describe('on a terminal', () => {
  it('colours the table and draws a live line per server connecting', async () => {
    const run = runInPty(process.execPath, [BIN, 'list', '--config', fleetConfig('one', 'two')], { env: { XDG_CONFIG_HOME: tempDir() } });
    expect(await run.exited).toBe(0);
    const screen = run.text();
    expect(screen).toMatch(/✔ one\s+ready [\d.]+ m?s\s+2 tools/);
    expect(screen).toMatch(/✔ two\s+ready [\d.]+ m?s\s+2 tools/);
    expect(screen).toMatch(/SERVER\s+STATE\s+ERA\s+TOOLS\n/);
    // Colour codes: green for running, bold for the header; cursor movement for the redraw.
    expect(run.output).toContain(`${ESC}32mrunning`);
    expect(run.output).toContain(`${ESC}1mSERVER`);
    expect(run.output).toMatch(new RegExp(`${ESC.replace('[', '\\[')}\\d+A`));
  });

  it('NO_COLOR and --no-color remove every colour, and keep the aligned table', async () => {
    for (const [env, flag] of [[{ NO_COLOR: '1' }, []], [{}, ['--no-color']]] as const) {
      const run = runInPty(process.execPath, [BIN, 'list', '--config', fleetConfig('fleet-server'), ...flag], { env: { ...env, XDG_CONFIG_HOME: tempDir() } });
      expect(await run.exited).toBe(0);
      expect(run.output).not.toMatch(new RegExp(`${ESC.replace('[', '\\[')}[0-9;]*m`));
      expect(run.text()).toMatch(/SERVER\s+STATE/);
    }
  });

  it('piped, prints neither colours nor progress lines, only tab-separated rows', async () => {
    const child = spawn(process.execPath, [BIN, 'list', '--config', fleetConfig('fleet-server')], { env: { PATH: process.env.PATH!, FORCE_COLOR: undefined, XDG_CONFIG_HOME: tempDir() }, stdio: ['ignore', 'pipe', 'pipe'] });
    let all = '';
    child.stdout.on('data', (chunk: Buffer) => (all += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (all += chunk.toString()));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(all).not.toContain('\x1b');
    expect(all).not.toContain('SERVER');
    // stderr's note of the file used, then the row.
    expect(all.trim().split('\n').at(-1)!.split('\t')[0]).toBe('fleet-server');
  });

  it('list --stdio shows the ad-hoc server\'s tools, each signature on its own line, and the counts', async () => {
    const run = runInPty(process.execPath, [BIN, 'list', '--stdio', fleetServer()], { env: { XDG_CONFIG_HOME: tempDir() } });
    expect(await run.exited).toBe(0);
    const screen = run.text();
    expect(screen).toMatch(/✔ fleet-server\s+ready [\d.]+ m?s\s+2 tools/);
    expect(screen).toMatch(/\necho\(text: string\)\n {4}Echoes the text back\.\n/);
    expect(screen).toMatch(/\n2 tools, [^\n]*prompts\n/);
    expect(run.output).toContain(`${ESC}36mecho(text: string)`);
  });

  it('asks an elicitation form at the prompt and sends what the person typed', async () => {
    const run = runInPty(process.execPath, [BIN, 'call', 'i.confirm', '--stdio', `${process.execPath} ${fixture('interactive-server.mjs')}`, '--name', 'i'], {
      env: { XDG_CONFIG_HOME: tempDir() },
    });
    await run.waitFor('Proceed with the action?');
    await run.waitFor(/proceed/i);
    run.write('y\r');
    await run.waitFor(/note/i);
    run.write('\r');
    await run.waitFor(/Send\?/);
    run.write('\r');
    expect(await run.exited).toBe(0);
    expect(run.text()).toContain('accepted {"proceed":true,"note":"no note"}');
  });

  it('Ctrl-C during a hung call exits 130, cancels the call, and leaves no child process', async () => {
    const log = join(tempDir(), 'hang.jsonl');
    const tools = JSON.stringify([{ name: 'hang', _fixture: { hang: true } }]);
    const server = `env FIXTURE_LOG=${log} FIXTURE_TOOLS='${tools}' ${process.execPath} ${fixture('catalog-server.mjs')}`;
    const run = runInPty(process.execPath, [BIN, 'call', 'c.hang', '--stdio', server, '--name', 'c'], { env: { XDG_CONFIG_HOME: tempDir() } });
    await vi.waitFor(() => expect(observed(log).some((entry) => entry.event === 'call-start')).toBe(true), { timeout: 15_000 });
    const pid = observed(log).find((entry) => entry.event === 'start')!.pid;
    run.interrupt();
    expect(await run.exited).toBe(130);
    expect(run.text()).toContain('interrupted');
    // The server saw the cancellation of the call on the wire before it was stopped.
    expect(observed(log).some((entry) => entry.method === 'notifications/cancelled')).toBe(true);
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 5_000 });
  });
});
