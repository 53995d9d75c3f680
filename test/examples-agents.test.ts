/**
 * The four agent examples (`examples/agent-*.ts`) run as a user runs them: a real
 * process under tsx, no key and no live flag, so each talks to the local model
 * stand-in. Each must run its whole loop (two tool calls on the bundled servers, then
 * the model's text), exit 0 on its own and leave no server process behind.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECRET = 'sk-example-test-not-a-real-key';

/** The environment of a run: everything that could make an example go live is removed. */
function offlineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['MCP_FLEET_EXAMPLE_LIVE', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'MODEL']) delete env[name];
  return { ...env, ...extra };
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs one example to its end; one that does not end by itself within `timeoutMs` is killed and fails. */
function runExample(file: string, env: NodeJS.ProcessEnv, timeoutMs = 45_000): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', file)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not exit within ${timeoutMs} ms; it printed:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Whether any process of the group `pgid` is alive (stdio servers lead their own group). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The notebook server's pid, from the example's first line. */
function notesPid(stdout: string): number {
  const match = /notes \(stdio, pid (\d+)\)/.exec(stdout);
  expect(match, stdout).not.toBeNull();
  return Number(match![1]);
}

const EXAMPLES = [
  { file: 'agent-openai-responses.ts', api: 'OpenAI Responses', key: 'OPENAI_API_KEY' },
  { file: 'agent-openai-chat.ts', api: 'OpenAI Chat Completions', key: 'OPENAI_API_KEY' },
  { file: 'agent-anthropic.ts', api: 'Anthropic Messages', key: 'ANTHROPIC_API_KEY' },
  { file: 'agent-gemini.ts', api: 'Gemini', key: 'GEMINI_API_KEY' },
] as const;

describe('the agent examples without a key', () => {
  for (const { file, api, key } of EXAMPLES) {
    it(`${file} runs both tool calls against the ${api} stand-in, prints the answer, exits 0 and leaves no server running`, async () => {
      const run = await runExample(file, offlineEnv());
      expect(run, run.stdout + run.stderr).toMatchObject({ code: 0, signal: null });
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain(`model: local stand-in (set MCP_FLEET_EXAMPLE_LIVE=1 and ${key} to use the real API)`);
      // Each call is printed with its arguments and what the server answered.
      expect(run.stdout).toContain('tool: mcp_weather_get_forecast {"city":"Lisbon","days":2}\n  → {"city":"Lisbon","days":[');
      expect(run.stdout).toContain('tool: mcp_notes_search_notes {"query":"release"}\n  → {"count":1} Release checklist: Run the tests');
      expect(run.stdout).toMatch(/\nanswer: Both tools answered \(this is the scripted stand-in; [^\n]*\n$/);
      // Exiting by itself already shows the HTTP servers closed; the notebook's process group must be gone too.
      // The host SIGKILLs the group as it exits; the kernel may take a moment to finish it off.
      await vi.waitFor(() => expect(groupAlive(notesPid(run.stdout))).toBe(false), { timeout: 5_000, interval: 50 });
    }, 60_000);
  }
});

describe('an agent example with a key but without MCP_FLEET_EXAMPLE_LIVE=1', () => {
  it('still talks to the stand-in and never prints the key', async () => {
    const run = await runExample('agent-openai-chat.ts', offlineEnv({ OPENAI_API_KEY: SECRET }));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('model: local stand-in');
    expect(run.stdout).toContain('answer: Both tools answered');
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  }, 60_000);
});
