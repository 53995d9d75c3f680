/** The shape check of `tools/list` pages that replaces the SDK's deep validation. */
import { describe, expect, it } from 'vitest';
import { RAW_TOOLS_KEY } from '../src/mcp/session/tap.js';
import { checkToolListPage } from '../src/mcp/catalog/tool-list.js';

const valid = { name: 'ok', inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } };

describe('checkToolListPage', () => {
  it('takes the tools the session tap moved aside, and the cursor', () => {
    const page = checkToolListPage({ tools: [], [RAW_TOOLS_KEY]: [valid], nextCursor: 'c2' });
    expect(page).toEqual({ tools: [valid], nextCursor: 'c2' });
  });

  it('keeps fields it does not know, as the server sent them', () => {
    const tool = { ...valid, icons: [], execution: { taskSupport: 'optional' }, 'x-vendor': { any: 1 } };
    expect(checkToolListPage({ tools: [tool] })).toEqual({ tools: [tool], nextCursor: undefined });
  });

  const broken: [field: string, tool: Record<string, unknown>][] = [
    ['title', { ...valid, title: 3 }],
    ['description', { ...valid, description: ['x'] }],
    ['inputSchema', { name: 'ok' }],
    ['inputSchema', { ...valid, inputSchema: { type: 'array' } }],
    ['inputSchema', { ...valid, inputSchema: { type: 'object', required: [1] } }],
    ['outputSchema', { ...valid, outputSchema: { type: 'string' } }],
    ['annotations', { ...valid, annotations: 'read-only' }],
    ['annotations.readOnlyHint', { ...valid, annotations: { readOnlyHint: 'yes' } }],
    ['execution', { ...valid, execution: { taskSupport: 'sometimes' } }],
    ['_meta', { ...valid, _meta: [] }],
    ['icons', { ...valid, icons: {} }],
  ];
  for (const [field, tool] of broken) {
    it(`names the tool and the field when "${field}" is malformed (${JSON.stringify(tool[field.split('.')[0]!] ?? 'missing')})`, () => {
      expect(checkToolListPage({ tools: [tool] })).toEqual({ message: `tool "ok" has an invalid "${field}"`, tool: 'ok' });
    });
  }

  it('rejects a page without a tools array, a tool without a name and a cursor that is not a string', () => {
    expect(checkToolListPage({})).toEqual({ message: 'the result has no "tools" array' });
    expect(checkToolListPage({ tools: [valid, { inputSchema: { type: 'object' } }] })).toEqual({ message: 'tool #2 has no string "name"' });
    expect(checkToolListPage({ tools: [], nextCursor: 5 })).toEqual({ message: '"nextCursor" is not a string' });
  });
});
