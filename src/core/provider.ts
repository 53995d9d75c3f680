/**
 * The `ToolProvider` contract: a source of tools whose catalog can change at run time,
 * such as the MCP tool provider. The host reads a synchronous snapshot for the model
 * and awaits the async methods for set-up, refresh, calls and release.
 */
import type { ToolGroup } from './group.js';
import type { ToolSearchFields } from './search/fields.js';
import type { ToolCallOptions, ToolDefinition, ToolOutput } from './tool.js';

export interface ToolProviderInitOptions {
  signal?: AbortSignal;
}

export interface ToolProvider {
  /** A registry and diagnostic name (not model-facing), such as `mcp`. */
  readonly name: string;
  /** The tools the model may call now: a snapshot, cheap to read. */
  definitions(): ToolDefinition[];
  /** The capability groups of those tools. */
  groups(): ToolGroup[];
  /**
   * What search may know of `name` (lowercased) beyond its definition: the tool's own
   * name, title and description, and its server's. Optional; without it a tool is searched
   * by its definition and group.
   */
  searchFields?(name: string): ToolSearchFields | undefined;
  /** Whether the provider currently routes `name` (already lowercased). */
  has(name: string): boolean;
  /** Connects and lists; called once by `ToolHost.init()`. */
  init(options?: ToolProviderInitOptions): Promise<void>;
  /** Re-lists every source and reports failures to the caller. */
  refresh(options?: ToolProviderInitOptions): Promise<void>;
  /** Calls the tool named `name` (lowercased) with an arguments object. */
  call(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolOutput>;
  /** Releases every resource; the provider is unusable afterwards. */
  close(): Promise<void>;
}
