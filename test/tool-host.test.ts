/**
 * Unit tests of `ToolHost` (catalog merge, routing, errors, life cycle; checklist P) and
 * `ToolSession` (discovered definitions joining the working set; checklist Q 196), with
 * static tools and a small in-test `ToolProvider`. No MCP server is involved.
 */
import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../src/core/budget.js';
import type { ToolGroup } from '../src/core/group.js';
import { ToolHost, ToolHostError, toolError } from '../src/core/host.js';
import { presentationText, textPresentation } from '../src/core/presentation.js';
import type { ToolProvider } from '../src/core/provider.js';
import { ToolSession } from '../src/core/session.js';
import type { StaticTool, ToolCallOptions, ToolDefinition, ToolOutput } from '../src/core/tool.js';

function definition(name: string, description = `The ${name} tool.`, parameters?: Record<string, unknown>): ToolDefinition {
  return { name, description, parameters: parameters ?? { type: 'object', properties: { value: { type: 'string' } } } };
}

interface Recorded {
  name: string;
  args: unknown;
}

/** A static tool recording its calls, returning `{ tool, args }`. */
function staticTool(name: string, events: string[] = [], behaviour?: (args: Record<string, unknown>, options: ToolCallOptions) => ToolOutput | Promise<ToolOutput>): StaticTool & { calls: Recorded[] } {
  const calls: Recorded[] = [];
  return {
    calls,
    definition: definition(name),
    init: () => {
      events.push(`init:${name}`);
    },
    call: (args, options) => {
      calls.push({ name, args });
      return behaviour?.(args, options) ?? { output: { tool: name, args }, isError: false };
    },
    close: () => {
      events.push(`close:${name}`);
    },
  };
}

/** A provider with a mutable catalog that records what the host asks of it. */
class FakeProvider implements ToolProvider {
  readonly calls: Recorded[] = [];
  failRefresh: Error | undefined;
  failClose: Error | undefined;

  constructor(
    readonly name: string,
    public tools: ToolDefinition[],
    public toolGroups: ToolGroup[] = [],
    private readonly events: string[] = [],
  ) {}
  definitions(): ToolDefinition[] {
    return this.tools.map((tool) => ({ ...tool }));
  }
  groups(): ToolGroup[] {
    return this.toolGroups.map((group) => ({ ...group, members: [...group.members] }));
  }
  has(name: string): boolean {
    return this.tools.some((tool) => tool.name.toLowerCase() === name);
  }
  init(): Promise<void> {
    this.events.push(`init:${this.name}`);
    return Promise.resolve();
  }
  refresh(): Promise<void> {
    this.events.push(`refresh:${this.name}`);
    return this.failRefresh === undefined ? Promise.resolve() : Promise.reject(this.failRefresh);
  }
  call(name: string, args: unknown): Promise<ToolOutput> {
    this.calls.push({ name, args });
    return Promise.resolve({ output: { provider: this.name, tool: name }, isError: false });
  }
  close(): Promise<void> {
    this.events.push(`close:${this.name}`);
    return this.failClose === undefined ? Promise.resolve() : Promise.reject(this.failClose);
  }
}

function errorOf(result: ToolOutput): { code: string; message: string; [key: string]: unknown } {
  return (result.output as { error: { code: string; message: string } }).error;
}

describe('ToolHost registration', () => {
  it('rejects an invalid static tool name', () => {
    const host = new ToolHost();
    for (const name of ['', 'Upper', '9lives', 'dot.name', 'a'.repeat(65)]) {
      let thrown: unknown;
      try {
        host.addTool(staticTool(name));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ToolHostError);
      expect((thrown as ToolHostError).code).toBe('invalid_tool_name');
    }
  });

  it('rejects a duplicate static tool, including one named like a discovery helper', () => {
    const host = new ToolHost({ tools: [staticTool('echo')] });
    expect(() => host.addTool(staticTool('echo'))).toThrow(ToolHostError);
    expect(() => host.addTool(staticTool('tools_search'))).toThrow(/already registered/);
  });

  it('rejects a second provider with the same name', () => {
    const host = new ToolHost({ providers: [new FakeProvider('mcp', [])] });
    expect(() => host.addProvider(new FakeProvider('mcp', []))).toThrow(expect.objectContaining({ code: 'duplicate_provider' }));
  });

  it('lists static tools first, then provider tools not shadowed, keeping the first provider on a clash', () => {
    const host = new ToolHost({
      discovery: false,
      tools: [staticTool('shared')],
      providers: [
        new FakeProvider('one', [definition('shared', 'Provider copy.'), definition('one_tool'), definition('dup')]),
        new FakeProvider('two', [definition('dup', 'Second copy.'), definition('two_tool')]),
      ],
    });
    expect(host.definitions()).toEqual([definition('shared'), definition('one_tool'), definition('dup'), definition('two_tool')]);
  });

  it('sees provider catalog changes at once', () => {
    const provider = new FakeProvider('p', [definition('first_tool')]);
    const host = new ToolHost({ discovery: false, providers: [provider] });
    provider.tools = [definition('second_tool')];
    expect(host.definitions().map((entry) => entry.name)).toEqual(['second_tool']);
  });
});

describe('ToolHost.call', () => {
  it('routes to a static tool case-insensitively and passes the arguments through', async () => {
    const echo = staticTool('echo');
    const host = new ToolHost({ tools: [echo] });
    const result = await host.call('  ECHO ', { value: 'hi' });
    expect(result).toEqual({ output: { tool: 'echo', args: { value: 'hi' } }, isError: false });
    expect(echo.calls).toEqual([{ name: 'echo', args: { value: 'hi' } }]);
  });

  it('routes to the owning provider with the lowercased name', async () => {
    const one = new FakeProvider('one', [definition('one_tool')]);
    const two = new FakeProvider('two', [definition('two_tool')]);
    const host = new ToolHost({ providers: [one, two] });
    expect(await host.call('Two_Tool', { value: 1 })).toEqual({ output: { provider: 'two', tool: 'two_tool' }, isError: false });
    expect(two.calls).toEqual([{ name: 'two_tool', args: { value: 1 } }]);
    expect(one.calls).toEqual([]);
  });

  it('calls the static tool, not the provider, for a shadowed name', async () => {
    const shadowed = staticTool('shared');
    const provider = new FakeProvider('p', [definition('shared')]);
    const host = new ToolHost({ tools: [shadowed], providers: [provider] });
    await host.call('shared', {});
    expect(shadowed.calls).toHaveLength(1);
    expect(provider.calls).toEqual([]);
  });

  it('treats null or missing arguments as an empty object', async () => {
    const echo = staticTool('echo');
    const host = new ToolHost({ tools: [echo] });
    await host.call('echo', null);
    await host.call('echo', undefined);
    expect(echo.calls.map((call) => call.args)).toEqual([{}, {}]);
  });

  it('returns a tool-level error for non-object arguments without calling the tool', async () => {
    const echo = staticTool('echo');
    const host = new ToolHost({ tools: [echo] });
    for (const [args, kind] of [
      ['text', 'string'],
      [42, 'number'],
      [true, 'boolean'],
      [[1, 2], 'an array'],
    ] as const) {
      const result = await host.call('echo', args);
      expect(result.isError).toBe(true);
      expect(errorOf(result)).toEqual({
        code: 'invalid_arguments',
        message: `Tool "echo" expects a JSON object of arguments, got ${kind}.`,
        tool: 'echo',
      });
      expect(presentationText(result.modelOutput!)).toBe(`Tool "echo" expects a JSON object of arguments, got ${kind}.`);
    }
    expect(echo.calls).toEqual([]);
  });

  it('returns a tool-level error with did_you_mean suggestions for an unknown name', async () => {
    const host = new ToolHost({ tools: [staticTool('echo')], providers: [new FakeProvider('p', [definition('mcp_files_read_file')])] });
    const typo = await host.call('ecoh', {});
    expect(typo.isError).toBe(true);
    expect(errorOf(typo)).toEqual({
      code: 'tool_not_found',
      message: 'Tool "ecoh" was not found. Did you mean: echo?',
      tool: 'ecoh',
      did_you_mean: ['echo'],
    });
    const bare = await host.call('read_file', {});
    expect(errorOf(bare).did_you_mean).toEqual(['mcp_files_read_file']);
  });

  it('points at the discovery helpers when nothing is close', async () => {
    const host = new ToolHost({ tools: [staticTool('echo')], discovery: false });
    const result = await host.call('completely_different', {});
    expect(result.isError).toBe(true);
    expect(errorOf(result).did_you_mean).toEqual([]);
    expect(errorOf(result).message).toBe('Tool "completely_different" was not found. Use tools_search or tools_groups to find available tools.');
  });

  it('converts a throwing static tool into a tool-level error', async () => {
    const host = new ToolHost({
      tools: [
        staticTool('broken', [], () => {
          throw new Error('disk full');
        }),
        staticTool('rejects', [], () => Promise.reject(new Error('no network'))),
        staticTool('throws_string', [], () => {
          // A tool may throw a non-Error value; the host must still report it.
          // eslint-disable-next-line @typescript-eslint/only-throw-error
          throw 'plain string';
        }),
      ],
    });
    const broken = await host.call('BROKEN', {});
    expect(broken.isError).toBe(true);
    expect(errorOf(broken)).toEqual({ code: 'tool_failed', message: 'Tool "broken" failed: disk full', tool: 'broken' });
    expect(presentationText(broken.modelOutput!)).toBe('Tool "broken" failed: disk full');
    expect(errorOf(await host.call('rejects', {})).message).toBe('Tool "rejects" failed: no network');
    expect(errorOf(await host.call('throws_string', {})).message).toBe('Tool "throws_string" failed: plain string');
  });

  it('passes a tool-level error result of a static tool through unchanged', async () => {
    const failure = toolError('custom', 'Custom failure.', { extra: 1 });
    const host = new ToolHost({ tools: [staticTool('soft_fail', [], () => failure)] });
    expect(await host.call('soft_fail', {})).toEqual({
      output: { error: { code: 'custom', message: 'Custom failure.', extra: 1 } },
      modelOutput: textPresentation('Custom failure.'),
      isError: true,
    });
  });

  it('rejects with the reason of an already aborted signal and does not call the tool', async () => {
    const echo = staticTool('echo');
    const host = new ToolHost({ tools: [echo] });
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    controller.abort(reason);
    await expect(host.call('echo', {}, { signal: controller.signal })).rejects.toBe(reason);
    await expect(host.call('no_such_tool', 'bad', { signal: controller.signal })).rejects.toBe(reason);
    expect(echo.calls).toEqual([]);
  });

  it('rejects instead of returning an error result when a static tool fails because the call was aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const host = new ToolHost({
      tools: [
        staticTool('slow', [], (_args, options) => {
          controller.abort(reason);
          options.signal?.throwIfAborted();
          return { output: 'unreachable', isError: false };
        }),
      ],
    });
    await expect(host.call('slow', {}, { signal: controller.signal })).rejects.toBe(reason);
  });

  it('passes the signal to the static tool', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const host = new ToolHost({
      tools: [
        staticTool('probe', [], (_args, options) => {
          seen = options.signal;
          return { output: null, isError: false };
        }),
      ],
    });
    await host.call('probe', {}, { signal: controller.signal });
    expect(seen).toBe(controller.signal);
  });
});

describe('ToolHost life cycle', () => {
  it('initialises static tools before providers, each in registration order, once', async () => {
    const events: string[] = [];
    const host = new ToolHost({
      discovery: false,
      providers: [new FakeProvider('first', [], [], events), new FakeProvider('second', [], [], events)],
      tools: [staticTool('alpha', events), staticTool('beta', events)],
    });
    await host.init();
    await host.init();
    expect(events).toEqual(['init:alpha', 'init:beta', 'init:first', 'init:second']);
  });

  it('stops init at an aborted signal', async () => {
    const events: string[] = [];
    const host = new ToolHost({ discovery: false, tools: [staticTool('alpha', events)], providers: [new FakeProvider('p', [], [], events)] });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(host.init({ signal: controller.signal })).rejects.toThrow('stop');
    expect(events).toEqual([]);
  });

  it('refreshes every provider and rethrows a single failure as it is', async () => {
    const events: string[] = [];
    const ok = new FakeProvider('ok', [], [], events);
    const bad = new FakeProvider('bad', [], [], events);
    const failure = new Error('refresh failed');
    bad.failRefresh = failure;
    const host = new ToolHost({ providers: [bad, ok] });
    await expect(host.refresh()).rejects.toBe(failure);
    expect(events).toEqual(['refresh:bad', 'refresh:ok']);
  });

  it('aggregates several refresh failures', async () => {
    const one = new FakeProvider('one', []);
    const two = new FakeProvider('two', []);
    one.failRefresh = new Error('one failed');
    two.failRefresh = new Error('two failed');
    const host = new ToolHost({ providers: [one, two] });
    const error: unknown = await host.refresh().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors).toEqual([one.failRefresh, two.failRefresh]);
  });

  it('closes every provider and static tool, once, and refuses calls afterwards', async () => {
    const events: string[] = [];
    const host = new ToolHost({
      discovery: false,
      tools: [staticTool('alpha', events)],
      providers: [new FakeProvider('first', [], [], events), new FakeProvider('second', [], [], events)],
    });
    await host.close();
    await host.close();
    expect([...events].sort()).toEqual(['close:alpha', 'close:first', 'close:second']);
    await expect(host.call('alpha', {})).rejects.toThrow(expect.objectContaining({ code: 'host_closed' }));
  });

  it('closes the others when one fails, then reports the failure', async () => {
    const events: string[] = [];
    const bad = new FakeProvider('bad', [], [], events);
    bad.failClose = new Error('close failed');
    const host = new ToolHost({ discovery: false, tools: [staticTool('alpha', events)], providers: [bad, new FakeProvider('good', [], [], events)] });
    const error: unknown = await host.close().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors).toEqual([bad.failClose]);
    expect([...events].sort()).toEqual(['close:alpha', 'close:bad', 'close:good']);
  });
});

describe('ToolSession', () => {
  const HELPERS = ['tools_groups', 'tools_search', 'tools_select'];

  function catalogHost(count: number, options: { description?: (i: number) => string } = {}): { host: ToolHost; provider: FakeProvider } {
    const tools = Array.from({ length: count }, (_, i) =>
      definition(`tool_${String(i).padStart(2, '0')}`, options.description?.(i) ?? `Tool number ${i}.`),
    );
    const provider = new FakeProvider('p', tools, [{ id: 'p:all', title: 'All', description: 'Every tool.', members: tools.map((tool) => tool.name) }]);
    return { host: new ToolHost({ tools: [staticTool('pinned_tool')], providers: [provider] }), provider };
  }

  function sessionNames(session: ToolSession): string[] {
    return session.definitions().map((entry) => entry.name);
  }

  it('starts with the discovery helpers and the pinned tools that exist', () => {
    const { host } = catalogHost(3);
    const session = host.session({ pinned: ['Pinned_Tool', 'missing_tool', 'tools_search'] });
    expect(sessionNames(session)).toEqual([...HELPERS, 'pinned_tool']);
    expect(session.discovered()).toEqual([]);
  });

  it('adds the definitions returned by tools_select to the next request, with their current schemas', async () => {
    const { host } = catalogHost(3);
    const session = host.session();
    const result = await session.call('TOOLS_SELECT', { tools: ['tool_02', 'TOOL_00'], group: '' });
    expect(result.isError).toBe(false);
    expect(session.discovered()).toEqual(['tool_02', 'tool_00']);
    expect(session.definitions()).toEqual([...host.definitions().filter((entry) => HELPERS.includes(entry.name)), definition('tool_02', 'Tool number 2.'), definition('tool_00', 'Tool number 0.')]);
  });

  it('adds the definitions returned by tools_search', async () => {
    const { host } = catalogHost(3);
    const session = host.session();
    await session.call('tools_search', { query: 'tool_01', limit: 1 });
    expect(sessionNames(session)).toEqual([...HELPERS, 'tool_01']);
  });

  it('does not add wildcard directory entries', async () => {
    const { host } = catalogHost(3);
    const session = host.session();
    const result = await session.call('tools_search', { query: '*', limit: 0 });
    expect((result.output as { tools: unknown[] }).tools).toHaveLength(7);
    expect(session.discovered()).toEqual([]);
    expect(sessionNames(session)).toEqual(HELPERS);
  });

  it('adds nothing from an error result or from other tools', async () => {
    const { host } = catalogHost(3);
    const session = host.session();
    const failed = await session.call('tools_select', { tools: ['no_such_tool'], group: '' });
    expect(failed.isError).toBe(true);
    await session.call('pinned_tool', { tools: [{ name: 'tool_00', parameters: { type: 'object' } }] });
    await session.call('tools_groups', { query: '*' });
    expect(session.discovered()).toEqual([]);
  });

  it('makes every tool of a selected group callable, but merges at most 16 results of one search', async () => {
    const all = Array.from({ length: 20 }, (_, i) => `tool_${String(i).padStart(2, '0')}`);
    const { host } = catalogHost(20);
    const selecting = host.session();
    const selected = await selecting.call('tools_select', { tools: [], group: 'p:all' });
    expect((selected.output as { tools: unknown[] }).tools).toHaveLength(20);
    expect(selecting.discovered()).toEqual(all);
    const searching = host.session();
    const found = await searching.call('tools_search', { query: 'tool', limit: 20 });
    expect((found.output as { tools: unknown[] }).tools).toHaveLength(20);
    expect(searching.discovered()).toHaveLength(16);
  });

  it('evicts the least recently discovered tools beyond maxDefinitions, and refreshes a rediscovered one', async () => {
    const { host } = catalogHost(5);
    const session = host.session({ maxDefinitions: 2 });
    await session.call('tools_select', { tools: ['tool_00'], group: '' });
    await session.call('tools_select', { tools: ['tool_01'], group: '' });
    // Rediscovering tool_00 makes it the most recent, so tool_01 leaves first.
    await session.call('tools_select', { tools: ['tool_00'], group: '' });
    await session.call('tools_select', { tools: ['tool_02'], group: '' });
    expect(session.discovered()).toEqual(['tool_00', 'tool_02']);
    expect(sessionNames(session)).toEqual([...HELPERS, 'tool_00', 'tool_02']);
  });

  it('evicts the least recently discovered tools beyond maxBytes', async () => {
    const { host } = catalogHost(4);
    const size = jsonBytes(definition('tool_00', 'Tool number 0.'));
    const session = host.session({ maxBytes: size * 2 + 1 });
    await session.call('tools_select', { tools: ['tool_00', 'tool_01', 'tool_02'], group: '' });
    expect(session.discovered()).toEqual(['tool_01', 'tool_02']);
    await session.call('tools_select', { tools: ['tool_03'], group: '' });
    expect(session.discovered()).toEqual(['tool_02', 'tool_03']);
  });

  it('keeps no discovered tool larger than maxBytes on its own', async () => {
    const { host } = catalogHost(1);
    const session = host.session({ maxBytes: 10 });
    await session.call('tools_select', { tools: ['tool_00'], group: '' });
    expect(session.discovered()).toEqual([]);
  });

  it('leaves out discovered tools that are no longer available, and brings them back when they return', async () => {
    const { host, provider } = catalogHost(2);
    const session = host.session();
    await session.call('tools_select', { tools: ['tool_00', 'tool_01'], group: '' });
    const saved = provider.tools;
    provider.tools = [saved[1]!];
    expect(sessionNames(session)).toEqual([...HELPERS, 'tool_01']);
    provider.tools = saved;
    expect(sessionNames(session)).toEqual([...HELPERS, 'tool_00', 'tool_01']);
  });

  it('lists a pinned tool once even when it is also discovered', async () => {
    const { host } = catalogHost(1);
    const session = host.session({ pinned: ['pinned_tool'] });
    await session.call('tools_select', { tools: ['pinned_tool', 'tool_00'], group: '' });
    expect(sessionNames(session)).toEqual([...HELPERS, 'pinned_tool', 'tool_00']);
  });

  it('forgets every discovered tool on reset()', async () => {
    const { host } = catalogHost(2);
    const session = host.session();
    await session.call('tools_select', { tools: ['tool_00'], group: '' });
    session.reset();
    expect(session.discovered()).toEqual([]);
    expect(sessionNames(session)).toEqual(HELPERS);
  });

  it('passes calls through to the host', async () => {
    const { host, provider } = catalogHost(1);
    const session = new ToolSession(host);
    expect(await session.call('tool_00', { value: 'x' })).toEqual({ output: { provider: 'p', tool: 'tool_00' }, isError: false });
    expect(provider.calls).toEqual([{ name: 'tool_00', args: { value: 'x' } }]);
  });
});

describe('ToolHost robustness', () => {
  /** A provider that fails on demand, in listing or in calling. */
  class FaultyProvider extends FakeProvider {
    failList: Error | undefined;
    failCall: Error | undefined;
    failInit = 0;
    override definitions(): ToolDefinition[] {
      if (this.failList !== undefined) throw this.failList;
      return super.definitions();
    }
    override call(name: string, args: unknown): Promise<ToolOutput> {
      return this.failCall === undefined ? super.call(name, args) : Promise.reject(this.failCall);
    }
    override init(): Promise<void> {
      return this.failInit-- > 0 ? Promise.reject(new Error('not yet')) : super.init();
    }
  }

  it('ends a static tool at the call\'s timeoutMs with a timeout result, and rejects on abort', async () => {
    const slow = staticTool('slow', [], () => new Promise<ToolOutput>(() => {}));
    const host = new ToolHost({ tools: [slow], discovery: false });
    const result = await host.call('slow', {}, { timeoutMs: 50 });
    expect(result.isError).toBe(true);
    expect(errorOf(result)).toMatchObject({ code: 'timeout', message: 'Tool "slow" did not finish within 50 ms (timeoutMs).' });
    const controller = new AbortController();
    const call = host.call('slow', {}, { signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(call).rejects.toThrow('user left');
  });

  it('keeps the other tools when one provider throws, and turns a throwing call into an error result', async () => {
    const reported: string[] = [];
    const faulty = new FaultyProvider('faulty', [definition('broken_tool')]);
    const healthy = new FakeProvider('healthy', [definition('fine_tool')]);
    const host = new ToolHost({ tools: [staticTool('local')], providers: [faulty, healthy], onProviderError: (provider) => reported.push(provider) });
    faulty.failCall = new Error('boom');
    const failed = await host.call('broken_tool', {});
    expect(failed.isError).toBe(true);
    expect(errorOf(failed)).toMatchObject({ code: 'tool_failed', message: 'Tool "broken_tool" failed in provider "faulty": boom' });
    faulty.failList = new Error('listing broke');
    expect(host.definitions().map((each) => each.name)).toEqual(expect.arrayContaining(['local', 'fine_tool']));
    expect(host.definitions().map((each) => each.name)).not.toContain('broken_tool');
    expect(reported).toContain('faulty');
    expect((await host.call('fine_tool', {})).isError).toBe(false);
  });

  it('runs init again after a provider failed it, initialising each static tool once', async () => {
    const events: string[] = [];
    const faulty = new FaultyProvider('later', [definition('later_tool')], [], events);
    faulty.failInit = 1;
    const host = new ToolHost({ tools: [staticTool('local', events)], providers: [faulty], discovery: false });
    await expect(host.init()).rejects.toThrow('not yet');
    await Promise.all([host.init(), host.init()]);
    expect(events.filter((event) => event === 'init:local')).toHaveLength(1);
    expect(events.filter((event) => event === 'init:later')).toHaveLength(1);
  });

  it('checks discoveryLimits, ignoring fields left undefined', () => {
    expect(() => new ToolHost({ discoveryLimits: { outputBytes: -5 } })).toThrow(/discoveryLimits.outputBytes must be an integer of at least 1024/);
    expect(() => new ToolHost({ discoveryLimits: { searchLimit: Number.NaN } })).toThrow(ToolHostError);
    expect(() => new ToolHost({ discoveryLimits: { outputBytes: undefined, searchLimit: 8 } })).not.toThrow();
  });

  it('cuts a long unknown tool name short in its not-found result', async () => {
    const host = new ToolHost({ tools: [staticTool('local')] });
    const result = await host.call(`made_up_${'x'.repeat(200_000)}`, {});
    expect(errorOf(result).code).toBe('tool_not_found');
    expect(jsonBytes(result.output)).toBeLessThan(1_000);
  });
});
