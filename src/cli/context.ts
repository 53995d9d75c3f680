/**
 * Which servers a command works with, and the fleet that runs them. The servers come
 * from `--stdio`/`--http` (ad-hoc, nothing saved), else `--config FILE`, else
 * `MCP_FLEET_CONFIG`, else the first of `./mcp.json`, `./.mcp.json`, `./.vscode/mcp.json`,
 * `./.cursor/mcp.json` that exists; the command says on stderr which file it uses. The
 * fleet is the library's `McpServerManager`, so the command and the library never
 * disagree; for a person at a terminal it also answers inputs and elicitations there,
 * keeps OAuth grants in the user's config folder, and shows servers connecting.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FileMcpCredentialStore } from '../mcp/auth/file-store.js';
import { loadMcpConfig, type McpConfigDocument } from '../fleet/config-file.js';
import { McpServerManager } from '../fleet/manager.js';
import type { McpFleetServerConfig } from '../fleet/server-config.js';
import type { McpFleetServerStatus, McpFleetStartOutcome } from '../fleet/status.js';
import type { McpLogger } from '../mcp/logger.js';
import { adHocName } from './ad-hoc-name.js';
import { commandLine } from './args.js';
import { rowWording, usageError } from './errors.js';
import type { CliIO, Output } from './output.js';
import { credentialsFolder } from './paths.js';
import { Progress } from './progress.js';
import { terminalElicitation, terminalInputs } from './prompt.js';

/** What a subcommand gets: the streams, the output, the run's cancellation, its options, and the fleet (opened on first use, closed after the run). */
export interface CommandContext {
  io: CliIO;
  output: Output;
  /** Aborts on Ctrl-C: a call in flight is cancelled on the wire. */
  signal: AbortSignal;
  options: ServerOptions & Record<string, unknown>;
  fleet(): Promise<CliFleet>;
}

/** An ad-hoc server from the command line, in the order given. */
export interface AdHocServer {
  kind: 'stdio' | 'http';
  value: string;
  /** `--name`, given right after it. */
  name?: string;
}

/** The options every command that uses servers takes. */
export interface ServerOptions {
  config?: string;
  /** `--stdio` and `--http`, in the order given. */
  adHoc: AdHocServer[];
  json?: boolean;
  color?: boolean;
  debug?: boolean;
}

/** Where a command's servers come from. */
export interface ServerSource {
  /** The config file, when one is used. */
  file: McpConfigDocument | undefined;
  /** Servers from `--stdio`/`--http`. */
  adHoc: McpFleetServerConfig[];
}

const CANDIDATES = ['mcp.json', '.mcp.json', join('.vscode', 'mcp.json'), join('.cursor', 'mcp.json')];

/** The config file to use: `--config`, `MCP_FLEET_CONFIG`, or the first candidate in the current folder. */
export function configPath(io: CliIO, explicit: string | undefined): string | undefined {
  if (explicit !== undefined) return resolve(io.cwd, explicit);
  const fromEnv = io.env.MCP_FLEET_CONFIG;
  if (fromEnv !== undefined && fromEnv !== '') return resolve(io.cwd, fromEnv);
  return CANDIDATES.map((candidate) => join(io.cwd, candidate)).find((path) => existsSync(path));
}

/** A readable id for an ad-hoc server: what it runs (see `adHocName`), or the host of a URL. */
function adHocId(server: AdHocServer, cwd: string): string {
  if (server.kind === 'http') {
    try {
      const url = new URL(server.value);
      return `${url.hostname}${url.port === '' ? '' : `-${url.port}`}`;
    } catch {
      return 'http';
    }
  }
  const { command, args } = commandLine(server.value);
  return adHocName(command, args, cwd) ?? command.split(/[\\/]/).pop() ?? command;
}

/** The ad-hoc servers as fleet configs, named by `--name` or after what they run (a relative script is read from `cwd`). */
export function adHocServers(options: ServerOptions, cwd: string): McpFleetServerConfig[] {
  const used = new Set<string>();
  return options.adHoc.map((server) => {
    let id = (server.name ?? adHocId(server, cwd)).replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || server.kind;
    for (let n = 2; used.has(id); n++) id = `${id.replace(/-\d+$/, '')}-${n}`;
    used.add(id);
    if (server.kind === 'http') return { id, transport: { type: 'http', url: server.value } };
    return { id, transport: { type: 'stdio', ...commandLine(server.value) } };
  });
}

/** Reads the servers a command works with; says on stderr which file it uses. */
export async function serverSource(io: CliIO, output: Output, options: ServerOptions): Promise<ServerSource> {
  const adHoc = adHocServers(options, io.cwd);
  // Ad-hoc servers stand alone, unless a file is asked for explicitly as well.
  if (adHoc.length > 0 && options.config === undefined) return { file: undefined, adHoc };
  const path = configPath(io, options.config);
  if (path === undefined) {
    throw usageError(
      'no MCP config found here (looked for ./mcp.json, ./.mcp.json, ./.vscode/mcp.json and ./.cursor/mcp.json); pass --config FILE, set MCP_FLEET_CONFIG, or name a server with --stdio "<command>" or --http <url>.',
    );
  }
  const file = await loadMcpConfig(path);
  output.note(`using ${path} (${file.dialect})`);
  return { file, adHoc };
}

/** A logger for `--debug`: one line per event on stderr (the library never logs secrets). */
function debugLogger(io: CliIO): McpLogger {
  const line =
    (level: string) =>
    (fields: Record<string, unknown>, message: string): void => {
      io.stderr.write(`[${level}] ${message} ${JSON.stringify(fields)}\n`);
    };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

/** The fleet behind one run of a command. */
export class CliFleet {
  private constructor(
    readonly manager: McpServerManager,
    private readonly output: Output,
    /** Whether every server came from `--stdio`/`--http`, no config file being used. */
    readonly adHocOnly: boolean,
  ) {}

  static async open(io: CliIO, output: Output, options: ServerOptions): Promise<CliFleet> {
    const source = await serverSource(io, output, options);
    const manager = new McpServerManager({
      ...(source.file === undefined ? { servers: source.adHoc } : { file: source.file }),
      env: io.env,
      credentialStore: new FileMcpCredentialStore({ directory: credentialsFolder(io.env) }),
      elicitation: terminalElicitation(io, output.err),
      ...(options.debug === true ? { logger: debugLogger(io) } : {}),
      ...withInputs(terminalInputs(io, output.err)),
      gracePeriodMs: 2_000,
    });
    if (source.file !== undefined) for (const server of source.adHoc) await manager.addServer(server);
    return new CliFleet(manager, output, source.file === undefined);
  }

  /** Every server id, in registry order. */
  get serverIds(): string[] {
    return this.manager.serverIds();
  }

  /** Throws a usage error unless the fleet has `serverId`, suggesting the ids it has. */
  require(serverId: string): void {
    if (this.manager.serverIds().includes(serverId)) return;
    const known = this.manager.serverIds();
    throw usageError(`no MCP server "${serverId}" here; ${known.length === 0 ? 'the config has none' : `the servers are ${known.join(', ')}`}.`);
  }

  /**
   * Starts `ids` (default: every enabled server) at once, with a live line each on a
   * terminal. For a person at a terminal every server may ask for input (elicitation) and
   * offers its resources, whatever its file says; nothing is saved.
   */
  async start(ids: readonly string[] = this.enabledIds(), signal?: AbortSignal, options: { progress?: boolean } = {}): Promise<McpFleetStartOutcome[]> {
    for (const id of ids) {
      const config = this.manager.serverConfig(id);
      if (config.elicitation !== true || config.resources !== true) await this.manager.updateServer(id, { ...config, elicitation: true, resources: true });
    }
    const progress = options.progress === false ? undefined : Progress.start(this.output.io, this.output.err, ids);
    const onStatus = (status: McpFleetServerStatus): void => {
      if (status.state === 'running') progress?.finish(status.id, true, `${status.toolCount} tools`);
      if (status.state === 'failed_to_start') progress?.finish(status.id, false, oneLine(rowWording(status.id, status.lastError ?? 'failed')));
    };
    this.manager.on('status', onStatus);
    try {
      return await Promise.all(
        ids.map((id) =>
          this.manager.startServer(id, signal === undefined ? {} : { signal }).then(
            (): McpFleetStartOutcome => ({ id, ok: true }),
            (error: unknown): McpFleetStartOutcome => ({ id, ok: false, error: error instanceof Error ? error : new Error(String(error)) }),
          ),
        ),
      );
    } finally {
      this.manager.off('status', onStatus);
      progress?.stop();
    }
  }

  /**
   * Starts the one server `serverId`, after `require`: resolves with why it failed to
   * start, or `undefined` once it runs; throws if `signal` aborts meanwhile.
   */
  async startOne(serverId: string, signal: AbortSignal): Promise<Error | undefined> {
    this.require(serverId);
    const [outcome] = await this.start([serverId], signal);
    signal.throwIfAborted();
    return outcome === undefined || outcome.ok ? undefined : outcome.error;
  }

  /** The manager once `serverId` runs (see `startOne`); throws why it failed to start. */
  async started(serverId: string, signal: AbortSignal): Promise<McpServerManager> {
    const failure = await this.startOne(serverId, signal);
    if (failure !== undefined) throw failure;
    return this.manager;
  }

  private enabledIds(): string[] {
    return this.manager.configs().filter((config) => config.disabled !== true).map((config) => config.id);
  }

  async close(): Promise<void> {
    await this.manager.shutdown();
  }
}

function withInputs(handler: ReturnType<typeof terminalInputs>): { inputs?: NonNullable<ReturnType<typeof terminalInputs>> } {
  return handler === undefined ? {} : { inputs: handler };
}

/** The first line of a message, for a progress line. */
export function oneLine(text: string): string {
  return text.split('\n', 1)[0]!;
}
