/**
 * The OpenAI Agents SDK adapter driven by the SDK's own agent loop (`run`) with its own
 * test model (`ScriptedModel` of `@openai/agents/testing`), against real MCP servers:
 * server-everything and the context fixture (whose `hang` waits for a cancellation).
 * What the model receives at the next step is read from the requests the scripted model
 * recorded.
 */
import { createRequire } from 'node:module';
import {
  Agent,
  type AgentInputItem,
  type ModelRequest,
  run,
  type SpanData,
  setTraceProcessors,
  setTracingDisabled,
  type TracingProcessor,
} from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openAIAgentsMcpServer, openAIAgentsTools } from '../src/adapters/openai-agents.js';
import { McpToolProvider, type McpServerConfig, ToolHost, type ToolOutput } from '../src/index.js';
import { observationLog, observed, stdioFixture } from './helpers.js';

const everythingEntry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const everything: McpServerConfig = { id: 'everything', transport: { type: 'stdio', command: process.execPath, args: [everythingEntry, 'stdio'] } };
const DELIVERY = { timeout: 15_000, interval: 20 };

beforeAll(() => setTracingDisabled(true));

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

async function started(servers: McpServerConfig[]): Promise<{ host: ToolHost; provider: McpToolProvider }> {
  const provider = new McpToolProvider({ servers });
  const host = new ToolHost({ providers: [provider] });
  closers.push(() => host.close());
  await host.init();
  return { host, provider };
}

/** The `function_call_result` items of a recorded request, by call id. */
function results(request: ModelRequest | undefined): Map<string, unknown> {
  const items = (request?.input ?? []) as AgentInputItem[];
  const byId = new Map<string, unknown>();
  for (const item of items) if (item.type === 'function_call_result') byId.set(item.callId, item.output);
  return byId;
}

/** The text a `function_call_result` output carries, whichever shape it has. */
function text(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.map(text).join('\n');
  const part = output as { type?: string; text?: string };
  return part.type === 'text' || part.type === 'input_text' ? (part.text ?? '') : '';
}

/** The text of what the host presents to a model for `output`. */
function presented(output: ToolOutput): string {
  return (output.modelOutput?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/** The definitions as JSON, to show that a run changed none of them. */
function snapshot(host: ToolHost): string {
  return JSON.stringify(host.definitions());
}

describe('openAIAgentsTools in the Agents SDK loop', () => {
  it('calls echo and get-tiny-image in a two-step run, and the second request holds the echoed text and the image as an input_image part', async () => {
    const { host } = await started([everything]);
    const before = snapshot(host);
    const model = new ScriptedModel([
      [
        functionCall('mcp_everything_echo', { message: 'hello agents' }, { callId: 'echo-1' }),
        functionCall('mcp_everything_get_tiny_image', {}, { callId: 'image-1' }),
      ],
      [assistantMessage('done')],
    ]);
    const agent = new Agent({ name: 'fleet', instructions: 'Use the tools.', model, tools: openAIAgentsTools(host) });

    const result = await run(agent, 'Echo, then show the image.');

    expect(result.finalOutput).toBe('done');
    expect(model.calls).toHaveLength(2);
    // Names, descriptions and schemas are the host's; MCP tools go non-strict by default.
    const offered = model.calls[0]!.request.tools as Array<{ name: string; description: string; parameters: unknown; strict: boolean }>;
    const echoDefinition = host.definitions().find((definition) => definition.name === 'mcp_everything_echo')!;
    const echoTool = offered.find((tool) => tool.name === 'mcp_everything_echo')!;
    expect(echoTool).toMatchObject({ description: echoDefinition.description, strict: false });
    expect(echoTool.parameters).toEqual(echoDefinition.parameters);
    expect(echoTool.parameters).not.toBe(echoDefinition.parameters);
    expect(offered.find((tool) => tool.name === 'tools_select')?.strict).toBe(true);

    const outputs = results(model.calls[1]!.request);
    expect(text(outputs.get('echo-1'))).toBe('Echo: hello agents');
    const image = outputs.get('image-1') as Array<{ type: string; image?: string }>;
    expect(image.map((part) => part.type)).toContain('input_image');
    expect(image.find((part) => part.type === 'input_image')?.image).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    // The image is a part of its own, not base64 inside a JSON text.
    expect(image.filter((part) => part.type === 'input_text').map(text).join('')).not.toContain('base64');
    expect(snapshot(host)).toBe(before);
  });

  it('sends every tool strict with strict: true, and a null the model sends for a left-out property reaches the server as not given', async () => {
    const { host } = await started([everything]);
    const before = snapshot(host);
    const model = new ScriptedModel([[functionCall('mcp_everything_get_resource_links', { count: null }, { callId: 'links-1' })], [assistantMessage('done')]]);
    const agent = new Agent({ name: 'fleet', model, tools: openAIAgentsTools(host, { strict: true }) });

    await run(agent, 'List some resource links.');

    const offered = model.calls[0]!.request.tools as Array<{ name: string; parameters: { required?: string[] }; strict: boolean }>;
    const links = offered.find((tool) => tool.name === 'mcp_everything_get_resource_links')!;
    expect(links.strict).toBe(true);
    expect(links.parameters.required).toEqual(['count']);
    // What the server answers for the call without `count` (its default), not a validation error for `null`.
    const expected = await host.call('mcp_everything_get_resource_links', {});
    expect(expected.isError).toBe(false);
    expect(text(results(model.calls[1]!.request).get('links-1'))).toBe(presented(expected));
    expect(snapshot(host)).toBe(before);
  });

  it('gives a tool-level error (a server-side failure, a tool whose server was removed) to the model as the tool result, and the run goes on, for a provider', async () => {
    const log = observationLog();
    const provider = new McpToolProvider({ servers: [everything, stdioFixture('ctx', 'context-server.mjs', { env: { FIXTURE_LOG: log } })] });
    closers.push(() => provider.close());
    await provider.init();
    const tools = openAIAgentsTools(provider);
    // The agent's tools are a snapshot: the echo tool is still offered, its server is gone.
    await provider.removeServer('everything');
    const model = new ScriptedModel([
      [functionCall('mcp_ctx_fail', {}, { callId: 'fail-1' }), functionCall('mcp_everything_echo', { message: 'anyone?' }, { callId: 'gone-1' })],
      [assistantMessage('recovered')],
    ]);
    const agent = new Agent({ name: 'fleet', model, tools });

    const result = await run(agent, 'Try the tools.');

    expect(result.finalOutput).toBe('recovered');
    expect(model.calls).toHaveLength(2);
    const outputs = results(model.calls[1]!.request);
    const failure = await provider.call('mcp_ctx_fail', {});
    expect(failure.isError).toBe(true);
    expect(text(outputs.get('fail-1'))).toBe(presented(failure));
    expect(text(outputs.get('gone-1'))).toContain('mcp_everything_echo');
    expect(text(outputs.get('gone-1'))).toContain('not found');
    expect(observed(log)).toContainEqual(expect.objectContaining({ method: 'tools/call' }));
  });
});

describe('a tool name the model makes up, in the Agents SDK loop', () => {
  it('reaches the model as a tool result with the SDK\'s toolNotFoundBehavior set to return it, and the run goes on', async () => {
    // The SDK looks a name up before any tool runs, so this one never reaches the host; its
    // default raises, and `return_error_to_model` is the run option that keeps the run going.
    const { host } = await started([everything]);
    const model = new ScriptedModel([
      [functionCall('mcp_everything_ecko', { message: 'typo' }, { callId: 'typo-1' })],
      [functionCall('mcp_everything_echo', { message: 'fixed' }, { callId: 'echo-1' })],
      [assistantMessage('recovered')],
    ]);
    const agent = new Agent({ name: 'fleet', model, tools: openAIAgentsTools(host) });

    const result = await run(agent, 'Echo something.', { toolNotFoundBehavior: 'return_error_to_model' });

    expect(result.finalOutput).toBe('recovered');
    expect(text(results(model.calls[1]!.request).get('typo-1'))).toContain('mcp_everything_ecko');
    expect(text(results(model.calls[2]!.request).get('echo-1'))).toBe('Echo: fixed');
  });
});

describe('openAIAgentsMcpServer in the Agents SDK loop', () => {
  it('lists a session again at every turn: the tools of a selected group are offered at the next step, and their image reaches the model as an input_image part', async () => {
    const { host } = await started([everything]);
    const before = snapshot(host);
    const session = host.session();
    const server = openAIAgentsMcpServer(session, { name: 'fleet' });
    await server.connect();
    closers.push(() => server.close());
    const model = new ScriptedModel([
      [functionCall('tools_select', { tools: [], group: 'mcp:everything' }, { callId: 'select-1' })],
      [functionCall('mcp_everything_get_tiny_image', {}, { callId: 'image-1' })],
      [assistantMessage('seen')],
    ]);
    const agent = new Agent({ name: 'fleet', model, mcpServers: [server] });

    const result = await run(agent, 'Find an image tool and use it.');

    expect(result.finalOutput).toBe('seen');
    const offered = model.calls.map((call) => call.request.tools.map((tool) => tool.name));
    expect(offered[0]!.sort()).toEqual(['tools_groups', 'tools_search', 'tools_select']);
    const select = model.calls[0]!.request.tools.find((tool) => tool.name === 'tools_select') as { description: string; parameters: { properties: unknown } };
    const definition = host.definitions().find((candidate) => candidate.name === 'tools_select')!;
    expect(select.description).toBe(definition.description);
    expect(select.parameters.properties).toEqual(definition.parameters.properties);
    expect(offered[1]).toEqual(expect.arrayContaining(['tools_select', 'mcp_everything_echo', 'mcp_everything_get_tiny_image']));
    const image = results(model.calls[2]!.request).get('image-1') as Array<{ type: string; image?: string }>;
    expect(image.find((part) => part.type === 'input_image')?.image).toMatch(/^data:image\/png;base64,/);
    expect(snapshot(host)).toBe(before);
  });

  it('applies the SDK tool filter to the listed tools', async () => {
    const { host } = await started([everything]);
    const server = openAIAgentsMcpServer(host, { toolFilter: { allowedToolNames: ['mcp_everything_echo'] } });
    await server.connect();
    const model = new ScriptedModel([[functionCall('mcp_everything_echo', { message: 'filtered' }, { callId: 'echo-1' })], [assistantMessage('done')]]);
    const agent = new Agent({ name: 'fleet', model, mcpServers: [server] });

    await run(agent, 'Echo.');

    expect(model.calls[0]!.request.tools.map((tool) => tool.name)).toEqual(['mcp_everything_echo']);
    expect(text(results(model.calls[1]!.request).get('echo-1'))).toBe('Echo: filtered');
  });

  it('shows in the SDK traces as an MCP server: a list-tools span under its name, and the call span marked with it', async () => {
    const { host } = await started([everything]);
    const spans: SpanData[] = [];
    const collector: TracingProcessor = {
      onTraceStart: () => Promise.resolve(),
      onTraceEnd: () => Promise.resolve(),
      onSpanStart: () => Promise.resolve(),
      onSpanEnd: (span) => Promise.resolve(void spans.push(span.spanData as SpanData)),
      shutdown: () => Promise.resolve(),
      forceFlush: () => Promise.resolve(),
    };
    setTraceProcessors([collector]);
    setTracingDisabled(false);
    try {
      const model = new ScriptedModel([[functionCall('mcp_everything_echo', { message: 'traced' }, { callId: 'echo-1' })], [assistantMessage('done')]]);
      const agent = new Agent({ name: 'fleet', model, mcpServers: [openAIAgentsMcpServer(host, { name: 'fleet-host' })] });
      await run(agent, 'Echo.');
    } finally {
      setTracingDisabled(true);
      setTraceProcessors([]);
    }

    expect(spans).toContainEqual(expect.objectContaining({ type: 'mcp_tools', server: 'fleet-host', result: expect.arrayContaining(['mcp_everything_echo']) as unknown }));
    expect(spans).toContainEqual(expect.objectContaining({ type: 'function', name: 'mcp_everything_echo', mcp_data: { server: 'fleet-host' } }));
  });
});

describe.each([
  { form: 'function tools', agent: (host: ToolHost, model: ScriptedModel) => new Agent({ name: 'fleet', model, tools: openAIAgentsTools(host) }) },
  { form: 'an MCP server', agent: (host: ToolHost, model: ScriptedModel) => new Agent({ name: 'fleet', model, mcpServers: [openAIAgentsMcpServer(host)] }) },
])('either form ($form)', ({ agent }) => {
  it('ends a run aborted during a hung MCP call, and the server sees the cancellation', async () => {
    const log = observationLog();
    const { host } = await started([stdioFixture('ctx', 'context-server.mjs', { env: { FIXTURE_LOG: log } })]);
    const model = new ScriptedModel([[functionCall('mcp_ctx_hang', {}, { callId: 'hang-1' })], [assistantMessage('never')]]);
    const controller = new AbortController();

    const running = run(agent(host, model), 'Wait for it.', { signal: controller.signal });
    const settled = running.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await vi.waitFor(() => expect(observed(log)).toContainEqual(expect.objectContaining({ method: 'tools/call' })), DELIVERY);
    const reason = new Error('the user stopped the run');
    controller.abort(reason);

    expect(await settled).toBe(reason);
    expect(model.calls).toHaveLength(1);
    const callId = observed(log).find((entry) => entry.method === 'tools/call')!.id;
    await vi.waitFor(() => expect(observed(log)).toContainEqual(expect.objectContaining({ method: 'notifications/cancelled', requestId: callId })), DELIVERY);
  });

  it('gives a server-side failure to the model as the tool result, and the run goes on to another step', async () => {
    const { host } = await started([stdioFixture('ctx', 'context-server.mjs')]);
    const model = new ScriptedModel([[functionCall('mcp_ctx_fail', {}, { callId: 'fail-1' })], [assistantMessage('recovered')]]);

    const result = await run(agent(host, model), 'Try it.');

    expect(result.finalOutput).toBe('recovered');
    const expected = await host.call('mcp_ctx_fail', {});
    expect(expected.isError).toBe(true);
    expect(text(results(model.calls[1]!.request).get('fail-1'))).toBe(presented(expected));
  });
});
