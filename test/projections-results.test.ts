/**
 * Tool results per model API: which media each one takes, the notices that stand in
 * for the rest, Anthropic's blank and empty rules, error flags, budgets and the
 * truncation marker, and that the neutral output is never modified.
 */
import { describe, expect, it } from 'vitest';
import { toolPresentation, TRUNCATION_MARKER, type ToolOutput, type ToolPresentationPart } from '../src/index.js';
import { anthropic, DEFAULT_RAW_OUTPUT_TEXT_BYTES, gemini, geminiModelFeatures, openaiChat, openaiResponses } from '../src/projections/index.js';
import { presentResult } from '../src/mcp/calls/presentation.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PDF = Buffer.from('%PDF-1.4\n%fake but non-empty\n').toString('base64');
const WAV = Buffer.from('RIFF....WAVEfmt ').toString('base64');
const call = { id: 'call_1', name: 'mcp_demo_tool' };

function output(parts: ToolPresentationPart[], isError = false): ToolOutput {
  return { output: { raw: true }, modelOutput: toolPresentation(parts), isError };
}

const text = (value: string): ToolPresentationPart => ({ type: 'text', text: value });
const media = (mimeType: string, data: string): ToolPresentationPart => ({ type: 'media', mimeType, data });
const notice = (mimeType: string): string => `[${mimeType} tool media omitted: unsupported by this model API]`;

describe('OpenAI Responses results', () => {
  it('are plain text when the result has no media', () => {
    expect(openaiResponses.toolResult(call, output([text('hello')]))).toEqual({ type: 'function_call_output', call_id: 'call_1', output: 'hello' });
  });

  it('carry images as input_image data URLs, PDFs as input_file, and audio as a notice, in order', () => {
    const item = openaiResponses.toolResult(call, output([text('look'), media('image/png', PNG), media('audio/wav', WAV), media('application/pdf', PDF)]));
    expect(item.output).toEqual([
      { type: 'input_text', text: 'look' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
      { type: 'input_text', text: notice('audio/wav') },
      { type: 'input_file', file_data: `data:application/pdf;base64,${PDF}`, filename: 'tool-result-1.pdf' },
    ]);
  });
});

describe('Chat Completions results', () => {
  it('are one tool message of text, every media part a notice and no base64', () => {
    const item = openaiChat.toolResult(call, output([text('look'), media('image/png', PNG), media('application/pdf', PDF)]));
    expect(item).toEqual({ role: 'tool', tool_call_id: 'call_1', content: `look\n${notice('image/png')}\n${notice('application/pdf')}` });
  });
});

describe('Anthropic results', () => {
  it('hold text, base64 image blocks and PDF document blocks, and mark failures with is_error', () => {
    const item = anthropic.toolResult(call, output([text('look'), media('image/png', PNG), media('application/pdf', PDF)], true));
    expect(item).toEqual({
      type: 'tool_result',
      tool_use_id: 'call_1',
      is_error: true,
      content: [
        { type: 'text', text: 'look' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
      ],
    });
  });

  it('leave blank text out of an image-only result and content out of an empty one', () => {
    expect(anthropic.toolResult(call, output([text('  \n'), media('image/png', PNG)])).content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    ]);
    expect(anthropic.toolResult(call, output([]))).toEqual({ type: 'tool_result', tool_use_id: 'call_1' });
    expect(anthropic.toolResult(call, output([text('')]))).toEqual({ type: 'tool_result', tool_use_id: 'call_1' });
  });

  it('give an empty failure one text block, since the API refuses is_error without content', () => {
    expect(anthropic.toolResult(call, output([], true))).toEqual({ type: 'tool_result', tool_use_id: 'call_1', is_error: true, content: [{ type: 'text', text: 'The tool failed without saying why.' }] });
    expect(anthropic.toolResult(call, output([text('  ')], true)).content).toEqual([{ type: 'text', text: 'The tool failed without saying why.' }]);
  });

  it('turn audio into a notice', () => {
    expect(anthropic.toolResult(call, output([media('audio/mpeg', WAV)])).content).toEqual([{ type: 'text', text: notice('audio/mpeg') }]);
  });
});

describe('Gemini results', () => {
  it('carry PNG, JPEG, WebP and PDF inside functionResponse.parts for Gemini 3, and name them in the response', () => {
    const item = gemini.toolResult({ id: 'fc-1', name: call.name }, output([text('look'), media('image/png', PNG), media('application/pdf', PDF), media('image/gif', PNG)]), { model: 'gemini-3-pro-preview' });
    expect(item.functionResponse).toEqual({
      id: 'fc-1',
      name: 'mcp_demo_tool',
      response: { output: `look\n${notice('image/gif')}`, media: [{ $ref: 'tool-result-1.png' }, { $ref: 'tool-result-2.pdf' }] },
      parts: [
        { inlineData: { mimeType: 'image/png', data: PNG, displayName: 'tool-result-1.png' } },
        { inlineData: { mimeType: 'application/pdf', data: PDF, displayName: 'tool-result-2.pdf' } },
      ],
    });
  });

  it('are text only for older and unknown models, with error results under "error"', () => {
    for (const model of ['gemini-2.5-pro', 'gemini-1.5-flash', 'gemma-3-27b-it', 'some-proxy-model']) {
      const item = gemini.toolResult({ name: call.name }, output([text('no'), media('image/png', PNG)], true), { model });
      expect(item.functionResponse).toEqual({ name: 'mcp_demo_tool', response: { error: `no\n${notice('image/png')}` } });
    }
  });

  it('bound to a model with forModel, take the same arguments as the other targets', () => {
    const bound = gemini.forModel('gemini-3-pro-preview');
    const value = output([text('look'), media('image/png', PNG)]);
    expect(bound.toolResult({ id: 'fc-1', name: call.name }, value)).toEqual(gemini.toolResult({ id: 'fc-1', name: call.name }, value, { model: 'gemini-3-pro-preview' }));
    expect(gemini.forModel('gemini-3-pro-preview', { responseParts: false }).toolResult(call, value).functionResponse.parts).toBeUndefined();
    const definition = { name: 'mcp_demo_tool', description: 'A tool.', parameters: { type: 'object', properties: { q: { type: 'string' } } } };
    expect(gemini.forModel('gemini-2.0-flash').tools([definition]).tools[0]!.functionDeclarations[0]!.parameters).toEqual({ type: 'OBJECT', properties: { q: { type: 'STRING' } } });
  });

  it('choose the schema form and response parts by model name, with overrides', () => {
    expect(geminiModelFeatures({ model: 'models/gemini-3-pro-preview' })).toEqual({ schema: 'json-schema', responseParts: true });
    expect(geminiModelFeatures({ model: 'gemini-2.5-flash' })).toEqual({ schema: 'json-schema', responseParts: false });
    expect(geminiModelFeatures({ model: 'gemini-2.0-flash-001' })).toEqual({ schema: 'openapi', responseParts: false });
    expect(geminiModelFeatures({ model: 'gemini-flash-latest' })).toEqual({ schema: 'openapi', responseParts: false });
    expect(geminiModelFeatures({ model: 'gemini-flash-latest', schema: 'json-schema', responseParts: true })).toEqual({ schema: 'json-schema', responseParts: true });
  });
});

describe('every projection of a result', () => {
  const all = (value: ToolOutput): unknown[] => [
    openaiResponses.toolResult(call, value),
    openaiChat.toolResult(call, value),
    anthropic.toolResult(call, value),
    gemini.toolResult(call, value, { model: 'gemini-3-pro-preview' }),
    gemini.toolResult(call, value, { model: 'gemini-2.0-flash' }),
  ];

  it('leaves the neutral output byte-for-byte unchanged, media included', () => {
    const value = output([text('a'), media('image/png', PNG), media('audio/wav', WAV), media('application/pdf', PDF)]);
    const before = JSON.stringify(value);
    all(value);
    expect(JSON.stringify(value)).toBe(before);
  });

  it('keeps the truncation marker and adds no text beyond the notices of refused media', () => {
    const limits = { outputTextBytes: 256, outputMediaBytes: 1024, outputMediaItems: 1 };
    const presentation = presentResult({ content: [{ type: 'text', text: 'x'.repeat(1000) }, { type: 'image', mimeType: 'image/png', data: PNG }] }, limits);
    const value: ToolOutput = { output: {}, modelOutput: presentation, isError: false };
    const texts = JSON.stringify(all(value));
    expect(texts.split(TRUNCATION_MARKER.trim()).length - 1).toBe(5);
    const chat = openaiChat.toolResult(call, value).content;
    expect(Buffer.byteLength(chat)).toBeLessThanOrEqual(limits.outputTextBytes + notice('image/png').length + 1);
  });

  it('stays within the text budget when many refused media become notices: one notice for all, the text cut with the marker', () => {
    const limits = { outputTextBytes: 256, outputMediaBytes: 4096, outputMediaItems: 8 };
    const presentation = presentResult({ content: [{ type: 'text', text: 'z'.repeat(300) }, ...Array.from({ length: 8 }, () => ({ type: 'image' as const, mimeType: 'image/png', data: PNG }))] }, limits);
    expect(presentation.textBytes).toBe(256);
    const value: ToolOutput = { output: {}, modelOutput: presentation, isError: false };
    const chat = openaiChat.toolResult(call, value).content;
    expect(Buffer.byteLength(chat)).toBeLessThanOrEqual(256);
    expect(chat).toContain('[8 tool media omitted (image/png): unsupported by this model API]');
    expect(chat).toContain(TRUNCATION_MARKER);
    const older = gemini.toolResult(call, value, { model: 'gemini-2.0-flash' }).functionResponse.response.output as string;
    expect(Buffer.byteLength(older)).toBeLessThanOrEqual(256);
    // An API that takes the images keeps them all, and its text as it was.
    expect((openaiResponses.toolResult(call, value).output as Array<{ type: string }>).filter((part) => part.type === 'input_image')).toHaveLength(8);
  });

  it('shows a raw output without a presentation as JSON, cut to rawOutputTextBytes with the marker', () => {
    const small: ToolOutput = { output: { answer: 42 }, isError: false };
    expect(openaiChat.toolResult(call, small).content).toBe('{"answer":42}');
    const big: ToolOutput = { output: { text: 'y'.repeat(DEFAULT_RAW_OUTPUT_TEXT_BYTES) }, isError: false };
    const content = openaiChat.toolResult(call, big).content;
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(DEFAULT_RAW_OUTPUT_TEXT_BYTES);
    expect(content.endsWith(TRUNCATION_MARKER)).toBe(true);
    const custom = openaiResponses.toolResult(call, big, { rawOutputTextBytes: 1000 }).output as string;
    expect(Buffer.byteLength(custom)).toBeLessThanOrEqual(1000);
    expect(openaiChat.toolResult(call, { output: 'plain words', isError: false }).content).toBe('plain words');
  });
});

describe('the neutral presentation of an MCP result', () => {
  it('carries an embedded PDF resource as a document part under the media budget, and other blobs as their URI', () => {
    const limits = { outputTextBytes: 4096, outputMediaBytes: 1024, outputMediaItems: 4 };
    const presentation = presentResult(
      {
        content: [
          { type: 'resource', resource: { uri: 'file:///report.pdf', mimeType: 'application/pdf', blob: PDF } },
          { type: 'resource', resource: { uri: 'file:///data.bin', mimeType: 'application/octet-stream', blob: PDF } },
        ],
      },
      limits,
    );
    expect(presentation.parts).toEqual([
      { type: 'media', mimeType: 'application/pdf', data: PDF },
      { type: 'text', text: 'Resource: file:///data.bin' },
    ]);
    const tooBig = presentResult({ content: [{ type: 'resource', resource: { uri: 'file:///r.pdf', mimeType: 'application/pdf', blob: PDF } }] }, { ...limits, outputMediaBytes: 4 });
    expect(tooBig.parts).toEqual([{ type: 'text', text: '[tool media omitted: invalid encoding, type, or media budget exceeded]' }]);
  });
});
