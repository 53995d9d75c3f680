/**
 * `McpServerManager`: a live registry of MCP servers, from code or from the `mcp.json`
 * of an editor. It starts, supervises, restarts, adds, updates, enables, disables,
 * removes and saves them, on top of one `McpToolProvider`, which owns sessions,
 * catalogs, names and budgets. It is a `ToolProvider` itself, so
 * `new ToolHost({ providers: [manager] })` works.
 *
 * One owner of reconnection per server: the provider runs in `manual` reconnect mode, so
 * a server whose connection closed stays down (its tools published, calls answered with
 * `server_unavailable`) until this manager restarts it under its restart policy.
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { inspect, type InspectOptions } from 'node:util';
import type { ToolGroup } from '../core/group.js';
import type { ToolProvider, ToolProviderInitOptions } from '../core/provider.js';
import type { ToolSearchFields } from '../core/search/fields.js';
import type { ToolCallOptions, ToolDefinition, ToolOutput } from '../core/tool.js';
import type { McpServerConfig } from '../mcp/config/config.js';
import {
  errorMessage,
  McpAuthorizationRequired,
  McpConfigError,
  McpFleetError,
  McpRefreshError,
  McpServerUnavailableError,
  McpUnknownServerError,
  type McpServerFailure,
} from '../mcp/errors.js';
import { waitBounded } from '../core/wait.js';
import { type McpLogger, silentLogger } from '../mcp/logger.js';
import { sanitizeNamePart } from '../mcp/catalog/naming.js';
import { McpToolProvider, type McpOperationOptions } from '../mcp/provider.js';
import { loadMcpConfig, type McpConfigDocument } from './config-file.js';
import { checkUnknownFields } from './dialects.js';
import { diffFleet, sameConfig } from './diff.js';
import { FleetEntry } from './entry.js';
import { expandServerConfig, type McpExpansionContext } from './expand.js';
import { FleetFile } from './fleet-file.js';
import { FleetLifecycle, UP_STATES } from './lifecycle.js';
import { FleetOperations } from './operations.js';
import type { McpFleetServerConfig } from './server-config.js';
import { validateFleetServerId } from './server-id.js';
import type { McpFleetAddOptions, McpFleetSaveOptions, McpServerManagerFileOptions, McpServerManagerOptions } from './manager-options.js';
import type { McpFleetServerStatus, McpFleetStartOutcome } from './status.js';
import { checkFleetServerConfig } from './validate.js';


export type { McpFleetAddOptions, McpFleetSaveOptions, McpServerManagerFileOptions, McpServerManagerOptions } from './manager-options.js';

const DEFAULT_HEALTH_CHECK_MS = 30_000;
const DEFAULT_GRACE_MS = 5_000;

export class McpServerManager extends FleetOperations implements ToolProvider {
  readonly name: string;
  protected readonly provider: McpToolProvider;
  private readonly entries = new Map<string, FleetEntry>();
  private readonly lifecycle: FleetLifecycle;
  private readonly file: FleetFile;
  private readonly logger: McpLogger;
  private readonly gracePeriodMs: number;
  private readonly autoSave: boolean;
  private readonly expansion: Omit<McpExpansionContext, 'inputs' | 'workspaceFolder'>;
  private readonly workspaceOption: string | undefined;
  /** Set by `startAll()`/`init()`: servers a reload adds or enables are started too. */
  private started = false;
  private initRun: Promise<void> | undefined;
  private closed = false;

  /** Validates every server (throws `McpConfigError` naming the server and field); starts nothing. */
  constructor(options: McpServerManagerOptions = {}) {
    super();
    if (options.servers !== undefined && options.file !== undefined) {
      throw new McpConfigError('McpServerManager takes `servers` or `file`, not both.');
    }
    this.name = options.name ?? 'mcp_fleet';
    this.logger = options.logger ?? silentLogger;
    this.gracePeriodMs = options.gracePeriodMs ?? DEFAULT_GRACE_MS;
    this.autoSave = options.autoSave ?? false;
    this.workspaceOption = options.workspaceFolder;
    this.expansion = { env: options.env ?? process.env, home: options.home ?? homedir(), askInput: options.inputs, answers: new Map() };
    this.file = new FleetFile(
      options.file,
      options.dialect ?? options.file?.dialect ?? 'claude_desktop',
      () => this.workspaceFolder(),
      () => this.configs(),
      () => new Map([...this.entries.values()].flatMap((entry) => (entry.unknownFields === undefined ? [] : [[entry.id, entry.unknownFields] as const]))),
      this.logger,
    );
    this.provider = new McpToolProvider({
      logger: this.logger,
      ...(options.credentialStore === undefined ? {} : { credentialStore: options.credentialStore }),
      ...(options.elicitation === undefined ? {} : { elicitation: options.elicitation }),
      ...(options.relayServerRequests === true ? { relayServerRequests: true } : {}),
      onNotification: (serverId, notification) => {
        options.onNotification?.(serverId, notification);
        this.emit('notification', serverId, notification);
      },
      reconnect: 'manual',
      onServerClosed: (event) => this.lifecycle.onServerClosed(event),
    });
    this.lifecycle = new FleetLifecycle({
      provider: this.provider,
      entries: this.entries,
      logger: this.logger,
      healthCheckIntervalMs: options.healthCheckIntervalMs ?? DEFAULT_HEALTH_CHECK_MS,
      expand: (entry, signal) => this.expand(entry, signal),
      changed: (entry) => this.emitStatus(entry),
    });
    for (const server of options.file?.servers() ?? options.servers ?? []) this.register(checkFleetServerConfig(server));
  }

  /** Loads an `mcp.json` in any editor's dialect (see `loadMcpConfig`) and manages its servers. */
  static async fromFile(path: string, options: McpServerManagerFileOptions = {}): Promise<McpServerManager> {
    const file = await loadMcpConfig(resolve(path), {
      ...(options.dialect === undefined ? {} : { dialect: options.dialect }),
      ...(options.workspaceFolder === undefined ? {} : { workspaceFolder: options.workspaceFolder }),
    });
    return new McpServerManager({ ...options, file });
  }

  // ── registry ────────────────────────────────────────────────────────────────

  private register(config: McpFleetServerConfig): FleetEntry {
    if (this.entries.has(config.id)) {
      throw new McpConfigError(`MCP server "${config.id}" already exists; remove it first or choose another id.`, { serverId: config.id, field: 'id' });
    }
    const part = sanitizeNamePart(config.id);
    const other = [...this.entries.keys()].find((id) => sanitizeNamePart(id) === part);
    if (other !== undefined) {
      throw new McpConfigError(`MCP server "${config.id}" collides with server "${other}": both become "${part}" in tool names; rename one.`, {
        serverId: config.id,
        field: 'id',
      });
    }
    const entry = new FleetEntry(config);
    this.entries.set(config.id, entry);
    return entry;
  }

  private entry(serverId: string): FleetEntry {
    validateFleetServerId(serverId);
    const entry = this.entries.get(serverId);
    if (entry === undefined) throw new McpUnknownServerError(serverId);
    return entry;
  }

  private assertOpen(): void {
    if (this.closed) throw new McpFleetError('manager_closed', 'The MCP server manager is shut down.');
  }

  /**
   * Adds a server to the registry (validated; `stopped`, or `disabled`). Never starts it.
   * `unknownFields` are written into its entry with it (see `McpFleetAddOptions`).
   */
  async addServer(config: McpFleetServerConfig, options: McpFleetAddOptions = {}): Promise<void> {
    this.assertOpen();
    const checked = checkFleetServerConfig(config);
    const fields = options.unknownFields === undefined ? undefined : (JSON.parse(JSON.stringify(options.unknownFields)) as Record<string, unknown>);
    if (fields !== undefined) checkUnknownFields(checked.id, fields);
    const entry = this.register(checked);
    if (fields !== undefined && Object.keys(fields).length > 0) entry.unknownFields = fields;
    this.emitStatus(entry);
    await this.saveIfAuto();
  }

  /**
   * Replaces a server's configuration: stops it, swaps the configuration, resets its
   * backoff, and starts the replacement if the server was up (and stays enabled). If the
   * replacement fails to start, the previous configuration is restored and started again,
   * and the error (`McpServerUnavailableError`) says both what failed and that it was restored.
   */
  async updateServer(serverId: string, config: McpFleetServerConfig, options: McpOperationOptions = {}): Promise<void> {
    this.assertOpen();
    const entry = this.entry(serverId);
    const replacement = checkFleetServerConfig(config);
    if (replacement.id !== serverId) {
      throw new McpConfigError(`MCP server "${serverId}": the replacement has the id "${replacement.id}"; remove the server and add the new one to rename it.`, {
        serverId,
        field: 'id',
      });
    }
    this.interrupt(entry, 'it is being replaced');
    await entry.lock.run(() => this.lifecycle.replace(entry, replacement, options.signal));
    await this.saveIfAuto();
  }

  /** Clears `disabled` (`disabled` → `stopped`) without starting the server. */
  async enableServer(serverId: string): Promise<void> {
    this.assertOpen();
    const entry = this.entry(serverId);
    await entry.lock.run(() => {
      const { disabled: _disabled, ...enabled } = entry.config;
      entry.config = enabled;
      if (entry.state === 'disabled') entry.state = 'stopped';
      this.emitStatus(entry);
      return Promise.resolve();
    });
    await this.saveIfAuto();
  }

  /** Stops the server and marks it `disabled`, so nothing starts it until `enableServer`. */
  async disableServer(serverId: string): Promise<void> {
    this.assertOpen();
    const entry = this.entry(serverId);
    this.interrupt(entry, 'it was disabled');
    await entry.lock.run(() => {
      entry.config = { ...entry.config, disabled: true };
      return this.lifecycle.halt(entry, 'disabled');
    });
    await this.saveIfAuto();
  }

  /** Stops the server gracefully and forgets it. */
  async removeServer(serverId: string): Promise<void> {
    this.assertOpen();
    await this.forget(this.entry(serverId));
    await this.saveIfAuto();
  }

  private async forget(entry: FleetEntry): Promise<void> {
    this.interrupt(entry, 'it was removed');
    await entry.lock.run(async () => {
      await this.lifecycle.halt(entry, 'stopped');
      this.entries.delete(entry.id);
    });
  }

  /** The ids of the registered servers, in registry order. */
  serverIds(): string[] {
    return [...this.entries.keys()];
  }

  /** A top-level section of the config file besides its servers (such as `profiles`), as last loaded or reloaded; `undefined` without one. */
  configSection(name: string): unknown {
    return this.file.current?.section(name);
  }

  /** A server's configuration as written (templates unexpanded), as a copy. */
  serverConfig(serverId: string): McpFleetServerConfig {
    return structuredClone(this.entry(serverId).config);
  }

  /** Every server's configuration as written, in registry order. */
  configs(): McpFleetServerConfig[] {
    return Array.from(this.entries.values(), (entry) => structuredClone(entry.config));
  }

  // ── lifecycle ───────────────────────────────────────────────────────────────

  /**
   * Starts every enabled server that is not up, all at once (no lock is held across a
   * handshake), and returns one outcome per server in registry order. Never throws for a
   * server's failure; `startup: 'background'` servers are not waited for.
   */
  async startAll(options: McpOperationOptions = {}): Promise<McpFleetStartOutcome[]> {
    this.assertOpen();
    this.started = true;
    const enabled = [...this.entries.values()].filter((entry) => entry.config.disabled !== true);
    return Promise.all(
      enabled.map(async (entry): Promise<McpFleetStartOutcome> => {
        const start = this.startServer(entry.id, options);
        if (entry.config.startup === 'background') {
          start.catch(() => {});
          return { id: entry.id, ok: true, pending: true };
        }
        try {
          await start;
          return { id: entry.id, ok: true };
        } catch (error) {
          return { id: entry.id, ok: false, error: error instanceof Error ? error : new Error(String(error)) };
        }
      }),
    );
  }

  /**
   * Starts one server: expands its templates, connects and lists its tools. Does nothing
   * when it is already up. Throws for a disabled server, and the start's failure (the
   * server is then `failed_to_start`).
   */
  async startServer(serverId: string, options: McpOperationOptions = {}): Promise<void> {
    this.assertOpen();
    const entry = this.entry(serverId);
    await entry.lock.run(async () => {
      assertEnabled(entry);
      if (UP_STATES.has(entry.state)) return;
      await this.lifecycle.launch(entry, entry.state === 'crashed' ? 'restarting' : 'starting', options.signal);
    });
  }

  /** Stops one server gracefully (within `gracePeriodMs`); a server that is not up is left `stopped`. */
  async stopServer(serverId: string): Promise<void> {
    this.assertOpen();
    const entry = this.entry(serverId);
    this.interrupt(entry, 'it was stopped');
    await entry.lock.run(() => this.lifecycle.halt(entry, entry.config.disabled === true ? 'disabled' : 'stopped'));
  }

  /** Abandons a start under way (its expansion, handshake or listing), so what follows need not wait for it. */
  private interrupt(entry: FleetEntry, why: string): void {
    entry.launching?.abort(new McpFleetError('start_abandoned', `The start of MCP server "${entry.id}" was abandoned: ${why}.`, { serverId: entry.id }));
  }

  /** Restarts one server (`restarting`): its templates are expanded again; the backoff starts afresh. */
  async restartServer(serverId: string, options: McpOperationOptions = {}): Promise<void> {
    this.assertOpen();
    const entry = this.entry(serverId);
    await entry.lock.run(() => {
      assertEnabled(entry);
      entry.restartAttempts = 0;
      return this.lifecycle.launch(entry, 'restarting', options.signal);
    });
  }

  /** The server's configuration with its templates expanded, as the provider takes it. */
  private async expand(entry: FleetEntry, signal: AbortSignal): Promise<McpServerConfig> {
    const { config } = await expandServerConfig(entry.config, {
      ...this.expansion,
      inputs: this.file.current?.inputs ?? [],
      workspaceFolder: this.workspaceFolder(),
      signal,
    });
    if (config.transport.type !== 'stdio' || config.timeouts?.closeMs !== undefined) return config;
    return { ...config, timeouts: { ...config.timeouts, closeMs: this.gracePeriodMs } };
  }

  private workspaceFolder(): string {
    return this.workspaceOption ?? this.file.current?.workspaceFolder ?? process.cwd();
  }

  /**
   * Starts monitoring (idempotent): a crashed or failed server with a `restartPolicy` is
   * restarted with backoff, and remote servers are checked every `healthCheckIntervalMs`
   * (a stdio child's exit is noticed at once).
   */
  startMonitoring(): void {
    this.assertOpen();
    this.lifecycle.supervisor.start();
  }

  /** Stops monitoring and cancels pending restarts. */
  stopMonitoring(): void {
    this.lifecycle.supervisor.stop();
  }

  /** Whether monitoring runs. */
  get monitoring(): boolean {
    return this.lifecycle.supervisor.monitoring;
  }

  // ── statuses ────────────────────────────────────────────────────────────────

  /** The status of one server. */
  status(serverId: string): McpFleetServerStatus {
    const entry = this.entry(serverId);
    return entry.status(entry.registered ? this.lifecycle.providerStatus(serverId) : undefined);
  }

  /** The status of every server, in registry order. */
  statuses(): McpFleetServerStatus[] {
    const provided = new Map(this.provider.serverStatuses().map((status) => [status.id, status]));
    return Array.from(this.entries.values(), (entry) => entry.status(entry.registered ? provided.get(entry.id) : undefined));
  }

  private emitStatus(entry: FleetEntry): void {
    if (!this.entries.has(entry.id)) return;
    const status = entry.status(entry.registered ? this.lifecycle.providerStatus(entry.id) : undefined);
    this.logger.debug({ serverId: entry.id, state: status.state }, 'MCP server status');
    this.emit('status', status);
  }

  // ── the file ────────────────────────────────────────────────────────────────

  /**
   * Writes the registry to `path` (default: the file it was loaded from) atomically, in
   * the file's dialect (or `options.dialect`), keeping its comments, unknown fields,
   * other top-level keys, `autoApprove` and the unexpanded `${...}` templates: nothing
   * expanded ever lands in the file. If another writer changed the file since it was
   * loaded or saved, what the registry did not change is kept as that writer left it.
   * Saved elsewhere (a backup, an export), the file written is the loaded one with the
   * registry's servers, all the same kept, and it replaces whatever was at `path`; the
   * loaded file stays the fleet's file. A file saved under a name that does not say its
   * dialect loads back by detection, so pass `{ dialect }` to `fromFile` for a Gemini CLI
   * file saved as, say, `backup.json`.
   */
  async save(path?: string, options: McpFleetSaveOptions = {}): Promise<void> {
    this.assertOpen();
    await this.file.save(path, options.dialect);
  }

  private async saveIfAuto(): Promise<void> {
    if (!this.autoSave) return;
    try {
      await this.save();
    } catch (error) {
      throw new McpFleetError('save_failed', `The change was applied, but the configuration could not be saved: ${errorMessage(error)}`, { cause: error });
    }
  }

  /**
   * Follows the file on disk: an edit (an editor saving it) is compared with the file as
   * it was, and only the servers it changed are touched: removed ones are stopped and
   * forgotten, changed ones updated (as `updateServer`: restarted if up, the previous
   * configuration restored if the new one fails), added ones registered and, in a started
   * fleet, started; a change of only `autoApprove` or `restartPolicy` restarts nothing.
   * A `reload` event says what was applied; a server whose change failed is also reported
   * as a `reloadError` event (naming it). An edit that does not parse leaves the fleet as
   * it is and is reported as a `reloadError` event. Idempotent.
   */
  watch(): void {
    this.assertOpen();
    this.file.watch(
      (previous, next) => this.applyEdit(previous, next),
      (error) => this.emit('reloadError', error),
    );
  }

  /** Stops following the file. */
  unwatch(): void {
    this.file.unwatch();
  }

  /** Applies an edit of the file to the registry (never saving: the file already says so). */
  private async applyEdit(previous: McpConfigDocument, next: McpConfigDocument): Promise<void> {
    if (this.closed) return;
    const diff = diffFleet(previous.servers(), next.servers());
    const failed: string[] = [];
    const report = (serverId: string, error: unknown): void => {
      failed.push(serverId);
      this.logger.warn({ serverId, error: errorMessage(error) }, 'applying an edit of the MCP config failed');
      this.emit('reloadError', error instanceof Error ? error : new Error(String(error)));
    };
    // Removals first, so the names they held are free for what the edit adds.
    await Promise.allSettled(diff.removed.flatMap((id) => {
      const entry = this.entries.get(id);
      return entry === undefined ? [] : [this.forget(entry)];
    }));
    await Promise.all(
      [...diff.updated, ...diff.added].map(async (config) => {
        if (this.closed) return;
        try {
          const entry = this.entries.get(config.id);
          if (entry === undefined) this.emitStatus(this.register(checkFleetServerConfig(config)));
          else if (!sameConfig(entry.config, config)) await entry.lock.run(() => this.lifecycle.replace(entry, config, undefined));
          await this.startIfStarted(config.id);
        } catch (error) {
          report(config.id, error);
        }
      }),
    );
    const ids = (configs: McpFleetServerConfig[]) => configs.map((config) => config.id);
    this.emit('reload', { added: ids(diff.added), updated: ids(diff.updated), removed: diff.removed, failed });
  }

  /** In a started fleet, an enabled server that is not up is started (after a reload). */
  private async startIfStarted(serverId: string): Promise<void> {
    const entry = this.entries.get(serverId);
    if (!this.started || this.closed || entry === undefined || entry.config.disabled === true || UP_STATES.has(entry.state)) return;
    await this.startServer(serverId);
  }

  // ── ToolProvider ────────────────────────────────────────────────────────────

  /**
   * What `ToolHost.init()` calls: `startAll`, then `startMonitoring`. Throws
   * `McpServerUnavailableError` (or `McpAuthorizationRequired`) when a `required` server
   * did not start. Concurrent calls share one run; after a failure the next runs again.
   */
  init(options: ToolProviderInitOptions = {}): Promise<void> {
    this.assertOpen();
    this.initRun ??= this.runInit(options).catch((error: unknown) => {
      this.initRun = undefined;
      throw error;
    });
    return this.initRun;
  }

  private async runInit(options: ToolProviderInitOptions): Promise<void> {
    const outcomes = await this.startAll(options);
    this.startMonitoring();
    for (const outcome of outcomes) {
      if (outcome.ok || this.entries.get(outcome.id)?.config.required !== true) continue;
      if (outcome.error instanceof McpAuthorizationRequired) throw outcome.error;
      throw new McpServerUnavailableError(outcome.id, `Required MCP server "${outcome.id}" did not start: ${outcome.error.message}`, outcome.error);
    }
  }

  definitions(): ToolDefinition[] {
    return this.provider.definitions();
  }

  groups(): ToolGroup[] {
    return this.provider.groups();
  }

  has(name: string): boolean {
    return this.provider.has(name);
  }

  searchFields(name: string): ToolSearchFields | undefined {
    return this.provider.searchFields(name);
  }

  call(name: string, args: unknown, options: ToolCallOptions = {}): Promise<ToolOutput> {
    return this.provider.call(name, args, options);
  }

  /** Re-lists every running server; throws `McpRefreshError` listing those that failed. */
  async refresh(options: ToolProviderInitOptions = {}): Promise<void> {
    const failures: McpServerFailure[] = [];
    const running = [...this.entries.values()].filter((entry) => entry.state === 'running');
    await Promise.all(
      running.map((entry) =>
        this.provider.refreshServer(entry.id, options).catch((error: unknown) => {
          failures.push({ serverId: entry.id, error: error instanceof Error ? error : new Error(String(error)) });
        }),
      ),
    );
    if (failures.length > 0) throw new McpRefreshError(failures.sort((a, b) => (a.serverId < b.serverId ? -1 : 1)));
  }

  /** Stops monitoring and watching, then every server; no child process survives. The manager is unusable afterwards. Idempotent. */
  async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lifecycle.closed = true;
    this.lifecycle.supervisor.stop();
    this.file.unwatch();
    for (const entry of this.entries.values()) {
      entry.cancelRestart();
      entry.cancelStable();
      this.interrupt(entry, 'the fleet is shutting down');
    }
    // Abandoned starts let go of their servers promptly; one that does not is cut off by the provider's close.
    const settled = Promise.allSettled(Array.from(this.entries.values(), (entry) => entry.lock.run(() => Promise.resolve())));
    await waitBounded(settled, { timeoutMs: this.gracePeriodMs + 2_000 }).catch(() => {});
    await this.provider.close();
    for (const entry of this.entries.values()) {
      entry.expanded = undefined;
      entry.state = entry.config.disabled === true ? 'disabled' : 'stopped';
    }
  }

  /** `shutdown()`, for the `ToolProvider` contract. */
  close(): Promise<void> {
    return this.shutdown();
  }

  // ── per-server operations (see operations.ts) ───────────────────────────────

  protected held(serverId: string): string {
    const entry = this.entry(serverId);
    if (!entry.registered) {
      throw new McpFleetError('server_not_running', `MCP server "${serverId}" is ${entry.state.replace(/_/g, ' ')}; start it first (startServer).`, { serverId });
    }
    return serverId;
  }

  /** Completes the OAuth flow of a server; it is then `running`. */
  async completeAuthorization(serverId: string, redirectUrlOrCode: string, options?: McpOperationOptions): Promise<void> {
    const entry = this.entry(serverId);
    await this.provider.completeAuthorization(this.held(serverId), redirectUrlOrCode, options);
    entry.state = 'running';
    entry.restartAttempts = 0;
    entry.lastError = undefined;
    entry.authorizationRequired = false;
    this.emitStatus(entry);
  }

  /** What `util.inspect` and `JSON.stringify` show: statuses, never configurations. */
  toJSON(): { servers: McpFleetServerStatus[] } {
    return { servers: this.statuses() };
  }

  [inspect.custom](_depth: number, options: InspectOptions): string {
    return `McpServerManager ${inspect(this.toJSON(), options)}`;
  }
}

function assertEnabled(entry: FleetEntry): void {
  if (entry.config.disabled === true) {
    throw new McpFleetError('server_disabled', `MCP server "${entry.id}" is disabled; enable it before starting it (enableServer).`, { serverId: entry.id });
  }
}
