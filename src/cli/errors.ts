/**
 * How the command ends: its exit codes, and the error that carries one. Everything the
 * library throws is mapped to a code here, so a command only says what went wrong.
 */
import { McpConfigError, McpUnknownServerError } from '../mcp/errors.js';

/** The documented exit codes. */
export const EXIT = {
  /** Success. */
  ok: 0,
  /** A tool-level error, or a server that failed. */
  failure: 1,
  /** A usage or configuration error. */
  usage: 2,
  /** Interrupted (Ctrl-C). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the command reports in one line, with the exit code it ends with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.failure,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A usage error: a bad argument, option or file. */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}

/** The exit code of anything thrown: usage and configuration problems are 2, the rest 1. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof McpConfigError || error instanceof McpUnknownServerError) return EXIT.usage;
  return EXIT.failure;
}

/**
 * A library message in the command's words: where the library names its own API (what an
 * application calls), a person at a terminal is told the command to run instead.
 */
export function cliWording(message: string): string {
  return message
    .replace(/MCP server "([^"]+)" requires authorization; run beginAuthorization\/completeAuthorization for it, then retry\./g, 'MCP server "$1" requires authorization; run mcp-fleet auth $1, then retry.')
    .replace(/run beginAuthorization\/completeAuthorization for it, then retry/g, 'run mcp-fleet auth <server>, then retry')
    .replace(/MCP server "([^"]+)" is disabled; enable it before starting it \(enableServer\)\./g, 'MCP server "$1" is disabled; enable it with mcp-fleet config enable $1.')
    .replace(/but nothing can ask for it; give the McpServerManager an `inputs` handler/g, 'but there is no terminal to ask on; run the command in a terminal')
    .replace(/the call's timeoutMs/g, '--timeout');
}

/**
 * A server's message as its own row shows it (a table row, a progress line that already
 * names the server): `cliWording`, without the `MCP server "<id>"` it starts with, so
 * the part that explains the failure is what fits the column.
 */
export function rowWording(serverId: string, message: string): string {
  const worded = cliWording(message);
  for (const prefix of [`MCP server "${serverId}" `, `MCP server "${serverId}": `]) {
    if (worded.startsWith(prefix)) return worded.slice(prefix.length);
  }
  return worded;
}
