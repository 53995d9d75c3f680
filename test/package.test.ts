/**
 * The package as a user gets it: built (`npm run build`, which `npm install` runs as
 * `prepare`; test/build-once.ts builds it before the run), imported by its name from a
 * separate Node.js process, so the test sees what `exports` and dist/ really offer rather
 * than the sources vitest compiles.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as sources from '../src/index.js';
import * as gateway from '../src/gateway/index.js';
import * as projections from '../src/projections/index.js';
import { fixture } from './helpers.js';

const run = promisify(execFile);
const root = new URL('..', import.meta.url);

describe('the built package', () => {
  it('exports every runtime value of src/index.ts, and a fleet runs from it', async () => {
    const { stdout } = await run(process.execPath, [fixture('consumer/use-fleet.mjs'), fixture('fleet-server.mjs')], { cwd: root, timeout: 60_000 });
    const seen = JSON.parse(stdout) as { exports: string[]; dialect: string; state: string; text: string; stateAfter: string; search: unknown; synonyms: boolean };
    expect(seen.exports).toEqual(Object.keys(sources).sort());
    expect(seen.exports).toContain('McpServerManager');
    expect(seen).toMatchObject({ dialect: 'claude_desktop', state: 'running', text: 'from the built package', stateAfter: 'stopped' });
    // tools_search with DiscoveryOptions: an application synonym reaches the tool, hybrid ranking asks the embedding model.
    expect(seen).toMatchObject({ search: { top: 'mcp_demo_echo', scored: true, embedded: true }, synonyms: true });
  });

  it('offers the projections at mcp-fleet/projections, and a turn runs through them', async () => {
    const { stdout } = await run(process.execPath, [fixture('consumer/use-projections.mjs'), fixture('fleet-server.mjs')], { cwd: root, timeout: 60_000 });
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    expect(seen.exports).toEqual(Object.keys(projections).sort());
    for (const target of ['responses', 'chat', 'anthropic', 'gemini']) expect(seen[target]).toContain('mcp_demo_echo');
    expect(seen.result).toEqual({ type: 'function_call_output', call_id: 'call_1', output: 'projected' });
  });

  it('offers the framework adapters at their subpaths, each calling through the host', async () => {
    const { stdout } = await run(process.execPath, [fixture('consumer/use-adapters.mjs'), fixture('fleet-server.mjs')], { cwd: root, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({
      ai: [true, { type: 'text', value: 'ai' }],
      agents: ['function', 'agents'],
      langchain: ['DynamicStructuredTool', 'langchain'],
    });
  });

  it('offers the gateway at mcp-fleet/gateway: a profile of the fleet with the discovery helpers, reached by the SDK client', async () => {
    const { stdout } = await run(process.execPath, [fixture('consumer/use-gateway.mjs'), fixture('fleet-server.mjs')], { cwd: root, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({
      exports: Object.keys(gateway).sort(),
      listed: ['tools_call', 'tools_groups', 'tools_search', 'tools_select'],
      found: ['echo'],
      called: 'through the gateway',
    });
  });

  it('installs into a project without any of the frameworks its adapters are for', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mcp-fleet-install-'));
    try {
      // The tarball npm would publish (dist/ is built by the test setup), installed as a user would, from npm's cache where it can.
      await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', folder], { cwd: root, timeout: 120_000 });
      const project = join(folder, 'project');
      await run('mkdir', [project]);
      await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
      await run('npm', ['install', '../mcp-fleet-0.1.0.tgz', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: project, timeout: 300_000 });
      const { stdout } = await run('npm', ['ls'], { cwd: project });
      expect(stdout).toContain('mcp-fleet@0.1.0');
      for (const framework of ['ai', '@openai/agents', '@langchain/core', 'langchain', 'openai', '@anthropic-ai/sdk', '@google/genai']) {
        expect(stdout).not.toContain(`${framework}@`);
        expect(existsSync(join(project, 'node_modules', framework))).toBe(false);
      }
      // The core works without them.
      const { stdout: loaded } = await run(process.execPath, ['--input-type=module', '-e', "const m = await import('mcp-fleet'); const p = await import('mcp-fleet/projections'); console.log(typeof m.ToolHost, typeof p.openaiResponses.tools)"], { cwd: project });
      expect(loaded.trim()).toBe('function function');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
