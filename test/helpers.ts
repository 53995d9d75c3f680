/** Shared test helpers: fixture paths, server configs and what fixture servers observed. */
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../src/index.js';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** Absolute path of a fixture file. */
export function fixture(file: string): string {
  return join(FIXTURES, file);
}

/** A fresh temporary folder. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mcp-fleet-test-'));
}

/** Whether a process with this id is still running. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A fresh file for a fixture's observation log (pass it as FIXTURE_LOG). */
export function observationLog(): string {
  return join(tempDir(), 'observed.jsonl');
}

export interface Observation {
  event: string;
  pid: number;
  method?: string;
  tool?: string;
  [key: string]: unknown;
}

/** What the fixture servers wrote to `log`. */
export function observed(log: string): Observation[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Observation);
}

/** A stdio server config running a fixture with the current Node.js. */
export function stdioFixture(
  id: string,
  file: string,
  options: { args?: string[]; env?: Record<string, string>; config?: Partial<McpServerConfig> } = {},
): McpServerConfig {
  return {
    id,
    transport: { type: 'stdio', command: process.execPath, args: [fixture(file), ...(options.args ?? [])], env: options.env ?? {} },
    ...options.config,
  };
}

/** A fixture server process serving Streamable HTTP on 127.0.0.1; it prints `{"url": ...}` when ready. */
export interface HttpFixture {
  url: string;
  /** Everything the fixture printed on its first line. */
  info: Record<string, string>;
  close(): Promise<void>;
}

/** Starts `node <fixture> --http ...args` and waits for its URL. */
export async function startHttpFixture(
  file: string,
  options: { args?: string[]; env?: Record<string, string> } = {},
): Promise<HttpFixture> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [fixture(file), '--http', ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<Record<string, string>>((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const newline = buffer.indexOf('\n');
      if (newline !== -1) resolve(JSON.parse(buffer.slice(0, newline)) as Record<string, string>);
    });
    child.once('exit', (code) => reject(new Error(`HTTP fixture ${file} exited with ${code}`)));
  });
  return {
    url: info.url!,
    info,
    close: () =>
      new Promise<void>((resolve) => {
        // A child ended by a signal has no exit code, only a signal code.
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Plays the browser in an authorization-code flow against an authorization server that
 * approves at once: follows the authorization URL with redirects disabled, keeping
 * cookies, until a redirect leaves the server; returns that redirect URL (the one a
 * person would paste back), without requesting it.
 */
export async function followAuthorization(authorizationUrl: string): Promise<string> {
  const cookies = new Map<string, string>();
  let url = authorizationUrl;
  const origin = new URL(authorizationUrl).origin;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(url, {
      redirect: 'manual',
      headers: cookies.size === 0 ? {} : { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
    }
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (location === null) throw new Error(`The authorization server answered ${response.status} without a redirect at ${url}`);
    const next = new URL(location, url);
    if (next.origin !== origin) return next.href;
    url = next.href;
  }
  throw new Error('Too many redirects while authorizing');
}
