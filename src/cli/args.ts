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

/** The arguments of a call, and the text each `key=value` value was typed as. */
export interface CallArguments {
  args: Record<string, unknown>;
  /** For keys given as `key=value` (and not overridden by `--args`): the value as typed. */
  typed: Record<string, string>;
}

/**
 * The arguments of a call: `key=value` words, then `--args` (a JSON object) on top,
 * so `--args` wins for a key given both ways. Throws a usage error naming the key, never
 * the value (an argument may be a secret).
 */
export function callArguments(words: readonly string[], json: string | undefined): CallArguments {
  const args: Record<string, unknown> = {};
  const typed: Record<string, string> = {};
  for (const word of words) {
    const at = word.indexOf('=');
    if (at <= 0) throw usageError(`an argument without "=" was given; write each as name=value (or pass --args '<json object>').`);
    const key = word.slice(0, at);
    typed[key] = word.slice(at + 1);
    args[key] = argumentValue(typed[key]);
  }
  if (json === undefined) return { args, typed };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw usageError(`--args is not valid JSON (${(error as Error).message}); give a JSON object such as '{"path": "/tmp"}'.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw usageError(`--args must be a JSON object of arguments, such as '{"path": "/tmp"}'.`);
  }
  for (const key of Object.keys(parsed)) delete typed[key];
  return { args: { ...args, ...(parsed as Record<string, unknown>) }, typed };
}

/** `<server>.<tool>`, split at the first dot (a tool name may hold dots, a server id never does). */
export function callTarget(target: string): { serverId: string; tool: string } {
  const dot = target.indexOf('.');
  if (dot <= 0 || dot === target.length - 1) {
    throw usageError(`"${cut(target)}" does not name a tool; write <server>.<tool>, such as files.read_file (mcp-fleet list <server> shows the tools).`);
  }
  return { serverId: target.slice(0, dot), tool: target.slice(dot + 1) };
}

/** Stands in for `$` while shell-quote splits words, so nothing is expanded and `${VAR}` templates stay as written. */
const DOLLAR = '\uE000';

/** A leading `NAME=value` word, as a shell reads one: a variable for the program, not the program. */
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

/**
 * A command line split into program, arguments and leading `NAME=value` assignments (the
 * program's environment, as in a shell), the way a POSIX shell splits words, with nothing
 * expanded: `$VAR` and `${VAR}` stay as written (a `${VAR}` is then a template, expanded
 * when the server starts). Pipes, redirections, `;` and comments are refused: the server
 * runs without a shell, so they would not mean what they say. Never quotes the text in
 * an error (it may hold a secret).
 */
export function commandLine(text: string): { command: string; args: string[]; env?: Record<string, string> } {
  const words = parseShellWords(text.replaceAll('$', DOLLAR));
  const parts: string[] = [];
  for (const word of words) {
    if (typeof word !== 'string') throw usageError('a --stdio command line holds a shell operator or comment; give a plain command line (it runs without a shell).');
    parts.push(word.replaceAll(DOLLAR, '$'));
  }
  const env: Record<string, string> = {};
  while (parts.length > 0 && ASSIGNMENT.test(parts[0]!)) {
    const [, name, value] = ASSIGNMENT.exec(parts.shift()!)!;
    env[name!] = value!;
  }
  const [command, ...args] = parts;
  if (command === undefined || command.trim() === '') throw usageError('--stdio needs a command line, such as "npx -y @modelcontextprotocol/server-everything".');
  return { command, args, ...(Object.keys(env).length === 0 ? {} : { env }) };
}

function cut(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
