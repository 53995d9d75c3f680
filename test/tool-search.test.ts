/**
 * Unit tests of tool search (src/core/search): how text becomes terms, and how
 * `tools_search` ranks a catalog with them. Catalogs are small and written for each case,
 * with tools named and described as published MCP servers name and describe theirs.
 */
import { describe, expect, it } from 'vitest';
import type { DiscoveryResult } from '../src/core/discovery.js';
import type { ToolGroup } from '../src/core/group.js';
import { ToolHost, type ToolHostOptions } from '../src/core/host.js';
import type { ToolSearchFields } from '../src/core/search/fields.js';
import { type SearchableCatalog, ToolSearchIndex } from '../src/core/search/tool-index.js';
import { correction, typoDistance } from '../src/core/search/typos.js';
import { termsOf, words } from '../src/core/search/words.js';
import type { StaticTool, ToolDefinition } from '../src/core/tool.js';

interface ToolSpec {
  name: string;
  description: string;
  parameters?: Record<string, string>;
}

function definitionOf(server: string, spec: ToolSpec): ToolDefinition {
  const properties = Object.fromEntries(Object.entries(spec.parameters ?? {}).map(([name, description]) => [name, { type: 'string', description }]));
  return { name: `mcp_${server}_${spec.name.toLowerCase()}`, description: spec.description, parameters: { type: 'object', properties } };
}

/** A catalog of servers, each with its title and description and its tools. */
class Catalog implements SearchableCatalog {
  readonly fieldsAsked: string[] = [];
  private entries: { definition: ToolDefinition; fields: ToolSearchFields }[] = [];

  constructor(servers: Record<string, ServerSpec>) {
    for (const [id, server] of Object.entries(servers)) this.setServer(id, server);
  }

  /** Replaces one server's tools with new definitions (a new publication of that server). */
  setServer(id: string, server: ServerSpec): void {
    this.entries = this.entries.filter((entry) => entry.fields.server?.id !== id);
    for (const spec of server.tools) {
      const definition = definitionOf(id, spec);
      const parameters = Object.entries(spec.parameters ?? {}).map(([name, description]) => `${name}\n${description}`).join('\n');
      this.entries.push({ definition, fields: { name: spec.name, description: spec.description, parameters, server: { id, title: server.title, description: server.description } } });
    }
  }

  definitions(): ToolDefinition[] {
    return this.entries.map((entry) => entry.definition);
  }

  groups(): ToolGroup[] {
    return [];
  }

  searchFields(name: string): ToolSearchFields | undefined {
    this.fieldsAsked.push(name);
    return this.entries.find((entry) => entry.definition.name === name)?.fields;
  }
}

function ranked(catalog: Catalog, query: string, limit = 10): string[] {
  const index = new ToolSearchIndex();
  index.sync(catalog);
  return index.search(query, limit).map((match) => match.name);
}

interface ServerSpec {
  title: string;
  description: string;
  tools: ToolSpec[];
}

const DEV_SERVERS: Record<'git' | 'github' | 'linear' | 'kubernetes' | 'thinking' | 'memory', ServerSpec> = {
  git: {
    title: 'Git',
    description: 'Git repository operations on the local machine.',
    tools: [
      { name: 'git_status', description: 'Shows the working tree status.', parameters: { repo_path: 'Path to the Git repository' } },
      { name: 'git_commit', description: 'Records changes to the repository.', parameters: { message: 'Commit message' } },
      { name: 'git_log', description: 'Shows the commit logs.', parameters: { max_count: 'Maximum number of commits' } },
      { name: 'git_diff', description: 'Shows changes between commits, commit and working tree.' },
    ],
  },
  github: {
    title: 'GitHub',
    description: 'The GitHub API: repositories, issues and pull requests.',
    tools: [
      { name: 'create_issue', description: 'Create a new issue in a GitHub repository.', parameters: { owner: 'Repository owner', repo: 'Repository name', title: 'Issue title' } },
      { name: 'list_pull_requests', description: 'List pull requests in a GitHub repository.', parameters: { state: 'Filter by state' } },
      { name: 'search_repositories', description: 'Search for GitHub repositories.', parameters: { query: 'Search query' } },
      { name: 'delete_file', description: 'Delete a file from a GitHub repository.', parameters: { path: 'Path of the file' } },
    ],
  },
  linear: {
    title: 'Linear',
    description: 'Issue tracking with Linear.',
    tools: [
      { name: 'createIssue', description: 'Creates a new Linear issue.', parameters: { teamId: 'The team', title: 'The issue title' } },
      { name: 'setIssuePriority', description: 'Sets the priority of an issue (0 none to 4 low).', parameters: { issueId: 'The issue' } },
    ],
  },
  kubernetes: {
    title: 'Kubernetes',
    description: 'Manage a Kubernetes cluster.',
    tools: [
      { name: 'list-pods', description: 'Lists the pods in a namespace.', parameters: { namespace: 'The namespace' } },
      { name: 'delete-pod', description: 'Deletes a pod.', parameters: { name: 'Pod name' } },
    ],
  },
  thinking: {
    title: 'Sequential Thinking',
    description: 'Structured, reflective problem-solving.',
    tools: [
      {
        name: 'sequentialthinking',
        description: `A detailed tool for dynamic and reflective problem-solving through thoughts. ${'Each thought can build on, question, or revise previous insights as understanding deepens, and a thought may branch or backtrack as needed. '.repeat(40)}`,
      },
    ],
  },
  memory: {
    title: 'Memory',
    description: 'A knowledge graph kept across conversations.',
    tools: [{ name: 'create_entities', description: 'Create multiple new entities in the knowledge graph.' }],
  },
};

describe('words and terms', () => {
  it('splits names where a person sees words: snake, kebab, camel case and acronyms', () => {
    expect(words('git_commit list-pods createIssue HTTPServer getS3Object')).toEqual(['git', 'commit', 'list', 'pods', 'create', 'issue', 'http', 'server', 'get', 's3', 'object']);
  });

  it('keeps letters and digits written together as one word, and drops accents', () => {
    expect(words('K8s pods on EC2, café')).toEqual(['k8s', 'pods', 'on', 'ec2', 'cafe']);
  });

  it('drops function words and single letters, and stems the rest', () => {
    expect(termsOf('Commits the committed changes to a repository')).toEqual(['commit', 'commit', 'chang', 'repositori']);
    expect(termsOf('the a in of to')).toEqual([]);
  });
});

describe('typo distance', () => {
  it('counts a swap of two neighbouring letters as one edit', () => {
    expect(typoDistance('lsit', 'list', 2)).toBe(1);
    expect(typoDistance('stauts', 'status', 2)).toBe(1);
    expect(typoDistance('comit', 'commit', 2)).toBe(1);
    expect(typoDistance('abcdef', 'uvwxyz', 2)).toBe(3);
  });

  it('corrects a word to the closest known one, the most common among equals, and leaves short words alone', () => {
    const frequency = (word: string): number => ({ list: 5, lost: 1 })[word] ?? 0;
    expect(correction('lsit', ['lost', 'list', 'lint'], frequency)).toBe('list');
    expect(correction('lust', ['lost', 'list'], frequency)).toBe('list');
    expect(correction('ls', ['list'], frequency)).toBeUndefined();
    expect(correction('xylophone', ['list'], frequency)).toBeUndefined();
  });

  it('prefers a swap of neighbours among equally close words, even over a more common one', () => {
    const frequency = (word: string): number => ({ starts: 9, status: 1 })[word] ?? 0;
    expect(correction('stauts', ['starts', 'status'], frequency)).toBe('status');
  });
});

describe('tools_search ranking over a catalog', () => {
  const catalog = new Catalog(DEV_SERVERS);

  it('puts git_commit first for "create a git commit", above a long description full of common words', () => {
    expect(ranked(catalog, 'create a git commit')[0]).toBe('mcp_git_git_commit');
  });

  it('normalises by length: one mention in a long description counts less than in a short one', () => {
    const long = new Catalog({
      a: { title: 'A', description: 'A', tools: [{ name: 'alpha', description: `Handles thoughts. ${'Lorem ipsum dolor sit amet consectetur. '.repeat(200)}` }] },
      b: { title: 'B', description: 'B', tools: [{ name: 'beta', description: 'Records thoughts.' }] },
    });
    expect(ranked(long, 'thoughts')).toEqual(['mcp_b_beta', 'mcp_a_alpha']);
  });

  it('finds a tool by another form of its words (stemming)', () => {
    expect(ranked(catalog, 'commits')[0]).toBe('mcp_git_git_commit');
    expect(ranked(catalog, 'committing my changes')[0]).toBe('mcp_git_git_commit');
  });

  it('tolerates typos', () => {
    expect(ranked(catalog, 'git stauts')[0]).toBe('mcp_git_git_status');
    expect(ranked(catalog, 'gh pr lsit')[0]).toBe('mcp_github_list_pull_requests');
  });

  it('corrects a typo to a word as the tools write it, not to its stem', () => {
    // "meetign" is one swap from "meeting" but three edits from its stem "meet"; "fiels" is a
    // swap from "files", though "field" (an edit away too) begins with what it stems to.
    const calendar = new Catalog({
      calendar: { title: 'Calendar', description: 'Events.', tools: [{ name: 'create_event', description: 'Schedules a meeting on the calendar.' }] },
      fs: { title: 'Files', description: 'Local files.', tools: [{ name: 'search_files', description: 'Finds files by name.' }, { name: 'list_fields', description: 'Lists the fields of a form.' }] },
    });
    expect(ranked(calendar, 'book a meetign')[0]).toBe('mcp_calendar_create_event');
    expect(ranked(calendar, 'find fiels')[0]).toBe('mcp_fs_search_files');
  });

  it('bridges a user\'s words to a tool\'s with synonyms and abbreviations', () => {
    expect(ranked(catalog, 'show me the k8s pods')[0]).toBe('mcp_kubernetes_list-pods');
    expect(ranked(catalog, 'remove a file from the repo')[0]).toBe('mcp_github_delete_file');
    expect(ranked(catalog, 'show open PRs')[0]).toBe('mcp_github_list_pull_requests');
    expect(ranked(catalog, 'mark this ticket as urgent')[0]).toBe('mcp_linear_setissuepriority');
  });

  it('reads a prefix as the longer words it begins', () => {
    expect(ranked(catalog, 'kube')[0]).toMatch(/^mcp_kubernetes_/);
  });

  it('steers to the server the query names', () => {
    expect(ranked(catalog, 'create an issue on GitHub')[0]).toBe('mcp_github_create_issue');
    expect(ranked(catalog, 'create an issue in Linear')[0]).toBe('mcp_linear_createissue');
  });

  it('finds a tool by its own name written any way', () => {
    expect(ranked(catalog, 'set_issue_priority')[0]).toBe('mcp_linear_setissuepriority');
    expect(ranked(catalog, 'createIssue').slice(0, 2)).toEqual(['mcp_github_create_issue', 'mcp_linear_createissue']);
    expect(ranked(catalog, 'list_pods')[0]).toBe('mcp_kubernetes_list-pods');
  });

  it('returns nothing for words no tool uses, nor for function words no tool name has', () => {
    expect(ranked(catalog, 'xylophone quartet')).toEqual([]);
    expect(ranked(catalog, 'the of and')).toEqual([]);
  });

  it('matches a query of function words only against the words of tool names', () => {
    const named = new Catalog({ p: { title: 'P', description: 'A server.', tools: [{ name: 'tool_00', description: 'First.' }, { name: 'list_tools', description: 'Lists.' }, { name: 'the_tool_of_record', description: 'Kept.' }, { name: 'other', description: 'Else.' }] } });
    expect(ranked(named, 'tool')).toEqual(['mcp_p_tool_00', 'mcp_p_the_tool_of_record']);
    expect(ranked(named, 'tools')).toEqual(['mcp_p_list_tools']);
  });

  it('indexes again only the tools of a server that published a new catalog', () => {
    const changing = new Catalog(DEV_SERVERS);
    const index = new ToolSearchIndex();
    index.sync(changing);
    expect(changing.fieldsAsked).toHaveLength(14);
    index.sync(changing);
    expect(changing.fieldsAsked).toHaveLength(14);
    changing.setServer('linear', { ...DEV_SERVERS.linear, tools: [{ name: 'archiveIssue', description: 'Archives a Linear issue.' }] });
    changing.fieldsAsked.length = 0;
    index.sync(changing);
    expect(changing.fieldsAsked).toEqual(['mcp_linear_archiveissue']);
    expect(index.size).toBe(13);
    expect(index.search('set the priority', 5).map((match) => match.name)).not.toContain('mcp_linear_setissuepriority');
    expect(index.search('archive issue', 1).map((match) => match.name)).toEqual(['mcp_linear_archiveissue']);
  });
});

function staticTool(name: string, description: string): StaticTool {
  return { definition: { name, description, parameters: { type: 'object', properties: {} } }, call: () => ({ output: {}, isError: false }) };
}

async function search(options: ToolHostOptions, query: string): Promise<DiscoveryResult> {
  const host = new ToolHost(options);
  const result = await host.call('tools_search', { query, limit: 5 });
  expect(result.isError).toBe(false);
  return result.output as DiscoveryResult;
}

describe('tools_search results', () => {
  const tools = [staticTool('send_invoice', 'Sends an invoice to a customer.'), staticTool('send_email', 'Sends an email.')];

  it('carries a relevance score per tool, best first', async () => {
    const output = await search({ tools }, 'send an invoice');
    expect(output.tools.map((tool) => tool.name)).toEqual(['send_invoice', 'send_email']);
    const scores = output.scores!;
    expect(Object.keys(scores)).toEqual(['send_invoice', 'send_email']);
    expect(scores.send_invoice).toBeGreaterThan(scores.send_email!);
  });

  it('says so when nothing matches, instead of returning noise', async () => {
    const output = await search({ tools }, 'xylophone');
    expect(output.tools).toEqual([]);
    expect(output.message).toMatch(/^No tool matches "xylophone"\. .*tools_groups/);
  });

  it('takes synonym groups of the application beside the defaults', async () => {
    expect((await search({ tools }, 'bill the customer')).tools.map((tool) => tool.name)).toEqual(['send_invoice']);
    expect((await search({ tools }, 'bill somebody')).tools).toEqual([]);
    const output = await search({ tools, discovery: { synonyms: [['invoice', 'bill']] } }, 'bill somebody');
    expect(output.tools.map((tool) => tool.name)).toEqual(['send_invoice']);
  });
});

/**
 * A deterministic stand-in for an embedding model: each word counts in one of 64
 * dimensions by its first letters, and words that mean the same in this test share theirs.
 */
function standInEmbedding(meaning: Record<string, string> = {}): { embed: (texts: string[]) => Promise<number[][]>; texts: string[] } {
  const texts: string[] = [];
  const embed = (batch: string[]): Promise<number[][]> => {
    texts.push(...batch);
    return Promise.resolve(
      batch.map((text) => {
        const vector: number[] = Array.from({ length: 64 }, () => 0);
        for (const word of words(text)) {
          const key = meaning[word] ?? word.slice(0, 4);
          let hash = 0;
          for (const char of key) hash = (hash * 31 + char.charCodeAt(0)) % 64;
          vector[hash]! += 1;
        }
        return vector;
      }),
    );
  };
  return { embed, texts };
}

describe('hybrid ranking with an embedding model', () => {
  const tools = [staticTool('send_invoice', 'Sends an invoice to a customer.'), staticTool('send_email', 'Sends an email.'), staticTool('bill_rate', 'Currency rates.')];

  it('finds by meaning what no word of the query names', async () => {
    const query = 'charge somebody money';
    expect((await search({ tools, discovery: { defaultSynonyms: false } }, 'somebody money')).tools).toEqual([]);
    const { embed } = standInEmbedding({ money: 'invoice', invoice: 'invoice' });
    const output = await search({ tools, discovery: { embed } }, query);
    expect(output.tools[0]!.name).toBe('send_invoice');
  });

  it('embeds each tool once, and again only when it changes', async () => {
    const { embed, texts } = standInEmbedding();
    const definitions: ToolDefinition[] = tools.map((tool) => tool.definition);
    const provider = {
      name: 'p',
      definitions: () => definitions,
      groups: () => [],
      has: (name: string) => definitions.some((definition) => definition.name === name),
      init: () => Promise.resolve(),
      refresh: () => Promise.resolve(),
      call: () => Promise.resolve({ output: {}, isError: false }),
      close: () => Promise.resolve(),
    };
    const host = new ToolHost({ providers: [provider], discovery: { embed } });
    await host.call('tools_search', { query: 'send', limit: 3 });
    await host.call('tools_search', { query: 'email', limit: 3 });
    expect(texts.filter((text) => text.startsWith('send_'))).toHaveLength(2);
    definitions[1] = { ...definitions[1]!, description: 'Sends an email with attachments.' };
    await host.call('tools_search', { query: 'email', limit: 3 });
    expect(texts.filter((text) => text.startsWith('send_email'))).toEqual(['send_email\nSends an email.', 'send_email\nSends an email with attachments.']);
  });

  it('keeps an exact name first, and falls back to the lexical ranking when the model fails', async () => {
    const { embed } = standInEmbedding();
    expect((await search({ tools, discovery: { embed } }, 'send_email')).tools[0]!.name).toBe('send_email');
    const failing = (): Promise<number[][]> => Promise.reject(new Error('model offline'));
    const output = await search({ tools, discovery: { embed: failing } }, 'send an invoice');
    expect(output.tools.map((tool) => tool.name)).toEqual(['send_invoice', 'send_email']);
  });
});
