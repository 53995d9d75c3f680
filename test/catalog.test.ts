/**
 * Unit tests of `publishableTools`, the filter and per-tool budget check between listing
 * and publication: SEP-2243 header declarations are checked on 2026-07-28 Streamable
 * HTTP sessions only, wherever the declaration sits, and a budget error names the tool.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { McpCatalogError, publishableTools } from '../src/mcp/catalog.js';
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
