/**
 * `ToolSession`: one conversation's working set of tools. A model starts with the
 * discovery helpers (and any pinned tools); every definition that `tools_search` or
 * `tools_select` returns joins the set, so the next model request can call it. The
 * set is bounded: at most 128 definitions and 256 KiB of schemas; beyond that the
 * least recently discovered tools leave first.
 */
import { jsonBytes, KiB } from './budget.js';
import { DISCOVERY_TOOL_NAMES, TOOLS_SEARCH, TOOLS_SELECT } from './discovery.js';
import type { ToolCallOptions, ToolDefinition, ToolOutput } from './tool.js';

export interface ToolSessionOptions {
  /** Tools always offered to the model besides the discovery helpers. */
  pinned?: string[];
  /** Most discovered definitions kept. Default 128. */
  maxDefinitions?: number;
  /** Most bytes of discovered definitions kept (serialised JSON). Default 256 KiB. */
  maxBytes?: number;
}

/**
 * Most definitions one `tools_search` adds, so one ranked guess cannot flush the set. A
 * `tools_select` adds all it returns: the model asked for those (a whole group included).
 */
const MAX_MERGED_PER_SEARCH = 16;

/** What a session needs from its host. */
export interface ToolSessionHost {
  definitions(): ToolDefinition[];
  call(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolOutput>;
}

export class ToolSession {
  private readonly host: ToolSessionHost;
  private readonly pinned: string[];
  private readonly maxDefinitions: number;
  private readonly maxBytes: number;
  /** Discovered names, least recently discovered first. */
  private readonly discoveredNames: string[] = [];

  constructor(host: ToolSessionHost, options: ToolSessionOptions = {}) {
    this.host = host;
    this.pinned = (options.pinned ?? []).map((name) => name.toLowerCase());
    this.maxDefinitions = options.maxDefinitions ?? 128;
    this.maxBytes = options.maxBytes ?? 256 * KiB;
  }

  /**
   * The definitions to send with the next model request: the discovery helpers, the
   * pinned tools and the discovered tools, with their current schemas. Tools that are
   * no longer available are left out.
   */
  definitions(): ToolDefinition[] {
    const byName = new Map(this.host.definitions().map((definition) => [definition.name.toLowerCase(), definition]));
    const result: ToolDefinition[] = [];
    const seen = new Set<string>();
    for (const name of [...DISCOVERY_TOOL_NAMES, ...this.pinned, ...this.discoveredNames]) {
      const definition = byName.get(name);
      if (definition === undefined || seen.has(name)) continue;
      seen.add(name);
      result.push(definition);
    }
    return result;
  }

  /** Names discovered so far, least recently discovered first. */
  discovered(): string[] {
    return [...this.discoveredNames];
  }

  /** Forgets every discovered tool. */
  reset(): void {
    this.discoveredNames.length = 0;
  }

  /** Calls a tool through the host and records what discovery helpers return. */
  async call(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolOutput> {
    const result = await this.host.call(name, args, options);
    const key = name.trim().toLowerCase();
    // A wildcard search lists names and descriptions only: nothing to remember.
    const query = (args as { query?: unknown } | null | undefined)?.query;
    const wildcard = key === TOOLS_SEARCH && typeof query === 'string' && query.trim() === '*';
    if ((key === TOOLS_SELECT || key === TOOLS_SEARCH) && !result.isError && !wildcard) {
      this.remember(result.output, key === TOOLS_SEARCH ? MAX_MERGED_PER_SEARCH : Number.POSITIVE_INFINITY);
    }
    return result;
  }

  private remember(output: unknown, most: number): void {
    const tools = (output as { tools?: unknown } | undefined)?.tools;
    if (!Array.isArray(tools)) return;
    const names: string[] = [];
    for (const tool of tools.slice(0, most)) {
      const name = (tool as { name?: unknown }).name;
      if (typeof name === 'string') names.push(name.toLowerCase());
    }
    for (const name of names) {
      const at = this.discoveredNames.indexOf(name);
      if (at !== -1) this.discoveredNames.splice(at, 1);
      this.discoveredNames.push(name);
    }
    this.evict();
  }

  /** Drops the least recently discovered tools until the set fits its budgets. */
  private evict(): void {
    const byName = new Map(this.host.definitions().map((definition) => [definition.name.toLowerCase(), definition]));
    const sizes = this.discoveredNames.map((name) => {
      const definition = byName.get(name);
      return definition === undefined ? 0 : jsonBytes(definition);
    });
    let total = sizes.reduce((sum, size) => sum + size, 0);
    while (this.discoveredNames.length > this.maxDefinitions || (total > this.maxBytes && this.discoveredNames.length > 0)) {
      this.discoveredNames.shift();
      total -= sizes.shift() ?? 0;
    }
  }
}
