/**
 * What a client of `mcp-fleet serve` is shown: a profile of the config file (at
 * `/mcp/<profile>` over HTTP, `--profile` on stdio; edits apply live; `config add` keeps
 * the section), and `--expose discovery` (the discovery helpers, what a 2025 session
 * selects joining its list, `tools_call` for a stateless 2026-07-28 client).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, test } from 'vitest';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema as V1ToolListChanged } from '@modelcontextprotocol/sdk/types.js';
import { tempDir } from './helpers.js';
import { BIN, cleanUp, modernClient, onCleanUp, raw, rawCall, serve, stdioServer, textOf, v1Client } from './gateway-helpers.js';

afterEach(cleanUp);

const schema = { type: 'object', properties: { id: { type: 'string' } } };
const tool = (name: string, description: string) => ({ name, description, inputSchema: schema });

/** Two servers with names worth filtering on; `profiles` is the config file's section. */
function fleetFile(profiles: unknown): string {
  const path = join(tempDir(), 'mcp.json');
  writeFileSync(
    path,
    JSON.stringify(
      {
        mcpServers: {
          git: stdioServer('catalog-server.mjs', {
            FIXTURE_TOOLS: JSON.stringify([tool('status', 'Show the working tree status'), tool('log', 'Show commit logs'), tool('delete_branch', 'Delete a branch')]),
          }),
          github: stdioServer('catalog-server.mjs', {
            FIXTURE_TOOLS: JSON.stringify([tool('get_issue', 'Read one GitHub issue'), tool('create_issue', 'Open a new GitHub issue'), tool('delete_repo', 'Delete a repository')]),
          }),
        },
        ...(profiles === undefined ? {} : { profiles }),
      },
      null,
      2,
    ),
  );
  return path;
}

const REVIEW = { review: { include: ['git.*', 'github.get_*'], exclude: ['*.delete_*'] } };

async function names(client: { listTools(): Promise<{ tools: { name: string }[] }> }): Promise<string[]> {
  return (await client.listTools()).tools.map((each) => each.name).sort();
}

/** A v1 stdio client of `mcp-fleet serve --stdio` with these arguments. */
async function stdioGateway(config: string, extra: string[]): Promise<V1Client> {
  const client = new V1Client({ name: 'stdio-through-gateway', version: '1.0.0' });
  await client.connect(new V1StdioTransport({ command: process.execPath, args: [BIN, 'serve', '--stdio', '--config', config, ...extra], env: { PATH: process.env.PATH!, HOME: tempDir() }, stderr: 'ignore' }));
  onCleanUp(() => client.close());
  return client;
}

describe('profiles', () => {
  test('a profile at /mcp/<name> offers only what it includes and does not exclude, to clients of both eras, under the same names as /mcp', async () => {
    const gateway = await serve(fleetFile(REVIEW), ['--no-watch']);
    const whole = await v1Client(gateway.url);
    expect(await names(whole)).toEqual(['create_issue', 'delete_branch', 'delete_repo', 'get_issue', 'log', 'status']);
    const legacy = await v1Client(`${gateway.url}/review`);
    expect(await names(legacy)).toEqual(['get_issue', 'log', 'status']);
    const modern = await modernClient(`${gateway.url}/review`);
    expect(await names(modern)).toEqual(['get_issue', 'log', 'status']);
    expect(textOf(await legacy.callTool({ name: 'get_issue', arguments: { id: '7' } }))).toContain('"tool":"get_issue"');
    // What a profile leaves out cannot be called through it either.
    await expect(legacy.callTool({ name: 'delete_repo', arguments: {} })).rejects.toThrow(/Unknown tool: delete_repo/);
    expect(textOf(await whole.callTool({ name: 'delete_repo', arguments: {} }))).toContain('"tool":"delete_repo"');
  });

  test('an unknown profile is a 404 that names the profiles there are', async () => {
    const gateway = await serve(fleetFile(REVIEW), ['--no-watch']);
    const answer = await raw(`${gateway.url}/nope`, { method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(answer.status).toBe(404);
    expect(answer.body).toContain('/mcp/review');
  });

  test('--profile serves one profile over stdio, and an unknown one is refused before any server starts', async () => {
    const config = fleetFile(REVIEW);
    const client = await stdioGateway(config, ['--profile', 'review']);
    expect(await names(client)).toEqual(['get_issue', 'log', 'status']);
    const refused = spawnSync(process.execPath, [BIN, 'serve', '--stdio', '--config', config, '--profile', 'nope'], { encoding: 'utf8', input: '', env: { PATH: process.env.PATH!, HOME: tempDir() } });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('There is no profile "nope"');
    expect(refused.stderr).toContain('"review"');
  });

  test('a profile edited in the file applies live: its clients hear list_changed and list the new view', async () => {
    const config = fleetFile(REVIEW);
    const gateway = await serve(config);
    const client = await v1Client(`${gateway.url}/review`);
    expect(await names(client)).toEqual(['get_issue', 'log', 'status']);
    const heard = new Promise<void>((resolve) => client.setNotificationHandler(V1ToolListChanged, () => resolve()));
    const text = JSON.parse(readFileSync(config, 'utf8')) as { profiles: typeof REVIEW };
    text.profiles.review.include = ['github.*'];
    writeFileSync(config, JSON.stringify(text, null, 2));
    await heard;
    expect(await names(client)).toEqual(['create_issue', 'get_issue']);
  });

  test('a bad profiles section is refused with the profile and field named', () => {
    const refused = spawnSync(process.execPath, [BIN, 'serve', '--stdio', '--config', fleetFile({ review: { include: 'git.*' } })], { encoding: 'utf8', input: '', env: { PATH: process.env.PATH!, HOME: tempDir() } });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('profiles.review.include must be a list of patterns');
  });

  test('config add keeps the profiles section of the file', () => {
    const config = fleetFile(REVIEW);
    const added = spawnSync(process.execPath, [BIN, 'config', 'add', 'later', '--stdio', 'node later.js', '--config', config], { encoding: 'utf8', env: { PATH: process.env.PATH!, HOME: tempDir() } });
    expect(added.status).toBe(0);
    expect(added.stderr).toContain('added later');
    const saved = JSON.parse(readFileSync(config, 'utf8')) as { profiles: unknown; mcpServers: Record<string, unknown> };
    expect(Object.keys(saved.mcpServers)).toContain('later');
    expect(saved.profiles).toEqual(REVIEW);
  });
});

test('a 2026-07-28 result names the gateway as its server, not the upstream behind it', async () => {
  const gateway = await serve(fleetFile(undefined), ['--no-watch']);
  const answer = (await rawCall(gateway.url, { name: 'get_issue', arguments: { id: '1' } })) as { _meta?: Record<string, { name?: string }> };
  expect(answer._meta?.['io.modelcontextprotocol/serverInfo']?.name).toBe('mcp-fleet');
});

describe('--expose discovery', () => {
  test('a 2025 session lists the helpers; what tools_select returns joins its list, with list_changed, and is called by its name', async () => {
    const gateway = await serve(fleetFile(undefined), ['--no-watch', '--expose', 'discovery']);
    const client = await v1Client(gateway.url);
    expect(await names(client)).toEqual(['tools_groups', 'tools_search', 'tools_select']);
    const groups = JSON.parse(textOf(await client.callTool({ name: 'tools_groups', arguments: { query: '*' } }))) as { groups: { id: string; member_count: number }[] };
    expect(groups.groups.map((group) => [group.id, group.member_count])).toEqual([
      ['mcp:git', 3],
      ['mcp:github', 3],
    ]);
    const found = JSON.parse(textOf(await client.callTool({ name: 'tools_search', arguments: { query: 'open a new issue', limit: 1 } }))) as { tools: { name: string }[] };
    expect(found.tools.map((each) => each.name)).toEqual(['create_issue']);
    const heard = new Promise<void>((resolve) => client.setNotificationHandler(V1ToolListChanged, () => resolve()));
    const selected = JSON.parse(textOf(await client.callTool({ name: 'tools_select', arguments: { tools: ['get_issue'], group: '' } }))) as { tools: { name: string; parameters: unknown }[] };
    expect(selected.tools).toEqual([{ name: 'get_issue', description: 'Read one GitHub issue', parameters: schema }]);
    await heard;
    expect(await names(client)).toEqual(['create_issue', 'get_issue', 'tools_groups', 'tools_search', 'tools_select']);
    expect(textOf(await client.callTool({ name: 'get_issue', arguments: { id: '7' } }))).toContain('"tool":"get_issue"');
    // Another session has selected nothing.
    expect(await names(await v1Client(gateway.url))).toEqual(['tools_groups', 'tools_search', 'tools_select']);
  });

  test('a 2026-07-28 client, with no session to keep a selection, is offered tools_call and calls what it found through it', async () => {
    const gateway = await serve(fleetFile(REVIEW), ['--no-watch', '--expose', 'discovery']);
    const client = await modernClient(`${gateway.url}/review`);
    expect(await names(client)).toEqual(['tools_call', 'tools_groups', 'tools_search', 'tools_select']);
    const found = JSON.parse(textOf(await client.callTool({ name: 'tools_search', arguments: { query: 'github issue', limit: 5 } }))) as { tools: { name: string }[] };
    // The profile's view: create_issue is not in it.
    expect(found.tools.map((each) => each.name)).toEqual(['get_issue']);
    expect(textOf(await client.callTool({ name: 'tools_call', arguments: { name: 'get_issue', arguments: { id: '7' } } }))).toContain('"arguments":{"id":"7"}');
    expect(textOf(await client.callTool({ name: 'get_issue', arguments: { id: '8' } }))).toContain('"id":"8"');
    const outside = await client.callTool({ name: 'tools_call', arguments: { name: 'delete_repo', arguments: {} } });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toContain('there is no tool "delete_repo"');
  });
});
