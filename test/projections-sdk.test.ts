/**
 * The projections as each official SDK client sends them: tools of real published
 * servers, a real image result, and whole turns, recorded by the local model stand-in
 * (no network, no key). The assignments to the SDKs' own types are the type check.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content, type Part, type Tool as GenaiTool } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpToolProvider, ToolHost, type ToolDefinition } from '../src/index.js';
import { anthropic, gemini, openaiChat, openaiResponses } from '../src/projections/index.js';
import { startModelStandIn, type ModelApi, type ModelStandIn, type RecordedRequest } from '../examples/stand-in/model-api.js';

const resolve = createRequire(import.meta.url).resolve;
const KEY = 'stand-in-key';
const TWO_CALLS = [
  { name: 'mcp_everything_echo', arguments: { message: 'first call' } },
  { name: 'mcp_everything_get_sum', arguments: { a: 2, b: 3 } },
];

let host: ToolHost;
let definitions: ToolDefinition[];
let standIn: ModelStandIn;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcp-fleet-projections-'));
  const stdio = (args: string[]) => ({ type: 'stdio' as const, command: process.execPath, args });
  host = new ToolHost({
    providers: [
      new McpToolProvider({
        servers: [
          { id: 'everything', transport: stdio([resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio']) },
          { id: 'filesystem', transport: stdio([resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), folder]) },
          { id: 'memory', transport: stdio([resolve('@modelcontextprotocol/server-memory/dist/index.js')]) },
        ],
      }),
    ],
  });
  await host.init();
  definitions = host.definitions();
  // Every API's first, third, ... request is answered with the two tool calls, the others with text.
  standIn = await startModelStandIn({ reply: (_request, index) => (index % 2 === 0 ? { toolCalls: TWO_CALLS } : { text: 'done' }) });
}, 60_000);

afterAll(async () => {
  await host.close();
  await standIn.close();
  await rm(folder, { recursive: true, force: true });
});

const openai = (): OpenAI => new OpenAI({ apiKey: KEY, baseURL: standIn.baseUrls.openai, maxRetries: 0 });
const claude = (): Anthropic => new Anthropic({ apiKey: KEY, baseURL: standIn.baseUrls.anthropic, maxRetries: 0 });
const genai = (): GoogleGenAI => new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: standIn.baseUrls.gemini } });
const lastRequest = (api: ModelApi): RecordedRequest => standIn.requests.filter((request) => request.api === api).at(-1)!;
/** The JSON a value becomes on the wire. */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('tool lists of server-everything, server-filesystem and server-memory', () => {
  it('project to all four APIs and each official SDK sends them as projected', async () => {
    const servers = new Set(definitions.filter((definition) => definition.name.startsWith('mcp_')).map((definition) => definition.name.split('_')[1]));
    expect(servers).toEqual(new Set(['everything', 'filesystem', 'memory']));
    expect(definitions.length).toBeGreaterThan(30);
    const before = JSON.stringify(definitions);

    const responsesTools: OpenAI.Responses.FunctionTool[] = openaiResponses.tools(definitions).tools;
    const strictTools: OpenAI.Responses.FunctionTool[] = openaiResponses.tools(definitions, { strict: true }).tools;
    const chatTools: OpenAI.Chat.ChatCompletionFunctionTool[] = openaiChat.tools(definitions, { strict: true }).tools;
    const claudeTools: Anthropic.Tool[] = anthropic.tools(definitions).tools;
    const modernGemini: GenaiTool[] = gemini.tools(definitions, { model: 'gemini-3-pro-preview' }).tools;
    const olderGemini: GenaiTool[] = gemini.tools(definitions, { model: 'gemini-2.0-flash' }).tools;

    await openai().responses.create({ model: 'gpt-stand-in', input: 'hi', tools: responsesTools });
    expect(lastRequest('openai-responses').body.tools).toEqual(wire(responsesTools));
    await openai().responses.create({ model: 'gpt-stand-in', input: 'hi', tools: strictTools });
    expect(lastRequest('openai-responses').body.tools).toEqual(wire(strictTools));
    await openai().chat.completions.create({ model: 'gpt-stand-in', messages: [{ role: 'user', content: 'hi' }], tools: chatTools });
    expect(lastRequest('openai-chat').body.tools).toEqual(wire(chatTools));
    await claude().messages.create({ model: 'claude-stand-in', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], tools: claudeTools });
    expect(lastRequest('anthropic').body.tools).toEqual(wire(claudeTools));
    for (const [model, tools] of [['gemini-3-pro-preview', modernGemini], ['gemini-2.0-flash', olderGemini]] as const) {
      await genai().models.generateContent({ model, contents: 'hi', config: { tools } });
      expect(lastRequest('gemini').body.tools).toEqual(wire(tools));
    }

    // Every tool is there, strict where strict mode can express it, and no definition was touched.
    expect(strictTools).toHaveLength(definitions.length);
    expect(strictTools.every((tool) => tool.strict === true)).toBe(true);
    expect(modernGemini[0]!.functionDeclarations!.every((declaration) => declaration.parameters === undefined)).toBe(true);
    expect(olderGemini[0]!.functionDeclarations!.every((declaration) => declaration.parametersJsonSchema === undefined)).toBe(true);
    expect(JSON.stringify(definitions)).toBe(before);
  });
});

describe("server-everything's image result", () => {
  it('reaches Responses, Anthropic and Gemini 3 as an image, Chat and an older Gemini as a notice, and the output stays unchanged', async () => {
    const output = await host.call('mcp_everything_get_tiny_image', {});
    expect(output.isError).toBe(false);
    const image = output.modelOutput!.parts.find((part) => part.type === 'media')!;
    expect(image).toMatchObject({ type: 'media', mimeType: 'image/png' });
    const before = JSON.stringify(output);
    const call = { id: 'call_image', name: 'mcp_everything_get_tiny_image' };

    const responsesItem: OpenAI.Responses.ResponseInputItem = openaiResponses.toolResult(call, output);
    await openai().responses.create({ model: 'gpt-stand-in', input: [{ type: 'function_call', call_id: call.id, name: call.name, arguments: '{}' }, responsesItem] });
    const sentOutput = (lastRequest('openai-responses').body.input as Array<{ output?: unknown }>)[1]!.output;
    expect(sentOutput).toContainEqual({ type: 'input_image', image_url: `data:image/png;base64,${image.data}`, detail: 'auto' });

    const chatItem: OpenAI.Chat.ChatCompletionToolMessageParam = openaiChat.toolResult(call, output);
    await openai().chat.completions.create({
      model: 'gpt-stand-in',
      messages: [
        { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: '{}' } }] },
        chatItem,
      ],
    });
    const chatSent = (lastRequest('openai-chat').body.messages as Array<{ content?: unknown }>)[1]!.content as string;
    expect(chatSent).toContain('[image/png tool media omitted: unsupported by this model API]');
    expect(chatSent).not.toContain(image.data);

    const claudeItem: Anthropic.ToolResultBlockParam = anthropic.toolResult(call, output);
    await claude().messages.create({
      model: 'claude-stand-in',
      max_tokens: 64,
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: call.name, input: {} }] },
        { role: 'user', content: [claudeItem] },
      ],
    });
    const claudeSent = (lastRequest('anthropic').body.messages as Array<{ content: Array<{ content?: unknown }> }>)[1]!.content[0]!.content;
    expect(claudeSent).toContainEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: image.data } });

    for (const [model, expectsParts] of [['gemini-3-flash-preview', true], ['gemini-2.0-flash', false]] as const) {
      const part: Part = gemini.toolResult(call, output, { model });
      const contents: Content[] = [
        { role: 'model', parts: [{ functionCall: { id: call.id, name: call.name, args: {} } }] },
        { role: 'user', parts: [part] },
      ];
      await genai().models.generateContent({ model, contents });
      const sent = (lastRequest('gemini').body.contents as Array<{ parts: Array<{ functionResponse?: { response: { output: string }; parts?: unknown[] } }> }>)[1]!.parts[0]!.functionResponse!;
      if (expectsParts) expect(sent.parts).toEqual([{ inlineData: { mimeType: 'image/png', data: image.data, displayName: 'tool-result-1.png' } }]);
      else {
        expect(sent.parts).toBeUndefined();
        expect(sent.response.output).toContain('[image/png tool media omitted: unsupported by this model API]');
      }
    }

    expect(JSON.stringify(output)).toBe(before);
  });
});

describe('a whole turn against each API', () => {
  // A stand-in of its own, so each API's turn starts with the model asking for the two calls.
  beforeAll(async () => {
    await standIn.close();
    standIn = await startModelStandIn({ reply: (_request, index) => (index % 2 === 0 ? { toolCalls: TWO_CALLS } : { text: 'done' }) });
  });

  /** What the server computed for the two calls, in the model's order. */
  const expectServerAnswers = (texts: string[]): void => {
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain('Echo: first call');
    expect(texts[1]).toContain('5');
  };

  it('runs the two tool calls of a Responses answer on the server and sends both results back in order', async () => {
    const client = openai();
    const tools = openaiResponses.tools(definitions).tools;
    const first = await client.responses.create({ model: 'gpt-turn', input: 'Echo, then add 2 and 3.', tools });
    const results = await openaiResponses.runToolCalls(host, first);
    expect(results.map((item) => item.call_id)).toEqual(openaiResponses.toolCalls(first).map((call) => call.id));
    expectServerAnswers(results.map((item) => item.output as string));
    const second = await client.responses.create({ model: 'gpt-turn', input: [...first.output, ...results] as OpenAI.Responses.ResponseInput, tools });
    expect(second.output_text).toBe('done');
    const sent = lastRequest('openai-responses').body.input as Array<{ type: string }>;
    expect(sent.filter((item) => item.type === 'function_call_output')).toEqual(wire(results));
  });

  it('runs the two tool calls of a Chat Completions answer and sends two tool messages in order', async () => {
    const client = openai();
    const tools = openaiChat.tools(definitions).tools;
    const user = { role: 'user' as const, content: 'Echo, then add 2 and 3.' };
    const first = await client.chat.completions.create({ model: 'gpt-turn', messages: [user], tools });
    const results = await openaiChat.runToolCalls(host, first);
    expectServerAnswers(results.map((message) => message.content));
    await client.chat.completions.create({ model: 'gpt-turn', messages: [user, first.choices[0]!.message, ...results], tools });
    const sent = lastRequest('openai-chat').body.messages as Array<{ role: string }>;
    expect(sent.slice(2)).toEqual(wire(results));
    expect(results.map((message) => message.tool_call_id)).toEqual(first.choices[0]!.message.tool_calls!.map((call) => call.id));
  });

  it('runs the two tool_use blocks of an Anthropic message and sends two tool_result blocks in one user message', async () => {
    const client = claude();
    const tools = anthropic.tools(definitions).tools;
    const user = { role: 'user' as const, content: 'Echo, then add 2 and 3.' };
    const first = await client.messages.create({ model: 'claude-turn', max_tokens: 256, messages: [user], tools });
    const results = await anthropic.runToolCalls(host, first);
    expect(results.map((block) => block.tool_use_id)).toEqual(anthropic.toolCalls(first).map((call) => call.id));
    expectServerAnswers(results.map((block) => (block.content?.[0] as { text: string }).text));
    await client.messages.create({ model: 'claude-turn', max_tokens: 256, tools, messages: [user, { role: 'assistant', content: first.content }, { role: 'user', content: results }] });
    const sent = lastRequest('anthropic').body.messages as Array<{ content: unknown }>;
    expect(sent[2]!.content).toEqual(wire(results));
  });

  it('runs the two functionCall parts of a Gemini answer and sends two functionResponse parts with their ids', async () => {
    const client = genai();
    const model = 'gemini-3-pro-preview';
    const tools = gemini.tools(definitions, { model }).tools;
    const user: Content = { role: 'user', parts: [{ text: 'Echo, then add 2 and 3.' }] };
    const first = await client.models.generateContent({ model, contents: [user], config: { tools } });
    const results = await gemini.runToolCalls(host, first, { model });
    expect(results.map((part) => part.functionResponse.id)).toEqual(first.functionCalls!.map((call) => call.id));
    expectServerAnswers(results.map((part) => part.functionResponse.response.output as string));
    await client.models.generateContent({ model, contents: [user, first.candidates![0]!.content!, { role: 'user', parts: results }], config: { tools } });
    const sent = lastRequest('gemini').body.contents as Array<{ parts: unknown }>;
    expect(sent[2]!.parts).toEqual(wire(results));
  });
});
