/**
 * The model API stand-in, driven by the official SDK clients (openai, @anthropic-ai/sdk,
 * @google/genai): each SDK parses the scripted tool call and the text answer that follows,
 * the stand-in records what the SDK really sent, and no API key reaches the record.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn } from '../examples/stand-in/model-api.js';
import type { ModelApi, ModelStandIn, RecordedRequest } from '../examples/stand-in/model-api.js';

const API_KEY = 'stand-in-test-key';
const CITY_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const WEATHER_CALL = { name: 'get_weather', arguments: { city: 'Paris', days: 2 } };

/** The requests one API received, in order. */
const requestsOf = (standIn: ModelStandIn, api: ModelApi): RecordedRequest[] => standIn.requests.filter((request) => request.api === api);

/** The key must not appear anywhere in the record, and the header that carried it is marked. */
function expectRedacted(requests: RecordedRequest[], header: string): void {
  expect(requests.length).toBeGreaterThan(0);
  expect(JSON.stringify(requests)).not.toContain(API_KEY);
  for (const request of requests) expect(request.headers[header]).toBe('[redacted]');
}

describe('model API stand-in driven by the official SDKs', () => {
  let standIn: ModelStandIn;

  beforeAll(async () => {
    standIn = await startModelStandIn({ defaultToolCalls: [WEATHER_CALL] });
  });

  afterAll(async () => {
    await standIn.close();
  });

  it('lets the OpenAI SDK read a function call and then a text answer from the Responses API', async () => {
    const client = new OpenAI({ apiKey: API_KEY, baseURL: standIn.baseUrls.openai, maxRetries: 0 });
    const tool = { type: 'function' as const, name: 'get_weather', description: 'Forecast for a city.', parameters: CITY_SCHEMA, strict: false };

    const first = await client.responses.create({ model: 'gpt-stand-in', input: 'Weather in Paris?', tools: [tool] });
    const call = first.output[0];
    if (call?.type !== 'function_call') throw new Error(`expected a function call, got ${JSON.stringify(first.output)}`);
    expect(call).toMatchObject({ name: 'get_weather', status: 'completed' });
    expect(call.id).toMatch(/^fc_\d+$/);
    expect(call.call_id).toMatch(/^call_\d+$/);
    expect(JSON.parse(call.arguments)).toEqual(WEATHER_CALL.arguments);
    expect(first.output_text).toBe('');

    const output = { type: 'function_call_output' as const, call_id: call.call_id, output: 'sunny' };
    const second = await client.responses.create({ model: 'gpt-stand-in', input: [{ role: 'user', content: 'Weather in Paris?' }, call, output], tools: [tool] });
    expect(second.output_text).toBe('done');
    expect(second.status).toBe('completed');

    const [sentFirst, sentSecond] = requestsOf(standIn, 'openai-responses');
    expect(sentFirst).toMatchObject({ path: '/v1/responses', model: 'gpt-stand-in' });
    expect(sentFirst?.body.tools).toEqual([tool]);
    expect(sentSecond?.body.input).toContainEqual(output);
    expectRedacted(requestsOf(standIn, 'openai-responses'), 'authorization');
  });

  it('lets the OpenAI SDK read a tool call and then a text answer from the Chat Completions API', async () => {
    const client = new OpenAI({ apiKey: API_KEY, baseURL: standIn.baseUrls.openai, maxRetries: 0 });
    const tool = { type: 'function' as const, function: { name: 'get_weather', description: 'Forecast for a city.', parameters: CITY_SCHEMA } };
    const question = { role: 'user' as const, content: 'Weather in Paris?' };

    const first = await client.chat.completions.create({ model: 'gpt-stand-in', messages: [question], tools: [tool] });
    const choice = first.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const call = choice?.message.tool_calls?.[0];
    if (call?.type !== 'function') throw new Error(`expected a function tool call, got ${JSON.stringify(choice)}`);
    expect(call.id).toMatch(/^call_\d+$/);
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual(WEATHER_CALL.arguments);
    expect(choice?.message.content).toBeNull();

    const result = { role: 'tool' as const, tool_call_id: call.id, content: 'sunny' };
    const second = await client.chat.completions.create({ model: 'gpt-stand-in', messages: [question, choice!.message, result], tools: [tool] });
    expect(second.choices[0]?.finish_reason).toBe('stop');
    expect(second.choices[0]?.message.content).toBe('done');

    const [sentFirst, sentSecond] = requestsOf(standIn, 'openai-chat');
    expect(sentFirst).toMatchObject({ path: '/v1/chat/completions', model: 'gpt-stand-in' });
    expect(sentFirst?.body.tools).toEqual([tool]);
    expect(sentSecond?.body.messages).toContainEqual(result);
    expectRedacted(requestsOf(standIn, 'openai-chat'), 'authorization');
  });

  it('lets the Anthropic SDK read a tool_use block and then a text block from the Messages API', async () => {
    const client = new Anthropic({ apiKey: API_KEY, baseURL: standIn.baseUrls.anthropic, maxRetries: 0 });
    const tool = { name: 'get_weather', description: 'Forecast for a city.', input_schema: { ...CITY_SCHEMA, type: 'object' as const } };
    const question = { role: 'user' as const, content: 'Weather in Paris?' };

    const first = await client.messages.create({ model: 'claude-stand-in', max_tokens: 256, messages: [question], tools: [tool] });
    expect(first.stop_reason).toBe('tool_use');
    const block = first.content[0];
    if (block?.type !== 'tool_use') throw new Error(`expected a tool_use block, got ${JSON.stringify(first.content)}`);
    expect(block.id).toMatch(/^toolu_\d+$/);
    expect(block.name).toBe('get_weather');
    expect(block.input).toEqual(WEATHER_CALL.arguments);

    const result = { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: block.id, content: 'sunny' }] };
    const second = await client.messages.create({
      model: 'claude-stand-in',
      max_tokens: 256,
      messages: [question, { role: 'assistant', content: first.content }, result],
      tools: [tool],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content).toEqual([{ type: 'text', text: 'done' }]);

    const [sentFirst, sentSecond] = requestsOf(standIn, 'anthropic');
    expect(sentFirst).toMatchObject({ path: '/v1/messages', model: 'claude-stand-in' });
    expect(sentFirst?.body.tools).toEqual([tool]);
    expect(sentSecond?.body.messages).toContainEqual(result);
    // The Anthropic SDK sends the key as a bearer token, not as x-api-key.
    expectRedacted(requestsOf(standIn, 'anthropic'), 'authorization');
  });

  it('lets the genai SDK read a function call and then a text answer from generateContent', async () => {
    const client = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: standIn.baseUrls.gemini } });
    const tools = [{ functionDeclarations: [{ name: 'get_weather', description: 'Forecast for a city.', parametersJsonSchema: CITY_SCHEMA }] }];
    const question = { role: 'user', parts: [{ text: 'Weather in Paris?' }] };

    const first = await client.models.generateContent({ model: 'gemini-stand-in', contents: [question], config: { tools } });
    const call = first.functionCalls?.[0];
    expect(call?.id).toMatch(/^call_\d+$/);
    expect(call?.name).toBe('get_weather');
    expect(call?.args).toEqual(WEATHER_CALL.arguments);

    const result = { role: 'user', parts: [{ functionResponse: { id: call?.id, name: 'get_weather', response: { forecast: 'sunny' } } }] };
    const modelTurn = first.candidates?.[0]?.content;
    if (!modelTurn) throw new Error('expected the model turn in the first answer');
    const second = await client.models.generateContent({ model: 'gemini-stand-in', contents: [question, modelTurn, result], config: { tools } });
    expect(second.text).toBe('done');

    const [sentFirst, sentSecond] = requestsOf(standIn, 'gemini');
    // genai 3.x defaults to the v1 API version and sends the config's tools at the top level.
    expect(sentFirst).toMatchObject({ path: '/v1/models/gemini-stand-in:generateContent', model: 'gemini-stand-in' });
    expect(sentFirst?.body.tools).toEqual(tools);
    expect(sentSecond?.body.contents).toContainEqual(result);
    expectRedacted(requestsOf(standIn, 'gemini'), 'x-goog-api-key');
  });
});

describe('model API stand-in scripting and errors', () => {
  it('asks a reply script for each turn, with the index among requests of the same API', async () => {
    const seen: Array<[ModelApi, number]> = [];
    const standIn = await startModelStandIn({
      reply: (request, index) => {
        seen.push([request.api, index]);
        return { text: `${request.api} #${index}` };
      },
    });
    try {
      const openai = new OpenAI({ apiKey: API_KEY, baseURL: standIn.baseUrls.openai, maxRetries: 0 });
      const ask = () => openai.chat.completions.create({ model: 'gpt-stand-in', messages: [{ role: 'user', content: 'hi' }] });
      expect((await ask()).choices[0]?.message.content).toBe('openai-chat #0');
      expect((await openai.responses.create({ model: 'gpt-stand-in', input: 'hi' })).output_text).toBe('openai-responses #0');
      expect((await ask()).choices[0]?.message.content).toBe('openai-chat #1');
      expect(seen).toEqual([
        ['openai-chat', 0],
        ['openai-responses', 0],
        ['openai-chat', 1],
      ]);
    } finally {
      await standIn.close();
    }
  });

  it('hands out ids that are unique across all answers of one stand-in', async () => {
    const standIn = await startModelStandIn({ reply: () => ({ toolCalls: [WEATHER_CALL, { name: 'get_time', arguments: {} }] }) });
    try {
      const openai = new OpenAI({ apiKey: API_KEY, baseURL: standIn.baseUrls.openai, maxRetries: 0 });
      const ask = () => openai.chat.completions.create({ model: 'gpt-stand-in', messages: [{ role: 'user', content: 'hi' }] });
      const ids = [...(await ask()).choices, ...(await ask()).choices].flatMap((choice) => choice.message.tool_calls ?? []).map((call) => call.id);
      expect(ids).toHaveLength(4);
      expect(new Set(ids).size).toBe(4);
    } finally {
      await standIn.close();
    }
  });

  it('answers text from the first turn on when no default tool calls are given', async () => {
    const standIn = await startModelStandIn();
    try {
      const openai = new OpenAI({ apiKey: API_KEY, baseURL: standIn.baseUrls.openai, maxRetries: 0 });
      expect((await openai.responses.create({ model: 'gpt-stand-in', input: 'hi' })).output_text).toBe('done');
    } finally {
      await standIn.close();
    }
  });

  it('refuses unknown paths, bodies that are not JSON and streaming requests with JSON errors', async () => {
    const standIn = await startModelStandIn();
    try {
      const post = (path: string, body: string) => fetch(`${standIn.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const unknown = await post('/v1/embeddings', '{}');
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: { message: expect.stringContaining('/v1/embeddings') as unknown } });
      expect((await post('/v1/messages', 'not json')).status).toBe(400);

      const openai = new OpenAI({ apiKey: API_KEY, baseURL: standIn.baseUrls.openai, maxRetries: 0 });
      const streaming = openai.chat.completions.create({ model: 'gpt-stand-in', messages: [{ role: 'user', content: 'hi' }], stream: true });
      await expect(streaming).rejects.toThrow(/does not stream/);
      const genai = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: standIn.baseUrls.gemini } });
      await expect(genai.models.generateContentStream({ model: 'gemini-stand-in', contents: 'hi' })).rejects.toThrow(/does not stream/);
      expect(standIn.requests).toEqual([]);
    } finally {
      await standIn.close();
    }
  });
});
