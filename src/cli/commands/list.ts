/**
 * `mcp-fleet list`: the servers (id, state, protocol era, tool count, last error), or,
 * with a server id, its tools (name, readable signature, one-line description) and how
 * many resources and prompts it has.
 *
 * A server whose catalog left tools out for breaking a per-tool budget gets a note naming
 * them, with the budget and the setting that raises it.
 *
 * JSON: `{ servers: [{ id, state, transport, era?, protocolVersion?, toolCount, leftOut?, lastError? }] }`
 * (`leftOut`: `{ count, tools: [{ name, budget, field, bytes?, limit }] }`, the first 16 named);
 * for one server `{ server: <that>, tools: [{ name, modelName, title?, description, signature, inputSchema }], resources, resourceTemplates, prompts }`
 * (counts are `null` when the server does not offer them).
 */
import type { McpFleetServerStatus } from '../../fleet/status.js';
import { leftOutReason } from '../../mcp/left-out.js';
import { cliWording, EXIT, type ExitCode } from '../errors.js';
import type { CommandContext } from '../program.js';
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
export function leftOutNote(status: McpFleetServerStatus): string | undefined {
  const { leftOut } = status;
  if (leftOut === undefined) return undefined;
  const named = leftOut.tools.slice(0, NOTE_NAMES).map((tool) => `${tool.name} (${leftOutReason(tool)})`);
  const more = leftOut.count - named.length;
  const tools = leftOut.count === 1 ? 'tool' : 'tools';
  return `${status.id}: ${leftOut.count} ${tools} left out: ${named.join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
}

export async function list(context: CommandContext, serverId?: unknown): Promise<ExitCode> {
  const fleet = await context.fleet();
  if (typeof serverId === 'string') return listTools(context, serverId);
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
        firstLine(cliWording(status.lastError ?? ''), 100),
      ]),
    );
    for (const status of statuses) {
      const note = leftOutNote(status);
      if (note !== undefined) output.note(note);
    }
  }
  return outcomes.every((outcome) => outcome.ok) ? EXIT.ok : EXIT.failure;
}

async function listTools(context: CommandContext, serverId: string): Promise<ExitCode> {
  const manager = await (await context.fleet()).started(serverId, context.signal);
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
  const resources = await count(() => manager.listResources(serverId, { signal: context.signal }));
  const resourceTemplates = await count(() => manager.listResourceTemplates(serverId, { signal: context.signal }));
  const prompts = await count(() => manager.listPrompts(serverId, { signal: context.signal }));
  const { output } = context;
  if (output.json) {
    output.printJson({ server: serverSummary(manager.status(serverId)), tools, resources, resourceTemplates, prompts });
    return EXIT.ok;
  }
  const c = output.out;
  if (output.interactive) {
    // A signature is the point of this list: each gets its own line, never cut, its description under it.
    for (const tool of tools) {
      output.print(c.cyan(tool.signature));
      if (tool.description !== '') output.print(`    ${c.dim(firstLine(tool.description, Math.max(20, (output.io.stdout.columns || 100) - 5)))}`);
    }
  } else {
    output.table(['TOOL', 'DESCRIPTION'], tools.map((tool) => [tool.signature, firstLine(tool.description)]));
  }
  const counted = (n: number | null, word: string) => (n === null ? `no ${word}` : `${n} ${word}`);
  output.note(`${tools.length} tools, ${counted(resources, 'resources')} (${counted(resourceTemplates, 'templates')}), ${counted(prompts, 'prompts')}`);
  const note = leftOutNote(manager.status(serverId));
  if (note !== undefined) output.note(note);
  return EXIT.ok;
}
