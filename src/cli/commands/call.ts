/**
 * `mcp-fleet call <server>.<tool> [key=value ...] [--args '<json>'] [--timeout ms]`: calls
 * one tool and prints what a model would receive, as text; images and audio are saved to
 * temporary files whose paths are printed (never dumped as base64). With `--json`, the
 * audited envelope `{ server_id, tool, content, structuredContent?, _meta?, isError }` (or,
 * for a failure of the host, `{ server_id, tool, error: { code, message } }`).
 *
 * Exit: 0 for a result, 1 for a tool-level error (the tool's or the host's: timeout,
 * server unavailable), 2 for a bad target or argument.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolPresentationPart } from '../../core/presentation.js';
import { nearMatches } from '../../core/similarity.js';
import { callArguments, callTarget } from '../args.js';
import { cliWording, EXIT, exitCodeOf, type ExitCode, usageError } from '../errors.js';
import type { Output } from '../output.js';
import type { CommandContext } from '../context.js';
import { fitArguments, missingArguments, toolSignature } from '../signature.js';

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/ogg': 'ogg',
};

/** Prints a model view: text as it is, each media part saved to a file whose path is printed. */
export async function printParts(output: Output, parts: readonly ToolPresentationPart[], label: string): Promise<void> {
  let folder: string | undefined;
  let media = 0;
  for (const part of parts) {
    if (part.type === 'text') {
      output.print(part.text);
      continue;
    }
    folder ??= await mkdtemp(join(tmpdir(), 'mcp-fleet-'));
    const file = join(folder, `${label}-${++media}.${EXTENSIONS[part.mimeType] ?? 'bin'}`);
    await writeFile(file, Buffer.from(part.data, 'base64'));
    output.print(`[${part.mimeType}, ${Buffer.byteLength(part.data, 'base64')} bytes, saved to ${file}]`);
  }
}

/** Tools whose name, or one word of it (`serch` → `search_notes`), looks like what was typed. */
function suggestions(typed: string, names: readonly string[]): string[] {
  const whole = nearMatches(typed, names);
  if (whole.length > 0) return whole;
  return names.filter((name) => nearMatches(typed, name.split(/[-_.]/)).length > 0).slice(0, 3);
}

/** A failure of the host, not of the tool: in `--json` the envelope's shape, in text one line on stderr. */
function hostFailure(context: CommandContext, serverId: string, tool: string, code: string, message: string): void {
  if (context.output.json) context.output.printJson({ server_id: serverId, tool, error: { code, message } });
  else context.output.error(cliWording(message));
}

export async function call(context: CommandContext, target: unknown, words: unknown): Promise<ExitCode> {
  const { serverId, tool } = callTarget(String(target));
  const given = callArguments(words as string[], context.options.args as string | undefined);
  const fleet = await context.fleet();
  const startFailure = await fleet.startOne(serverId, context.signal);
  if (startFailure !== undefined) {
    hostFailure(context, serverId, tool, (startFailure as { code?: string }).code ?? 'server_unavailable', startFailure.message);
    return exitCodeOf(startFailure);
  }
  const { manager } = fleet;
  const name = manager.toolName(serverId, tool);
  if (name === undefined) {
    const names = manager
      .definitions()
      .map((definition) => manager.toolOrigin(definition.name))
      .filter((origin) => origin?.serverId === serverId)
      .map((origin) => origin!.remoteName);
    const near = suggestions(tool, names);
    throw usageError(
      `MCP server "${serverId}" has no tool "${tool}"${near.length > 0 ? `; did you mean ${near.join(', ')}?` : '.'} (mcp-fleet list ${serverId} shows its tools)`,
    );
  }
  const origin = manager.toolOrigin(name)!;
  const signature = toolSignature(tool, origin.tool.inputSchema);
  const missing = missingArguments(origin.tool.inputSchema, given.args);
  if (missing.length > 0) throw usageError(`${serverId}.${tool} needs ${missing.map((key) => `${key}=...`).join(' ')}: ${signature}`);
  const { args, problems } = fitArguments(origin.tool.inputSchema, given.args, given.typed);
  if (problems.length > 0) throw usageError(`${serverId}.${tool}: ${problems.join('; ')}: ${signature}`);
  const timeoutMs = context.options.timeout as number | undefined;
  const result = await manager.call(name, args, { signal: context.signal, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  context.signal.throwIfAborted();
  const { output } = context;
  const failure = (result.output as { error?: { code?: string; message?: string } }).error;
  if (output.json) output.printJson(result.output);
  else if (failure !== undefined) {
    const message = failure.code === 'authorization_required' ? `MCP server "${serverId}" requires authorization; run mcp-fleet auth ${serverId}, then retry.` : (failure.message ?? 'the call failed');
    hostFailure(context, serverId, tool, failure.code ?? 'call_failed', message);
  }
  else await printParts(output, result.modelOutput?.parts ?? [{ type: 'text', text: JSON.stringify(result.output) }], tool.replace(/[^A-Za-z0-9_-]+/g, '_'));
  return result.isError ? EXIT.failure : EXIT.ok;
}
