/**
 * A closed HTTP server lets its host go even after a garbage collection. undici follows
 * a fetch's abort signal through an object it alone holds, weakly, so after a collection
 * an abort no longer reaches the request (nodejs/node#55428); mcp-fleet follows its
 * signals itself (src/mcp/transport/fetch-abort.ts). Before it did, the server's open
 * stream to the host kept a socket, and the process, alive after `close()`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, type HttpFixture, startHttpFixture } from './helpers.js';

/** Far beyond what closing takes: reaching it means the host was kept alive. */
const EXIT_WITHIN_MS = 15_000;

/** Runs the host against `url`; resolves with what it printed and how it ended. */
async function runHost(url: string, ...args: string[]): Promise<{ lines: string[]; exited: boolean }> {
  const host = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', fixture('gc-close-host.ts'), url, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  host.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const timer = setTimeout(() => host.kill('SIGKILL'), EXIT_WITHIN_MS);
  const [code, signal] = (await once(host, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return { lines: output.trim().split('\n'), exited: code === 0 && signal === null };
}

describe('closing an HTTP server after a garbage collection', () => {
  let modern: HttpFixture;
  let legacy: HttpFixture;
  let wire: HttpFixture;
  beforeAll(async () => {
    [modern, legacy, wire] = await Promise.all([startHttpFixture('hostile-http.mjs'), startHttpFixture('legacy-http-server.mjs'), startHttpFixture('sse-wire-server.mjs')]);
  });
  afterAll(async () => {
    await Promise.all([modern?.close(), legacy?.close(), wire?.close()]);
  });

  it('ends the subscriptions/listen stream, and the host process exits by itself (2026-07-28)', async () => {
    const { lines, exited } = await runHost(`${modern.url}/mcp`);
    expect(lines).toEqual([JSON.stringify({ protocolVersion: '2026-07-28' }), 'closed']);
    expect(exited).toBe(true);
  });

  it('ends the GET stream, and the host process exits by itself (2025-11-25)', async () => {
    const { lines, exited } = await runHost(legacy.url);
    expect(lines).toEqual([JSON.stringify({ protocolVersion: '2025-11-25' }), 'closed']);
    expect(exited).toBe(true);
  });

  it('ends a tool call answered over SSE that timed out, and the host process exits by itself', async () => {
    const { lines, exited } = await runHost(wire.url, 'stalls');
    expect(lines).toEqual([JSON.stringify({ protocolVersion: '2026-07-28' }), JSON.stringify({ stalled: 'timeout' }), 'closed']);
    expect(exited).toBe(true);
  });
});
