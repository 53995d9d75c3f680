/**
 * Reading what a person types: tool arguments as `key=value` words (a value that parses
 * as JSON is taken as JSON, anything else as a string) or `--args '<json>'`, a
 * `<server>.<tool>` target, and an ad-hoc server's command line, split the way a shell
 * would split it (quotes and backslashes), then run without a shell.
 */
import { parse as parseShellWords } from 'shell-quote';
import { usageError } from './errors.js';

/** A `key=value` word's value: JSON when it parses as JSON (`3`, `true`, `null`, `[1]`, `{"a":1}`, `"quoted"`), else the text itself. */
export function argumentValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The arguments of a call: `key=value` words, then `--args` (a JSON object) on top,
 * so `--args` wins for a key given both ways. Throws a usage error naming the word.
 */
export function callArguments(words: readonly string[], json: string | undefined): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const word of words) {
    const at = word.indexOf('=');
    if (at <= 0) throw usageError(`"${cut(word)}" is not a key=value argument; write it as name=value (or pass --args '<json object>').`);
    args[word.slice(0, at)] = argumentValue(word.slice(at + 1));
  }
  if (json === undefined) return args;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw usageError(`--args is not valid JSON (${(error as Error).message}); give a JSON object such as '{"path": "/tmp"}'.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw usageError(`--args must be a JSON object of arguments, such as '{"path": "/tmp"}'.`);
  }
  return { ...args, ...(parsed as Record<string, unknown>) };
}

/** `<server>.<tool>`, split at the first dot (a tool name may hold dots, a server id never does). */
export function callTarget(target: string): { serverId: string; tool: string } {
  const dot = target.indexOf('.');
  if (dot <= 0 || dot === target.length - 1) {
    throw usageError(`"${cut(target)}" does not name a tool; write <server>.<tool>, such as files.read_file (mcp-fleet list <server> shows the tools).`);
  }
  return { serverId: target.slice(0, dot), tool: target.slice(dot + 1) };
}

/**
 * A command line split into program and arguments as a POSIX shell splits words, with
 * nothing expanded: `$VAR` stays as written, and pipes, redirections or `;` are refused
 * (the server runs without a shell, so they would not mean what they say).
 */
export function commandLine(text: string): { command: string; args: string[] } {
  const words = parseShellWords(text, (name) => `$${name}`);
  const parts: string[] = [];
  for (const word of words) {
    if (typeof word !== 'string') {
      throw usageError(`--stdio "${cut(text)}" holds a shell operator or comment; give a plain command line (it runs without a shell).`);
    }
    parts.push(word);
  }
  const [command, ...args] = parts;
  if (command === undefined || command.trim() === '') throw usageError('--stdio needs a command line, such as "npx -y @modelcontextprotocol/server-everything".');
  return { command, args };
}

function cut(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
