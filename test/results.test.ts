/**
 * Unit tests of `callOutput`, which turns a tools/call result into the audited envelope
 * and the bounded model view: results the view cannot rely on (task results reach it
 * unchecked by the SDK) become `result_invalid` error results instead of throwing.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../src/mcp/config/policy.js';
import { callOutput } from '../src/mcp/calls/results.js';

const output = (result: unknown) => callOutput('s', 't', result as CallToolResult, DEFAULT_LIMITS);

function nested(levels: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = [value];
  return value;
}

describe('callOutput', () => {
  it('passes a well-formed result through', () => {
    expect(output({ content: [{ type: 'text', text: 'hello' }] })).toMatchObject({ isError: false, output: { server_id: 's', tool: 't' } });
  });

  it.each([
    ['content that is not a list', { content: 5 }],
    ['a null content block', { content: [null] }],
    ['a text block without text', { content: [{ type: 'text', text: 7 }] }],
    ['an image without data', { content: [{ type: 'image', mimeType: 'image/png' }] }],
    ['structured content that is not an object', { content: [], structuredContent: 'x' }],
    ['no result at all', null],
  ])('turns %s into a result_invalid error result', (_label, result) => {
    const turned = output(result);
    expect(turned).toMatchObject({ isError: true, output: { error: { code: 'result_invalid' } } });
    expect(JSON.stringify(turned)).toContain('MCP server \\"s\\" answered \\"t\\" with an invalid result');
  });

  it('turns a result nested too deeply anywhere, a content block\'s _meta included, into an error result', () => {
    const turned = output({ content: [{ type: 'text', text: 'hi', _meta: { deep: nested(5_000) } }] });
    expect(turned).toMatchObject({ isError: true, output: { error: { code: 'result_invalid' } } });
    expect(() => JSON.stringify(turned)).not.toThrow();
  });
});
