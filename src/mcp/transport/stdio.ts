/**
 * The stdio transport: a local MCP server as a child process, in its own process
 * group, with a clean environment, bounded linear-time line framing and stderr always
 * drained. It implements the SDK's `Transport` contract, so the SDK `Client` drives
 * the protocol over it; it exposes `pid` and `stderr` so the SDK treats it as stdio
 * (a silent legacy server then falls back to `initialize` in place).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { inspect } from 'node:util';
import { PassThrough, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { parseJSONRPCMessage } from '@modelcontextprotocol/client';
import type { McpLogger } from '../logger.js';
import { LineFramer, LineTooLongError } from './lines.js';
import { plainResultResponse } from './plain-message.js';
import { signalGroup, trackGroup, untrackGroup } from './reaper.js';

export interface StdioTransportOptions {
  serverId: string;
  command: string;
  args: string[];
  /** The complete child environment (see `childEnvironment`). */
  env: Record<string, string>;
  cwd: string | undefined;
  /** Longest accepted stdout line. */
  maxLineBytes: number;
  /** How much stderr to keep. */
  stderrBytes: number;
  /** How long to wait for the server to exit after stdin closes, before SIGTERM. Default 2,000 ms. */
  closeGraceMs?: number;
  logger: McpLogger;
  logStderr: boolean;
  /** Scrubs secrets out of stderr lines before they are logged. Default: none. */
  redact?: (text: string) => string;
}

/** Thrown (and reported) when a server writes a line over the byte limit. */
export class McpMessageTooLargeError extends Error {
  constructor(serverId: string, limit: number, where: string) {
    super(
      `MCP server "${serverId}" sent ${where} larger than the ${limit}-byte limit (limits.messageBytes); the session was closed.`,
    );
    this.name = 'McpMessageTooLargeError';
  }
}

/** The server's program could not be started (missing command, bad working directory, no permission). */
export class McpSpawnError extends Error {
  constructor(serverId: string, command: string, cause: Error) {
    super(`Could not start MCP server "${serverId}" (${command}): ${cause.message}`, { cause });
    this.name = 'McpSpawnError';
  }
}

/**
 * Keeps the last `capacity` bytes written to it. Once it has dropped bytes, its text
 * starts at the first whole line: a line cut at its start could hold the end of a
 * secret that redaction, matching whole values, would not recognise.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = false;

  constructor(private readonly capacity: number) {}

  write(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes > this.capacity && this.chunks.length > 1) {
      this.bytes -= this.chunks.shift()!.length;
      this.dropped = true;
    }
    if (this.bytes > this.capacity) {
      const only = this.chunks[0]!;
      this.chunks[0] = only.subarray(only.length - this.capacity);
      this.bytes = this.capacity;
      this.dropped = true;
    }
  }

  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    if (!this.dropped) return text;
    const firstWhole = text.indexOf('\n');
    return firstWhole === -1 ? '' : text.slice(firstWhole + 1);
  }
}

/** Most characters of a stderr line held back for the log while waiting for its end. */
const MAX_LOGGED_LINE = 8 * 1024;

const TERM_WAIT_MS = 500;

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Node's spawn error, without what it carries of the command line (`spawnargs`, `path`):
 * an argument may hold a secret, and an error's own properties reach `util.inspect`.
 */
function spawnFailure(error: NodeJS.ErrnoException): Error {
  const copy: NodeJS.ErrnoException = new Error(error.message);
  for (const key of ['code', 'errno', 'syscall'] as const) if (error[key] !== undefined) Object.assign(copy, { [key]: error[key] });
  return copy;
}

/**
 * A pause that keeps the process alive while it lasts: closing a server is awaited, and
 * with nothing else left (the child gone after SIGTERM) an unreferenced timer would let
 * Node.js exit in the middle of the close, abandoning whoever awaits it (exit code 13).
 * `cancel` ends it early, so a server that exits at once holds nothing up.
 */
function delay(ms: number): Promise<void> & { cancel: () => void } {
  let timer!: NodeJS.Timeout;
  let done!: () => void;
  const pause = new Promise<void>((resolve) => {
    done = resolve;
    timer = setTimeout(resolve, ms);
  });
  return Object.assign(pause, {
    cancel: () => {
      clearTimeout(timer);
      done();
    },
  });
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  private child: ChildProcess | undefined;
  private readonly stderrTail: TailBuffer;
  /** The stderr line being logged, until its end arrives. */
  private stderrLine = '';
  /** Made when stderr is first logged (`logStderr`). */
  private stderrDecoder: StringDecoder | undefined;
  /** Set once the group of a server that exited on its own was killed and forgotten. */
  private groupReleased = false;
  /** The mirror of stderr, made when someone first asks for it (the SDK only checks that it exists). */
  private stderrStream: PassThrough | undefined;
  private exited: Promise<void> | undefined;
  /** Settles `exited`. */
  private markExited: (() => void) | undefined;
  /** The pending `start()`, until the child has spawned or failed to. */
  private starting: { resolve: () => void; reject: (error: Error) => void } | undefined;
  /** How the child ended, once it has. */
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private closing: Promise<void> | undefined;
  private closedFired = false;
  private readonly framer: LineFramer;
  private readonly options: Omit<StdioTransportOptions, 'env'>;
  /** The child's environment, until it is spawned: it may hold secrets, and nothing reads it after. */
  private env: Record<string, string> | undefined;

  constructor(options: StdioTransportOptions) {
    const { env, ...rest } = options;
    this.options = rest;
    this.env = env;
    this.stderrTail = new TailBuffer(options.stderrBytes);
    this.framer = new LineFramer(options.maxLineBytes, (line) => this.handleLine(line));
  }

  /** Shows the server and the child only: never the options, nor the environment while it is still held. */
  [inspect.custom](): string {
    return `StdioTransport { serverId: ${JSON.stringify(this.options.serverId)}, pid: ${this.pid} }`;
  }

  toJSON(): Record<string, unknown> {
    return { serverId: this.options.serverId, pid: this.pid };
  }

  /** The child's process id once started (the SDK recognises stdio transports by `pid` and `stderr`). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The child's stderr, mirrored from the first time it is asked for; it is drained whether or not anyone reads it. */
  get stderr(): Readable {
    if (this.stderrStream === undefined) {
      this.stderrStream = new PassThrough();
      // Whoever asked may never read it, so it must never hold data back.
      this.stderrStream.resume();
      if (this.closedFired) this.stderrStream.end();
    }
    return this.stderrStream;
  }

  /** How the child ended, in words (`exited with code 1`, `was killed by SIGKILL`), or `undefined` while it runs. */
  exitDescription(): string | undefined {
    const status = this.exitStatus;
    if (status === undefined) return undefined;
    return status.signal !== null ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
  }

  /**
   * How the child ended, once it has. When its pipes are already gone (a write met a closed
   * stdin, stdout ended) but the exit has not been reported yet, waits up to `graceMs` for it:
   * the broken pipe is often seen first, and the exit is what explains it.
   */
  async exitDescriptionSoon(graceMs: number): Promise<string | undefined> {
    const child = this.child;
    const pipesGone = child?.stdin?.destroyed === true || child?.stdout?.readableEnded === true;
    if (this.exitStatus === undefined && this.exited !== undefined && pipesGone) {
      const pause = delay(graceMs);
      await Promise.race([this.exited, pause]);
      pause.cancel();
    }
    return this.exitDescription();
  }

  /** The last bytes the server wrote to stderr. */
  stderrText(): string {
    return this.stderrTail.text();
  }

  start(): Promise<void> {
    if (this.child !== undefined) throw new Error('StdioTransport already started');
    const { command, args, cwd } = this.options;
    const env = this.env;
    this.env = undefined;
    if (cwd !== undefined && !isDirectory(cwd)) {
      return Promise.reject(
        new McpSpawnError(this.options.serverId, command, new Error(`the working directory ${cwd} (transport.cwd) is not a directory`)),
      );
    }
    return new Promise((resolve, reject) => {
      this.starting = { resolve, reject };
      const child = spawn(command, args, {
        cwd,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
        // Its own process group, so closing the session can terminate every descendant.
        detached: process.platform !== 'win32',
      });
      this.child = child;
      this.exited = new Promise((done) => (this.markExited = done));
      this.watch(child);
    });
  }

  /**
   * The child's events, each handled by a method. Listeners made here, rather than in
   * `start`'s promise, keep nothing of the start alive for the life of the session.
   */
  private watch(child: ChildProcess): void {
    child.on('error', (error) => this.onChildError(error));
    child.on('spawn', () => this.onSpawn());
    child.on('exit', (code, signal) => this.onExit(code, signal));
    child.on('close', () => this.fireClose());
    child.stdout!.on('data', (chunk: Buffer) => this.handleStdout(chunk));
    child.stderr!.on('data', (chunk: Buffer) => this.handleStderr(chunk));
    child.stdin!.on('error', (error) => this.onerror?.(error));
  }

  private onSpawn(): void {
    const pid = this.child?.pid;
    if (pid !== undefined) trackGroup(pid);
    this.starting?.resolve();
    this.starting = undefined;
  }

  private onChildError(error: Error): void {
    this.starting?.reject(new McpSpawnError(this.options.serverId, this.options.command, spawnFailure(error)));
    this.starting = undefined;
    this.fireClose();
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exitStatus = { code, signal };
    this.markExited?.();
    const pid = this.child?.pid;
    // A server that died on its own leaves no descendants behind (a closing session terminates them itself).
    if (this.closing === undefined && pid !== undefined) {
      signalGroup(pid, 'SIGKILL');
      untrackGroup(pid);
      // Its group id is free from now on and may be reused: never signal it again.
      this.groupReleased = true;
    }
  }

  private handleStderr(chunk: Buffer): void {
    this.stderrTail.write(chunk);
    this.stderrStream?.write(chunk);
    if (this.options.logStderr) this.logStderrLines(chunk);
  }

  /** Logs stderr a whole line at a time, so redaction sees every secret whole. */
  private logStderrLines(chunk: Buffer): void {
    this.stderrLine += (this.stderrDecoder ??= new StringDecoder('utf8')).write(chunk);
    const lines = this.stderrLine.split('\n');
    this.stderrLine = lines.pop()!;
    if (this.stderrLine.length > MAX_LOGGED_LINE) {
      lines.push(this.stderrLine);
      this.stderrLine = '';
    }
    const redact = this.options.redact ?? ((text: string) => text);
    for (const line of lines) {
      this.options.logger.debug({ serverId: this.options.serverId, stream: 'stderr' }, redact(line.trimEnd()));
    }
  }

  private handleStdout(chunk: Buffer): void {
    try {
      this.framer.push(chunk);
    } catch (error) {
      if (!(error instanceof LineTooLongError)) throw error;
      this.child?.stdout?.removeAllListeners('data');
      this.child?.stdout?.resume();
      this.onerror?.(new McpMessageTooLargeError(this.options.serverId, error.limit, 'a stdio line'));
      void this.close();
    }
  }

  private handleLine(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // Servers and their libraries sometimes print to stdout; such noise is skipped.
      this.options.logger.debug({ serverId: this.options.serverId }, 'skipped a non-JSON stdout line');
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = plainResultResponse(value) ?? parseJSONRPCMessage(value);
    } catch (error) {
      this.onerror?.(new Error(`MCP server "${this.options.serverId}" sent a message that is not JSON-RPC`, { cause: error }));
      return;
    }
    this.onmessage?.(message);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin === undefined || stdin === null || stdin.destroyed || !stdin.writable || this.closing !== undefined) {
      throw new Error(`MCP server "${this.options.serverId}" is not connected`);
    }
    const flushed = stdin.write(`${JSON.stringify(message)}\n`);
    if (!flushed) {
      await new Promise<void>((resolve, reject) => {
        const cleanup = (): void => {
          stdin.off('drain', onDrain);
          stdin.off('close', onClose);
        };
        const onDrain = (): void => {
          cleanup();
          resolve();
        };
        const onClose = (): void => {
          cleanup();
          reject(new Error(`MCP server "${this.options.serverId}" closed its input`));
        };
        stdin.once('drain', onDrain);
        stdin.once('close', onClose);
      });
    }
  }

  /**
   * Ends the session: close stdin, give the server the grace period to exit, then
   * SIGTERM and finally SIGKILL its whole process group.
   */
  close(): Promise<void> {
    this.closing ??= this.terminate();
    return this.closing;
  }

  private async terminate(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.pid === undefined) {
      this.fireClose();
      return;
    }
    const pgid = child.pid;
    const exited = this.exited!;
    const grace = this.options.closeGraceMs ?? 2_000;
    child.stdin?.end();
    const pause = delay(grace);
    await Promise.race([exited, pause]);
    pause.cancel();
    // The server (or a descendant) is still there: SIGTERM the group, then SIGKILL what is left.
    if (!this.groupReleased && signalGroup(pgid, 0)) {
      signalGroup(pgid, 'SIGTERM');
      for (let waited = 0; waited < TERM_WAIT_MS && signalGroup(pgid, 0); waited += 25) await delay(25);
      signalGroup(pgid, 'SIGKILL');
    }
    await exited;
    untrackGroup(pgid);
    this.fireClose();
  }

  private fireClose(): void {
    if (this.closedFired) return;
    this.closedFired = true;
    this.stderrStream?.end();
    this.onclose?.();
  }
}
