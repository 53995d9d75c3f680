/**
 * `McpGateway`: a fleet (or any provider) served as one MCP server, to clients of both
 * protocol eras, over Streamable HTTP and stdio. It owns the published names, the
 * connections' server instances, and what must reach connected clients: list changes
 * and the servers' log messages. The SDK's server packages own the protocol.
 */
import { type LoggingLevel, type McpServerFactory, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { silentLogger, type McpLogger } from '../mcp/logger.js';
import type { McpRelayedNotification } from '../mcp/session/session.js';
import { CLIENT_INFO } from '../mcp/session/session.js';
import { GatewayCatalog } from './catalog.js';
import { McpEndpoint, type McpEndpointOptions } from './endpoint.js';
import { paramHeaderRefusal } from './param-headers.js';
import { McpConfigError } from '../mcp/errors.js';
import { GatewayDiscovery } from './discovery.js';
import { callsInFlight, type GatewayState, type GatewaySurface, installHandlers, releaseConnection } from './handlers.js';
import { compileProfiles, type GatewayProfileFilter, type McpGatewayProfile } from './profiles.js';
import { type GatewayExposure, GatewayView } from './view.js';
import { relayedLog } from './logs.js';
import { HeldCalls } from './server-requests.js';
import type { GatewayNaming } from './names.js';
import type { McpGatewayUpstream } from './upstream.js';

export interface McpGatewayOptions {
  /** `auto` (default): a server's own names while unique; `prefixed`: `<server>_<name>` always. */
  names?: GatewayNaming;
  /** Where the gateway logs. Default: silent. */
  logger?: McpLogger;
  /** Who the gateway says it is. Default `{ name: 'mcp-fleet', version: <package> }`. */
  serverInfo?: { name: string; version: string; title?: string };
  /** Instructions sent to clients at `initialize` / `server/discover`. Default: none. */
  instructions?: string;
  /** Bounds of the HTTP endpoint (body size, sessions). */
  endpoint?: McpEndpointOptions;
  /**
   * How long a client may take to answer what a server asks it during a call
   * (elicitation, sampling, roots): a 2025 client its relayed request, a 2026-07-28
   * client the `input_required` round the gateway made of it (the server's call is
   * held open meanwhile, then cancelled). Default 10 minutes: a person may be filling a form.
   */
  answerMs?: number;
  /** `all` (default): every tool in `tools/list`; `discovery`: the discovery helpers and what each client selects. */
  expose?: GatewayExposure;
  /** Named views of the fleet (the config file's `profiles` section), served at `/mcp/<name>` and by `serveStdio(name)`. Default: none. */
  profiles?: Record<string, McpGatewayProfile>;
  /** Most tool calls in flight across every client; one more is answered with a tool-level error saying so (the tool does not run). Default 1024. */
  maxCallsInFlight?: number;
  /** How many calls may be held open waiting for a 2026-07-28 client's answer; a server's request beyond that is declined. Default 256. */
  maxHeldCalls?: number;
}

const DEFAULT_ANSWER_MS = 10 * 60_000;
const DEFAULT_MAX_HELD_CALLS = 256;
const DEFAULT_MAX_CALLS_IN_FLIGHT = 1024;

export class McpGateway {
  readonly catalog: GatewayCatalog;
  private readonly state: GatewayState;
  private readonly logger: McpLogger;
  /** Instances pinned to a connection (2025 sessions, stdio), which hear pushed notifications. */
  private readonly connections = new Set<Server>();
  private readonly endpoints = new Set<McpEndpoint>();
  private readonly stdio = new Set<{ close(): Promise<void> }>();
  private pending: Set<'tools' | 'prompts' | 'resources'> | undefined;
  private closed = false;
  private profiles: Map<string, GatewayProfileFilter>;
  /** One surface per profile (key `''`: the whole fleet), made when first served. */
  private readonly surfaces = new Map<string, Omit<GatewaySurface, 'persistent'>>();

  constructor(
    readonly upstream: McpGatewayUpstream,
    private readonly options: McpGatewayOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger;
    this.catalog = new GatewayCatalog(upstream, options.names ?? 'auto', this.logger);
    this.profiles = compileProfiles(options.profiles);
    this.state = {
      upstream,
      catalog: this.catalog,
      logger: this.logger,
      inflight: new Map(),
      logLevels: new WeakMap(),
      subscriptions: new WeakMap(),
      draining: false,
      cutoff: new AbortController(),
      held: new HeldCalls({ holdMs: options.answerMs ?? DEFAULT_ANSWER_MS, maxHeld: options.maxHeldCalls ?? DEFAULT_MAX_HELD_CALLS }),
      answerMs: options.answerMs ?? DEFAULT_ANSWER_MS,
      maxCallsInFlight: options.maxCallsInFlight ?? DEFAULT_MAX_CALLS_IN_FLIGHT,
    };
  }

  /** The server factory the SDK's serving entries call: one instance per connection or per 2026-07-28 request. */
  get factory(): McpServerFactory {
    return this.factoryFor(undefined);
  }

  /** The server factory of one profile's view (`undefined`: the whole fleet). Throws for a profile the gateway does not have. */
  factoryFor(profile: string | undefined): McpServerFactory {
    const surface = this.surface(profile);
    return (context) => {
      const info = this.options.serverInfo ?? { name: CLIENT_INFO.name, version: CLIENT_INFO.version };
      const server = new Server(info, {
        capabilities: {
          tools: { listChanged: true },
          prompts: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          completions: {},
          logging: {},
        },
        ...(this.options.instructions === undefined ? {} : { instructions: this.options.instructions }),
      });
      // A 2026-07-28 HTTP request's instance lives for that request; the others for their connection.
      const persistent = context.era === 'legacy' || context.requestInfo === undefined;
      installHandlers(server, this.state, { ...surface, persistent });
      if (persistent) {
        this.connections.add(server);
        server.onclose = () => {
          this.connections.delete(server);
          void releaseConnection(server, this.state);
        };
      }
      return server;
    };
  }

  /** The profiles' names, as served at `/mcp/<name>`. */
  profileNames(): string[] {
    return [...this.profiles.keys()];
  }

  /** One profile's OAuth scopes (what a token needs at `/mcp/<name>`), or `undefined` for a profile the gateway does not have. */
  profileScopes(name: string): string[] | undefined {
    return this.profiles.get(name)?.scopes;
  }

  /**
   * Takes the profiles of an edited config file: a changed profile's clients see its new
   * view (and are told their lists changed), a removed one's see nothing. Throws, changing
   * nothing, when the section is not valid.
   */
  setProfiles(profiles: Record<string, McpGatewayProfile> | undefined): void {
    this.profiles = compileProfiles(profiles);
    for (const [name, surface] of this.surfaces) if (name !== '') surface.view.retarget(this.profiles.get(name) ?? null);
    this.changed('tools');
    this.changed('prompts');
    this.changed('resources');
  }

  private surface(profile: string | undefined): Omit<GatewaySurface, 'persistent'> {
    const key = profile ?? '';
    let surface = this.surfaces.get(key);
    if (surface !== undefined) return surface;
    const filter = profile === undefined ? undefined : this.profiles.get(profile);
    if (profile !== undefined && filter === undefined) {
      const known = this.profileNames();
      throw new McpConfigError(`There is no profile "${profile}": ${known.length === 0 ? 'the config file has no "profiles" section' : `the config file has ${known.map((name) => `"${name}"`).join(', ')}`}.`, {
        field: 'profiles',
      });
    }
    const view = new GatewayView(this.catalog, filter);
    surface = { view, ...(this.options.expose === 'discovery' ? { discovery: new GatewayDiscovery(view, this.upstream) } : {}) };
    this.surfaces.set(key, surface);
    return surface;
  }

  /** A new HTTP endpoint serving this gateway (mount it with `listenHttp`, or call `fetch` yourself). */
  endpoint(options: McpEndpointOptions = this.options.endpoint ?? {}, profile?: string): McpEndpoint {
    const { view } = this.surface(profile);
    const endpoint = new McpEndpoint(
      this.factoryFor(profile),
      { onerror: (error) => this.logger.debug({ error: error.message }, 'gateway endpoint error'), ...options },
      (body, headerOf) => paramHeaderRefusal(view, body, headerOf),
    );
    this.endpoints.add(endpoint);
    return endpoint;
  }

  /** Serves the gateway (or one profile's view of it) on this process's stdin and stdout, for a client that launched it. */
  serveStdio(profile?: string): { close(): Promise<void> } {
    const handle = serveStdio(this.factoryFor(profile), { onerror: (error) => this.logger.debug({ error: error.message }, 'gateway stdio error') });
    this.stdio.add(handle);
    return handle;
  }

  /** Calls in flight now, across every connection. */
  get callsInFlight(): number {
    return callsInFlight(this.state);
  }

  /**
   * What a server announced, passed on: a list change reaches every connected client (the
   * server's catalog is listed again first); a log message goes to the call it belongs to.
   */
  relay(serverId: string, notification: McpRelayedNotification): void {
    switch (notification.method) {
      case 'notifications/tools/list_changed':
        void (this.upstream.refreshServer?.(serverId) ?? Promise.resolve())
          .catch((error: unknown) => this.logger.warn({ serverId, error: String(error) }, 'gateway: refreshing tools failed'))
          .then(() => this.changed('tools'));
        return;
      case 'notifications/prompts/list_changed':
        this.catalog.invalidate(serverId, 'prompts');
        this.changed('prompts');
        return;
      case 'notifications/resources/list_changed':
        this.catalog.invalidate(serverId, 'resources');
        this.changed('resources');
        return;
      case 'notifications/message':
        this.relayLog(serverId, notification.params);
        return;
    }
  }

  /** A server started, stopped, crashed or was restarted: what it offers may have changed. */
  serverChanged(serverId: string): void {
    this.catalog.invalidate(serverId);
    this.changed('tools');
    this.changed('prompts');
    this.changed('resources');
  }

  /** Tells every connected client that a list changed; changes in one turn of the event loop go out once. */
  changed(kind: 'tools' | 'prompts' | 'resources'): void {
    if (this.closed) return;
    if (this.pending === undefined) {
      this.pending = new Set();
      setImmediate(() => this.flush());
    }
    this.pending.add(kind);
  }

  private flush(): void {
    const kinds = this.pending ?? new Set();
    this.pending = undefined;
    for (const kind of kinds) {
      for (const endpoint of this.endpoints) {
        if (kind === 'tools') endpoint.notify.toolsChanged();
        else if (kind === 'prompts') endpoint.notify.promptsChanged();
        else endpoint.notify.resourcesChanged();
      }
      for (const server of this.connections) {
        const sent = kind === 'tools' ? server.sendToolListChanged() : kind === 'prompts' ? server.sendPromptListChanged() : server.sendResourceListChanged();
        void Promise.resolve(sent).catch(() => {});
      }
    }
  }

  private relayLog(serverId: string, params: Record<string, unknown>): void {
    const calls = this.state.inflight.get(serverId);
    // Only one call in flight: the message is that call's, sent on its stream.
    const only = calls?.size === 1 ? [...calls][0] : undefined;
    const message = relayedLog(serverId, params);
    if (only !== undefined) {
      const [call, level] = only;
      // A caller that asked for no log level hears none (2026-07-28), nor anything below the one it asked for.
      if (level !== undefined && atLeast(message.level, level as LoggingLevel)) {
        void call.mcpReq.notify({ method: 'notifications/message', params: message }).catch(() => {});
      }
      return;
    }
    for (const server of this.connections) {
      const level = this.state.logLevels.get(server);
      if (level !== undefined && !atLeast(message.level, level)) continue;
      void server.sendLoggingMessage(message).catch(() => {});
    }
  }

  /**
   * Lets the calls in flight finish, for at most `drainMs`, refusing new ones (as a
   * tool-level error saying the tool did not run). Then cancels those still running, each
   * answered with a tool-level error saying so, and waits (at most `answerMs`, default
   * 2 s) for those answers to go out. Resolves with how many were cancelled.
   */
  async drain(drainMs: number, answerMs = 2_000): Promise<number> {
    this.state.draining = true;
    await this.whileCallsInFlight(Date.now() + drainMs);
    const cancelled = this.callsInFlight;
    if (cancelled > 0) {
      this.state.cutoff.abort();
      await this.whileCallsInFlight(Date.now() + answerMs);
    }
    return cancelled;
  }

  private async whileCallsInFlight(until: number): Promise<void> {
    while (this.callsInFlight > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, Math.min(25, until - Date.now())));
  }

  /** Stops serving: ends every session and stream (new requests get 503). The fleet is the caller's to stop. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.state.held.close();
    await Promise.all([...this.endpoints].map((endpoint) => endpoint.close()));
    await Promise.all([...this.stdio].map((handle) => handle.close().catch(() => {})));
    await Promise.all([...this.connections].map((server) => server.close().catch(() => {})));
  }
}

const SEVERITY: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

function atLeast(level: LoggingLevel, minimum: LoggingLevel): boolean {
  return SEVERITY.indexOf(level) >= SEVERITY.indexOf(minimum);
}
