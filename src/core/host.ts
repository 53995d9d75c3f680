/**
 * `ToolHost`: static tools and tool providers merged into one model-facing catalog,
 * with case-insensitive routing and the discovery helpers. Static tools win a name
 * collision with a provider tool; the shadowed provider tool is hidden from its group.
 */
import { type DiscoveryLimits, type DiscoveryOptions, DEFAULT_DISCOVERY_LIMITS, discoveryTools } from './discovery.js';
import type { ToolSearchFields } from './search/fields.js';
import { normaliseGroups, type ToolGroup } from './group.js';
import { textPresentation } from './presentation.js';
import type { ToolProvider } from './provider.js';
import { nearMatches } from './similarity.js';
import { waitBounded } from './wait.js';
import {
  echoedName,
  functionNameProblem,
  type StaticTool,
  type ToolCallOptions,
  type ToolDefinition,
  type ToolOutput,
} from './tool.js';
import { ToolSession, type ToolSessionOptions } from './session.js';

export interface ToolHostOptions {
  /** Tools implemented in-process. They take precedence over provider tools of the same name. */
  tools?: StaticTool[];
  /** Dynamic tool sources such as `McpToolProvider`, consulted in this order. */
  providers?: ToolProvider[];
  /**
   * Register `tools_groups`, `tools_search` and `tools_select`. Default `true`. An object
   * registers them too and tunes `tools_search`: `{ synonyms: [['invoice', 'bill']] }` adds
   * synonym groups to the defaults (see `DiscoveryOptions`).
   */
  discovery?: boolean | DiscoveryOptions;
  /** Budgets of the discovery helpers. Default: 256 KiB per output, 64 search results. Checked: invalid values throw `ToolHostError`. */
  discoveryLimits?: Partial<DiscoveryLimits>;
  /**
   * Told when a provider throws while listing its tools; that provider's tools are left
   * out of that listing and the others are unaffected. Default: one `console.warn` line.
   */
  onProviderError?: (provider: string, error: unknown) => void;
}

/** Thrown by `ToolHost` for a programming error such as a duplicate or invalid tool name. */
export class ToolHostError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'ToolHostError';
    this.code = code;
  }
}

/** A tool-level error result the model can read. */
export function toolError(code: string, message: string, details: Record<string, unknown> = {}): ToolOutput {
  return {
    output: { error: { code, message, ...details } },
    modelOutput: textPresentation(message),
    isError: true,
  };
}

/** A static tool that did not finish within the call's `timeoutMs`. */
class StaticToolTimeout extends Error {}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The host's discovery limits: the defaults, with every given field checked. */
function checkedDiscoveryLimits(given: Partial<DiscoveryLimits> | undefined): DiscoveryLimits {
  const limits = { ...DEFAULT_DISCOVERY_LIMITS };
  for (const [field, min] of [['outputBytes', 1024], ['searchLimit', 1]] as const) {
    const value = given?.[field];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < min) {
      throw new ToolHostError('invalid_option', `discoveryLimits.${field} must be an integer of at least ${min}, got ${String(value)}.`);
    }
    limits[field] = value;
  }
  return limits;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

export class ToolHost {
  private readonly statics = new Map<string, StaticTool>();
  private readonly providers: ToolProvider[] = [];
  private readonly discoveryLimits: DiscoveryLimits;
  private initialised = false;
  /** Static tools whose `init` has run: once each, even when `init()` runs again after a failure. */
  private readonly initialisedStatics = new Set<StaticTool>();
  private initRun: Promise<void> | undefined;
  private closed = false;
  private readonly onProviderError: (provider: string, error: unknown) => void;

  constructor(options: ToolHostOptions = {}) {
    this.discoveryLimits = checkedDiscoveryLimits(options.discoveryLimits);
    this.onProviderError =
      options.onProviderError ?? ((provider, error) => console.warn(`Tool provider "${provider}" failed to list its tools: ${errorText(error)}`));
    for (const tool of options.tools ?? []) this.addTool(tool);
    const discovery = options.discovery ?? true;
    if (discovery !== false) {
      for (const tool of discoveryTools(this, this.discoveryLimits, discovery === true ? {} : discovery)) this.addTool(tool);
    }
    for (const provider of options.providers ?? []) this.addProvider(provider);
  }

  /** Registers a static tool. Throws `ToolHostError` on an invalid or duplicate name. */
  addTool(tool: StaticTool): void {
    const name = tool.definition.name;
    const problem = functionNameProblem(name);
    if (problem !== undefined) throw new ToolHostError('invalid_tool_name', `Tool name "${name}" is invalid: ${problem}.`);
    if (this.statics.has(name)) throw new ToolHostError('duplicate_tool', `Tool "${name}" is already registered.`);
    this.statics.set(name, tool);
  }

  /** Registers a provider. Providers added after `init()` must be initialised by the caller. */
  addProvider(provider: ToolProvider): void {
    if (this.providers.some((existing) => existing.name === provider.name)) {
      throw new ToolHostError('duplicate_provider', `Tool provider "${provider.name}" is already registered.`);
    }
    this.providers.push(provider);
  }

  /**
   * Initialises static tools first (each once), then each provider in registration
   * order. Concurrent calls share one run; after a failure the next call runs again.
   */
  async init(options: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.initialised) return;
    this.initRun ??= this.runInit(options).catch((error: unknown) => {
      this.initRun = undefined;
      throw error;
    });
    return this.initRun;
  }

  private async runInit(options: { signal?: AbortSignal }): Promise<void> {
    for (const tool of this.statics.values()) {
      options.signal?.throwIfAborted();
      if (this.initialisedStatics.has(tool)) continue;
      await tool.init?.(options);
      this.initialisedStatics.add(tool);
    }
    for (const provider of this.providers) {
      options.signal?.throwIfAborted();
      await provider.init(options);
    }
    this.initialised = true;
  }

  /** Refreshes every provider; throws an `AggregateError` of the providers that failed. */
  async refresh(options: { signal?: AbortSignal } = {}): Promise<void> {
    const results = await Promise.allSettled(this.providers.map((provider) => provider.refresh(options)));
    const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, 'Several tool providers failed to refresh.');
  }

  /** Every callable definition: static tools first, then provider tools not shadowed by them. */
  definitions(): ToolDefinition[] {
    const result = Array.from(this.statics.values(), (tool) => tool.definition);
    const seen = new Set(this.statics.keys());
    for (const provider of this.providers) {
      for (const definition of this.definitionsOf(provider)) {
        const key = definition.name.toLowerCase();
        if (seen.has(key)) continue;
        seen.add(key);
        result.push(definition);
      }
    }
    return result;
  }

  /** A provider's definitions; one that throws is left out (and reported), so it cannot take the others down. */
  private definitionsOf(provider: ToolProvider): ToolDefinition[] {
    return this.guarded(provider, () => provider.definitions());
  }

  private guarded<T>(provider: ToolProvider, list: () => T[]): T[] {
    try {
      return list();
    } catch (error) {
      this.onProviderError(provider.name, error);
      return [];
    }
  }

  /** The capability groups, with members normalised against the visible definitions. */
  groups(): ToolGroup[] {
    const raw: ToolGroup[] = [];
    const staticGroups = new Map<string, ToolGroup>();
    for (const tool of this.statics.values()) {
      if (tool.group === undefined) continue;
      const key = tool.group.id.toLowerCase();
      let group = staticGroups.get(key);
      if (group === undefined) {
        group = { ...tool.group, members: [] };
        staticGroups.set(key, group);
        raw.push(group);
      }
      group.members.push(tool.definition.name);
    }
    // Provider members count only when this provider is the one that routes the name.
    const owners = this.owners();
    for (const provider of this.providers) {
      for (const group of this.guarded(provider, () => provider.groups())) {
        raw.push({ ...group, members: group.members.filter((member) => owners.get(member.toLowerCase()) === provider) });
      }
    }
    const visible = new Set(this.statics.keys());
    for (const name of owners.keys()) visible.add(name);
    return normaliseGroups(raw, visible);
  }

  /** What the provider routing `name` knows of it for search; `undefined` for a static tool or a provider that says nothing more. */
  searchFields(name: string): ToolSearchFields | undefined {
    const key = name.toLowerCase();
    if (this.statics.has(key)) return undefined;
    const provider = this.providers.find((candidate) => candidate.has(key));
    if (provider?.searchFields === undefined) return undefined;
    try {
      return provider.searchFields(key);
    } catch (error) {
      this.onProviderError(provider.name, error);
      return undefined;
    }
  }

  /** Which provider owns each provider-backed name that no static tool shadows. */
  private owners(): Map<string, ToolProvider> {
    const owners = new Map<string, ToolProvider>();
    for (const provider of this.providers) {
      for (const definition of this.definitionsOf(provider)) {
        const key = definition.name.toLowerCase();
        if (!this.statics.has(key) && !owners.has(key)) owners.set(key, provider);
      }
    }
    return owners;
  }

  /**
   * Calls a tool by its model-facing name (case-insensitive). Model mistakes (an
   * unknown name, non-object arguments) and tool failures come back as results with
   * `isError: true`; an aborted `signal` rejects with its reason.
   */
  async call(name: string, args: unknown, options: ToolCallOptions = {}): Promise<ToolOutput> {
    if (this.closed) throw new ToolHostError('host_closed', 'The tool host is closed.');
    const signal = options.signal;
    if (signal?.aborted) throw abortError(signal);
    const key = name.trim().toLowerCase();
    if (args === null || args === undefined) args = {};
    if (typeof args !== 'object' || Array.isArray(args)) {
      const kind = Array.isArray(args) ? 'an array' : typeof args;
      return toolError('invalid_arguments', `Tool "${name}" expects a JSON object of arguments, got ${kind}.`, {
        tool: name,
      });
    }
    const tool = this.statics.get(key);
    if (tool !== undefined) {
      try {
        // A static tool that outlives the call's timeoutMs or signal gets no say in the result.
        return await waitBounded(Promise.resolve().then(() => tool.call(args as Record<string, unknown>, options)), {
          ...options,
          timeoutError: () => new StaticToolTimeout(`Tool "${key}" did not finish within ${options.timeoutMs} ms (timeoutMs).`),
        });
      } catch (error) {
        if (signal?.aborted) throw abortError(signal);
        if (error instanceof StaticToolTimeout) return toolError('timeout', error.message, { tool: key });
        return toolError('tool_failed', `Tool "${key}" failed: ${errorText(error)}`, { tool: key });
      }
    }
    for (const provider of this.providers) {
      if (!provider.has(key)) continue;
      try {
        return await provider.call(key, args, options);
      } catch (error) {
        // Only the caller's abort rejects; a provider that throws gives an error result.
        if (signal?.aborted) throw abortError(signal);
        return toolError('tool_failed', `Tool "${key}" failed in provider "${provider.name}": ${errorText(error)}`, { tool: key });
      }
    }
    const suggestions = nearMatches(key, this.definitions().map((definition) => definition.name));
    const hint =
      suggestions.length > 0
        ? ` Did you mean: ${suggestions.join(', ')}?`
        : ' Use tools_search or tools_groups to find available tools.';
    const shown = echoedName(name);
    return toolError('tool_not_found', `Tool "${shown}" was not found.${hint}`, { tool: shown, did_you_mean: suggestions });
  }

  /**
   * A conversation's view of the catalog: the discovery helpers plus the tools the
   * model has discovered so far, bounded. See {@link ToolSession}.
   */
  session(options: ToolSessionOptions = {}): ToolSession {
    return new ToolSession(this, options);
  }

  /** Closes every provider and static tool. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const results = await Promise.allSettled([
      ...this.providers.map((provider) => provider.close()),
      ...Array.from(this.statics.values(), async (tool) => tool.close?.()),
    ]);
    const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    if (failures.length > 0) throw new AggregateError(failures, 'Some tools failed to close.');
  }
}
