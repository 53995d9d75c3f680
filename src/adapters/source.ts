/**
 * What every framework adapter takes and how it calls through it: a `ToolHost`, a
 * `ToolSession` (the discovery helpers and what the model has selected so far), or a
 * provider such as the fleet manager. Calls always get the host's semantics (unknown
 * names and non-object arguments come back as results the model reads, only the
 * caller's abort rejects), so a provider is given a host of its own.
 */
import { ToolHost } from '../core/host.js';
import { INLINE_IMAGE_TYPES } from '../core/presentation.js';
import type { ToolProvider } from '../core/provider.js';
import type { ToolSession } from '../core/session.js';
import type { ToolCallOptions, ToolDefinition, ToolOutput } from '../core/tool.js';
import { presentationOf, type ViewPiece, viewPieces } from '../projections/result-view.js';

/** What an adapter takes: a host, a conversation's session, or a provider (the fleet manager, an `McpToolProvider`). */
export type ToolSource = ToolHost | ToolSession | ToolProvider;

/** The two things an adapter needs of its source. */
export interface AdapterTarget {
  /** The definitions to offer now (for a session: the helpers plus what was selected). */
  definitions(): ToolDefinition[];
  call(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolOutput>;
}

function isProvider(source: ToolSource): source is ToolProvider {
  return typeof (source as Partial<ToolProvider>).has === 'function' && typeof (source as Partial<ToolProvider>).groups === 'function' && !(source instanceof ToolHost);
}

/** The target an adapter calls through. A provider must have been initialised (`init()`, or `startAll()` for the fleet). */
export function adapterTarget(source: ToolSource): AdapterTarget {
  if (!isProvider(source)) return source;
  const host = new ToolHost({ providers: [source], discovery: false });
  return { definitions: () => source.definitions(), call: (name, args, options) => host.call(name, args, options) };
}

/** A tool output as text and the media `accepts` says the framework takes (the rest become notices). */
export function outputPieces(output: ToolOutput, accepts: (mimeType: string) => boolean): ViewPiece[] {
  return viewPieces(presentationOf(output), accepts);
}

/** The images every framework's model messages can carry: those the neutral view carries. */
export const isImage = (mimeType: string): boolean => INLINE_IMAGE_TYPES.has(mimeType);
