/**
 * `mcp-fleet list`: the servers (id, state, protocol era, tool count, last error), or,
 * with a server id, its tools (name, readable signature, one-line description) and how
 * many tools, resources, templates and prompts it has (that line is part of the answer,
 * so it is on stdout). With only ad-hoc servers (`--stdio`, `--http`, no config file)
 * the servers are the ones just named, so `list` shows their tools at once: one server
 * exactly as `list <server>` does, several each in turn under a line with its id.
 *
 * A server whose catalog left tools out for breaking a per-tool budget gets a note (on
 * stderr) naming them, with the budget and the setting that raises it.
 *
 * JSON:
 * - `list`: `{ servers: [{ id, state, transport, era?, protocolVersion?, toolCount, leftOut?, lastError? }] }`
 *   (`leftOut`: `{ count, tools: [{ name, budget, field, bytes?, limit }] }`, the first 16 named)
 * - `list <server>`, and `list` with one ad-hoc server: `{ server: <that>, tools: [{ name,
 *   modelName, title?, description, signature, inputSchema }], resources, resourceTemplates,
 *   prompts }`; `tools` has `server.toolCount` items, and a count is `null` when the server
 *   does not offer that kind
 * - `list` with several ad-hoc servers: `{ servers: [<the list <server> shape>, ...] }` in the
 *   order given; a server that did not start has its `server` (`state`, `lastError`),
 *   `tools: []` and `null` counts, and the command exits 1
 */
import type { McpServerManager } from '../../fleet/manager.js';
import type { McpFleetServerStatus } from '../../fleet/status.js';
import { leftOutReason } from '../../mcp/catalog/left-out.js';
import { cliWording, EXIT, rowWording, type ExitCode } from '../errors.js';
import type { Output } from '../output.js';
import type { CommandContext } from '../context.js';
import { firstLine, toolSignature } from '../signature.js';

/** A status as the JSON shapes show it (no restart bookkeeping, which `status` shows). */
export function serverSummary(status: McpFleetServerStatus): Record<string, unknown> {
  const { id, state, transport, era, protocolVersion, toolCount, leftOut, lastError } = status;
  return {
    id,
    state,
    transport,
    ...(era === undefined ? {} : { era }),
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
    toolCount,
    ...(leftOut === undefined ? {} : { leftOut }),
    ...(lastError === undefined ? {} : { lastError }),
  };
}

/** Left-out tools a note names; `--json` names up to 16. */
const NOTE_NAMES = 3;

/** `s: 2 tools left out: a (limits.descriptionBytes 13,201 > 8,192), b (limits.schemaDepth > 128)`, or `undefined`. */
export function leftOutNote(status: Pick<McpFleetServerStatus, 'id' | 'leftOut'>): string | undefined {
  const { leftOut } = status;
  if (leftOut === undefined) return undefined;
  const named = leftOut.tools.slice(0, NOTE_NAMES).map((tool) => `${tool.name} (${leftOutReason(tool)})`);
  const more = leftOut.count - named.length;
  const tools = leftOut.count === 1 ? 'tool' : 'tools';
  return `${status.id}: ${leftOut.count} ${tools} left out: ${named.join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
}

/** One server's tools and counts: the `list <server>` JSON shape. */
interface ToolListing {
  server: Record<string, unknown>;
  tools: { name: string; modelName: string; title?: string; description: string; signature: string; inputSchema: unknown }[];
  resources: number | null;
  resourceTemplates: number | null;
  prompts: number | null;
}

export async function list(context: CommandContext, serverId?: unknown): Promise<ExitCode> {
  const fleet = await context.fleet();
  if (typeof serverId === 'string') return listOne(context, serverId);
  if (fleet.adHocOnly) {
    const ids = fleet.serverIds;
    return ids.length === 1 ? listOne(context, ids[0]!) : listEach(context, ids);
  }
  const outcomes = await fleet.start(undefined, context.signal);
  context.signal.throwIfAborted();
  const statuses = fleet.manager.statuses();
  const { output } = context;
  if (output.json) {
    output.printJson({ servers: statuses.map(serverSummary) });
  } else {
    const c = output.out;
    output.table(
      ['SERVER', 'STATE', 'ERA', 'TOOLS', 'ERROR'],
      statuses.map((status) => [
        status.id,
        status.state === 'running' ? c.green(status.state) : status.state === 'disabled' ? c.dim(status.state) : c.red(status.state),
        status.protocolVersion === undefined ? '' : `${status.era} ${status.protocolVersion}`,
        String(status.toolCount),
        firstLine(rowWording(status.id, status.lastError ?? ''), 100),
      ]),
    );
    for (const status of statuses) {
      const note = leftOutNote(status);
      if (note !== undefined) output.note(note);
    }
  }
  return outcomes.every((outcome) => outcome.ok) ? EXIT.ok : EXIT.failure;
}

/** `list <server>`: its tools and counts; throws why it did not start. */
async function listOne(context: CommandContext, serverId: string): Promise<ExitCode> {
  const manager = await (await context.fleet()).started(serverId, context.signal);
  const listing = await toolListing(manager, serverId, context.signal);
  if (context.output.json) context.output.printJson(listing);
  else printListing(context.output, listing, leftOutNote(manager.status(serverId)));
  return EXIT.ok;
}

/** Several ad-hoc servers, started at once: each one's listing in turn; one that did not start is reported and the others still shown. */
async function listEach(context: CommandContext, ids: readonly string[]): Promise<ExitCode> {
  const fleet = await context.fleet();
  const outcomes = await fleet.start(ids, context.signal);
  context.signal.throwIfAborted();
  const { output } = context;
  const listings: ToolListing[] = [];
  for (const outcome of outcomes) {
    listings.push(
      outcome.ok
        ? await toolListing(fleet.manager, outcome.id, context.signal)
        : { server: serverSummary(fleet.manager.status(outcome.id)), tools: [], resources: null, resourceTemplates: null, prompts: null },
    );
  }
  if (output.json) {
    output.printJson({ servers: listings });
  } else {
    let shown = 0;
    outcomes.forEach((outcome, index) => {
      if (!outcome.ok) {
        output.error(cliWording(outcome.error.message));
        return;
      }
      if (shown++ > 0) output.print();
      output.print(output.out.bold(outcome.id));
      printListing(output, listings[index]!, leftOutNote(fleet.manager.status(outcome.id)));
    });
  }
  return outcomes.every((outcome) => outcome.ok) ? EXIT.ok : EXIT.failure;
}

async function toolListing(manager: McpServerManager, serverId: string, signal: AbortSignal): Promise<ToolListing> {
  const tools = manager
    .definitions()
    .map((definition) => ({ definition, origin: manager.toolOrigin(definition.name) }))
    .filter(({ origin }) => origin?.serverId === serverId)
    .map(({ definition, origin }) => ({
      name: origin!.remoteName,
      modelName: definition.name,
      ...(origin!.tool.title === undefined ? {} : { title: origin!.tool.title }),
      description: origin!.tool.description ?? '',
      signature: toolSignature(origin!.remoteName, origin!.tool.inputSchema),
      inputSchema: origin!.tool.inputSchema,
    }));
  const count = async (load: () => Promise<unknown[]>): Promise<number | null> => {
    try {
      return (await load()).length;
    } catch {
      return null;
    }
  };
  const resources = await count(() => manager.listResources(serverId, { signal }));
  const resourceTemplates = await count(() => manager.listResourceTemplates(serverId, { signal }));
  const prompts = await count(() => manager.listPrompts(serverId, { signal }));
  return { server: serverSummary(manager.status(serverId)), tools, resources, resourceTemplates, prompts };
}

/** One server's tools as text, then its counts (`7 tools, 2 resources (0 templates), 3 prompts`) and the note on tools it left out. */
function printListing(output: Output, listing: ToolListing, leftOut: string | undefined): void {
  const c = output.out;
  const { tools } = listing;
  if (output.interactive) {
    // A signature is the point of this list: each gets its own line, never cut, its description under it.
    for (const tool of tools) {
      output.print(c.cyan(tool.signature));
      if (tool.description !== '') output.print(`    ${c.dim(firstLine(tool.description, Math.max(20, (output.io.stdout.columns || 100) - 5)))}`);
    }
  } else {
    output.table(['TOOL', 'DESCRIPTION'], tools.map((tool) => [tool.signature, firstLine(tool.description)]));
  }
  const counted = (n: number | null, word: string) => (n === null ? `no ${word}s` : `${n} ${word}${n === 1 ? '' : 's'}`);
  output.print(c.dim(`${counted(tools.length, 'tool')}, ${counted(listing.resources, 'resource')} (${counted(listing.resourceTemplates, 'template')}), ${counted(listing.prompts, 'prompt')}`));
  if (leftOut !== undefined) output.note(leftOut);
}
