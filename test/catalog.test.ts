/**
 * Unit tests of `publishableTools`, the filter and per-tool budget check between listing
 * and publication: SEP-2243 header declarations are checked on 2026-07-28 Streamable
 * HTTP sessions only, wherever the declaration sits, and a budget error names the tool.
 * Then the function description a published tool gets.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { functionDescription, McpCatalogError, publishableTools } from '../src/mcp/catalog.js';
import { resolveServerConfig } from '../src/mcp/config.js';
import type { McpSession } from '../src/mcp/session.js';

const http = resolveServerConfig({ id: 'remote', transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' } });
const stdio = resolveServerConfig({ id: 'local', transport: { type: 'stdio', command: 'node' } });
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

describe('publishableTools', () => {
  it('drops tools with invalid header declarations on a 2026-07-28 HTTP session, however deep they sit', () => {
    expect(names(publishableTools(catalog, http, session('modern')))).toEqual(['plain', 'valid_header']);
  });

  it('keeps them where SEP-2243 does not apply: legacy sessions and stdio', () => {
    expect(names(publishableTools(catalog, http, session('legacy')))).toEqual(names(catalog));
    expect(names(publishableTools(catalog, stdio, session('modern')))).toEqual(names(catalog));
  });

  it('checks declarations in a schema too big for the cheap bound, before its budget', () => {
    const big = tool('big_bad', { region: { type: 'string', 'x-mcp-header': '' }, blob: { type: 'string', default: 'x'.repeat(70 * 1024) } });
    // Dropped for its declaration, so its size never counts against the server.
    expect(names(publishableTools([big], http, session('modern')))).toEqual([]);
    const error = (() => {
      try {
        publishableTools([big], http, session('legacy'));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(McpCatalogError);
    expect(error).toMatchObject({ tool: 'big_bad', budget: 'schemaBytes' });
    expect((error as Error).message).toMatch(/MCP server "remote": tool "big_bad" has an input schema over 65536 bytes \(limits\.schemaBytes\)/);
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
