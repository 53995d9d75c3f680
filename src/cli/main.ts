#!/usr/bin/env node
/**
 * The `mcp-fleet` executable. Ctrl-C cancels what runs (a call is cancelled on the wire)
 * and the servers are shut down before the command exits with 130; a second Ctrl-C exits
 * at once (the library still kills every server's process group on exit).
 */
import { VERSION } from './version.js';

// A reader that stopped reading (`mcp-fleet list | head -1`) is not an error: stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

const argv = process.argv.slice(2);
// The version alone needs nothing else loaded: it answers as fast as Node.js starts.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
  process.exit(0);
}
const { run } = await import('./program.js');

const interrupt = new AbortController();
// SIGTERM is how a supervisor (or the conformance harness) stops `serve`: it drains the same way.
const interrupted = (): void => {
  if (interrupt.signal.aborted) process.exit(130);
  interrupt.abort(new Error('interrupted'));
};
process.on('SIGINT', interrupted);
process.on('SIGTERM', interrupted);

const io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
process.exitCode = await run(argv, io, interrupt.signal);
