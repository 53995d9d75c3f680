/**
 * The LangChain adapter in LangChain's own agent loop: `createAgent` from `langchain`
 * with its scripted test model (`FakeToolCallingModel`), calling tools of real MCP
 * servers (server-everything and the context fixture). What the model received at each
 * step is recorded with a LangChain callback handler (`handleChatModelStart`), so the
 * assertions are on what the framework itself sent back to the model.
 */
import { createRequire } from 'node:module';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { createAgent, FakeToolCallingModel } from 'langchain';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { langChainSessionMiddleware, langChainToolContent, langChainTools, type LangChainToolArtifact } from '../src/adapters/langchain.js';
import { McpServerManager, McpToolProvider, type McpServerConfig, ToolHost } from '../src/index.js';
import { observationLog, observed, stdioFixture } from './helpers.js';

const everythingServer: McpServerConfig = {
  id: 'everything',
  transport: { type: 'stdio', command: process.execPath, args: [createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] },
};

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function everythingHost(): Promise<ToolHost> {
  const host = new ToolHost({ providers: [new McpToolProvider({ servers: [everythingServer] })] });
  closers.push(() => host.close());
  await host.init();
  return host;
}

async function contextProvider(log: string): Promise<McpToolProvider> {
  const provider = new McpToolProvider({ servers: [stdioFixture('context', 'context-server.mjs', { env: { FIXTURE_LOG: log } })] });
  closers.push(() => provider.close());
  await provider.init();
  return provider;
}

/** Records every request LangChain sends to the chat model, awaited so none is missed. */
class ModelRequests extends BaseCallbackHandler {
  name = 'model-requests';
  readonly requests: BaseMessage[][] = [];
  constructor() {
    super({ _awaitHandler: true });
  }
  override handleChatModelStart(_llm: unknown, messages: BaseMessage[][]): void {
    this.requests.push(messages[0] ?? []);
  }
}

interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
  id: string;
}

/** LangChain's scripted test model, which also records the tools the agent binds to it at each step. */
class ScriptedModel extends FakeToolCallingModel {
  readonly offered: string[][] = [];
  override bindTools(tools: Parameters<FakeToolCallingModel['bindTools']>[0]): ReturnType<FakeToolCallingModel['bindTools']> {
    this.offered.push(tools.map((tool) => tool.name));
    return super.bindTools(tools);
  }
}

/** One list of tool calls per step, then a final answer without any. */
function scriptedModel(steps: ScriptedCall[][]): ScriptedModel {
  // The model cycles through its steps, so a last step without tool calls ends the run.
  return new ScriptedModel({ toolCalls: [...steps, []] });
}

function toolMessages(request: BaseMessage[] | undefined): ToolMessage[] {
  return (request ?? []).filter((message): message is ToolMessage => ToolMessage.isInstance(message));
}

function resultFor(request: BaseMessage[] | undefined, callId: string): ToolMessage {
  const message = toolMessages(request).find((candidate) => candidate.tool_call_id === callId);
  if (message === undefined) throw new Error(`no tool result for ${callId} in the model request`);
  return message;
}

const user = { messages: [{ role: 'user', content: 'Use the tools.' }] };

describe('langChainTools in a LangChain agent', () => {
  it('runs echo and get-tiny-image of server-everything, and the second model request holds the echoed text and the image as an image block', async () => {
    const host = await everythingHost();
    const recorder = new ModelRequests();
    const agent = createAgent({
      model: scriptedModel([
        [
          { name: 'mcp_everything_echo', args: { message: 'hello fleet' }, id: 'call_echo' },
          { name: 'mcp_everything_get_tiny_image', args: {}, id: 'call_image' },
        ],
      ]),
      tools: langChainTools(host),
    });

    const result = await agent.invoke(user, { callbacks: [recorder] });

    expect(recorder.requests).toHaveLength(2);
    const second = recorder.requests[1];
    const echo = resultFor(second, 'call_echo');
    expect(echo.content).toBe('Echo: hello fleet');
    expect(echo.status).toBe('success');
    const echoArtifact = echo.artifact as LangChainToolArtifact;
    expect(echoArtifact.isError).toBe(false);
    expect(echoArtifact.output).toMatchObject({ server_id: 'everything', tool: 'echo', isError: false });

    const image = resultFor(second, 'call_image');
    expect(Array.isArray(image.content)).toBe(true);
    const blocks = image.content as Array<Record<string, unknown>>;
    const imageBlock = blocks.find((block) => block.type === 'image');
    expect(imageBlock).toMatchObject({ type: 'image', mimeType: 'image/png' });
    // Base64 of a PNG file starts with the encoded signature; it is a block, never text.
    expect(String(imageBlock?.data).startsWith('iVBORw0KGgo')).toBe(true);
    expect(blocks.filter((block) => block.type === 'text').every((block) => !String(block.text).includes('iVBORw0KGgo'))).toBe(true);
    // LangChain's own standard view of the message reads it as an image block.
    expect(image.contentBlocks.some((block) => block.type === 'image')).toBe(true);
    expect((image.artifact as LangChainToolArtifact).output).toMatchObject({ tool: 'get-tiny-image' });

    expect(result.messages.at(-1)?.type).toBe('ai');
  });

  it('aborting the run during a hung MCP call ends the run, and the server sees the cancellation', async () => {
    const log = observationLog();
    const provider = await contextProvider(log);
    const controller = new AbortController();
    const agent = createAgent({ model: scriptedModel([[{ name: 'mcp_context_hang', args: {}, id: 'call_hang' }]]), tools: langChainTools(provider) });

    const run = agent.invoke(user, { signal: controller.signal });
    const settled = run.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    const call = await vi.waitFor(
      () => {
        const found = observed(log).find((observation) => observation.method === 'tools/call');
        if (found === undefined) throw new Error('the server has not seen the call yet');
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    controller.abort();

    const outcome = await settled;
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).name).toBe('AbortError');
    await vi.waitFor(
      () => expect(observed(log).some((observation) => observation.method === 'notifications/cancelled' && observation.requestId === call.id)).toBe(true),
      { timeout: 20_000, interval: 50 },
    );
  });

  it('gives the model tool-level errors (a server-side failure, an unknown name, arguments off the schema) as error results, and the run goes on', async () => {
    const log = observationLog();
    const provider = await contextProvider(log);
    const host = await everythingHost();
    const recorder = new ModelRequests();
    const agent = createAgent({
      model: scriptedModel([
        [{ name: 'mcp_context_fail', args: {}, id: 'call_fail' }],
        [{ name: 'mcp_context_nonexistent', args: {}, id: 'call_unknown' }],
        [{ name: 'mcp_everything_echo', args: { message: 42 }, id: 'call_bad_args' }],
        [{ name: 'mcp_everything_echo', args: { message: 'still here' }, id: 'call_after' }],
      ]),
      tools: [...langChainTools(provider), ...langChainTools(host)],
    });

    const result = await agent.invoke(user, { callbacks: [recorder] });

    expect(recorder.requests).toHaveLength(5);
    const failed = resultFor(recorder.requests[1], 'call_fail');
    expect(failed.status).toBe('error');
    expect(failed.content).toBe('this tool always fails');
    expect(failed.artifact).toMatchObject({ isError: true, output: { server_id: 'context', tool: 'fail', isError: true } });

    const unknown = resultFor(recorder.requests[2], 'call_unknown');
    expect(unknown.status).toBe('error');
    expect(unknown.text).toContain('mcp_context_nonexistent');

    // LangChain checks the arguments against the (copied) schema first, and says why they failed.
    const badArgs = resultFor(recorder.requests[3], 'call_bad_args');
    expect(badArgs.status).toBe('error');
    expect(badArgs.text).toContain('message');

    expect(resultFor(recorder.requests[4], 'call_after').content).toBe('Echo: still here');
    expect(result.messages.at(-1)?.type).toBe('ai');
    // The server ran the failing tool once, and nothing for the unknown name.
    expect(observed(log).filter((observation) => observation.method === 'tools/call')).toHaveLength(1);
  });

  it('reads a call past its timeoutMs as a timeout result, and the run goes on', async () => {
    const provider = await contextProvider(observationLog());
    const recorder = new ModelRequests();
    const agent = createAgent({ model: scriptedModel([[{ name: 'mcp_context_hang', args: {}, id: 'call_hang' }]]), tools: langChainTools(provider, { timeoutMs: 300 }) });

    await agent.invoke(user, { callbacks: [recorder] });

    const timedOut = resultFor(recorder.requests[1], 'call_hang');
    expect(timedOut.status).toBe('error');
    expect(timedOut.artifact).toMatchObject({ isError: true, output: { error: { code: 'timeout' } } });
  });

  it('takes an initialised McpServerManager as its source', async () => {
    const fleet = new McpServerManager({ servers: [everythingServer] });
    closers.push(() => fleet.shutdown());
    await fleet.startAll();
    const recorder = new ModelRequests();
    const tools = langChainTools(fleet);
    expect(tools.map((tool) => tool.name)).toContain('mcp_everything_echo');
    const agent = createAgent({ model: scriptedModel([[{ name: 'mcp_everything_echo', args: { message: 'from the fleet' }, id: 'call_1' }]]), tools });

    await agent.invoke(user, { callbacks: [recorder] });

    expect(resultFor(recorder.requests[1], 'call_1').content).toBe('Echo: from the fleet');
  });

  it('offers a ToolSession its discovery helpers, and the tools the model selected the next time it is asked', async () => {
    const host = await everythingHost();
    const session = host.session();
    const helpers = langChainTools(session);
    expect(helpers.map((tool) => tool.name)).toEqual(['tools_groups', 'tools_search', 'tools_select']);
    const recorder = new ModelRequests();
    const first = createAgent({ model: scriptedModel([[{ name: 'tools_select', args: { tools: [], group: 'mcp:everything' }, id: 'call_select' }]]), tools: helpers });

    await first.invoke(user, { callbacks: [recorder] });

    expect(resultFor(recorder.requests[1], 'call_select').text).toContain('mcp_everything_echo');
    const selected = langChainTools(session);
    expect(selected.map((tool) => tool.name)).toContain('mcp_everything_echo');
    const next = new ModelRequests();
    const second = createAgent({ model: scriptedModel([[{ name: 'mcp_everything_echo', args: { message: 'selected' }, id: 'call_echo' }]]), tools: selected });
    await second.invoke(user, { callbacks: [next] });
    expect(resultFor(next.requests[1], 'call_echo').content).toBe('Echo: selected');
  });

  it('offers, through the session middleware, what the model selected at its next step within one run, and sends unknown names to the host', async () => {
    const host = await everythingHost();
    const session = host.session();
    const recorder = new ModelRequests();
    const model = scriptedModel([
      [{ name: 'tools_select', args: { tools: [], group: 'mcp:everything' }, id: 'call_select' }],
      [
        { name: 'mcp_everything_echo', args: { message: 'in the same run' }, id: 'call_echo' },
        { name: 'mcp_everything_ecko', args: {}, id: 'call_typo' },
      ],
    ]);
    const agent = createAgent({ model, tools: [], middleware: [langChainSessionMiddleware(session)] });

    await agent.invoke(user, { callbacks: [recorder] });

    expect(model.offered[0]).toEqual(['tools_groups', 'tools_search', 'tools_select']);
    expect(model.offered[1]).toContain('mcp_everything_echo');
    expect(model.offered[1]?.slice(0, 3)).toEqual(['tools_groups', 'tools_search', 'tools_select']);
    expect(new Set(model.offered[1]).size).toBe(model.offered[1]?.length);
    const third = recorder.requests[2];
    expect(resultFor(third, 'call_echo').content).toBe('Echo: in the same run');
    const typo = resultFor(third, 'call_typo');
    expect(typo.status).toBe('error');
    expect(typo.text).toContain('mcp_everything_echo');
    expect(typo.artifact).toMatchObject({ isError: true, output: { error: { code: 'tool_not_found' } } });
  });

  it('keeps names and descriptions as the host has them, gives LangChain copies of the schemas, and a run mutates no definition', async () => {
    const host = await everythingHost();
    const before = JSON.stringify(host.definitions());
    const tools = langChainTools(host);
    for (const [index, definition] of host.definitions().entries()) {
      const tool = tools[index]!;
      expect(tool.name).toBe(definition.name);
      expect(tool.description).toBe(definition.description);
      expect(tool.schema).toEqual(definition.parameters);
      expect(tool.schema).not.toBe(definition.parameters);
      expect(tool.responseFormat).toBe('content_and_artifact');
    }
    const agent = createAgent({
      model: scriptedModel([
        [{ name: 'mcp_everything_get_sum', args: { a: 2, b: 3 }, id: 'call_sum' }],
        [{ name: 'mcp_everything_echo', args: { message: 'no mutation' }, id: 'call_echo' }],
      ]),
      tools,
    });

    await agent.invoke(user);

    expect(JSON.stringify(host.definitions())).toBe(before);
  });

  it('writes images as OpenAI Responses input blocks or as text notices when asked', async () => {
    const host = await everythingHost();
    const output = await host.call('mcp_everything_get_tiny_image', {});

    const responses = langChainToolContent(output, 'openai-responses') as Array<Record<string, unknown>>;
    expect(responses.every((block) => block.type === 'input_text' || block.type === 'input_image')).toBe(true);
    expect(responses.find((block) => block.type === 'input_image')?.image_url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);

    const text = langChainToolContent(output, 'text');
    expect(typeof text).toBe('string');
    expect(text).toContain('image/png');
    expect(text).not.toContain('iVBORw0KGgo');
  });
});
