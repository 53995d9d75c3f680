/**
 * The package as a user gets it: built (`npm run build`, which `npm install` runs as
 * `prepare`; test/build-once.ts builds it before the run), imported by its name from a
 * separate Node.js process, so the test sees what `exports` and dist/ really offer rather
 * than the sources vitest compiles.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as sources from '../src/index.js';
import * as projections from '../src/projections/index.js';
import { fixture } from './helpers.js';

const run = promisify(execFile);
const root = new URL('..', import.meta.url);

describe('the built package', () => {
  it('exports every runtime value of src/index.ts, and a fleet runs from it', async () => {
    const { stdout } = await run(process.execPath, [fixture('consumer/use-fleet.mjs'), fixture('fleet-server.mjs')], { cwd: root, timeout: 60_000 });
    const seen = JSON.parse(stdout) as { exports: string[]; dialect: string; state: string; text: string; stateAfter: string };
    expect(seen.exports).toEqual(Object.keys(sources).sort());
    expect(seen.exports).toContain('McpServerManager');
    expect(seen).toMatchObject({ dialect: 'claude_desktop', state: 'running', text: 'from the built package', stateAfter: 'stopped' });
  });

  it('offers the projections at mcp-fleet/projections, and a turn runs through them', async () => {
    const { stdout } = await run(process.execPath, [fixture('consumer/use-projections.mjs'), fixture('fleet-server.mjs')], { cwd: root, timeout: 60_000 });
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    expect(seen.exports).toEqual(Object.keys(projections).sort());
    for (const target of ['responses', 'chat', 'anthropic', 'gemini']) expect(seen[target]).toContain('mcp_demo_echo');
    expect(seen.result).toEqual({ type: 'function_call_output', call_id: 'call_1', output: 'projected' });
  });
});
