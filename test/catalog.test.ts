/**
 * Unit tests of `publishableTools`, the filter and per-tool budget check between listing
 * and publication: SEP-2243 header declarations are checked on 2026-07-28 Streamable
 * HTTP sessions only, wherever the declaration sits, and a tool over a budget is left
 * out and recorded, boundedly, with its budget and size.
 * Then the function description a published tool gets.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { functionDescription, publishableTools } from '../src/mcp/catalog/catalog.js';
import { resolveServerConfig } from '../src/mcp/config/config.js';
import { LEFT_OUT_NAMED, LeftOutTools } from '../src/mcp/catalog/left-out.js';
import type { McpLimits } from '../src/mcp/config/policy.js';
import type { McpSession } from '../src/mcp/session/session.js';

const http = resolveServerConfig({ id: 'remote', transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' } });
const stdio = resolveServerConfig({ id: 'local', transport: { type: 'stdio', command: 'node' } });
const stdioWith = (limits: Partial<McpLimits>) => resolveServerConfig({ id: 'local', transport: { type: 'stdio', command: 'node' }, limits });
/** `publishableTools` reads only the session's protocol era. */
const session = (era: 'modern' | 'legacy'): McpSession => ({ era }) as unknown as McpSession;

const tool = (name: string, properties: Record<string, unknown>): Tool => ({ name, inputSchema: { type: 'object', properties: properties as Tool['inputSchema']['properties'] } });

const catalog: Tool[] = [
  tool('plain', { q: { type: 'string' } }),
  tool('valid_header', { region: { type: 'string', 'x-mcp-header': 'Region' } }),
  tool('bad_name', { region: { type: 'string', 'x-mcp-header': 'Bad Name' } }),
  tool('buried', { list: { type: 'array', items: { anyOf: [{ type: 'string', 'x-mcp-header': 'Deep' }] } } }),
];
const names = (tools: Tool[]): string[] => tools.map((each) => each.name);
/** The published names of `tools`, with a record of what was left out that nothing reads. */
const published = (tools: Tool[], config: typeof http, era: 'modern' | 'legacy'): string[] => names(publishableTools(tools, config, session(era), new LeftOutTools()));

describe('publishableTools', () => {
  it('drops tools with invalid header declarations on a 2026-07-28 HTTP session, however deep they sit', () => {
    expect(published(catalog, http, 'modern')).toEqual(['plain', 'valid_header']);
  });

  it('keeps them where SEP-2243 does not apply: legacy sessions and stdio', () => {
    expect(published(catalog, http, 'legacy')).toEqual(names(catalog));
    expect(published(catalog, stdio, 'modern')).toEqual(names(catalog));
  });

  it('checks declarations in a schema too big for the cheap bound, before its budget', () => {
    const big = tool('big_bad', { region: { type: 'string', 'x-mcp-header': '' }, blob: { type: 'string', default: 'x'.repeat(70 * 1024) } });
    // Dropped for its declaration, so its size never counts against the server.
    const dropped = new LeftOutTools();
    expect(names(publishableTools([big], http, session('modern'), dropped))).toEqual([]);
    expect(dropped.result()).toBeUndefined();
    const leftOut = new LeftOutTools();
    expect(names(publishableTools([big], http, session('legacy'), leftOut))).toEqual([]);
    expect(leftOut.result()).toEqual({
      count: 1,
      tools: [{ name: 'big_bad', budget: 'schemaBytes', field: 'inputSchema', bytes: JSON.stringify(big.inputSchema).length, limit: 65_536 }],
    });
  });

  it('leaves out only the tools over a budget, each once, with what broke which budget, and publishes the rest in order', () => {
    const config = stdioWith({ schemaBytes: 1024, outputSchemaBytes: 4096, descriptionBytes: 512, schemaDepth: 8 });
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 8; level++) deep = { type: 'object', properties: { a: deep } };
    const tools: Tool[] = [
      tool('first', {}),
      tool('input', { blob: { type: 'string', default: 'x'.repeat(2_000) } }),
      { ...tool('output_fits', {}), outputSchema: { type: 'object', description: 'x'.repeat(2_000) } },
      { ...tool('output', {}), outputSchema: { type: 'object', description: 'x'.repeat(5_000) } },
      { ...tool('deep', {}), inputSchema: deep as Tool['inputSchema'] },
      { ...tool('described', {}), description: 'é'.repeat(300) },
      { ...tool('titled', {}), title: 'x'.repeat(513) },
      tool('last', {}),
    ];
    const leftOut = new LeftOutTools();
    expect(names(publishableTools(tools, config, session('legacy'), leftOut))).toEqual(['first', 'output_fits', 'last']);
    expect(leftOut.result()).toEqual({
      count: 5,
      tools: [
        { name: 'input', budget: 'schemaBytes', field: 'inputSchema', bytes: JSON.stringify(tools[1]!.inputSchema).length, limit: 1024 },
        { name: 'output', budget: 'outputSchemaBytes', field: 'outputSchema', bytes: JSON.stringify(tools[3]!.outputSchema).length, limit: 4096 },
        { name: 'deep', budget: 'schemaDepth', field: 'inputSchema', limit: 8 },
        { name: 'described', budget: 'descriptionBytes', field: 'description', bytes: 600, limit: 512 },
        { name: 'titled', budget: 'descriptionBytes', field: 'title', bytes: 513, limit: 512 },
      ],
    });
  });

  it('counts every tool left out but names only the first few, each name cut to 256 bytes', () => {
    const config = stdioWith({ descriptionBytes: 16 });
    const tools = Array.from({ length: 1_000 }, (_, n): Tool => ({ ...tool(n === 0 ? 'n'.repeat(10_000) : `t${n}`, {}), description: 'x'.repeat(17) }));
    const leftOut = new LeftOutTools();
    expect(publishableTools(tools, config, session('legacy'), leftOut)).toEqual([]);
    const result = leftOut.result()!;
    expect(result.count).toBe(1_000);
    expect(result.tools).toHaveLength(LEFT_OUT_NAMED);
    expect(result.tools[0]!.name).toBe(`${'n'.repeat(253)}…`);
    expect(result.tools[1]).toEqual({ name: 't1', budget: 'descriptionBytes', field: 'description', bytes: 17, limit: 16 });
  });
});

describe('functionDescription', () => {
  const described = (serverId: string, extra: Partial<Tool>): string => functionDescription(serverId, { ...tool('fetch_page', {}), ...extra });

  it('names the server and the tool, then the title and the description, trimmed, each only when given', () => {
    expect(described('web', {})).toBe('MCP server `web` tool `fetch_page`.');
    expect(described('web', { description: ' Fetches a page. ' })).toBe('MCP server `web` tool `fetch_page`. Fetches a page.');
    expect(described('web', { title: 'Fetch', description: 'Fetches a page.' })).toBe('MCP server `web` tool `fetch_page`. Title: Fetch. Fetches a page.');
    expect(described('web', { title: 'Fetch', description: '   ' })).toBe('MCP server `web` tool `fetch_page`. Title: Fetch.');
  });

  it('names the right server when the tools of several servers are described in turn', () => {
    expect([described('a', {}), described('b', {}), described('a', {})]).toEqual([
      'MCP server `a` tool `fetch_page`.',
      'MCP server `b` tool `fetch_page`.',
      'MCP server `a` tool `fetch_page`.',
    ]);
  });
});
