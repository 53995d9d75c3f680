import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  McpConfigError,
  type McpElicitationHandler,
  type McpElicitationRequest,
  type McpLifecycle,
  type McpServerConfig,
  McpToolProvider,
  presentationText,
  ToolHost,
  type ToolOutput,
} from '../src/index.js';
import { observationLog, observed, stdioFixture } from './helpers.js';

const providers: McpToolProvider[] = [];
const hosts: ToolHost[] = [];
afterEach(async () => {
  await Promise.all([...providers.splice(0).map((provider) => provider.close()), ...hosts.splice(0).map((host) => host.close())]);
});

async function started(servers: McpServerConfig[], elicitation?: McpElicitationHandler): Promise<McpToolProvider> {
  const provider = new McpToolProvider({ servers, ...(elicitation ? { elicitation } : {}) });
  providers.push(provider);
  await provider.init();
  return provider;
}

const text = (output: ToolOutput): string => (output.modelOutput === undefined ? '' : presentationText(output.modelOutput));

/** A person who answers every form with `answer` and accepts every URL. */
function person(answer: (request: McpElicitationRequest) => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, boolean> }>) {
  const seen: McpElicitationRequest[] = [];
  const handler: McpElicitationHandler = {
    modes: ['form', 'url'],
    elicit: (request) => {
      seen.push(request);
      return answer(request);
    },
  };
  return { handler, seen };
}

const interactive = (lifecycle: McpLifecycle, extra: Partial<McpServerConfig> = {}, log?: string) =>
  stdioFixture('i', 'interactive-server.mjs', { env: log ? { FIXTURE_LOG: log } : {}, config: { lifecycle, elicitation: true, ...extra } });

describe('elicitation, on both protocol eras', () => {
  for (const lifecycle of ['discover', 'initialize'] as const) {
    const era = lifecycle === 'discover' ? '2026-07-28 input_required round' : '2025 server request';
    it(`answers a form through the application handler and fills in the defaults left empty (${era})`, async () => {
      const { handler, seen } = person(() => Promise.resolve({ action: 'accept', content: { proceed: true } }));
      const provider = await started([interactive(lifecycle)], handler);
      const result = await provider.call('mcp_i_confirm', {});
      expect(result.isError).toBe(false);
      expect(text(result)).toBe('accepted {"proceed":true,"note":"no note"}');
      expect(seen).toEqual([expect.objectContaining({ mode: 'form', message: 'Proceed with the action?' })]);
    });

    it(`passes URL elicitations to a handler that supports them (${era})`, async () => {
      const { handler, seen } = person(() => Promise.resolve({ action: 'accept' }));
      const provider = await started([interactive(lifecycle)], handler);
      expect(text(await provider.call('mcp_i_open_url', {}))).toBe('accepted {}');
      expect(seen[0]).toMatchObject({ mode: 'url', url: 'https://example.com/login' });
    });

    it(`turns a declining person into a decline the server reads (${era})`, async () => {
      const { handler } = person(() => Promise.resolve({ action: 'decline' }));
      const provider = await started([interactive(lifecycle)], handler);
      expect(text(await provider.call('mcp_i_confirm', {}))).toBe('declined');
    });

    it(`declines an accepted answer that does not fit the form, instead of failing the call (${era})`, async () => {
      for (const content of [{ proceed: 'definitely' }, { proceed: true, extra: 'not a field' }, { proceed: { nested: true } }]) {
        // A handler written in plain JavaScript, or typed loosely, can answer anything.
        const { handler } = person(() => Promise.resolve({ action: 'accept', content: content as unknown as Record<string, boolean> }));
        const provider = await started([interactive(lifecycle)], handler);
        const result = await provider.call('mcp_i_confirm', {});
        expect(result.isError).toBe(false);
        expect(text(result)).toBe('declined');
      }
    });

    it(`passes a multi-select answer that fits its choices, and declines one that does not (${era})`, async () => {
      for (const [tags, expected] of [
        [['red', 'blue'], 'accepted {"tags":["red","blue"]}'],
        [['purple'], 'declined'],
      ] as const) {
        const { handler } = person(() => Promise.resolve({ action: 'accept', content: { tags } as unknown as Record<string, boolean> }));
        const provider = await started([interactive(lifecycle)], handler);
        expect(text(await provider.call('mcp_i_pick', {}))).toBe(expected);
      }
    });

    it(`declines when the handler throws, and the session stays usable (${era})`, async () => {
      const { handler } = person(() => Promise.reject(new Error('the UI crashed')));
      const provider = await started([interactive(lifecycle)], handler);
      expect(text(await provider.call('mcp_i_confirm', {}))).toBe('declined');
      expect(text(await provider.call('mcp_i_confirm', {}))).toBe('declined');
    });

    it(`declines when the person does not answer within timeouts.elicitationMs (${era})`, async () => {
      let aborted = false;
      const handler: McpElicitationHandler = {
        elicit: (_request, context) =>
          new Promise((_, reject) => {
            context.signal.addEventListener('abort', () => {
              aborted = true;
              reject(new Error('gave up'));
            });
          }),
      };
      const provider = await started([interactive(lifecycle, { timeouts: { elicitationMs: 300 } })], handler);
      expect(text(await provider.call('mcp_i_confirm', {}))).toBe('declined');
      expect(aborted).toBe(true);
    });

    it(`answers a round that asks for sampling with a tool-level error, opening no prompt (${era})`, async () => {
      const { handler, seen } = person(() => Promise.resolve({ action: 'accept', content: { proceed: true } }));
      const provider = await started([interactive(lifecycle)], handler);
      for (const tool of ['sample', 'mixed']) {
        const result = await provider.call(`mcp_i_${tool}`, {});
        expect(result.isError).toBe(true);
        expect(text(result)).toContain('sampling/createMessage');
      }
      expect(seen).toEqual([]);
    });
  }

  it('checks a careless server\'s round before any prompt, naming what it asked for', async () => {
    const { handler, seen } = person(() => Promise.resolve({ action: 'accept', content: { ok: true } }));
    const provider = await started(
      [stdioFixture('t', 'task-server.mjs', { config: { lifecycle: 'discover', elicitation: true } })],
      handler,
    );
    const result = await provider.call('mcp_t_demand', {});
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('MCP tool "demand" on server "t" requires client-side input (requests: draft: sampling/createMessage)');
    expect(seen).toEqual([]);
  });
});

describe('@modelcontextprotocol/server-everything elicitation', () => {
  const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
  const config = (elicitation: boolean): McpServerConfig => ({
    id: 'e',
    elicitation,
    transport: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] },
  });

  it('answers its form elicitation through the handler, with the defaults filled in', async () => {
    const { handler, seen } = person(() => Promise.resolve({ action: 'accept', content: { check: true } }));
    const provider = await started([config(true)], handler);
    const result = await provider.call('mcp_e_trigger_elicitation_request', {});
    expect(result.isError).toBe(false);
    expect(seen[0]).toMatchObject({ mode: 'form', message: 'Please provide inputs for the following fields:' });
    // Fields left empty come back with the schema's defaults (SEP-1034).
    expect(text(result)).toContain('It was a dark and stormy night.');
    expect(text(result)).toContain('42');
  });

  it('passes its URL elicitation to a handler that supports URLs', async () => {
    const { handler, seen } = person(() => Promise.resolve({ action: 'accept' }));
    const provider = await started([config(true)], handler);
    const result = await provider.call('mcp_e_trigger_url_elicitation', { url: 'https://example.com/consent' });
    expect(seen[0]).toMatchObject({ mode: 'url', url: 'https://example.com/consent' });
    expect(result.isError).toBe(false);
  });

  it('offers no elicitation tools to a host that did not opt in', async () => {
    const { handler } = person(() => Promise.resolve({ action: 'accept' }));
    const provider = await started([config(false)], handler);
    const names = provider.definitions().map((definition) => definition.name);
    expect(names).not.toContain('mcp_e_trigger_elicitation_request');
    expect(names).toContain('mcp_e_echo');
  });
});

describe('without the two elicitation opt-ins', () => {
  for (const lifecycle of ['discover', 'initialize'] as const) {
    it(`advertises no elicitation capability and fails the round at tool level (${lifecycle})`, async () => {
      const { handler, seen } = person(() => Promise.resolve({ action: 'accept', content: { proceed: true } }));
      // A handler, but the server did not opt in.
      const provider = await started([interactive(lifecycle, { elicitation: false })], handler);
      const result = await provider.call('mcp_i_confirm', {});
      expect(result.isError).toBe(true);
      expect(text(result).toLowerCase()).toContain('capab');
      expect(seen).toEqual([]);
    });

    it(`declares no elicitation capability to a server that did not opt in, even with a handler (${lifecycle})`, async () => {
      const log = observationLog();
      const { handler } = person(() => Promise.resolve({ action: 'accept' }));
      await started([stdioFixture('t', 'task-server.mjs', { env: { FIXTURE_LOG: log }, config: { lifecycle } })], handler);
      const [declared] = observed(log).filter((entry) => entry.event === 'client-capabilities');
      expect(declared!.capabilities).toEqual({});
      const optedIn = observationLog();
      await started([stdioFixture('t', 'task-server.mjs', { env: { FIXTURE_LOG: optedIn }, config: { lifecycle, elicitation: true } })], handler);
      expect(observed(optedIn).find((entry) => entry.event === 'client-capabilities')!.capabilities).toEqual({
        elicitation: { form: { applyDefaults: true }, url: {} },
      });
    });
  }

  it('rejects `elicitation: true` without an application handler at configuration time', () => {
    expect(() => new McpToolProvider({ servers: [interactive('auto')] })).toThrow(McpConfigError);
    expect(() => new McpToolProvider({ servers: [interactive('auto')] })).toThrow(/"i": `elicitation` is true, but the provider has no elicitation handler/);
  });
});

describe('tasks', () => {
  const taskServer = (lifecycle: McpLifecycle, log: string, extra: Partial<McpServerConfig> = {}) =>
    stdioFixture('t', 'task-server.mjs', { env: { FIXTURE_LOG: log }, config: { lifecycle, tasks: {}, ...extra } });
  const events = (log: string, event: string) => observed(log).filter((entry) => entry.event === event);

  for (const lifecycle of ['discover', 'initialize'] as const) {
    const era = lifecycle === 'discover' ? 'SEP-2663 on 2026-07-28' : 'tasks on 2025-11-25';
    it(`polls a task to completion and returns its result as the call's (${era})`, async () => {
      const log = observationLog();
      const provider = await started([taskServer(lifecycle, log)]);
      const result = await provider.call('mcp_t_slow', { ms: 400 });
      expect(result.isError).toBe(false);
      expect(text(result)).toBe('done after 400 ms');
      expect(events(log, 'task-created')).toHaveLength(1);
      expect(events(log, 'tasks-get').length).toBeGreaterThan(0);
    });

    it(`returns the result of a task that is already completed when its handle arrives (${era})`, async () => {
      const log = observationLog();
      const provider = await started([taskServer(lifecycle, log)]);
      const result = await provider.call('mcp_t_instant', {});
      expect(result.isError).toBe(false);
      expect(text(result)).toBe('done at once');
    });

    it(`returns a tool error inside a completed task as an error result (${era})`, async () => {
      const provider = await started([taskServer(lifecycle, observationLog())]);
      const result = await provider.call('mcp_t_tool_error', {});
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('the job went wrong');
    });

    it(`reports a failed task as a tool-level error (${era})`, async () => {
      const provider = await started([taskServer(lifecycle, observationLog())]);
      const result = await provider.call('mcp_t_broken', {});
      expect(result).toMatchObject({ isError: true, output: { error: { code: 'task_failed' } } });
      expect(text(result)).toMatch(/MCP task task-\d+ of tool "broken" on server "t" failed/);
    });

    it(`cancels a task on the server when the caller aborts (${era})`, async () => {
      const log = observationLog();
      const provider = await started([taskServer(lifecycle, log)]);
      const controller = new AbortController();
      const call = provider.call('mcp_t_forever', {}, { signal: controller.signal });
      await vi.waitFor(() => expect(events(log, 'tasks-get').length).toBeGreaterThan(0));
      controller.abort(new Error('stop'));
      await expect(call).rejects.toThrow('stop');
      await vi.waitFor(() => expect(events(log, 'tasks-cancel')).toHaveLength(1));
    });

    it(`cancels a task that outlives tasks.maxWaitMs, with a tool-level timeout (${era})`, async () => {
      const log = observationLog();
      const provider = await started([taskServer(lifecycle, log, { tasks: { maxWaitMs: 1_000 } })]);
      const result = await provider.call('mcp_t_forever', {});
      expect(result).toMatchObject({ isError: true, output: { error: { code: 'task_timeout' } } });
      expect(text(result)).toContain('tasks.maxWaitMs (1000 ms)');
      await vi.waitFor(() => expect(events(log, 'tasks-cancel')).toHaveLength(1));
    });

    it(`cancels a task that asks for input it cannot get (${era})`, async () => {
      const log = observationLog();
      const provider = await started([taskServer(lifecycle, log)]);
      const result = await provider.call('mcp_t_ask', {});
      expect(result).toMatchObject({ isError: true, output: { error: { code: 'task_input_required' } } });
      await vi.waitFor(() => expect(events(log, 'tasks-cancel')).toHaveLength(1));
    });
  }

  for (const lifecycle of ['discover', 'initialize'] as const) {
    const era = lifecycle === 'discover' ? 'SEP-2663 on 2026-07-28' : 'tasks on 2025-11-25, through the SDK';
    it(`cancels a task whose handle arrives only after the caller aborted (${era})`, async () => {
      const log = observationLog();
      const provider = await started([taskServer(lifecycle, log)]);
      const controller = new AbortController();
      const call = provider.call('mcp_t_forever', { replyAfter: 400 }, { signal: controller.signal });
      await vi.waitFor(() => expect(events(log, 'task-created')).toHaveLength(1));
      controller.abort(new Error('gone'));
      await expect(call).rejects.toThrow('gone');
      const { taskId } = events(log, 'task-created')[0]!;
      expect(events(log, 'tasks-cancel')).toHaveLength(0);
      // The handle comes 400 ms after the task was made; the host cancels it then.
      await vi.waitFor(() => expect(events(log, 'tasks-cancel').map((entry) => entry.taskId)).toEqual([taskId]), { timeout: 3_000 });
    });
  }

  for (const lifecycle of ['discover', 'initialize'] as const) {
    it(`completes a task-returning tool through ToolHost.call with the result in modelOutput, and cancels an aborted one (${lifecycle})`, async () => {
      const log = observationLog();
      const host = new ToolHost({ providers: [new McpToolProvider({ servers: [taskServer(lifecycle, log)] })] });
      hosts.push(host);
      await host.init();
      const result = await host.call('mcp_t_slow', { ms: 300 });
      expect(result.isError).toBe(false);
      expect(result.modelOutput).toMatchObject({ type: 'ToolPresentation', parts: [{ type: 'text', text: 'done after 300 ms' }] });
      const controller = new AbortController();
      const call = host.call('mcp_t_forever', {}, { signal: controller.signal });
      // Aborted once the host polls the task: the server logs the task before it answers,
      // so its log alone does not mean the host has the handle yet.
      await vi.waitFor(() => expect(events(log, 'task-created')).toHaveLength(2));
      const forever = events(log, 'task-created')[1]!.taskId;
      await vi.waitFor(() => expect(events(log, 'tasks-get').some((entry) => entry.taskId === forever)).toBe(true));
      controller.abort(new Error('the user moved on'));
      await expect(call).rejects.toThrow('the user moved on');
      await vi.waitFor(() => expect(events(log, 'tasks-cancel')).toHaveLength(1));
    });
  }

  for (const lifecycle of ['discover', 'initialize'] as const) {
    it(`finishes a task call already polling when its session is retired (disconnectServer, ${lifecycle})`, async () => {
      const log = observationLog();
      const provider = await started([taskServer(lifecycle, log)]);
      const call = provider.call('mcp_t_slow', { ms: 800 });
      await vi.waitFor(() => expect(events(log, 'tasks-get').length).toBeGreaterThan(0));
      await provider.disconnectServer('t');
      const result = await call;
      expect(result.isError).toBe(false);
      expect(text(result)).toBe('done after 800 ms');
    });
  }

  it('calls a tool the catalog does not publish on a 2025 server with tasks on, without a task', async () => {
    const log = observationLog();
    const provider = await started([taskServer('initialize', log, { exclude: ['sync'] })]);
    expect(provider.definitions().map((definition) => definition.name)).not.toContain('mcp_t_sync');
    const result = await provider.callServerTool('t', 'sync');
    expect(result.isError).not.toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'sync answer' }]);
  });

  it('clamps a 1 ms poll interval to 250 ms', async () => {
    const log = observationLog();
    const provider = await started([taskServer('discover', log)]);
    expect((await provider.call('mcp_t_slow', { ms: 1_000, poll: 1 })).isError).toBe(false);
    // At 1 ms a second this would be hundreds of polls; at 250 ms it is about four.
    expect(events(log, 'tasks-get').length).toBeLessThanOrEqual(6);
  });

  it('clamps a one-hour poll interval to 10 s', async () => {
    const log = observationLog();
    const provider = await started([taskServer('discover', log)]);
    const result = await provider.call('mcp_t_slow', { ms: 100, poll: 3_600_000 });
    expect(result.isError).toBe(false);
    expect(events(log, 'tasks-get')).toHaveLength(1);
  }, 20_000);

  it('declares the tasks extension only when configured, and cancels a task it did not ask for', async () => {
    const withTasks = observationLog();
    await started([taskServer('discover', withTasks)]);
    expect(events(withTasks, 'client-capabilities')[0]!.capabilities).toMatchObject({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
    const without = observationLog();
    const provider = await started([stdioFixture('t', 'task-server.mjs', { env: { FIXTURE_LOG: without }, config: { lifecycle: 'discover' } })]);
    expect(events(without, 'client-capabilities')[0]!.capabilities).toEqual({});
    const result = await provider.call('mcp_t_slow', {});
    expect(result).toMatchObject({ isError: true, output: { error: { code: 'task_unexpected' } } });
    expect(text(result)).toContain('tasks extension is not enabled');
    await vi.waitFor(() => expect(events(without, 'tasks-cancel')).toHaveLength(1));
  });

  it('completes a task-required tool of @modelcontextprotocol/server-everything through the host', async () => {
    const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
    const provider = await started([{ id: 'e', tasks: {}, transport: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'] } }]);
    const result = await provider.call('mcp_e_simulate_research_query', { topic: 'bees' });
    expect(result.isError).toBe(false);
    expect(text(result)).toContain('# Research Report: bees');
  });
});
