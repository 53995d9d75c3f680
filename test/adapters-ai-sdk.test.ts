/**
 * The Vercel AI SDK adapter (`mcp-fleet/ai-sdk`) driven through the SDK's own loop
 * (`generateText` with `stopWhen`) and its scripted test model (`MockLanguageModelV4`
 * from `ai/test`, which records every request), on real servers: server-everything and
 * the context fixture (`hang`, `fail`, and an observation log of what it received).
 */
import { createRequire } from 'node:module';
import { generateText, jsonSchema, stepCountIs, streamText, tool, type ToolSet } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { aiSdkSession, aiSdkTools } from '../src/adapters/ai-sdk.js';
import { McpToolProvider, type McpServerConfig, ToolHost, type ToolOutput } from '../src/index.js';
import type { ModelToolCall } from '../src/projections/index.js';
import { observationLog, observed, stdioFixture } from './helpers.js';

type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
type Content = GenerateResult['content'];
type StreamPart = Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never;

const everything: McpServerConfig = {
  id: 'everything',
  transport: { type: 'stdio', command: process.execPath, args: [createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] },
};
const log = observationLog();
let host: ToolHost;

beforeAll(async () => {
  host = new ToolHost({ providers: [new McpToolProvider({ servers: [everything, stdioFixture('context', 'context-server.mjs', { env: { FIXTURE_LOG: log } })] })] });
  await host.init();
}, 60_000);

afterAll(async () => {
  await host?.close();
});

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const call = (id: string, name: string, input: unknown): Content[number] => ({ type: 'tool-call', toolCallId: id, toolName: name, input: JSON.stringify(input) });
const toolCalls = (...calls: Content): GenerateResult => ({ content: calls, finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] });
const answer = (text: string): GenerateResult => ({ content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] });

/** A test model that plays `steps` in order, one per request (it records each request in `doGenerateCalls`). */
function scripted(...steps: GenerateResult[]): MockLanguageModelV4 {
  let next = 0;
  return new MockLanguageModelV4({
    doGenerate: () => {
      const step = steps[next++];
      if (step === undefined) throw new Error('The script has no more steps.');
      return Promise.resolve(step);
    },
  });
}

/** The names of the function tools a request offered. */
const offered = (request: CallOptions): string[] => (request.tools ?? []).map((tool) => tool.name);

/** The tool results a request carries (the tool messages of its prompt), by call id. */
function toolResults(request: CallOptions): Map<string, { toolName: string; output: unknown }> {
  const results = new Map<string, { toolName: string; output: unknown }>();
  for (const message of request.prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-result') results.set(part.toolCallId, { toolName: part.toolName, output: part.output });
  }
  return results;
}

/** Base64 of an SDK file part's data, whichever form (string or bytes) the SDK chose. */
function base64Of(data: unknown): string {
  return typeof data === 'string' ? data : Buffer.from(data as Uint8Array).toString('base64');
}

const parametersJson = (): string => JSON.stringify(host.definitions().map((definition) => definition.parameters));

describe('aiSdkTools', () => {
  it('runs echo and get-tiny-image of server-everything in a two-step run, and the second request holds the echoed text and the image as a native file part', async () => {
    const before = parametersJson();
    const reported: Array<[ModelToolCall, ToolOutput]> = [];
    const tools = aiSdkTools(host, { onOutput: (modelCall, output) => reported.push([modelCall, output]) });
    const model = scripted(
      toolCalls(call('c1', 'mcp_everything_echo', { message: 'hello fleet' }), call('c2', 'mcp_everything_get_tiny_image', {})),
      answer('done'),
    );
    const result = await generateText({ model, tools, prompt: 'Echo, then show me the image.', stopWhen: stepCountIs(5) });
    expect(result.text).toBe('done');
    expect(model.doGenerateCalls).toHaveLength(2);

    // The first request offered the host's tools by their names, with copies of their schemas.
    const echoDefinition = host.definitions().find((definition) => definition.name === 'mcp_everything_echo')!;
    const echoTool = model.doGenerateCalls[0]!.tools!.find((tool) => tool.name === 'mcp_everything_echo')!;
    expect(echoTool).toMatchObject({ type: 'function', description: echoDefinition.description, inputSchema: echoDefinition.parameters, strict: false });
    expect((echoTool as { inputSchema: unknown }).inputSchema).not.toBe(echoDefinition.parameters);

    const results = toolResults(model.doGenerateCalls[1]!);
    expect(results.get('c1')).toEqual({ toolName: 'mcp_everything_echo', output: { type: 'text', value: 'Echo: hello fleet' } });
    const image = results.get('c2')!.output as { type: string; value: Array<{ type: string; mediaType?: string; data?: { type: string; data: unknown }; text?: string }> };
    expect(image.type).toBe('content');
    const files = image.value.filter((part) => part.type === 'file');
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ mediaType: 'image/png', data: { type: 'data' } });
    const png = Buffer.from(base64Of(files[0]!.data!.data), 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // The image travels as an image, never as base64 inside the text.
    const encoded = base64Of(files[0]!.data!.data);
    for (const part of image.value) if (part.type === 'text') expect(part.text).not.toContain(encoded.slice(0, 32));

    // The neutral outputs were reported with the SDK's call ids, media included.
    expect(reported.map(([modelCall]) => modelCall.id).sort()).toEqual(['c1', 'c2']);
    expect(reported.find(([modelCall]) => modelCall.id === 'c2')![1].modelOutput?.parts.some((part) => part.type === 'media')).toBe(true);
    expect(parametersJson()).toBe(before);
  });

  it('answers a server-side failure and an unknown tool name with results the model reads, and the run goes on to another step', async () => {
    const tools = aiSdkTools(host);
    const model = scripted(
      toolCalls(call('bad', 'mcp_context_fail', {}), call('nowhere', 'mcp_nowhere_tool', {})),
      toolCalls(call('after', 'mcp_everything_echo', { message: 'still running' })),
      answer('recovered'),
    );
    const result = await generateText({ model, tools, prompt: 'Try the failing tool.', stopWhen: stepCountIs(5) });
    expect(result.text).toBe('recovered');
    const second = toolResults(model.doGenerateCalls[1]!);
    // The server's tool-level error is an error result (providers flag it, e.g. Anthropic's is_error).
    expect(second.get('bad')!.output).toMatchObject({ type: 'error-text', value: expect.stringContaining('this tool always fails') as unknown });
    // The SDK answers a name outside the record itself, as an error result too.
    expect(second.get('nowhere')!.output).toMatchObject({ type: 'error-text', value: expect.stringContaining('mcp_nowhere_tool') as unknown });
    expect(toolResults(model.doGenerateCalls[2]!).get('after')!.output).toEqual({ type: 'text', value: 'Echo: still running' });
  });

  it('ends a run aborted during a hung MCP call, and the server sees the cancellation', async () => {
    const callsBefore = observed(log).filter((entry) => entry.method === 'tools/call').length;
    const controller = new AbortController();
    const model = scripted(toolCalls(call('h1', 'mcp_context_hang', {})), answer('never'));
    const run = generateText({ model, tools: aiSdkTools(host), prompt: 'Hang.', stopWhen: stepCountIs(5), abortSignal: controller.signal });
    const settled = run.then(() => 'resolved', (error: unknown) => error);
    await vi.waitFor(() => expect(observed(log).filter((entry) => entry.method === 'tools/call').length).toBe(callsBefore + 1), { timeout: 20_000, interval: 50 });
    const hangId = observed(log).filter((entry) => entry.method === 'tools/call')[callsBefore]!.id;
    controller.abort(new Error('the user left'));
    // The run rejects with the caller's reason, and no further step is asked for.
    expect(await settled).toMatchObject({ message: 'the user left' });
    expect(model.doGenerateCalls).toHaveLength(1);
    await vi.waitFor(() => expect(observed(log)).toContainEqual(expect.objectContaining({ method: 'notifications/cancelled', requestId: hangId })), { timeout: 20_000, interval: 50 });
  });

  it('turns an expired timeoutMs into a result the model reads, and the run goes on', async () => {
    const model = scripted(toolCalls(call('slow', 'mcp_context_hang', {})), answer('moved on'));
    const result = await generateText({ model, tools: aiSdkTools(host, { timeoutMs: 300 }), prompt: 'Hang, but not for long.', stopWhen: stepCountIs(5) });
    expect(result.text).toBe('moved on');
    const output = toolResults(model.doGenerateCalls[1]!).get('slow')!.output as { type: string; value: string };
    expect(output.type).toBe('error-text');
    expect(output.value).toMatch(/time/i);
  });

  it('with strict: true, sends lowered strict schemas and reads a strict model\'s nulls as "not given"', async () => {
    const name = 'mcp_everything_get_annotated_message';
    // What a model under strict mode sends: every property, the one it leaves out as null.
    const args = { messageType: 'success', includeImage: null };
    const model = scripted(toolCalls(call('s1', name, args)), answer('ok'));
    await generateText({ model, tools: aiSdkTools(host, { strict: true }), prompt: 'Annotate.', stopWhen: stepCountIs(3) });
    const sent = model.doGenerateCalls[0]!.tools!.find((candidate) => candidate.name === name) as { strict?: boolean; inputSchema: { required?: string[] } };
    expect(sent.strict).toBe(true);
    expect(sent.inputSchema.required).toEqual(expect.arrayContaining(['messageType', 'includeImage']));
    const output = toolResults(model.doGenerateCalls[1]!).get('s1')!.output as { type: string };
    expect(output.type).not.toBe('error-text');
    // The same arguments sent as they are: the server refuses the null.
    expect((await host.call(name, args)).isError).toBe(true);
  });

  it('takes an initialised McpToolProvider directly, and works under streamText', async () => {
    const provider = new McpToolProvider({ servers: [everything] });
    try {
      await provider.init();
      let streams = 0;
      const model = new MockLanguageModelV4({
        doStream: () => {
          const first = streams++ === 0;
          return Promise.resolve({
            stream: convertArrayToReadableStream<StreamPart>(
              first
                ? [
                    { type: 'tool-call', toolCallId: 's1', toolName: 'mcp_everything_echo', input: JSON.stringify({ message: 'streamed' }) },
                    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
                  ]
                : [
                    { type: 'text-start', id: 't' },
                    { type: 'text-delta', id: 't', delta: 'ok' },
                    { type: 'text-end', id: 't' },
                    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
                  ],
            ),
          });
        },
      });
      const result = streamText({ model, tools: aiSdkTools(provider), prompt: 'Echo.', stopWhen: stepCountIs(3) });
      expect(await result.text).toBe('ok');
      expect(offered(model.doStreamCalls[0]!)).toContain('mcp_everything_echo');
      // A provider has no discovery helpers: its tools are offered as they are.
      expect(offered(model.doStreamCalls[0]!)).not.toContain('tools_select');
      expect(toolResults(model.doStreamCalls[1]!).get('s1')!.output).toEqual({ type: 'text', value: 'Echo: streamed' });
    } finally {
      await provider.close();
    }
  });
});

describe('aiSdkSession', () => {
  it('starts with the discovery helpers, selects mcp:everything and calls mcp_everything_echo in the same run', async () => {
    const before = parametersJson();
    const session = host.session();
    const fleet = aiSdkSession(session);
    const model = scripted(
      toolCalls(call('select', 'tools_select', { tools: [], group: 'mcp:everything' })),
      toolCalls(call('echo', 'mcp_everything_echo', { message: 'selected' })),
      answer('done'),
    );
    const result = await generateText({ model, tools: fleet.tools, prepareStep: fleet.prepareStep, prompt: 'Find an echo tool and use it.', stopWhen: stepCountIs(5) });
    expect(result.text).toBe('done');

    const [first, second, third] = model.doGenerateCalls;
    // The first request offered the helpers and nothing else: no schema of an unselected tool was sent.
    expect(offered(first!).sort()).toEqual(['tools_groups', 'tools_search', 'tools_select']);
    // The next step offered exactly the session's definitions: the helpers and the group's tools, not the other server's.
    expect(offered(second!)).toContain('mcp_everything_echo');
    expect(offered(second!).sort()).toEqual(session.definitions().map((definition) => definition.name).sort());
    expect(offered(second!).some((name) => name.startsWith('mcp_context_'))).toBe(false);
    expect(toolResults(third!).get('echo')!.output).toEqual({ type: 'text', value: 'Echo: selected' });
    expect(parametersJson()).toBe(before);
  });

  it('offers only the session\'s current definitions when the record holds more, and the application\'s extra tools at every step', async () => {
    const noted: string[] = [];
    const extraTools: ToolSet = {
      note: tool({
        description: 'Write a note.',
        inputSchema: jsonSchema<{ text: string }>({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }),
        execute: ({ text }) => {
          noted.push(text);
          return 'noted';
        },
      }),
    };
    const session = host.session();
    const fleet = aiSdkSession(session, { extraTools });
    const selecting = scripted(
      toolCalls(call('select', 'tools_select', { tools: ['mcp_everything_echo'], group: '' })),
      toolCalls(call('n', 'note', { text: 'first' }), call('e', 'mcp_everything_echo', { message: 'selected' })),
      answer('done'),
    );
    await generateText({ model: selecting, tools: fleet.tools, prepareStep: fleet.prepareStep, prompt: 'Select, then note.', stopWhen: stepCountIs(5) });
    expect(offered(selecting.doGenerateCalls[0]!)).toContain('note');
    expect(noted).toEqual(['first']);
    expect(toolResults(selecting.doGenerateCalls[2]!).get('e')!.output).toEqual({ type: 'text', value: 'Echo: selected' });

    // The conversation starts over: the record still holds echo, but the model is no longer offered it.
    session.reset();
    expect(Object.keys(fleet.tools)).toContain('mcp_everything_echo');
    const again = scripted(toolCalls(call('stale', 'mcp_everything_echo', { message: 'stale' })), answer('done'));
    await generateText({ model: again, tools: fleet.tools, prepareStep: fleet.prepareStep, prompt: 'Echo.', stopWhen: stepCountIs(3) });
    expect(offered(again.doGenerateCalls[0]!).sort()).toEqual(['note', 'tools_groups', 'tools_search', 'tools_select']);
    expect(toolResults(again.doGenerateCalls[1]!).get('stale')!.output).toMatchObject({ type: 'error-text' });
  });
});

describe('aiSdkTools schemas', () => {
  it('gives a tool whose schema has a root union an object root, as providers require', () => {
    const parameters = { type: 'object', oneOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'number' } }, required: ['b'] }] };
    const host = new ToolHost({ discovery: false, tools: [{ definition: { name: 'pick', description: 'Picks.', parameters }, call: () => ({ output: 'ok', isError: false }) }] });
    const schema = (aiSdkTools(host).pick!.inputSchema as unknown as { jsonSchema: Record<string, unknown> }).jsonSchema;
    expect(schema).toMatchObject({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } });
    expect(schema).not.toHaveProperty('oneOf');
    expect(parameters).toHaveProperty('oneOf');
  });
});
