import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpCatalogError, McpRefreshError, McpToolProvider, type McpLimits, type McpServerConfig } from '../src/index.js';
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

describe('catalog budgets', () => {
  const perTool: { label: string; tool: object; limits: Partial<McpLimits>; budget: keyof McpLimits }[] = [
    { label: 'an input schema', tool: { name: 'huge', inputSchema: { type: 'object', description: big } }, limits: { schemaBytes: 4096 }, budget: 'schemaBytes' },
    { label: 'an output schema', tool: { name: 'huge', outputSchema: { type: 'object', description: big } }, limits: { schemaBytes: 4096 }, budget: 'schemaBytes' },
    { label: 'a description', tool: { name: 'huge', description: big }, limits: { descriptionBytes: 4096 }, budget: 'descriptionBytes' },
    { label: 'a title', tool: { name: 'huge', title: big }, limits: { descriptionBytes: 4096 }, budget: 'descriptionBytes' },
    { label: 'a deeply nested input schema', tool: { name: 'huge', inputSchema: nestedSchema(20) }, limits: { schemaDepth: 16 }, budget: 'schemaDepth' },
    { label: 'a deeply nested output schema', tool: { name: 'huge', outputSchema: nestedSchema(20) }, limits: { schemaDepth: 16 }, budget: 'schemaDepth' },
  ];
  for (const { label, tool, limits, budget } of perTool) {
    it(`keeps the previous snapshot when a tool grows ${label} over budget, naming the server, tool and budget`, async () => {
      const file = join(dirname(observationLog()), 'tools.json');
      writeFileSync(file, JSON.stringify([{ name: 'ok' }]));
      const provider = await started(server({ FIXTURE_TOOLS_FILE: file }, limits));
      const before = provider.definitions();
      writeFileSync(file, JSON.stringify([{ name: 'ok' }, tool]));
      const error = await refreshFailure(provider);
      expect(error).toMatchObject({ serverId: 's', tool: 'huge', budget });
      expect(error.message).toContain('"s"');
      expect(error.message).toContain('"huge"');
      expect(error.message).toContain(`limits.${budget}`);
      expect(provider.definitions()).toEqual(before);
      expect((await provider.call('mcp_s_ok', {})).isError).toBe(false);
      // Retryable: once the server is fixed, the next refresh publishes.
      writeFileSync(file, JSON.stringify([{ name: 'ok' }, { name: 'fine' }]));
      await provider.refresh();
      expect(provider.definitions().map((definition) => definition.name)).toEqual(['mcp_s_fine', 'mcp_s_ok']);
    });
  }

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
