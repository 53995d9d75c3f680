/**
 * `mcp-fleet prompts <server>` lists a server's prompts with their arguments;
 * `mcp-fleet prompt <server> <name> [key=value ...]` prints the prompt's messages.
 *
 * JSON: `{ prompts: [...] }` as the server lists them; `prompt` prints the server's
 * `GetPromptResult` (`{ description?, messages: [...] }`).
 */
import type { CommandContext } from '../context.js';
import { EXIT, type ExitCode, usageError } from '../errors.js';
import { firstLine } from '../signature.js';

export async function prompts(context: CommandContext, serverId: unknown): Promise<ExitCode> {
  const manager = await (await context.fleet()).started(String(serverId), context.signal);
  const listed = await manager.listPrompts(String(serverId), { signal: context.signal });
  const { output } = context;
  if (output.json) {
    output.printJson({ prompts: listed });
    return EXIT.ok;
  }
  output.table(
    ['PROMPT', 'DESCRIPTION'],
    listed.map((prompt) => {
      const args = (prompt.arguments ?? []).map((argument) => `${argument.name}${argument.required === true ? '' : '?'}`);
      return [output.out.cyan(`${prompt.name}(${args.join(', ')})`), firstLine(prompt.description)];
    }),
  );
  return EXIT.ok;
}

export async function prompt(context: CommandContext, serverId: unknown, name: unknown, words: unknown): Promise<ExitCode> {
  const args: Record<string, string> = {};
  for (const word of words as string[]) {
    const at = word.indexOf('=');
    if (at <= 0) throw usageError('a prompt argument without "=" was given; prompt arguments are text, written as name=value.');
    args[word.slice(0, at)] = word.slice(at + 1);
  }
  const manager = await (await context.fleet()).started(String(serverId), context.signal);
  const declared = (await manager.listPrompts(String(serverId), { signal: context.signal })).find((candidate) => candidate.name === name);
  if (declared === undefined) throw usageError(`MCP server "${String(serverId)}" has no prompt "${String(name)}" (mcp-fleet prompts ${String(serverId)} lists them).`);
  const missing = (declared.arguments ?? []).filter((argument) => argument.required === true && !Object.hasOwn(args, argument.name));
  if (missing.length > 0) throw usageError(`prompt ${declared.name} needs ${missing.map((argument) => `${argument.name}=...`).join(' ')}.`);
  const result = await manager.getPrompt(String(serverId), String(name), args, { signal: context.signal });
  const { output } = context;
  if (output.json) {
    output.printJson(result);
    return EXIT.ok;
  }
  for (const message of result.messages) {
    const content = message.content as { type: string; text?: string; mimeType?: string };
    output.print(`${output.out.bold(`${message.role}:`)} ${content.type === 'text' ? (content.text ?? '') : `[${content.type}${content.mimeType === undefined ? '' : ` ${content.mimeType}`}]`}`);
  }
  return EXIT.ok;
}
