import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpCatalogError, type McpLimits, type McpLogger, McpRefreshError, type McpServerConfig, type McpToolBudget, McpToolProvider, ToolHost } from '../src/index.js';
import { observationLog, stdioFixture } from './helpers.js';

const providers: McpToolProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

function server(env: Record<string, string>, limits: Partial<McpLimits> = {}): McpServerConfig {
  return stdioFixture('s', 'catalog-server.mjs', { env, config: { limits } });
}

async function started(config: McpServerConfig): Promise<McpToolProvider> {
  const provider = new McpToolProvider({ servers: [config] });
  providers.push(provider);
  await provider.init();
  return provider;
}

async function refreshFailure(provider: McpToolProvider): Promise<McpCatalogError> {
  const error = await provider.refresh().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(McpRefreshError);
  const cause = (error as McpRefreshError).failures[0]!.error;
  expect(cause).toBeInstanceOf(McpCatalogError);
  return cause as McpCatalogError;
}

const big = 'x'.repeat(5_000);

/** An object schema whose properties nest `levels` deep: two JSON levels each, a few hundred bytes in all. */
function nestedSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

/** A provider whose warnings are kept, as `message fields` lines. */
async function startedWithWarnings(config: McpServerConfig): Promise<{ provider: McpToolProvider; warnings: string[] }> {
  const warnings: string[] = [];
  const logger: McpLogger = { debug() {}, info() {}, error() {}, warn: (fields, message) => void warnings.push(`${message} ${JSON.stringify(fields)}`) };
  const provider = new McpToolProvider({ servers: [{ ...config, required: true }], logger });
  providers.push(provider);
  await provider.init();
  return { provider, warnings };
}

/** A file the catalog fixture lists on every tools/list (it notifies when the file changes). */
function toolsFile(tools: object[]): string {
  const file = join(dirname(observationLog()), 'tools.json');
  writeFileSync(file, JSON.stringify(tools));
  return file;
}

const names = (provider: McpToolProvider): string[] => provider.definitions().map((definition) => definition.name);

describe('per-tool budgets', () => {
  const perTool: { label: string; tool: object; limits: Partial<McpLimits>; budget: McpToolBudget; field: string }[] = [
    { label: 'an input schema over schemaBytes', tool: { name: 'huge', inputSchema: { type: 'object', description: big } }, limits: { schemaBytes: 4096 }, budget: 'schemaBytes', field: 'inputSchema' },
    { label: 'an output schema over outputSchemaBytes', tool: { name: 'huge', outputSchema: { type: 'object', description: big } }, limits: { outputSchemaBytes: 4096 }, budget: 'outputSchemaBytes', field: 'outputSchema' },
    // Shopify's `learn_shopify_api` under the old default.
    { label: 'a 13 KB description over an 8 KiB descriptionBytes', tool: { name: 'huge', description: 'x'.repeat(13_201) }, limits: { descriptionBytes: 8192 }, budget: 'descriptionBytes', field: 'description' },
    { label: 'a title over descriptionBytes', tool: { name: 'huge', title: big }, limits: { descriptionBytes: 4096 }, budget: 'descriptionBytes', field: 'title' },
    { label: 'a deeply nested input schema', tool: { name: 'huge', inputSchema: nestedSchema(20) }, limits: { schemaDepth: 16 }, budget: 'schemaDepth', field: 'inputSchema' },
    { label: 'a deeply nested output schema', tool: { name: 'huge', outputSchema: nestedSchema(20) }, limits: { schemaDepth: 16 }, budget: 'schemaDepth', field: 'outputSchema' },
  ];
  for (const { label, tool, limits, budget, field } of perTool) {
    it(`leaves out a tool with ${label}, publishes the others, names it in a warning and the status, and publishes it once it fits`, async () => {
      const file = toolsFile([{ name: 'ok' }, tool]);
      const { provider, warnings } = await startedWithWarnings(server({ FIXTURE_TOOLS_FILE: file }, limits));
      expect(names(provider)).toEqual(['mcp_s_ok']);
      expect((await provider.call('mcp_s_ok', {})).isError).toBe(false);
      const limit = limits[budget]!;
      expect(provider.serverStatuses()[0]).toMatchObject({ state: 'ready', toolCount: 1, leftOut: { count: 1, tools: [{ name: 'huge', budget, field, limit }] } });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('MCP server "s": tool "huge" is left out of the catalog');
      expect(warnings[0]).toContain(`raise limits.${budget}`);
      // Listed again and still over, it is not told again.
      await provider.refresh();
      expect(warnings).toHaveLength(1);
      writeFileSync(file, JSON.stringify([{ name: 'ok' }, { name: 'huge' }]));
      await provider.refresh();
      expect(names(provider)).toEqual(['mcp_s_huge', 'mcp_s_ok']);
      expect(provider.serverStatuses()[0]!.leftOut).toBeUndefined();
      expect((await provider.call('mcp_s_huge', {})).isError).toBe(false);
    });
  }

  it('says by how much a tool broke its budget: the size and the limit, in the warning and the status', async () => {
    const tools = [{ name: 'ok' }, { name: 'learn_shopify_api', description: 'x'.repeat(13_201) }];
    const { provider, warnings } = await startedWithWarnings(server({ FIXTURE_TOOLS: JSON.stringify(tools) }, { descriptionBytes: 8192 }));
    expect(provider.serverStatuses()[0]!.leftOut).toEqual({
      count: 1,
      tools: [{ name: 'learn_shopify_api', budget: 'descriptionBytes', field: 'description', bytes: 13_201, limit: 8192 }],
    });
    expect(warnings[0]).toMatch(
      /^MCP server "s": tool "learn_shopify_api" is left out of the catalog: its description takes 13,201 bytes, over 8,192 \(limits\.descriptionBytes\); raise limits\.descriptionBytes/,
    );
    expect(warnings[0]).toContain('"budget":"descriptionBytes"');
  });

  it('takes a published tool that grows over a budget out of the catalog at the next listing, and the others stay callable', async () => {
    const file = toolsFile([{ name: 'ok' }, { name: 'grows' }]);
    const { provider } = await startedWithWarnings(server({ FIXTURE_TOOLS_FILE: file }, { descriptionBytes: 1024 }));
    expect(names(provider)).toEqual(['mcp_s_grows', 'mcp_s_ok']);
    writeFileSync(file, JSON.stringify([{ name: 'ok' }, { name: 'grows', description: big }]));
    await provider.refresh();
    expect(names(provider)).toEqual(['mcp_s_ok']);
    expect(await provider.call('mcp_s_grows', {})).toMatchObject({ isError: true });
    expect((await provider.call('mcp_s_ok', {})).isError).toBe(false);
    expect(provider.serverStatuses()[0]!.leftOut?.tools.map((tool) => tool.name)).toEqual(['grows']);
  });

  it('holds an output schema to outputSchemaBytes, not schemaBytes, and still checks results against it', async () => {
    const outputSchema = { type: 'object', properties: { n: { type: 'number', description: big } }, required: ['n'] };
    const tools = [
      { name: 'right', outputSchema, _fixture: { structured: { n: 1 } } },
      { name: 'wrong', outputSchema, _fixture: { structured: { n: 'one' } } },
    ];
    const { provider, warnings } = await startedWithWarnings(server({ FIXTURE_TOOLS: JSON.stringify(tools) }, { schemaBytes: 4096 }));
    expect(names(provider)).toEqual(['mcp_s_right', 'mcp_s_wrong']);
    expect(provider.serverStatuses()[0]!.leftOut).toBeUndefined();
    expect(warnings).toEqual([]);
    expect(await provider.call('mcp_s_right', {})).toMatchObject({ isError: false, output: { structuredContent: { n: 1 } } });
    const wrong = await provider.call('mcp_s_wrong', {});
    expect(wrong.isError).toBe(true);
    expect(JSON.stringify(wrong.output)).toContain("does not match the tool's output schema: data/n must be number");
  });

  it('admits with the defaults the largest tools of the census: a 76 KB output schema (Brave) and a 13 KB description (Shopify)', async () => {
    const tools = [
      { name: 'brave_place_search', outputSchema: { type: 'object', properties: { places: { type: 'array', description: 'p'.repeat(76_000) } } } },
      { name: 'learn_shopify_api', description: 's'.repeat(13_201) },
      // The census' largest input schema is 12.4 KB; the model reads it, under the unchanged 64 KiB.
      { name: 'big_input', inputSchema: { type: 'object', properties: { q: { type: 'string', description: 'q'.repeat(12_400) } } } },
    ];
    const { provider, warnings } = await startedWithWarnings(stdioFixture('s', 'catalog-server.mjs', { env: { FIXTURE_TOOLS_FILE: toolsFile(tools) } }));
    expect(names(provider)).toEqual(['mcp_s_big_input', 'mcp_s_brave_place_search', 'mcp_s_learn_shopify_api']);
    expect(provider.serverStatuses()[0]!.leftOut).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('counts every tool left out of a listing of many but names and warns about only the first 16', async () => {
    const tools = [{ name: 'ok' }, ...Array.from({ length: 300 }, (_, n) => ({ name: `bad_${n}`, description: 'x'.repeat(2_000) }))];
    const { provider, warnings } = await startedWithWarnings(server({ FIXTURE_TOOLS_FILE: toolsFile(tools) }, { descriptionBytes: 1024 }));
    expect(names(provider)).toEqual(['mcp_s_ok']);
    const leftOut = provider.serverStatuses()[0]!.leftOut!;
    expect(leftOut.count).toBe(300);
    expect(leftOut.tools.map((tool) => tool.name)).toEqual(Array.from({ length: 16 }, (_, n) => `bad_${n}`));
    expect(warnings).toHaveLength(17);
    expect(warnings[16]).toMatch(/^MCP server "s": 284 more tools are left out of the catalog for breaking per-tool budgets \(300 in all\)/);
  });

  it('shows no left-out tool to discovery: tools_select and tools_search see only what was published', async () => {
    const tools = [{ name: 'ok', description: 'Finds pages.' }, { name: 'huge', description: `Finds pages. ${big}` }];
    const { provider } = await startedWithWarnings(server({ FIXTURE_TOOLS: JSON.stringify(tools) }, { descriptionBytes: 1024 }));
    const host = new ToolHost({ providers: [provider] });
    await host.init();
    const selected = await host.call('tools_select', { tools: ['mcp_s_huge'], group: 'mcp:s' });
    expect(selected.output).toMatchObject({ tools: [{ name: 'mcp_s_ok' }], unknown: [{ name: 'mcp_s_huge' }] });
    const searched = await host.call('tools_search', { query: 'finds pages' });
    expect((searched.output as { tools: { name: string }[] }).tools.map((tool) => tool.name)).toEqual(['mcp_s_ok']);
    expect(host.groups().find((group) => group.id === 'mcp:s')?.members).toEqual(['mcp_s_ok']);
  });

  it('still rejects a listing that is wrong as a whole, and the published catalog keeps its left-out record', async () => {
    const file = toolsFile([{ name: 'ok' }, { name: 'huge', description: big }]);
    const { provider } = await startedWithWarnings(server({ FIXTURE_TOOLS_FILE: file }, { descriptionBytes: 1024 }));
    const before = provider.serverStatuses()[0]!.leftOut;
    expect(before?.count).toBe(1);
    writeFileSync(file, JSON.stringify([{ name: 'ok' }, { name: 'twin' }, { name: 'twin' }, { name: 'huge', description: big }]));
    const error = await refreshFailure(provider);
    expect(error.message).toMatch(/lists the tool "twin" twice/);
    expect(names(provider)).toEqual(['mcp_s_ok']);
    expect(provider.serverStatuses()[0]).toMatchObject({ state: 'failed', leftOut: before });
  });
});

describe('catalog budgets', () => {
  it('applies per-tool budgets only to tools that would be published', async () => {
    const tools = [
      { name: 'ok' },
      { name: 'excluded', description: big },
      { name: 'app_only', description: big, _meta: { ui: { visibility: ['app'] } } },
    ];
    const provider = await started(
      stdioFixture('s', 'catalog-server.mjs', {
        env: { FIXTURE_TOOLS: JSON.stringify(tools) },
        config: { exclude: ['excluded'], limits: { descriptionBytes: 1024 } },
      }),
    );
    expect(provider.definitions().map((definition) => definition.name)).toEqual(['mcp_s_ok']);
  });

  it('rejects a catalog listing one tool name twice', async () => {
    const provider = new McpToolProvider({ servers: [server({ FIXTURE_TOOLS: JSON.stringify([{ name: 'twin' }, { name: 'twin' }]) })] });
    providers.push(provider);
    await provider.init();
    expect(provider.definitions()).toEqual([]);
    const status = provider.serverStatuses()[0]!;
    expect(status.state).toBe('failed');
    expect(status.lastError).toMatch(/"s" lists the tool "twin" twice/);
  });

  it('rejects a catalog with a malformed tool, naming the server, the tool and the field, and keeps the previous snapshot', async () => {
    const file = join(dirname(observationLog()), 'tools.json');
    writeFileSync(file, JSON.stringify([{ name: 'ok' }]));
    const provider = await started(server({ FIXTURE_TOOLS_FILE: file }));
    const before = provider.definitions();
    writeFileSync(file, JSON.stringify([{ name: 'ok' }, { name: 'broken', inputSchema: { type: 'array' } }]));
    const error = await refreshFailure(provider);
    expect(error).toMatchObject({ serverId: 's', tool: 'broken' });
    expect(error.message).toBe('MCP server "s" sent an invalid tools/list result: tool "broken" has an invalid "inputSchema".');
    expect(provider.definitions()).toEqual(before);
  });

  const catalogWide: { label: string; env: Record<string, string>; limits: Partial<McpLimits>; message: RegExp }[] = [
    { label: 'a repeated pagination cursor', env: { FIXTURE_TOOLS: '[{"name":"a"}]', FIXTURE_PAGINATION: 'cycle' }, limits: {}, message: /repeated a pagination cursor/ },
    { label: 'pagination that never ends', env: { FIXTURE_PAGINATION: 'endless' }, limits: { catalogPages: 5, catalogItems: 100 }, message: /more than 5 pages.*limits\.catalogPages/ },
    {
      label: 'too many tools',
      env: { FIXTURE_TOOLS: JSON.stringify([{ name: 'a' }, { name: 'b' }, { name: 'c' }]), FIXTURE_PAGE_SIZE: '1' },
      limits: { catalogItems: 2 },
      message: /more than 2 tools.*limits\.catalogItems/,
    },
  ];
  for (const { label, env, limits, message } of catalogWide) {
    it(`rejects ${label} and publishes nothing from it`, async () => {
      const provider = new McpToolProvider({ servers: [{ ...server(env, limits), required: true }] });
      providers.push(provider);
      await expect(provider.init()).rejects.toThrow(message);
      expect(provider.definitions()).toEqual([]);
    });
  }

  it('rejects a server that describes itself at too great a length', async () => {
    const provider = new McpToolProvider({
      servers: [{ ...server({ FIXTURE_TOOLS: '[{"name":"a"}]', FIXTURE_INSTRUCTIONS: big }, { serverMetadataBytes: 1024 }), required: true }],
    });
    providers.push(provider);
    await expect(provider.init()).rejects.toThrow(/limits\.serverMetadataBytes/);
  });

  it('counts the server name too, since it titles the group when the server gives no title', async () => {
    const provider = new McpToolProvider({
      servers: [{ ...server({ FIXTURE_TOOLS: '[{"name":"a"}]', FIXTURE_NAME: big }, { serverMetadataBytes: 1024 }), required: true }],
    });
    providers.push(provider);
    await expect(provider.init()).rejects.toThrow(/\(name, title, description, instructions\) in over 1024 bytes \(limits\.serverMetadataBytes\)/);
  });

  it('follows pages within the budget', async () => {
    const tools = Array.from({ length: 7 }, (_, n) => ({ name: `t${n}` }));
    const provider = await started(server({ FIXTURE_TOOLS: JSON.stringify(tools), FIXTURE_PAGE_SIZE: '2' }));
    expect(provider.definitions()).toHaveLength(7);
  });
});

describe('call results', () => {
  it('turns a result nested too deeply to serialise into an error result, and the session keeps working', async () => {
    const tools = [{ name: 'deep', _fixture: { deepResult: 2_000 } }, { name: 'fine', _fixture: { deepResult: 50 } }];
    const provider = await started(server({ FIXTURE_TOOLS: JSON.stringify(tools) }));
    const result = await provider.call('mcp_s_deep', {});
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'result_invalid' } } });
    expect(JSON.stringify(result)).toContain('nested deeper than 1000 levels');
    const fine = await provider.call('mcp_s_fine', {});
    expect(fine.isError).toBe(false);
    expect(JSON.stringify(fine.output).length).toBeGreaterThan(100);
  });
});
