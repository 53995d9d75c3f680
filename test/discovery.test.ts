/**
 * Unit tests of the discovery helpers `tools_groups`, `tools_search` and `tools_select`
 * (checklist P 187-188, Q 188-197) through a `ToolHost` with static tools and a small
 * in-test `ToolProvider`. The core knows nothing about MCP, so no server is involved.
 */
import { describe, expect, it } from 'vitest';
import { jsonBytes, utf8Bytes } from '../src/core/budget.js';
import {
  boundedDiscovery,
  DEFAULT_DISCOVERY_LIMITS,
  type DiscoveryResult,
  groupDirectory,
  groupsOf,
  type GroupDirectoryEntry,
} from '../src/core/discovery.js';
import type { ToolGroup } from '../src/core/group.js';
import { ToolHost, type ToolHostOptions } from '../src/core/host.js';
import { presentationText } from '../src/core/presentation.js';
import type { ToolProvider } from '../src/core/provider.js';
import type { StaticTool, ToolDefinition, ToolGroupInfo, ToolOutput } from '../src/core/tool.js';

function definition(name: string, description = `The ${name} tool.`, parameters?: Record<string, unknown>): ToolDefinition {
  return { name, description, parameters: parameters ?? { type: 'object', properties: { value: { type: 'string' } } } };
}

function staticTool(name: string, options: { description?: string; group?: ToolGroupInfo; parameters?: Record<string, unknown> } = {}): StaticTool {
  return {
    definition: definition(name, options.description, options.parameters),
    ...(options.group === undefined ? {} : { group: options.group }),
    call: () => ({ output: { tool: name }, isError: false }),
  };
}

/** A provider with a fixed catalog, for the host to merge. */
class FakeProvider implements ToolProvider {
  constructor(
    readonly name: string,
    public tools: ToolDefinition[],
    public toolGroups: ToolGroup[] = [],
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
    return Promise.resolve();
  }
  refresh(): Promise<void> {
    return Promise.resolve();
  }
  call(name: string): Promise<ToolOutput> {
    return Promise.resolve({ output: { provider: this.name, tool: name }, isError: false });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

function group(id: string, members: string[], extra: Partial<ToolGroup> = {}): ToolGroup {
  return { id, title: `Title of ${id}`, description: `Description of ${id}`, members, ...extra };
}

interface GroupsOutput {
  groups: GroupDirectoryEntry[];
  total_groups: number;
  omitted?: string[];
}

async function search(host: ToolHost, query: string, limit?: number): Promise<DiscoveryResult> {
  const result = await host.call('tools_search', limit === undefined ? { query } : { query, limit });
  expect(result.isError).toBe(false);
  return result.output as DiscoveryResult;
}

async function select(host: ToolHost, tools: string[], groupId = ''): Promise<{ result: ToolOutput; output: DiscoveryResult }> {
  const result = await host.call('tools_select', { tools, group: groupId });
  return { result, output: result.output as DiscoveryResult };
}

async function groupsDirectory(host: ToolHost, query: string): Promise<GroupsOutput> {
  const result = await host.call('tools_groups', { query });
  expect(result.isError).toBe(false);
  return result.output as GroupsOutput;
}

function names(definitions: { name: string }[]): string[] {
  return definitions.map((entry) => entry.name);
}

/** A host with two static tools in one group and a provider with a server group. */
function sampleHost(options: Partial<ToolHostOptions> = {}): { host: ToolHost; provider: FakeProvider } {
  const bundle: ToolGroupInfo = { id: 'grouped:bundle', title: 'Bundle', description: 'Reads and writes bundles.' };
  const provider = new FakeProvider(
    'mcp',
    [
      definition('mcp_files_read_file', 'Read a file from disk.'),
      definition('mcp_files_write_file', 'Write a file to disk.'),
      definition('mcp_github_list_issues', 'List the issues of a repository.'),
    ],
    [
      group('mcp:files', ['mcp_files_read_file', 'mcp_files_write_file'], { title: 'Files', description: 'Local file system access.', instructions: 'Paths are relative.' }),
      group('mcp:github', ['mcp_github_list_issues'], { title: 'GitHub', description: 'Issues and pull requests.' }),
    ],
  );
  const host = new ToolHost({
    tools: [
      staticTool('grouped_write', { group: bundle, description: 'Write into the bundle.' }),
      staticTool('grouped_read', { group: bundle, description: 'Read from the bundle.' }),
      staticTool('echo', { description: 'Echo the value back.' }),
    ],
    providers: [provider],
    ...options,
  });
  return { host, provider };
}

describe('discovery helper definitions', () => {
  it('registers tools_groups, tools_search and tools_select after the static tools', () => {
    const { host } = sampleHost();
    expect(names(host.definitions())).toEqual([
      'grouped_write',
      'grouped_read',
      'echo',
      'tools_groups',
      'tools_search',
      'tools_select',
      'mcp_files_read_file',
      'mcp_files_write_file',
      'mcp_github_list_issues',
    ]);
  });

  it('declares strict schemas with additionalProperties false and every property required', () => {
    const { host } = sampleHost();
    const helpers = host.definitions().filter((entry) => entry.name.startsWith('tools_'));
    expect(helpers).toHaveLength(3);
    for (const helper of helpers) {
      expect(helper.strict).toBe(true);
      expect(helper.parameters.type).toBe('object');
      expect(helper.parameters.additionalProperties).toBe(false);
      const properties = Object.keys(helper.parameters.properties as Record<string, unknown>).sort();
      expect([...(helper.parameters.required as string[])].sort()).toEqual(properties);
    }
    const byName = new Map(helpers.map((helper) => [helper.name, helper]));
    expect(Object.keys(byName.get('tools_groups')!.parameters.properties as object)).toEqual(['query']);
    expect(Object.keys(byName.get('tools_search')!.parameters.properties as object)).toEqual(['query', 'limit']);
    expect(Object.keys(byName.get('tools_select')!.parameters.properties as object)).toEqual(['tools', 'group']);
  });

  it('leaves the helpers out when discovery is false', () => {
    const { host } = sampleHost({ discovery: false });
    expect(names(host.definitions()).some((name) => name.startsWith('tools_'))).toBe(false);
  });
});

describe('tools_groups', () => {
  it('lists every group with its member count and no schemas for "*"', async () => {
    const { host } = sampleHost();
    const output = await groupsDirectory(host, '*');
    expect(output).toEqual({
      groups: [
        { id: 'grouped:bundle', title: 'Bundle', description: 'Reads and writes bundles.', member_count: 2 },
        { id: 'mcp:files', title: 'Files', description: 'Local file system access.', member_count: 2 },
        { id: 'mcp:github', title: 'GitHub', description: 'Issues and pull requests.', member_count: 1 },
      ],
      total_groups: 3,
    });
    expect(JSON.stringify(output)).not.toContain('parameters');
    expect(JSON.stringify(output)).not.toContain('instructions');
  });

  it('lists every group for a blank query as well', async () => {
    const { host } = sampleHost();
    expect((await groupsDirectory(host, '   ')).groups).toHaveLength(3);
  });

  it('filters case-insensitively on id, title or description and still counts every group', async () => {
    const { host } = sampleHost();
    expect((await groupsDirectory(host, 'GITHUB')).groups.map((entry) => entry.id)).toEqual(['mcp:github']);
    expect((await groupsDirectory(host, 'file system')).groups.map((entry) => entry.id)).toEqual(['mcp:files']);
    expect((await groupsDirectory(host, 'mcp:')).groups.map((entry) => entry.id)).toEqual(['mcp:files', 'mcp:github']);
    const none = await groupsDirectory(host, 'no such thing');
    expect(none).toEqual({ groups: [], total_groups: 3 });
  });

  it('shows the directory as JSON text in the model view', async () => {
    const { host } = sampleHost();
    const result = await host.call('tools_groups', { query: 'github' });
    expect(JSON.parse(presentationText(result.modelOutput!))).toEqual(result.output);
  });

  it('leaves out whole group entries that do not fit the output budget', () => {
    const groups = [group('a', ['x'], { description: 'd'.repeat(200) }), group('b', ['y'])];
    const output = groupDirectory(groups, '*', { ...DEFAULT_DISCOVERY_LIMITS, outputBytes: 300 });
    expect(output.groups.map((entry) => entry.id)).toEqual(['b']);
    expect(output.omitted).toEqual(['a']);
    expect(output.total_groups).toBe(2);
    expect(jsonBytes(output)).toBeLessThanOrEqual(300);
  });
});

describe('tools_search ranking', () => {
  const catalog = (): ToolHost =>
    new ToolHost({
      tools: [
        staticTool('other', { description: 'Mentions file file file in its description.' }),
        staticTool('read_file', { description: 'Reads.' }),
        staticTool('file_read', { description: 'Reads.' }),
        staticTool('file', { description: 'Exact.' }),
        staticTool('unrelated', { description: 'Nothing here.' }),
      ],
    });

  it('ranks an exact name first, then the tools named with the word, then one that only mentions it', async () => {
    expect(names((await search(catalog(), 'file')).tools)).toEqual(['file', 'file_read', 'read_file', 'other']);
  });

  it('matches case-insensitively and ignores surrounding blanks', async () => {
    expect(names((await search(catalog(), '  FILE  ')).tools)).toEqual(['file', 'file_read', 'read_file', 'other']);
  });

  it('lets a name match beat any number of description matches of a single word', async () => {
    const host = new ToolHost({ tools: [staticTool('alpha', { description: 'issue '.repeat(9) }), staticTool('beta_issue', { description: 'Nothing.' })] });
    expect(names((await search(host, 'issue')).tools)).toEqual(['beta_issue', 'alpha']);
  });

  it('puts the exact match first even when another tool scores higher', async () => {
    const host = new ToolHost({ tools: [staticTool('ab_ab_ab_ab_ab_ab_ab_ab_ab_ab', { description: 'ab '.repeat(1000) }), staticTool('ab', { description: 'x' })] });
    expect(names((await search(host, 'ab')).tools)).toEqual(['ab', 'ab_ab_ab_ab_ab_ab_ab_ab_ab_ab']);
  });

  it('never returns the discovery helpers themselves', async () => {
    expect(names((await search(catalog(), 'search tools groups select')).tools)).toEqual([]);
  });
});

describe('tools_search', () => {
  it('returns full definitions, the groups they belong to and the total number of tools', async () => {
    const { host } = sampleHost();
    const output = await search(host, 'read_file', 1);
    expect(names(output.tools)).toEqual(['mcp_files_read_file']);
    expect(output.tools[0]).toEqual(definition('mcp_files_read_file', 'Read a file from disk.'));
    expect(output.groups).toEqual([
      group('mcp:files', ['mcp_files_read_file', 'mcp_files_write_file'], { title: 'Files', description: 'Local file system access.', instructions: 'Paths are relative.' }),
    ]);
    expect(output.total_tools).toBe(9);
    expect(output.omitted).toBeUndefined();
  });

  it('ranks the search results and attaches each of their groups once', async () => {
    const { host } = sampleHost();
    const output = await search(host, 'file', 5);
    expect(names(output.tools)).toEqual(['mcp_files_read_file', 'mcp_files_write_file']);
    expect(output.groups.map((entry) => entry.id)).toEqual(['mcp:files']);
  });

  it('lists names and descriptions with empty parameters for "*"', async () => {
    const { host } = sampleHost();
    const output = await search(host, '*', 0);
    expect(output.tools).toHaveLength(9);
    for (const entry of output.tools) {
      expect(Object.keys(entry).sort()).toEqual(['description', 'name', 'parameters']);
      expect(entry.parameters).toEqual({});
    }
    expect(names(output.tools)).toEqual(names(host.definitions()));
    expect(output.tools.find((entry) => entry.name === 'echo')!.description).toBe('Echo the value back.');
    expect(output.groups).toEqual([]);
    expect(output.total_tools).toBe(9);
  });

  it('caps the "*" directory at 64 entries while counting every tool', async () => {
    const tools = Array.from({ length: 70 }, (_, i) => staticTool(`tool_${String(i).padStart(2, '0')}`));
    const host = new ToolHost({ tools });
    const output = await search(host, '*', 0);
    expect(output.tools).toHaveLength(64);
    expect(output.total_tools).toBe(73);
  });

  it('returns 10 results when the limit is 0 or missing', async () => {
    const host = new ToolHost({ tools: Array.from({ length: 20 }, (_, i) => staticTool(`match_${String(i).padStart(2, '0')}`)) });
    expect((await search(host, 'match', 0)).tools).toHaveLength(10);
    expect((await search(host, 'match')).tools).toHaveLength(10);
    expect((await search(host, 'match', 3)).tools.map((entry) => entry.name)).toEqual(['match_00', 'match_01', 'match_02']);
  });

  it('returns at most 64 results whatever the limit', async () => {
    const host = new ToolHost({ tools: Array.from({ length: 70 }, (_, i) => staticTool(`match_${String(i).padStart(2, '0')}`)) });
    expect((await search(host, 'match', 1000)).tools).toHaveLength(64);
  });

  it('returns no tools for a blank query', async () => {
    const { host } = sampleHost();
    expect(await search(host, '  ', 5)).toEqual({ tools: [], groups: [], total_tools: 9 });
  });

  it('rejects a negative or fractional limit and a missing query as tool-level errors', async () => {
    const { host } = sampleHost();
    for (const args of [{ query: 'x', limit: -1 }, { query: 'x', limit: 1.5 }, { query: 'x', limit: '3' }, { limit: 3 }]) {
      const result = await host.call('tools_search', args);
      expect(result.isError).toBe(true);
      expect((result.output as { error: { code: string } }).error.code).toBe('invalid_arguments');
      expect(presentationText(result.modelOutput!)).toMatch(/^Invalid input: /);
    }
  });
});

describe('tools_select', () => {
  it('selects by exact name, case-insensitively, and deduplicates', async () => {
    const { host } = sampleHost();
    const { result, output } = await select(host, ['ECHO', 'echo', ' Echo ', 'mcp_github_list_issues']);
    expect(result.isError).toBe(false);
    expect(output.tools).toEqual([definition('echo', 'Echo the value back.'), definition('mcp_github_list_issues', 'List the issues of a repository.')]);
    expect(output.unknown).toBeUndefined();
    expect(output.total_tools).toBe(9);
  });

  it('expands a group by its id, case-insensitively, after the explicit names', async () => {
    const { host } = sampleHost();
    const { output } = await select(host, ['mcp_github_list_issues', 'grouped_write'], 'GROUPED:Bundle');
    expect(names(output.tools)).toEqual(['mcp_github_list_issues', 'grouped_write', 'grouped_read']);
    expect(output.groups.map((entry) => entry.id)).toEqual(['grouped:bundle', 'mcp:github']);
  });

  it('expands a group alone into all its members with that one group', async () => {
    const { host } = sampleHost();
    const { output } = await select(host, [], 'grouped:bundle');
    expect(names(output.tools)).toEqual(['grouped_read', 'grouped_write']);
    expect(output.groups).toEqual([
      { id: 'grouped:bundle', title: 'Bundle', description: 'Reads and writes bundles.', members: ['grouped_read', 'grouped_write'] },
    ]);
  });

  it('reports unknown names with near matches and still returns the known ones', async () => {
    const { host } = sampleHost();
    const { result, output } = await select(host, ['ecoh', 'echo']);
    expect(result.isError).toBe(false);
    expect(names(output.tools)).toEqual(['echo']);
    expect(output.unknown).toEqual([{ name: 'ecoh', did_you_mean: ['echo'] }]);
  });

  it('suggests the prefixed name for a bare remote tool name', async () => {
    const { host } = sampleHost();
    const { result, output } = await select(host, ['list_issues']);
    expect(result.isError).toBe(true);
    expect(output.tools).toEqual([]);
    expect(output.unknown).toEqual([{ name: 'list_issues', did_you_mean: ['mcp_github_list_issues'] }]);
  });

  it('reports an unknown group with near group ids as an error result', async () => {
    const { host } = sampleHost();
    const { result, output } = await select(host, [], 'mcp:gihub');
    expect(result.isError).toBe(true);
    expect(output.unknown).toEqual([{ name: 'group:mcp:gihub', did_you_mean: ['group:mcp:github'] }]);
  });

  it('returns an error result when both tools and group are empty', async () => {
    const { host } = sampleHost();
    for (const args of [{ tools: [], group: '' }, { tools: ['  '], group: '  ' }, {}]) {
      const result = await host.call('tools_select', args);
      expect(result.isError).toBe(true);
      expect(result.output).toEqual({ error: { code: 'invalid_arguments', message: 'one of `tools` or `group` must be provided' } });
      expect(presentationText(result.modelOutput!)).toBe('Invalid input: one of `tools` or `group` must be provided');
    }
  });

  it('returns an error result when tools is not a list of strings', async () => {
    const { host } = sampleHost();
    for (const tools of ['echo', [1], [null]]) {
      const result = await host.call('tools_select', { tools, group: '' });
      expect(result.isError).toBe(true);
      expect((result.output as { error: { code: string } }).error.code).toBe('invalid_arguments');
    }
  });
});

describe('groups in discovery results', () => {
  it('attaches every group that has a returned tool as a member, and only those', () => {
    const groups = [group('a', ['x', 'y']), group('b', ['z']), group('c', ['Y'])];
    expect(groupsOf(groups, ['y']).map((entry) => entry.id)).toEqual(['a', 'c']);
    expect(groupsOf(groups, [])).toEqual([]);
    expect(groupsOf([], ['x'])).toEqual([]);
  });
});

describe('discovery output budget', () => {
  const big = (name: string): ToolDefinition =>
    definition(name, `Tool ${name}.`, { type: 'object', properties: { payload: { type: 'string', description: 'p'.repeat(600) } } });

  it('keeps unknown names within the budget too: a few, each cut short', async () => {
    const outputBytes = 1600;
    const host = new ToolHost({ tools: [staticTool('small_tool')], discoveryLimits: { outputBytes } });
    const madeUp = Array.from({ length: 40 }, (_, i) => `made_up_${i}_${'x'.repeat(2_000)}`);
    const { result, output } = await select(host, ['small_tool', ...madeUp], 'no-such-group-'.repeat(1_000));
    expect(names(output.tools)).toEqual(['small_tool']);
    expect(output.unknown!.length).toBeGreaterThan(0);
    expect(output.unknown!.every((entry) => entry.name.length <= 131)).toBe(true);
    expect(utf8Bytes(JSON.stringify(output))).toBeLessThanOrEqual(outputBytes);
    expect(utf8Bytes(presentationText(result.modelOutput!))).toBeLessThanOrEqual(outputBytes);
  });

  it('omits whole schemas that do not fit, lists them, and keeps the output JSON within the budget', async () => {
    const outputBytes = 1600;
    const host = new ToolHost({
      tools: [staticTool('small_tool')],
      providers: [new FakeProvider('p', [big('big_one'), big('big_two'), big('big_three')], [group('p:big', ['big_one', 'big_two', 'big_three'])])],
      discoveryLimits: { outputBytes },
    });
    const { result, output } = await select(host, ['big_one', 'small_tool', 'big_two', 'big_three']);
    expect(result.isError).toBe(false);
    expect(names(output.tools)).toEqual(['big_one', 'small_tool']);
    expect(output.omitted).toEqual(['big_two', 'big_three']);
    // Omitted schemas are left out whole, never weakened.
    expect(output.tools[0]).toEqual(big('big_one'));
    expect(utf8Bytes(JSON.stringify(output))).toBeLessThanOrEqual(outputBytes);
    expect(utf8Bytes(presentationText(result.modelOutput!))).toBeLessThanOrEqual(outputBytes);

    // An omitted tool can then be selected on its own.
    const alone = await select(host, ['big_three']);
    expect(names(alone.output.tools)).toEqual(['big_three']);
    expect(alone.output.omitted).toBeUndefined();
  });

  it('keeps search output within the budget too', async () => {
    const outputBytes = 1024;
    const host = new ToolHost({
      providers: [new FakeProvider('p', [big('big_one'), big('big_two'), big('big_three')])],
      discoveryLimits: { outputBytes },
    });
    const output = await search(host, 'big', 10);
    expect(names(output.tools)).toEqual(['big_one']);
    expect(output.omitted).toEqual(['big_three', 'big_two']);
    expect(utf8Bytes(JSON.stringify(output))).toBeLessThanOrEqual(outputBytes);
  });

  it('stays within the budget when even the list of omitted names does not fit', () => {
    const outputBytes = 1024;
    const tools = Array.from({ length: 64 }, (_, i) =>
      definition(`mcp_server_with_a_long_name_tool_number_${String(i).padStart(2, '0')}`, 'x', { type: 'object', description: 'p'.repeat(2000) }),
    );
    const output = boundedDiscovery(tools, [], tools.length, { ...DEFAULT_DISCOVERY_LIMITS, outputBytes });
    expect(output.tools).toEqual([]);
    expect(output.omitted!.length).toBeGreaterThan(0);
    expect(output.omitted!.length).toBeLessThan(64);
    // The names that are listed are the first ones, in order.
    expect(output.omitted).toEqual(tools.slice(0, output.omitted!.length).map((tool) => tool.name));
    expect(utf8Bytes(JSON.stringify(output))).toBeLessThanOrEqual(outputBytes);
  });

  it('keeps the group directory within the budget when many groups are omitted', () => {
    const outputBytes = 512;
    const groups = Array.from({ length: 50 }, (_, i) => group(`mcp:server_number_${i}`, ['t'], { description: 'd'.repeat(600) }));
    const output = groupDirectory(groups, '*', { ...DEFAULT_DISCOVERY_LIMITS, outputBytes });
    expect(output.groups).toEqual([]);
    expect(output.total_groups).toBe(50);
    expect(output.omitted!.length).toBeGreaterThan(0);
    expect(output.omitted).toEqual(groups.slice(0, output.omitted!.length).map((entry) => entry.id));
    expect(utf8Bytes(JSON.stringify(output))).toBeLessThanOrEqual(outputBytes);
  });

  it('drops a group that does not fit but keeps its tools', () => {
    const tool = definition('t');
    const huge = group('huge', ['t'], { description: 'h'.repeat(2000) });
    const output = boundedDiscovery([tool], [huge], 1, { ...DEFAULT_DISCOVERY_LIMITS, outputBytes: 1000 });
    expect(output.tools).toEqual([tool]);
    expect(output.groups).toEqual([]);
    expect(output.omitted).toBeUndefined();
    expect(jsonBytes(output)).toBeLessThanOrEqual(1000);
  });
});

describe('static precedence and group merging', () => {
  it('lets a static tool shadow a provider tool of the same name and hides it from the provider group', async () => {
    const provider = new FakeProvider('p', [definition('shared_tool', 'From the provider.'), definition('other_tool')], [group('p:server', ['shared_tool', 'other_tool'])]);
    const host = new ToolHost({ tools: [staticTool('shared_tool', { description: 'Static.' })], providers: [provider] });
    const shared = host.definitions().filter((entry) => entry.name === 'shared_tool');
    expect(shared).toEqual([definition('shared_tool', 'Static.')]);
    expect(host.groups()).toEqual([group('p:server', ['other_tool'])]);
    const directory = await groupsDirectory(host, '*');
    expect(directory.groups).toEqual([{ id: 'p:server', title: 'Title of p:server', description: 'Description of p:server', member_count: 1 }]);
    // Without the static tool, the provider's group has both members.
    const unshadowed = await groupsDirectory(new ToolHost({ providers: [provider] }), '*');
    expect(unshadowed.groups.map((entry) => entry.member_count)).toEqual([2]);
    // Searching the shadowed name finds the static definition without the provider group.
    const output = await search(host, 'shared_tool', 1);
    expect(output.tools).toEqual([definition('shared_tool', 'Static.')]);
    expect(output.groups).toEqual([]);
  });

  it('hides a member shadowed by an earlier provider', () => {
    const first = new FakeProvider('first', [definition('dup_tool')], [group('first:g', ['dup_tool'])]);
    const second = new FakeProvider('second', [definition('dup_tool'), definition('own_tool')], [group('second:g', ['dup_tool', 'own_tool'])]);
    const host = new ToolHost({ providers: [first, second], discovery: false });
    expect(host.groups()).toEqual([group('first:g', ['dup_tool']), group('second:g', ['own_tool'])]);
  });

  it('drops stale members and groups left without members', () => {
    const provider = new FakeProvider('p', [definition('live_tool')], [group('p:a', ['gone_tool', 'live_tool']), group('p:b', ['gone_tool'])]);
    const host = new ToolHost({ providers: [provider], discovery: false });
    expect(host.groups()).toEqual([group('p:a', ['live_tool'])]);
  });

  it('merges duplicate group ids from two providers case-insensitively and selects them by any case', async () => {
    const one = new FakeProvider('one', [definition('one_tool')], [group('shared:bundle', ['one_tool'])]);
    const two = new FakeProvider('two', [definition('two_tool')], [group('SHARED:Bundle', ['two_tool'], { title: 'Ignored' })]);
    const host = new ToolHost({ providers: [one, two] });
    expect(host.groups()).toEqual([group('shared:bundle', ['one_tool', 'two_tool'])]);
    const directory = await groupsDirectory(host, '*');
    expect(directory.total_groups).toBe(1);
    expect(directory.groups[0]!.member_count).toBe(2);
    const { output } = await select(host, [], 'SHARED:BUNDLE');
    expect(names(output.tools)).toEqual(['one_tool', 'two_tool']);
    expect(output.groups).toEqual([group('shared:bundle', ['one_tool', 'two_tool'])]);
  });

  it('builds one group for static tools that declare the same id, the first metadata winning', () => {
    const host = new ToolHost({
      discovery: false,
      tools: [
        staticTool('zeta', { group: { id: 'local:set', title: 'First', description: 'First description.' } }),
        staticTool('alpha', { group: { id: 'LOCAL:SET', title: 'Second', description: 'Second description.' } }),
        staticTool('loner'),
      ],
    });
    expect(host.groups()).toEqual([{ id: 'local:set', title: 'First', description: 'First description.', members: ['alpha', 'zeta'] }]);
  });
});
