/**
 * A real pseudo-terminal for tests of the command line: colours, live progress lines,
 * prompts and Ctrl-C behave there as they do for a person, which pipes cannot show.
 *
 * The terminal comes from util-linux `script`: it opens a pty, runs the command in a new
 * session with the pty's slave end as its controlling terminal (stdin, stdout and stderr
 * all a TTY), and relays the master end to its own stdin and stdout, which are pipes to
 * the test. So what the test writes is typed into the terminal (the line discipline
 * echoes it, turns `\x03` into SIGINT, and so on), and what the test reads is what the
 * terminal showed, stdout and stderr merged.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';

export interface PtyRun {
  /** Everything the terminal showed so far (stdout and stderr merged, as a terminal shows them), raw with escape codes. */
  readonly output: string;
  /** The same, with ANSI escape sequences removed and `\r\n` (or `\r\r\n`) as `\n`. */
  text(): string;
  /** Types text (use `'\r'` for Enter, `'\x1b'` for Escape, `'\x04'` for Ctrl-D). */
  write(text: string): void;
  /** Sends Ctrl-C the way a terminal does (the byte `\x03` through the pty, so the line discipline raises SIGINT in the foreground process group). */
  interrupt(): void;
  /**
   * Resolves when `text()` matches (string: includes; RegExp: test), or rejects after
   * `timeoutMs` (default 10 s) with the screen so far in the message. Also rejects as soon
   * as the command ends without a match, since nothing more will be drawn.
   */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the command's exit code when it ends and its output is all read (`script -e` passes it through; death by a signal is 128 + its number). */
  readonly exited: Promise<number>;
  /** Closes the terminal, as closing its window does: the command's process group is killed, then `script`, so the pty hangs up. */
  kill(): void;
}

export interface PtyOptions {
  /**
   * Environment variables over the test's own; `undefined` removes one. Before them,
   * `TERM` is `xterm-256color` and `NO_COLOR`, `FORCE_COLOR`, `COLUMNS` and `LINES` are
   * removed, so colour and size depend on the terminal, not on where the tests run.
   */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Terminal width. Default 80. */
  columns?: number;
  /** Terminal height. Default 24. */
  rows?: number;
}

/** One argument for `sh -c`: single-quoted, with each `'` closed, escaped and reopened. */
function shellQuote(argument: string): string {
  return `'${argument.replaceAll("'", `'\\''`)}'`;
}

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC strings, and the
// two-character escapes (ESC followed by one byte).
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[ -~]/g;

/** Terminal output as plain text: escape sequences removed, line ends as `\n`. */
export function plainText(output: string): string {
  // Carriage returns just before a line feed change nothing on screen (readline ends an
  // answered line with `\r\r\n`); other ones are kept, for tests of in-place redraws.
  return output.replace(ANSI, '').replace(/\r+\n/g, '\n');
}

/** The direct children of a process (Linux `/proc`); empty when unknown. */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter((word) => word !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** Runs `command args...` in a new pseudo-terminal of `columns` x `rows`. */
export function runInPty(command: string, args: string[], options: PtyOptions = {}): PtyRun {
  const columns = options.columns ?? 80;
  const rows = options.rows ?? 24;
  // `script` gives a pty no size of its own when its stdin is not a terminal (0 x 0), so
  // the size is set from inside, on the slave end, before the command replaces the shell
  // (`exec`: the command itself is then the session leader and the foreground group).
  const line = `stty cols ${columns} rows ${rows} && exec ${[command, ...args].map(shellQuote).join(' ')}`;
  const env: Record<string, string | undefined> = { ...process.env, TERM: 'xterm-256color' };
  for (const name of ['NO_COLOR', 'FORCE_COLOR', 'COLUMNS', 'LINES']) delete env[name];
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  // `script -c` runs the line with $SHELL; the quoting above is for a POSIX shell.
  env.SHELL = '/bin/sh';
  // -q: no "Script started" lines; -e: the command's exit code; -f: flush at once (the
  // typescript goes to /dev/null, but nothing should wait on it); -E always: the slave
  // echoes typed input, as a terminal does (the default would decide by our stdin).
  const child = spawn('script', ['-q', '-e', '-f', '-E', 'always', '-c', line, '/dev/null'], {
    cwd: options.cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });

  let output = '';
  let scriptErrors = '';
  let ended = false;
  const watchers = new Set<() => void>();
  const notify = (): void => {
    for (const watcher of [...watchers]) watcher();
  };
  const decoder = new StringDecoder('utf8');
  child.stdout.on('data', (chunk: Buffer) => {
    output += decoder.write(chunk);
    notify();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    scriptErrors += chunk.toString('utf8');
  });
  // Typing after the command ended must not crash the test with EPIPE.
  child.stdin.on('error', () => {});

  const exited = new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      output += decoder.end();
      ended = true;
      notify();
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
  // A test that never awaits `exited` must not see an unhandled rejection (no `script`).
  exited.catch(() => {});

  const text = (): string => plainText(output);

  const waitFor = (pattern: string | RegExp, timeoutMs = 10_000): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const matches = (): boolean => {
        const screen = text();
        if (typeof pattern === 'string') return screen.includes(pattern);
        pattern.lastIndex = 0;
        return pattern.test(screen);
      };
      const done = (error?: Error): void => {
        clearTimeout(timer);
        watchers.delete(check);
        if (error === undefined) resolve();
        else reject(error);
      };
      const failure = (why: string): Error =>
        new Error(`${why} waiting for ${String(pattern)}; the screen so far:\n${text()}${scriptErrors === '' ? '' : `\n(script: ${scriptErrors.trim()})`}`);
      const check = (): void => {
        if (matches()) done();
        else if (ended) done(failure('the command ended'));
      };
      const timer = setTimeout(() => done(failure(`${timeoutMs} ms passed`)), timeoutMs);
      watchers.add(check);
      check();
    });

  return {
    get output() {
      return output;
    },
    text,
    write(typed: string) {
      child.stdin.write(typed);
    },
    interrupt() {
      child.stdin.write('\x03');
    },
    waitFor,
    exited,
    kill() {
      if (ended || child.pid === undefined) return;
      // The command leads its own session and process group; killing only `script`
      // would leave it a SIGHUP, which it may ignore.
      for (const pid of childPids(child.pid)) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      child.kill('SIGKILL');
    },
  };
}
