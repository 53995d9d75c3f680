/**
 * `mcp-fleet search <query...> [--limit n]`: the `tools_search` ranking (BM25F over each
 * tool's name, title, description, parameters and server, with synonyms and typos) across
 * every server, as the model's discovery helper sees it.
 *
 * JSON: the helper's own output `{ tools: [{ name, description, parameters, ... }], groups, total_tools, omitted? }`.
 */
import { ToolHost } from '../../core/host.js';
import { EXIT, type ExitCode } from '../errors.js';
import type { CommandContext } from '../context.js';
import { firstLine } from '../signature.js';

interface SearchOutput {
  tools: { name: string; description: string }[];
  total_tools: number;
  message?: string;
}

export async function search(context: CommandContext, words: unknown): Promise<ExitCode> {
  const fleet = await context.fleet();
  await fleet.start(undefined, context.signal);
  context.signal.throwIfAborted();
  const host = new ToolHost({ providers: [fleet.manager] });
  const limit = (context.options.limit as number | undefined) ?? 10;
  const result = await host.call('tools_search', { query: (words as string[]).join(' '), limit: Math.min(limit, 64) }, { signal: context.signal });
  const { output } = context;
  if (output.json) {
    output.printJson(result.output);
    return EXIT.ok;
  }
  const found = result.output as SearchOutput;
  if (found.tools.length === 0) {
    output.note(found.message ?? 'No tool matches.');
    return EXIT.ok;
  }
  // Each tool as `mcp-fleet call` names it: <server>.<tool>.
  output.table(
    ['TOOL', 'DESCRIPTION'],
    found.tools.map((tool) => {
      const origin = fleet.manager.toolOrigin(tool.name);
      return [output.out.cyan(origin === undefined ? tool.name : `${origin.serverId}.${origin.remoteName}`), firstLine(origin?.tool.description ?? tool.description)];
    }),
  );
  output.note(found.message ?? (found.tools.length === 1 ? '1 match' : `${found.tools.length} matches`));
  return EXIT.ok;
}
