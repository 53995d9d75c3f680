/**
 * `runToolCalls` on real servers: strict mode's nulls read as "not given", arguments
 * that are not JSON and unknown tools as results the model reads, order kept under
 * parallel and sequential runs, and the caller's abort ending the turn.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpToolProvider, ToolHost, type ToolOutput } from '../src/index.js';
import { anthropic, gemini, openaiChat, openaiResponses, type ModelToolCall } from '../src/projections/index.js';

const resolve = createRequire(import.meta.url).resolve;
let host: ToolHost;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'mcp-fleet-turn-'));
  await writeFile(join(folder, 'notes.txt'), 'one\ntwo\nthree\n');
  const stdio = (args: string[]) => ({ type: 'stdio' as const, command: process.execPath, args });
  host = new ToolHost({
    providers: [
      new McpToolProvider({
        servers: [
          { id: 'everything', transport: stdio([resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio']) },
          { id: 'filesystem', transport: stdio([resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), folder]) },
        ],
      }),
    ],
  });
  await host.init();
}, 60_000);

afterAll(async () => {
  await host.close();
  await rm(folder, { recursive: true, force: true });
});

const responsesCall = (id: string, name: string, args: unknown) => ({ type: 'function_call', call_id: id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });

describe('runToolCalls', () => {
  it('reads a strict-mode null for an optional property as "not given", so the server accepts the call', async () => {
    const path = join(folder, 'notes.txt');
    // What a model under strict mode sends for read_text_file: every property, the unused ones null.
    const results = await openaiResponses.runToolCalls(host, [responsesCall('c1', 'mcp_filesystem_read_text_file', { path, head: null, tail: null })]);
    expect(results[0]!.output).toContain('one\ntwo\nthree');
    // Without the host's reading, the same arguments are refused by the server.
    const direct = await host.call('mcp_filesystem_read_text_file', { path, head: null, tail: null });
    expect(direct.isError).toBe(true);
  });

  it('answers arguments that are not JSON and unknown tools with results the model reads, and runs the other calls', async () => {
    const reported: Array<[string, number, boolean]> = [];
    const onOutput = (call: ModelToolCall, output: ToolOutput, index: number): void => void reported.push([call.id, index, output.isError]);
    const results = await openaiChat.runToolCalls(host, {
      tool_calls: [
        { id: 'bad', type: 'function', function: { name: 'mcp_everything_echo', arguments: '{"message": "unterminated' } },
        { id: 'unknown', type: 'function', function: { name: 'mcp_nowhere_tool', arguments: '{}' } },
        { id: 'good', type: 'function', function: { name: 'mcp_everything_echo', arguments: '{"message":"still here"}' } },
      ],
    }, { onOutput });
    // Every call is reported, with its place in the model's order, the unparsable one included.
    expect(reported.sort((a, b) => a[1] - b[1])).toEqual([['bad', 0, true], ['unknown', 1, true], ['good', 2, false]]);
    expect(results.map((message) => message.tool_call_id)).toEqual(['bad', 'unknown', 'good']);
    expect(results[0]!.content).toMatch(/^The arguments for tool "mcp_everything_echo" are not valid JSON/);
    expect(results[1]!.content).toContain('mcp_nowhere_tool');
    expect(results[2]!.content).toBe('Echo: still here');
  });

  it('keeps the model order in parallel and sequential runs and reports each neutral output', async () => {
    const blocks = [
      { type: 'tool_use', id: 'slow', name: 'mcp_everything_trigger_long_running_operation', input: { duration: 0.3, steps: 1 } },
      // On another server, since calls to one server follow its concurrency policy (one at a time by default).
      { type: 'tool_use', id: 'fast', name: 'mcp_filesystem_list_allowed_directories', input: {} },
    ];
    for (const concurrency of ['parallel', 'sequential'] as const) {
      const seen: Array<[ModelToolCall, ToolOutput]> = [];
      const results = await anthropic.runToolCalls(host, { content: blocks }, { concurrency, onOutput: (call, output) => seen.push([call, output]) });
      expect(results.map((block) => block.tool_use_id)).toEqual(['slow', 'fast']);
      expect(results.every((block) => block.is_error === undefined)).toBe(true);
      expect(seen.map(([call]) => call.id)).toEqual(concurrency === 'parallel' ? ['fast', 'slow'] : ['slow', 'fast']);
    }
  });

  it('rejects with the caller\'s abort while a call hangs, once every call of the turn has settled', async () => {
    const controller = new AbortController();
    const parts = [{ functionCall: { id: 'long', name: 'mcp_everything_trigger_long_running_operation', args: { duration: 30, steps: 3 } } }];
    const turn = gemini.runToolCalls(host, { parts }, { model: 'gemini-3-pro-preview', signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user stopped the run')), 200);
    await expect(turn).rejects.toThrow('user stopped the run');
    // The server is still usable afterwards.
    const [after] = await gemini.runToolCalls(host, { parts: [{ functionCall: { name: 'mcp_everything_echo', args: { message: 'after' } } }] }, { model: 'gemini-3-pro-preview' });
    expect(after!.functionResponse).toEqual({ name: 'mcp_everything_echo', response: { output: 'Echo: after' } });
  });

  it('returns no items for a response without tool calls', async () => {
    expect(await openaiResponses.runToolCalls(host, { output: [{ type: 'message', content: [] }] })).toEqual([]);
    expect(await openaiChat.runToolCalls(host, { choices: [{ message: { role: 'assistant', content: 'hi' } }] })).toEqual([]);
    expect(await anthropic.runToolCalls(host, [{ type: 'text', text: 'hi' }])).toEqual([]);
    expect(await gemini.runToolCalls(host, { candidates: [] }, { model: 'gemini-2.0-flash' })).toEqual([]);
  });
});
