/**
 * Clients someone else wrote, through the gateway: the MCP Inspector CLI (on the v1 SDK)
 * listing and calling over stdio (it launches `mcp-fleet serve --stdio`) and over HTTP,
 * and an mcp-fleet host that has the gateway as one of its upstreams, in both eras.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, test } from 'vitest';
import { McpServerManager, ToolHost } from '../src/index.js';
import { fixture, tempDir } from './helpers.js';
import { BIN, cleanUp, onCleanUp, serve, stdioServer, textOf, writeConfig } from './gateway-helpers.js';

afterEach(cleanUp);

const run = promisify(execFile);
const INSPECTOR = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/build/index.js');

/**
 * Runs the Inspector CLI and parses the JSON it prints. It finds its own package.json
 * through a path relative to the working folder, so it runs from its build folder.
 */
async function inspector(target: string[], method: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [INSPECTOR, ...target, '--method', ...method], {
    cwd: dirname(INSPECTOR),
    env: { PATH: process.env.PATH!, HOME: tempDir(), XDG_CONFIG_HOME: tempDir() },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

function names(listing: Record<string, unknown>): string[] {
  return (listing.tools as Array<{ name: string }>).map((tool) => tool.name).sort();
}

describe('real clients through mcp-fleet serve', () => {
  test('the MCP Inspector CLI lists and calls tools of a v1 and a v2 upstream over stdio and over HTTP', async () => {
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { legacy: stdioServer('v1-server.mjs'), modern: stdioServer('v2-server.mjs') });
    const gateway = await serve(config);
    const targets = {
      stdio: [process.execPath, BIN, 'serve', '--stdio', '--config', config],
      http: [gateway.url, '--transport', 'http'],
    };
    const listed: Record<string, string[]> = {};
    for (const [wire, target] of Object.entries(targets)) {
      listed[wire] = names(await inspector(target, ['tools/list']));
      const prefixedEcho = listed[wire].find((name) => name.endsWith('_echo'))!;
      expect(textOf(await inspector(target, ['tools/call', '--tool-name', 'echo', '--tool-arg', `text=bare over ${wire}`]))).toBe(`bare over ${wire}`);
      expect(textOf(await inspector(target, ['tools/call', '--tool-name', prefixedEcho, '--tool-arg', `text=prefixed over ${wire}`]))).toBe(`prefixed over ${wire}`);
    }
    expect(listed.stdio).toEqual(listed.http);
    expect(listed.http).toEqual(expect.arrayContaining(['echo', 'add', 'fail', 'pixel']));
  });

  test('an mcp-fleet host with the gateway as one of its upstreams calls through it in both eras', async () => {
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { legacy: stdioServer('v1-server.mjs'), modern: stdioServer('v2-server.mjs') });
    const gateway = await serve(config);
    for (const lifecycle of ['auto', 'initialize'] as const) {
      const manager = new McpServerManager({
        servers: [
          { id: 'gw', transport: { type: 'http', url: gateway.url }, lifecycle },
          { id: 'local', transport: { type: 'stdio', command: process.execPath, args: [fixture('v2-server.mjs')] } },
        ],
      });
      onCleanUp(() => manager.shutdown());
      const host = new ToolHost({ providers: [manager] });
      await host.init();
      expect(manager.status('gw')).toMatchObject({ state: 'running', era: lifecycle === 'auto' ? 'modern' : 'legacy' });
      const published = host.definitions().map((definition) => definition.name);
      expect(published).toEqual(expect.arrayContaining(['mcp_gw_echo', 'mcp_gw_add', 'mcp_local_echo']));
      // The gateway prefixed the echo of one of its two servers; through the host that is one more prefix.
      const prefixedEcho = published.find((name) => /^mcp_gw_(legacy|modern)_echo$/.test(name))!;
      for (const name of ['mcp_gw_echo', prefixedEcho, 'mcp_local_echo']) {
        const called = await host.call(name, { text: `${name} (${lifecycle})` });
        expect(called.isError).toBe(false);
        expect(textOf(called.output)).toBe(`${name} (${lifecycle})`);
      }
      const sum = await host.call('mcp_gw_add', { a: 2, b: 5 });
      expect((sum.output as { structuredContent?: unknown }).structuredContent).toEqual({ sum: 7 });
    }
  });
});
