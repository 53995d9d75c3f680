/**
 * The discovery helpers `tools_groups`, `tools_search` and `tools_select`: they let a
 * model survey a large catalog top-down (groups, then schemas) instead of loading
 * every schema at once. Every output is bounded; a schema that does not fit is left
 * out whole, never weakened, and listed by name so it can be selected on its own.
 */
import { jsonBytes, KiB } from './budget.js';
import type { ToolGroup } from './group.js';
import { textPresentation } from './presentation.js';
import type { ToolSearchFields } from './search/fields.js';
import { SemanticRanker } from './search/hybrid.js';
import { type ToolSearchOptions, ToolSearchIndex } from './search/tool-index.js';
import { nearMatches } from './similarity.js';
import { echoedName, type StaticTool, type ToolDefinition, type ToolOutput } from './tool.js';

/** Budgets of the discovery helpers (the Anda design's defaults). */
export interface DiscoveryLimits {
  /** Largest serialised output of one helper call. Default 256 KiB. */
  outputBytes: number;
  /** Most definitions `tools_search` returns. Default 64 (and 10 when the model asks for 0). */
  searchLimit: number;
}

export const DEFAULT_DISCOVERY_LIMITS: DiscoveryLimits = { outputBytes: 256 * KiB, searchLimit: 64 };

/** Room kept free in every output for its envelope fields. */
const RESERVED_BYTES = 128;
const DEFAULT_SEARCH_RESULTS = 10;
/** How many lexical matches hybrid ranking fuses with the semantic ones. */
const SEMANTIC_POOL = 100;
/** Most unknown names `tools_select` reports back. */
const MAX_UNKNOWN_REPORTED = 16;

export const TOOLS_GROUPS = 'tools_groups';
export const TOOLS_SEARCH = 'tools_search';
export const TOOLS_SELECT = 'tools_select';
export const DISCOVERY_TOOL_NAMES: readonly string[] = [TOOLS_GROUPS, TOOLS_SEARCH, TOOLS_SELECT];

/** What the discovery helpers read: the host's current visible catalog. */
export interface DiscoveryCatalog {
  definitions(): ToolDefinition[];
  groups(): ToolGroup[];
  /** What the provider of `name` knows of it beyond its definition (its own name, its server), for search. */
  searchFields?(name: string): ToolSearchFields | undefined;
}

/** How `tools_search` ranks; see {@link ToolSearchOptions}. */
export type DiscoveryOptions = ToolSearchOptions;

/** One entry of the `tools_groups` directory. */
export interface GroupDirectoryEntry {
  id: string;
  title: string;
  description: string;
  member_count: number;
}

/** A group as attached to search and select results. */
export type AttachedGroup = ToolGroup;

/** Output of `tools_search` and `tools_select`. */
export interface DiscoveryResult {
  tools: ToolDefinition[];
  groups: AttachedGroup[];
  total_tools: number;
  /** Names whose schema did not fit the output budget; select them by exact name. */
  omitted?: string[];
  /** Requested names that are not visible tools, with near matches. */
  unknown?: { name: string; did_you_mean: string[] }[];
  /** `tools_search`: each returned tool's relevance, higher is better (comparable within one search only). */
  scores?: Record<string, number>;
  /** `tools_search`: why nothing was returned, and what to try instead. */
  message?: string;
}

const GROUPS_DEFINITION: ToolDefinition = {
  name: TOOLS_GROUPS,
  description:
    'List the available tool groups (bundles of related tools, such as one MCP server) as a compact directory: ' +
    'id, title, description and member count, without schemas. Use "*" or "" to list all, or a word to filter. ' +
    'Then call tools_select with a group id to load its tools.',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'Filter on id, title or description; "*" lists all.' } },
    required: ['query'],
    additionalProperties: false,
  },
  strict: true,
};

const SEARCH_DEFINITION: ToolDefinition = {
  name: TOOLS_SEARCH,
  description:
    'Search the available tools by what you want done, in plain words (for example "create an issue on GitHub"). ' +
    'Returns the best matching tool definitions, best first, with their full parameter schemas, a relevance score each, ' +
    'and the groups they belong to. Query "*" lists tool names and descriptions without schemas, ' +
    'the first 64 (total_tools says how many there are; tools_groups browses them by group).',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words to look for, or "*".' },
      limit: { type: 'integer', description: 'Most results to return (0 means 10; at most 64).' },
    },
    required: ['query', 'limit'],
    additionalProperties: false,
  },
  strict: true,
};

const SELECT_DEFINITION: ToolDefinition = {
  name: TOOLS_SELECT,
  description:
    'Load the full definitions (parameter schemas) of specific tools by exact name, or of every tool of one group ' +
    'by its id, so they can be called. Pass an empty list or string for the one you do not use.',
  parameters: {
    type: 'object',
    properties: {
      tools: { type: 'array', items: { type: 'string' }, description: 'Exact tool names.' },
      group: { type: 'string', description: 'A group id from tools_groups, such as "mcp:github".' },
    },
    required: ['tools', 'group'],
    additionalProperties: false,
  },
  strict: true,
};

function ok(output: unknown): ToolOutput {
  return { output, modelOutput: textPresentation(JSON.stringify(output)), isError: false };
}

function invalid(message: string): ToolOutput {
  const output = { error: { code: 'invalid_arguments', message } };
  return { output, modelOutput: textPresentation(`Invalid input: ${message}`), isError: true };
}

function stringArgument(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  return typeof value === 'string' ? value : undefined;
}

/** The `tools_groups` directory for `query` (blank or `*` lists every group). */
export function groupDirectory(
  groups: ToolGroup[],
  query: string,
  limits: DiscoveryLimits = DEFAULT_DISCOVERY_LIMITS,
): { groups: GroupDirectoryEntry[]; total_groups: number; omitted?: string[] } {
  const q = query.trim().toLowerCase();
  const matching =
    q === '' || q === '*'
      ? groups
      : groups.filter((group) =>
          [group.id, group.title, group.description].some((field) => field.toLowerCase().includes(q)),
        );
  let room = limits.outputBytes - RESERVED_BYTES;
  const entries: GroupDirectoryEntry[] = [];
  const omitted: string[] = [];
  for (const group of matching) {
    const entry = { id: group.id, title: group.title, description: group.description, member_count: group.members.length };
    const size = jsonBytes(entry) + 1;
    if (size > room) {
      // The omitted list takes room too; an id that does not fit either is left out.
      const listed = jsonBytes(group.id) + 1;
      if (listed <= room) {
        omitted.push(group.id);
        room -= listed;
      }
      continue;
    }
    room -= size;
    entries.push(entry);
  }
  return { groups: entries, total_groups: groups.length, ...(omitted.length > 0 ? { omitted } : {}) };
}

/** Groups having at least one of `names` as a member. */
export function groupsOf(groups: ToolGroup[], names: Iterable<string>): ToolGroup[] {
  const wanted = new Set(Array.from(names, (name) => name.toLowerCase()));
  if (wanted.size === 0) return [];
  return groups.filter((group) => group.members.some((member) => wanted.has(member.toLowerCase())));
}

/**
 * Fits definitions, then their groups, into the output budget. A definition or a group
 * that does not fit is left out whole; left-out definitions are listed by name.
 * `extraBytes` is what else an included definition adds to the output (its score).
 */
export function boundedDiscovery(
  definitions: ToolDefinition[],
  groups: ToolGroup[],
  totalTools: number,
  limits: DiscoveryLimits = DEFAULT_DISCOVERY_LIMITS,
  extraBytes: (definition: ToolDefinition) => number = () => 0,
): DiscoveryResult {
  let room = limits.outputBytes - RESERVED_BYTES;
  const tools: ToolDefinition[] = [];
  const omitted: string[] = [];
  for (const definition of definitions) {
    const size = jsonBytes(definition) + 1 + extraBytes(definition);
    if (size > room) {
      // The omitted list itself takes room: the name, quotes and a comma. A name that does not fit either is left out.
      const listed = jsonBytes(definition.name) + 1;
      if (listed <= room) {
        omitted.push(definition.name);
        room -= listed;
      }
      continue;
    }
    room -= size;
    tools.push(definition);
  }
  const attached: ToolGroup[] = [];
  for (const group of groupsOf(groups, tools.map((tool) => tool.name))) {
    const size = jsonBytes(group) + 1;
    if (size > room) continue;
    room -= size;
    attached.push(group);
  }
  return { tools, groups: attached, total_tools: totalTools, ...(omitted.length > 0 ? { omitted } : {}) };
}

/** What `tools_search` says when nothing matches. */
function noMatch(query: string): string {
  return `No tool matches "${echoedName(query.trim())}". Try other words (what the tool does, or the service it works with), or tools_groups to browse the tools by group.`;
}

/** The three discovery helpers as static tools reading `catalog`. */
export function discoveryTools(
  catalog: DiscoveryCatalog,
  limits: DiscoveryLimits = DEFAULT_DISCOVERY_LIMITS,
  options: DiscoveryOptions = {},
): StaticTool[] {
  // Built at the first search and kept in step with the catalog from then on.
  let index: ToolSearchIndex | undefined;
  const semantic = options.embed === undefined ? undefined : new SemanticRanker(options.embed);
  const searchable = {
    groups: () => catalog.groups(),
    ...(catalog.searchFields === undefined ? {} : { searchFields: (name: string) => catalog.searchFields!(name) }),
  };
  const groupsTool: StaticTool = {
    definition: GROUPS_DEFINITION,
    call(args) {
      const query = stringArgument(args, 'query') ?? '*';
      return ok(groupDirectory(catalog.groups(), query, limits));
    },
  };

  const searchTool: StaticTool = {
    definition: SEARCH_DEFINITION,
    async call(args) {
      const query = stringArgument(args, 'query');
      if (query === undefined) return invalid('`query` must be a string');
      const rawLimit = args.limit;
      if (rawLimit !== undefined && (typeof rawLimit !== 'number' || !Number.isInteger(rawLimit) || rawLimit < 0)) {
        return invalid('`limit` must be a non-negative integer');
      }
      const limit = Math.min(rawLimit === undefined || rawLimit === 0 ? DEFAULT_SEARCH_RESULTS : rawLimit, limits.searchLimit);
      const definitions = catalog.definitions();
      if (query.trim() === '*') {
        const directory = definitions
          .slice(0, limits.searchLimit)
          .map((definition) => ({ name: definition.name, description: definition.description, parameters: {} }));
        return ok(boundedDiscovery(directory, [], definitions.length, limits));
      }
      if (query.trim() === '') return ok(boundedDiscovery([], [], definitions.length, limits));
      index ??= new ToolSearchIndex(options);
      // The helpers themselves are not what a model searches for.
      index.sync({ ...searchable, definitions: () => definitions.filter((definition) => !DISCOVERY_TOOL_NAMES.includes(definition.name)) });
      const lexical = index.search(query, semantic === undefined ? limit : SEMANTIC_POOL);
      const matches = semantic === undefined ? lexical : await semantic.rank(query, lexical, index.embeddingTexts(), limit);
      const byName = new Map(definitions.map((definition) => [definition.name, definition]));
      // A score entry is `"<name>":<score>,`: the name, its quotes, a colon, a comma and at most 16 digits.
      const scoreBytes = (definition: ToolDefinition): number => jsonBytes(definition.name) + 18;
      const result = boundedDiscovery(
        matches.map((match) => byName.get(match.name)!),
        catalog.groups(),
        definitions.length,
        limits,
        scoreBytes,
      );
      if (matches.length === 0) return ok({ ...result, message: noMatch(query) });
      const score = new Map(matches.map((match) => [match.name, match.score]));
      return ok({ ...result, scores: Object.fromEntries(result.tools.map((tool) => [tool.name, score.get(tool.name)!])) });
    },
  };

  const selectTool: StaticTool = {
    definition: SELECT_DEFINITION,
    call(args) {
      const rawTools = args.tools ?? [];
      if (!Array.isArray(rawTools) || rawTools.some((name) => typeof name !== 'string')) {
        return invalid('`tools` must be a list of tool names');
      }
      const groupId = (stringArgument(args, 'group') ?? '').trim();
      const requested = (rawTools as string[]).map((name) => name.trim()).filter((name) => name !== '');
      if (requested.length === 0 && groupId === '') {
        return invalid('one of `tools` or `group` must be provided');
      }
      const definitions = catalog.definitions();
      const byName = new Map(definitions.map((definition) => [definition.name.toLowerCase(), definition]));
      const groups = catalog.groups();
      const names: string[] = [];
      const seen = new Set<string>();
      const add = (name: string): void => {
        const key = name.toLowerCase();
        if (!seen.has(key)) {
          seen.add(key);
          names.push(name);
        }
      };
      // Explicit names first, then the group's members.
      requested.forEach(add);
      let unknownGroup: string | undefined;
      if (groupId !== '') {
        const group = groups.find((candidate) => candidate.id.toLowerCase() === groupId.toLowerCase());
        if (group === undefined) unknownGroup = groupId;
        else group.members.forEach(add);
      }
      const selected: ToolDefinition[] = [];
      const unknownNames: string[] = [];
      for (const name of names) {
        const definition = byName.get(name.toLowerCase());
        if (definition === undefined) unknownNames.push(name);
        else selected.push(definition);
      }
      const result = boundedDiscovery(selected, groups, definitions.length, limits);
      // Reported within what is left of the output budget, the first few only, each name cut
      // short (a made-up name can be any length, and is echoed back to the model).
      const unknown: { name: string; did_you_mean: string[] }[] = [];
      let room = limits.outputBytes - jsonBytes(result) - '"unknown":[],'.length;
      const report = (name: string, candidates: () => string[]): void => {
        if (unknown.length >= MAX_UNKNOWN_REPORTED) return;
        const cut = echoedName(name);
        // A name too long to be a tool's is not matched against the catalog either.
        const entry = { name: cut, did_you_mean: cut === name ? candidates() : [] };
        const size = jsonBytes(entry) + 1;
        if (size > room) return;
        room -= size;
        unknown.push(entry);
      };
      for (const name of unknownNames) report(name, () => nearMatches(name, byName.keys()));
      if (unknownGroup !== undefined) {
        const ids = groups.map((group) => group.id);
        report(`group:${unknownGroup}`, () => nearMatches(unknownGroup, ids).map((id) => `group:${id}`));
      }
      if (unknown.length > 0) result.unknown = unknown;
      const output = ok(result);
      // Nothing at all was found: the model asked for names that do not exist.
      if (selected.length === 0) output.isError = true;
      return output;
    },
  };

  return [groupsTool, searchTool, selectTool];
}
