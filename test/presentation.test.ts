/**
 * Unit tests of the bounded model view of MCP tool results and of the audited envelope
 * (checklist O 168-173, adapted: our view is an ordered list of text and media parts).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../src/core/budget.js';
import { isToolPresentation, presentationText, type ToolPresentation } from '../src/core/presentation.js';
import {
  jsonEqual,
  MEDIA_OMITTED_NOTICE,
  type PresentationLimits,
  presentResult,
  TRUNCATION_MARKER,
  UNSUPPORTED_CONTENT_NOTICE,
} from '../src/mcp/calls/presentation.js';
import { callError, callOutput } from '../src/mcp/calls/results.js';
import { DEFAULT_LIMITS } from '../src/mcp/config/policy.js';

type Block = CallToolResult['content'][number];

const LIMITS: PresentationLimits = {
  outputTextBytes: DEFAULT_LIMITS.outputTextBytes,
  outputMediaBytes: DEFAULT_LIMITS.outputMediaBytes,
  outputMediaItems: DEFAULT_LIMITS.outputMediaItems,
};

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString('base64');

function view(result: CallToolResult, limits: Partial<PresentationLimits> = {}): ToolPresentation {
  return presentResult(result, { ...LIMITS, ...limits });
}

function text(...blocks: string[]): Block[] {
  return blocks.map((value) => ({ type: 'text', text: value }));
}

/** All text of a view, text parts joined by newlines (media parts left out). */
function viewText(presentation: ToolPresentation): string {
  return presentation.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

describe('presentResult text', () => {
  it('joins text blocks with newlines in one text part', () => {
    const presentation = view({ content: text('first', 'second') });
    expect(isToolPresentation(presentation)).toBe(true);
    expect(presentation).toEqual({ type: 'ToolPresentation', parts: [{ type: 'text', text: 'first\nsecond' }], textBytes: LIMITS.outputTextBytes });
  });

  it('gives an empty view for an empty result', () => {
    expect(view({ content: [] }).parts).toEqual([]);
  });

  it('keeps text within the budget as it is, without a marker', () => {
    const body = 'a'.repeat(256 - 64);
    expect(viewText(view({ content: text(body) }, { outputTextBytes: 256 }))).toBe(body);
  });

  it('cuts 500 × "中" at a 256-byte limit on a character boundary and appends the marker', () => {
    const result = view({ content: text('中'.repeat(500)) }, { outputTextBytes: 256 });
    const final = viewText(result);
    expect(utf8Bytes(final)).toBeLessThanOrEqual(256);
    expect(final.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(TRUNCATION_MARKER).toBe('\n[tool output truncated; full result retained by host]');
    const kept = final.slice(0, -TRUNCATION_MARKER.length);
    expect(kept).toBe('中'.repeat(64));
    expect(final).not.toContain('\uFFFD');
  });

  it('steps back over a character that would be split by the cut', () => {
    const final = viewText(view({ content: text(`a${'中'.repeat(500)}`) }, { outputTextBytes: 256 }));
    // 192 bytes of budget: "a" (1) + 63 × "中" (189) = 190; a 64th would need 193.
    expect(final).toBe(`a${'中'.repeat(63)}${TRUNCATION_MARKER}`);
    expect(final).not.toContain('\uFFFD');
  });

  it('drops later blocks once the budget is spent and marks the cut once', () => {
    const final = viewText(view({ content: text('x'.repeat(100), 'y'.repeat(100), 'z'.repeat(100)) }, { outputTextBytes: 256 }));
    expect(final).toBe(`${'x'.repeat(100)}\n${'y'.repeat(91)}${TRUNCATION_MARKER}`);
    expect(final).not.toContain('z');
    expect(utf8Bytes(final)).toBeLessThanOrEqual(256);
  });

  it('counts text on both sides of a media part against one budget', () => {
    const presentation = view(
      { content: [...text('x'.repeat(150)), { type: 'image', mimeType: 'image/png', data: PNG }, ...text('y'.repeat(150))] },
      { outputTextBytes: 256 },
    );
    expect(presentation.parts).toEqual([
      { type: 'text', text: 'x'.repeat(150) },
      { type: 'media', mimeType: 'image/png', data: PNG },
      { type: 'text', text: `${'y'.repeat(41)}${TRUNCATION_MARKER}` },
    ]);
    const textBytes = presentation.parts.reduce((sum, part) => sum + (part.type === 'text' ? utf8Bytes(part.text) : 0), 0);
    expect(textBytes).toBeLessThanOrEqual(256);
  });

  it('never exceeds the text budget for any mix of text', () => {
    for (const limit of [256, 300, 1000]) {
      for (const unit of ['a', 'é', '中', '😀']) {
        const final = viewText(view({ content: text(unit.repeat(1500), unit.repeat(3)) }, { outputTextBytes: limit }));
        expect(utf8Bytes(final)).toBeLessThanOrEqual(limit);
        expect(final.endsWith(TRUNCATION_MARKER)).toBe(true);
        expect(final).not.toContain('\uFFFD');
      }
    }
  });
});

describe('presentResult structured content', () => {
  it('shows structured content first, as JSON', () => {
    const presentation = view({ content: text('note'), structuredContent: { count: 2 } });
    expect(presentation.parts).toEqual([{ type: 'text', text: '{"count":2}\nnote' }]);
  });

  it('shows a text block that only repeats the structured content once', () => {
    const structuredContent = { b: [1, 2], a: { nested: true } };
    const presentation = view({ content: text(`  ${JSON.stringify({ a: { nested: true }, b: [1, 2] }, null, 2)}\n`), structuredContent });
    expect(viewText(presentation)).toBe(JSON.stringify(structuredContent));
  });

  it('keeps distinct text and JSON that differs from the structured content', () => {
    const structuredContent = { count: 2 };
    const presentation = view({ content: text('Found 2 items.', '{"count":3}', '[1,2]', '{not json'), structuredContent });
    expect(viewText(presentation)).toBe('{"count":2}\nFound 2 items.\n{"count":3}\n[1,2]\n{not json');
  });

  it('keeps a JSON text block verbatim when there is no structured content', () => {
    const presentation = view({ content: text('{ "count" : 2 }') });
    expect(viewText(presentation)).toBe('{ "count" : 2 }');
  });
});

describe('jsonEqual', () => {
  it('compares JSON values structurally, ignoring key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
  });
});

describe('presentResult media', () => {
  it('inlines png, jpeg, webp and gif images and audio of any subtype, in order', () => {
    const types = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'audio/wav', 'audio/mpeg'];
    const blocks: Block[] = types.map((mimeType) =>
      mimeType.startsWith('audio/') ? { type: 'audio', mimeType, data: PNG } : { type: 'image', mimeType, data: PNG },
    );
    const presentation = view({ content: blocks });
    expect(presentation.parts).toEqual(types.map((mimeType) => ({ type: 'media', mimeType, data: PNG })));
  });

  it('keeps text and media in the order of the blocks', () => {
    const presentation = view({
      content: [...text('before'), { type: 'image', mimeType: 'image/png', data: PNG }, ...text('after', 'end')],
      structuredContent: { s: 1 },
    });
    expect(presentation.parts).toEqual([
      { type: 'text', text: '{"s":1}\nbefore' },
      { type: 'media', mimeType: 'image/png', data: PNG },
      { type: 'text', text: 'after\nend' },
    ]);
  });

  it('replaces other MIME types with the omitted notice', () => {
    for (const mimeType of ['image/svg+xml', 'image/bmp', 'application/pdf', 'IMAGE/PNG', 'text/plain', `audio/${'x'.repeat(130)}`]) {
      const presentation = view({ content: [{ type: 'image', mimeType, data: PNG }] });
      expect(presentation.parts).toEqual([{ type: 'text', text: MEDIA_OMITTED_NOTICE }]);
    }
    expect(MEDIA_OMITTED_NOTICE).toBe('[tool media omitted: invalid encoding, type, or media budget exceeded]');
  });

  it('replaces invalid base64 or empty data with the omitted notice', () => {
    for (const data of ['', 'not base64!', 'AQI', 'AQID\n', 'AQ=D']) {
      const presentation = view({ content: [{ type: 'image', mimeType: 'image/png', data }] });
      expect(presentation.parts).toEqual([{ type: 'text', text: MEDIA_OMITTED_NOTICE }]);
    }
  });

  it('omits media beyond the item count', () => {
    const image: Block = { type: 'image', mimeType: 'image/png', data: PNG };
    const presentation = view({ content: [image, image, image] }, { outputMediaItems: 2 });
    expect(presentation.parts).toEqual([
      { type: 'media', mimeType: 'image/png', data: PNG },
      { type: 'media', mimeType: 'image/png', data: PNG },
      { type: 'text', text: MEDIA_OMITTED_NOTICE },
    ]);
  });

  it('omits media beyond the decoded byte budget and keeps later media that still fit', () => {
    const six = Buffer.alloc(6, 1).toString('base64');
    const four = Buffer.alloc(4, 2).toString('base64');
    const five = Buffer.alloc(5, 3).toString('base64');
    const presentation = view(
      {
        content: [
          { type: 'image', mimeType: 'image/png', data: six },
          { type: 'audio', mimeType: 'audio/wav', data: five },
          { type: 'image', mimeType: 'image/gif', data: four },
        ],
      },
      { outputMediaBytes: 10 },
    );
    expect(presentation.parts).toEqual([
      { type: 'media', mimeType: 'image/png', data: six },
      { type: 'text', text: MEDIA_OMITTED_NOTICE },
      { type: 'media', mimeType: 'image/gif', data: four },
    ]);
  });

  it('accepts media exactly at the byte budget', () => {
    const data = Buffer.alloc(10, 7).toString('base64');
    expect(view({ content: [{ type: 'image', mimeType: 'image/webp', data }] }, { outputMediaBytes: 10 }).parts).toEqual([
      { type: 'media', mimeType: 'image/webp', data },
    ]);
  });
});

describe('presentResult resources and other blocks', () => {
  it('shows an embedded text resource as its text and a blob resource as its URI', () => {
    const presentation = view({
      content: [
        { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'Note body.' } },
        { type: 'resource', resource: { uri: 'file:///image.bin', mimeType: 'application/octet-stream', blob: PNG } },
      ],
    });
    expect(viewText(presentation)).toBe('Note body.\nResource: file:///image.bin');
  });

  it('shows a resource link as its URI', () => {
    const presentation = view({ content: [{ type: 'resource_link', uri: 'https://example.com/doc', name: 'doc' }] });
    expect(presentation.parts).toEqual([{ type: 'text', text: 'Resource: https://example.com/doc' }]);
  });

  it('shows an unknown block type as the unsupported notice', () => {
    const presentation = view({ content: [{ type: 'hologram', data: 'x' } as unknown as Block, ...text('after')] });
    expect(viewText(presentation)).toBe(`${UNSUPPORTED_CONTENT_NOTICE}\nafter`);
    expect(UNSUPPORTED_CONTENT_NOTICE).toBe('[unsupported MCP content retained in raw result]');
  });
});

describe('_meta and the raw envelope', () => {
  const result: CallToolResult = {
    content: [
      { type: 'text', text: 'visible', _meta: { secret: 'block-meta-text' } },
      { type: 'image', mimeType: 'image/png', data: PNG, _meta: { secret: 'block-meta-image' } },
      { type: 'resource', resource: { uri: 'file:///r', text: 'resource text', _meta: { secret: 'resource-meta' } }, _meta: { secret: 'block-meta-resource' } },
    ],
    structuredContent: { answer: 42 },
    _meta: { secret: 'top-level-meta', 'io.example/trace': 'trace-1' },
    isError: false,
  };

  it('keeps every _meta out of the view', () => {
    const presentation = presentResult(result, LIMITS);
    const serialised = JSON.stringify(presentation);
    for (const secret of ['block-meta-text', 'block-meta-image', 'resource-meta', 'block-meta-resource', 'top-level-meta', 'trace-1', '_meta']) {
      expect(serialised).not.toContain(secret);
    }
    expect(presentation.parts).toEqual([
      { type: 'text', text: '{"answer":42}\nvisible' },
      { type: 'media', mimeType: 'image/png', data: PNG },
      { type: 'text', text: 'resource text' },
    ]);
  });

  it('keeps everything in the raw envelope and does not modify the result', () => {
    const before = structuredClone(result);
    const output = callOutput('files', 'read/file', result, LIMITS);
    expect(result).toEqual(before);
    expect(output.isError).toBe(false);
    expect(output.output).toEqual({
      server_id: 'files',
      tool: 'read/file',
      content: before.content,
      structuredContent: { answer: 42 },
      _meta: { secret: 'top-level-meta', 'io.example/trace': 'trace-1' },
      isError: false,
    });
    expect(output.modelOutput).toEqual(presentResult(before, LIMITS));
  });

  it('keeps the full text in the envelope when the view is truncated', () => {
    const long = 'word '.repeat(1000);
    const output = callOutput('s', 't', { content: text(long) }, { ...LIMITS, outputTextBytes: 256 });
    expect(output.output.content).toEqual(text(long));
    expect(presentationText(output.modelOutput!).endsWith(TRUNCATION_MARKER)).toBe(true);
  });

  it('marks an error result and leaves out absent optional fields', () => {
    const output = callOutput('s', 't', { content: text('boom'), isError: true }, LIMITS);
    expect(output.isError).toBe(true);
    expect(output.output).toEqual({ server_id: 's', tool: 't', content: text('boom'), isError: true });
    expect(Object.keys(output.output)).not.toContain('_meta');
    expect(Object.keys(output.output)).not.toContain('structuredContent');
  });

  it('builds a host-side error result naming the server and tool', () => {
    expect(callError('files', 'read', 'server_unavailable', 'The server is down.')).toEqual({
      output: { server_id: 'files', tool: 'read', error: { code: 'server_unavailable', message: 'The server is down.', server_id: 'files' } },
      modelOutput: { type: 'ToolPresentation', parts: [{ type: 'text', text: 'The server is down.' }] },
      isError: true,
    });
  });
});
