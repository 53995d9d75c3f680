/**
 * `McpToolProvider`: many MCP servers as one `ToolProvider`. A thin facade over the
 * registrations (one per server), the route table (published catalog) and the call
 * path. Register it with `new ToolHost({ providers: [provider] })`.
 */
import { inspect, type InspectOptions } from 'node:util';
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { ToolGroup } from '../core/group.js';
import type { ToolProvider, ToolProviderInitOptions } from '../core/provider.js';
import type { ToolSearchFields } from '../core/search/fields.js';
import type { ToolCallOptions, ToolDefinition, ToolOutput } from '../core/tool.js';
import { InMemoryMcpCredentialStore, type McpCredentialStore } from './auth/store.js';
import { callTool } from './calls/call.js';
import { invokeTool } from './calls/invoke.js';
import type { McpRelayOptions, McpServerCallOptions } from './calls/relay.js';
import { complete, getPrompt, listPrompts, type McpCompletion, type McpCompletionReference } from './context/prompts.js';
import { listResources, listResourceTemplates, type McpResourceListener, readResource, subscribeResource, unsubscribeResource } from './context/resources.js';
import type { McpRequestOptions } from './context/server-operations.js';
import { listEvents } from './context/events/list.js';
import { subscribeEvents } from './context/events/subscribe.js';
import type { McpEventSink, McpEventSubscription, McpEventSubscriptionRequest, McpEventType, McpWebhookSubscription, McpWebhookSubscriptionRequest } from './context/events/types.js';
import { type McpWebhookTarget, WebhookKeeper } from './context/events/webhook.js';
import type { McpElicitationHandler } from './calls/interaction.js';
import { type McpServerConfig, redactedConfig, resolveServerConfig, type ResolvedServerConfig } from './config/config.js';
import {
  errorMessage,
  McpAuthorizationRequired,
  McpConfigError,
  McpFleetError,
  McpRefreshError,
  McpServerUnavailableError,
  McpUnknownServerError,
} from './errors.js';
import { type McpLogger, silentLogger } from './logger.js';
import type { McpServerStatus } from './config/policy.js';
import { refreshServers } from './catalog/refresh.js';
import { type McpReconnectMode, type McpServerClosedEvent, type ReconnectPolicy, ServerRegistration } from './registration.js';
import { RouteTable } from './catalog/routes.js';
import { mcpSearchFields } from './catalog/search-fields.js';
import { TOOL_PREFIX } from './catalog/naming.js';
import type { McpRelayedNotification } from './session/session.js';

export interface McpToolProviderOptions {
  /** The servers to connect at `init()`. More can be added later with `addServer`. Default `[]`. */
  servers?: McpServerConfig[];
  /** Where mcp-fleet logs (pino and `console` both fit). Default: silent. */
  logger?: McpLogger;
  /**
   * Where OAuth grants, registered clients and discovery results are kept. Default: an
   * `InMemoryMcpCredentialStore` (lost when the process ends); `FileMcpCredentialStore`
   * keeps them on disk.
   */
  credentialStore?: McpCredentialStore;
  /**
   * Answers servers' elicitations (form and/or URL mode) on behalf of a person. Only
   * servers configured with `elicitation: true` see the capability. Default: none.
   */
  elicitation?: McpElicitationHandler;
  /**
   * Who reconnects a server whose connection closed on its own (a stdio child exited,
   * a health check failed). `lazy` (default): the next call or refresh. `manual`: only
   * `reconnectServer(id)`; until then calls get a `server_unavailable` result. For a
   * supervisor that restarts servers with its own policy, such as `McpServerManager`.
   */
  reconnect?: McpReconnectMode;
  /** Called, synchronously, when a server's connection closes without being asked to. Default: none. */
  onServerClosed?: (event: McpServerClosedEvent) => void;
  /**
   * Hears what a server announces: its tool, prompt and resource list changes and its
   * log messages (`notifications/message`), for an application that passes them on (the
   * gateway). A tool list change also marks the server's catalog for a refresh, as
   * always. Default: none.
   */
  onNotification?: (serverId: string, notification: McpRelayedNotification) => void;
  /**
   * For an application that serves its own MCP clients (the gateway): tells every server
   * it can elicit (form and URL), sample and list roots, and hands each such request a
   * 2025 server sends during a call to that call's `onServerRequest` (see
   * `McpRelayOptions`); a request outside a relayed call is declined. Default `false`:
   * only elicitation, through `elicitation`, for servers that opted in.
   */
  relayServerRequests?: boolean;
}

/** Where a model-facing MCP tool comes from. */
export interface McpToolOrigin {
  serverId: string;
  /** The tool's name on its server. */
  remoteName: string;
  /** The MCP tool as the server listed it (annotations, output schema, `_meta`). */
  tool: Tool;
}

/** Options of the per-server operations. */
export type McpOperationOptions = McpRequestOptions;

/**
 * An application-side tool call that ended without a result. `reason` is the failure code
 * (`timeout`, ...); `cause` is the server's own JSON-RPC error when it answered with one.
 */
export class McpToolCallError extends McpFleetError {
  readonly tool: string;
  readonly reason: string;

  constructor(serverId: string, tool: string, reason: string, message: string, serverError?: unknown) {
    super('tool_call_failed', message, { serverId, cause: serverError });
    this.tool = tool;
    this.reason = reason;
  }
}

export class McpToolProvider implements ToolProvider {
  readonly name = TOOL_PREFIX;
  private readonly logger: McpLogger;
  private readonly credentialStore: McpCredentialStore;
  private readonly elicitation: McpElicitationHandler | undefined;
  private readonly reconnectPolicy: ReconnectPolicy;
  private readonly onNotification: McpToolProviderOptions['onNotification'];
  private readonly relayServerRequests: boolean;
  private readonly registrations = new Map<string, ServerRegistration>();
  private readonly table: RouteTable;
  /** Whether start-up has begun: from then on `addServer` connects a new server at once. */
  private initialised = false;
  /** The start-up run, shared by concurrent `init()` calls; cleared when it fails, so it can be retried. */
  private initRun: Promise<void> | undefined;
  private backgroundStarted = false;
  private closed = false;
  /** Webhook subscriptions renewed until unsubscribed. */
  private readonly webhooks = new WebhookKeeper();
  private readonly background = new Set<Promise<unknown>>();

  /** Validates every configuration at once; throws `McpConfigError` naming the server and field. */
  constructor(options: McpToolProviderOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.credentialStore = options.credentialStore ?? new InMemoryMcpCredentialStore();
    this.elicitation = options.elicitation;
    this.reconnectPolicy = { mode: options.reconnect ?? 'lazy', onClosed: options.onServerClosed };
    this.onNotification = options.onNotification;
    this.relayServerRequests = options.relayServerRequests === true;
    this.table = new RouteTable(TOOL_PREFIX, this.logger);
    const resolved = (options.servers ?? []).map((server) => resolveServerConfig(server));
    for (const config of resolved) {
      this.checkIdIsFree(config, resolved.filter((other) => other !== config));
      this.register(config);
    }
  }

  private checkIdIsFree(config: ResolvedServerConfig, others: Iterable<ResolvedServerConfig>): void {
    for (const other of others) {
      if (other.id === config.id) {
        throw new McpConfigError(`MCP server "${config.id}" is configured twice; server ids must be unique.`, {
          serverId: config.id,
          field: 'id',
        });
      }
      if (other.namePart === config.namePart) {
        throw new McpConfigError(
          `MCP server "${config.id}" collides with server "${other.id}": both normalise to "${config.namePart}" in tool names; rename one.`,
          { serverId: config.id, field: 'id' },
        );
      }
    }
  }

  private register(config: ResolvedServerConfig): ServerRegistration {
    if (config.elicitation && this.elicitation === undefined) {
      throw new McpConfigError(
        `MCP server "${config.id}": \`elicitation\` is true, but the provider has no elicitation handler; pass \`elicitation\` to new McpToolProvider().`,
        { serverId: config.id, field: 'elicitation' },
      );
    }
    const registration = new ServerRegistration(config, this.logger, this.credentialStore, {
      ...(this.elicitation === undefined ? {} : { elicitation: this.elicitation }),
      reconnect: this.reconnectPolicy,
      ...(this.onNotification === undefined ? {} : { onNotification: this.onNotification }),
      relayServerRequests: this.relayServerRequests,
    });
    this.registrations.set(config.id, registration);
    return registration;
  }

  private assertOpen(): void {
    if (this.closed) throw new McpFleetError('provider_closed', 'The MCP tool provider is closed.');
  }

  /**
   * Connects and lists every configured server. Eager servers are awaited: an
   * unreachable optional one is logged and skipped, a `required` one makes this throw
   * `McpServerUnavailableError` naming it. Background servers publish when ready.
   * Concurrent calls share one start-up; once it succeeded, calling again does nothing;
   * after it failed (or was cancelled), the next call runs it again.
   */
  async init(options: ToolProviderInitOptions = {}): Promise<void> {
    this.assertOpen();
    this.initRun ??= this.runInit(options.signal ?? new AbortController().signal).catch((error: unknown) => {
      // A start-up that failed (a required server down, or cancelled) runs again on the next init().
      this.initRun = undefined;
      throw error;
    });
    return this.initRun;
  }

  private async runInit(signal: AbortSignal): Promise<void> {
    this.initialised = true;
    const registrations = [...this.registrations.values()];
    const eager = registrations.filter((registration) => registration.config.startup === 'eager');
    const background = registrations.filter((registration) => registration.config.startup === 'background');
    const failures = await refreshServers(eager, this.table, { force: true, signal });
    signal.throwIfAborted();
    for (const failure of failures) {
      this.logger.warn({ serverId: failure.serverId, error: failure.error.message }, 'MCP server unavailable at start-up');
    }
    // Eager servers publish before background ones (their names win collisions), and background ones start once.
    if (!this.backgroundStarted && background.length > 0) {
      this.backgroundStarted = true;
      this.refreshInBackground(background);
    }
    const required = failures.find((failure) => this.registrations.get(failure.serverId)?.config.required);
    // An authorization failure stays typed, so the application can run the flow and retry.
    if (required?.error instanceof McpAuthorizationRequired) throw required.error;
    if (required !== undefined) {
      throw new McpServerUnavailableError(
        required.serverId,
        `Required MCP server "${required.serverId}" is unavailable: ${required.error.message}`,
        required.error,
      );
    }
  }

  private refreshInBackground(registrations: ServerRegistration[]): void {
    const task = refreshServers(registrations, this.table, { force: true, signal: new AbortController().signal }).then((failures) => {
      for (const failure of failures) {
        this.logger.warn({ serverId: failure.serverId, error: failure.error.message }, 'MCP server unavailable (background start-up)');
      }
    });
    this.background.add(task);
    void task.finally(() => this.background.delete(task));
  }

  /**
   * Re-lists every server (connecting where needed) and publishes what succeeded.
   * Throws `McpRefreshError` listing each server that failed.
   */
  async refresh(options: ToolProviderInitOptions = {}): Promise<void> {
    this.assertOpen();
    const failures = await refreshServers([...this.registrations.values()], this.table, {
      force: true,
      signal: options.signal ?? new AbortController().signal,
    });
    if (failures.length > 0) throw new McpRefreshError(failures);
  }

  /** Re-lists one server. Throws its failure. */
  async refreshServer(serverId: string, options: McpOperationOptions = {}): Promise<void> {
    const registration = this.registration(serverId);
    const [failure] = await refreshServers([registration], this.table, {
      force: true,
      signal: options.signal ?? new AbortController().signal,
    });
    if (failure !== undefined) throw failure.error;
  }

  definitions(): ToolDefinition[] {
    return [...this.table.definitions()];
  }

  groups(): ToolGroup[] {
    return this.table.groups().map((group) => ({ ...group, members: [...group.members] }));
  }

  has(name: string): boolean {
    return this.table.has(name.toLowerCase());
  }

  /** Where a model-facing tool comes from: its server, its original name and the original MCP tool. */
  toolOrigin(name: string): McpToolOrigin | undefined {
    const route = this.table.get(name.toLowerCase());
    return route === undefined ? undefined : { serverId: route.serverId, remoteName: route.remoteName, tool: route.tool };
  }

  /** What `tools_search` reads of the tool named `name`: its own name, title and description, its parameters, its server. */
  searchFields(name: string): ToolSearchFields | undefined {
    const route = this.table.get(name.toLowerCase());
    return route === undefined ? undefined : mcpSearchFields(route, this.registrations.get(route.serverId)?.meta);
  }

  /** The model-facing name of a server's tool, if it is published. */
  toolName(serverId: string, remoteName: string): string | undefined {
    return this.table.nameOf(serverId, remoteName);
  }

  /** Calls a tool by its model-facing name. Failures the model should read come back with `isError: true`. */
  call(name: string, args: unknown, options: ToolCallOptions = {}): Promise<ToolOutput> {
    this.assertOpen();
    return callTool({ table: this.table, registrations: this.registrations, logger: this.logger }, name.toLowerCase(), args, options);
  }

  /**
   * Registers a server at run time, connects and lists it. If that first refresh fails,
   * the server is rolled back and `McpServerUnavailableError` is thrown. A `background`
   * server is registered at once and publishes when ready.
   */
  async addServer(server: McpServerConfig, options: McpOperationOptions = {}): Promise<void> {
    this.assertOpen();
    const config = resolveServerConfig(server);
    const existing = this.registrations.get(config.id);
    if (existing !== undefined) {
      throw new McpConfigError(`MCP server "${config.id}" already exists; remove it first or choose another id.`, {
        serverId: config.id,
        field: 'id',
      });
    }
    this.checkIdIsFree(config, Array.from(this.registrations.values(), (registration) => registration.config));
    const registration = this.register(config);
    // Before init(), a server is only registered; init() connects it with the others.
    if (!this.initialised) return;
    if (config.startup === 'background') {
      this.refreshInBackground([registration]);
      return;
    }
    const [failure] = await refreshServers([registration], this.table, {
      force: true,
      signal: options.signal ?? new AbortController().signal,
    });
    if (failure === undefined) return;
    // Roll back only this registration: a replacement registered meanwhile stays.
    if (this.registrations.get(config.id) === registration) await this.removeRegistration(registration);
    throw new McpServerUnavailableError(config.id, `MCP server "${config.id}" could not be added: ${failure.error.message}`, failure.error);
  }

  /** Removes a server: cancels its work, closes its session, unpublishes its tools. Returns whether it existed. */
  async removeServer(serverId: string): Promise<boolean> {
    const registration = this.registrations.get(serverId);
    if (registration === undefined) return false;
    await this.removeRegistration(registration);
    return true;
  }

  private async removeRegistration(registration: ServerRegistration): Promise<void> {
    this.registrations.delete(registration.id);
    this.table.remove(registration.id);
    await registration.remove();
  }

  /**
   * Closes a server's session but keeps it registered with its tools; the next call or
   * refresh reconnects. Calls already sent may finish; queued ones do not start on the
   * retired session. Returns whether a live session existed.
   */
  async disconnectServer(serverId: string): Promise<boolean> {
    return this.registration(serverId).disconnect();
  }

  /**
   * Connects a server again, whatever the reconnect mode: closes what is left of its
   * session (calls in flight on it fail; a stdio child is stopped first, so two never
   * overlap), opens a new one and lists its tools (names kept). For a supervisor's
   * restart. Throws the failure (and, in `manual` mode, the server stays down).
   */
  async reconnectServer(serverId: string, options: McpOperationOptions = {}): Promise<void> {
    this.assertOpen();
    const registration = this.registration(serverId);
    await registration.reconnect('close');
    const [failure] = await refreshServers([registration], this.table, {
      force: true,
      signal: options.signal ?? new AbortController().signal,
    });
    if (failure !== undefined) throw failure.error;
  }

  /**
   * Checks that a connected server still answers (`server/discover` on 2026-07-28, `ping`
   * before), within `timeouts.probeMs`; never connects. A server that does not answer is
   * treated like one whose connection closed (`onServerClosed`; in `manual` mode it stays
   * down). Resolves `false` then, or when the server has no live session.
   */
  async checkServer(serverId: string, options: McpOperationOptions = {}): Promise<boolean> {
    this.assertOpen();
    return this.registration(serverId).check(options.signal);
  }

  private authorizer(serverId: string) {
    const registration = this.registration(serverId);
    if (registration.config.transport.type === 'stdio') {
      throw new McpFleetError('not_http', `MCP server "${serverId}" does not use the HTTP transport (it is a stdio server); OAuth applies only to HTTP and SSE servers.`, {
        serverId,
      });
    }
    if (registration.authorizer === undefined) {
      throw new McpFleetError('not_oauth', `MCP server "${serverId}" has no \`oauth\` configuration.`, { serverId });
    }
    return { registration, authorizer: registration.authorizer };
  }

  /**
   * Starts the interactive OAuth flow of a server (authorization code with PKCE) and
   * returns the URL a person opens in a browser, anywhere. No browser is opened here.
   * `scopes` adds to the configured ones. Complete it on this same provider instance.
   */
  async beginAuthorization(serverId: string, options: { scopes?: string[] } = {}): Promise<string> {
    const { authorizer } = this.authorizer(serverId);
    return (await authorizer.begin(options)).href;
  }

  /**
   * Completes the interactive flow with the full redirect URL (pasted by a person or
   * caught by a loopback listener) or the bare code. Checks the CSRF `state`, PKCE and a
   * present RFC 9207 `iss`, stores the grant, retires the live session (calls in flight
   * finish on the old one), then connects with the new grant and publishes the server's
   * tools. Throws `McpServerUnavailableError` if that last step fails (the grant is kept).
   */
  async completeAuthorization(serverId: string, redirectUrlOrCode: string, options: McpOperationOptions = {}): Promise<void> {
    const { registration, authorizer } = this.authorizer(serverId);
    await authorizer.complete(redirectUrlOrCode);
    // A server held down by its authorization failure may connect again now.
    await registration.reconnect('retire');
    // Connect with the new grant and publish the server's tools now, so the caller learns at once if it works.
    const [failure] = await refreshServers([registration], this.table, {
      force: true,
      signal: options.signal ?? new AbortController().signal,
    });
    if (failure !== undefined) {
      // Still not enough (a scope step-up, another authorization server): the flow runs again.
      if (failure.error instanceof McpAuthorizationRequired) throw failure.error;
      throw new McpServerUnavailableError(
        serverId,
        `MCP server "${serverId}" was authorized, but its tools could not be listed: ${failure.error.message}`,
        failure.error,
      );
    }
  }

  /** Forgets a pending interactive authorization. Returns whether one was pending. */
  cancelAuthorization(serverId: string): boolean {
    return this.authorizer(serverId).authorizer.cancel();
  }

  /**
   * Signs out: deletes the server's stored grant, then retires its session. The next
   * connection fails with `McpAuthorizationRequired` until the flow runs again.
   */
  async clearCredentials(serverId: string): Promise<void> {
    const { registration, authorizer } = this.authorizer(serverId);
    await authorizer.clear();
    await registration.disconnect();
  }

  /** The resources a server lists (needs `resources: true`). Empty when the server has none. */
  async listResources(serverId: string, options: McpRequestOptions = {}): Promise<Resource[]> {
    this.assertOpen();
    return listResources(this.registration(serverId), options);
  }

  /** The resource templates a server lists (needs `resources: true`). */
  async listResourceTemplates(serverId: string, options: McpRequestOptions = {}): Promise<ResourceTemplate[]> {
    this.assertOpen();
    return listResourceTemplates(this.registration(serverId), options);
  }

  /** Reads a resource by URI (needs `resources: true`). The library never fetches the URI itself. */
  async readResource(serverId: string, uri: string, options: McpRequestOptions & McpRelayOptions = {}): Promise<ReadResourceResult> {
    this.assertOpen();
    return readResource(this.registration(serverId), uri, options);
  }

  /** Calls `listener(uri)` whenever the server says the resource changed; kept across reconnections. */
  async subscribeResource(serverId: string, uri: string, listener: McpResourceListener, options: McpRequestOptions = {}): Promise<void> {
    this.assertOpen();
    return subscribeResource(this.registration(serverId), uri, listener, options);
  }

  /** Removes `listener`, or every listener of `uri`. Returns whether anything was subscribed. */
  async unsubscribeResource(serverId: string, uri: string, listener?: McpResourceListener, options: McpRequestOptions = {}): Promise<boolean> {
    this.assertOpen();
    return unsubscribeResource(this.registration(serverId), uri, listener, options);
  }

  /** The prompts a server offers. Empty when it offers none. */
  async listPrompts(serverId: string, options: McpRequestOptions = {}): Promise<Prompt[]> {
    this.assertOpen();
    return listPrompts(this.registration(serverId), options);
  }

  /** Gets a prompt with its arguments filled in. */
  async getPrompt(serverId: string, name: string, args: Record<string, string> = {}, options: McpRequestOptions & McpRelayOptions = {}): Promise<GetPromptResult> {
    this.assertOpen();
    return getPrompt(this.registration(serverId), name, args, options);
  }

  /** Completion values for an argument of a prompt (`{ type: 'ref/prompt', name }`) or a resource template (`{ type: 'ref/resource', uri }`). */
  async complete(
    serverId: string,
    ref: McpCompletionReference,
    argument: { name: string; value: string },
    options: McpRequestOptions & { context?: Record<string, string> } = {},
  ): Promise<McpCompletion> {
    this.assertOpen();
    return complete(this.registration(serverId), ref, argument, options.context, options);
  }

  /**
   * The event types a server publishes (MCP Events, experimental), or `null` when it
   * does not implement the extension (it does not know `events/list`, or does not answer
   * within 10 s). Types over the description or schema budgets are skipped with a warning.
   */
  async listEvents(serverId: string, options: McpRequestOptions = {}): Promise<McpEventType[] | null> {
    this.assertOpen();
    return listEvents(this.registration(serverId), options);
  }

  /**
   * Subscribes to an event type, polled or pushed (one open `events/stream`), handing signals to `sink` (see
   * `McpEventSignal`): at least once, from `request.cursor` (default: from now). Runs
   * until `cancel()`, a terminal error, or the server's removal. Throws `McpEventError`
   * (`invalid_params`) for a webhook mode or a bad name.
   */
  subscribeEvents(serverId: string, request: McpEventSubscriptionRequest, sink: McpEventSink): McpEventSubscription {
    this.assertOpen();
    return subscribeEvents(this.registration(serverId), request, sink);
  }

  /**
   * Asks the server to post an event type's occurrences to `request.url`, signed with
   * `request.secret`, and keeps the subscription renewed before each `refreshBefore` until
   * `unsubscribeWebhook`. Check each delivery with `verifyWebhookDelivery`.
   */
  async subscribeWebhook(serverId: string, request: McpWebhookSubscriptionRequest, options: McpRequestOptions = {}): Promise<McpWebhookSubscription> {
    this.assertOpen();
    return this.webhooks.subscribe(this.registration(serverId), request, options);
  }

  /** Stops renewing a webhook subscription and ends it on the server. */
  async unsubscribeWebhook(serverId: string, target: McpWebhookTarget, options: McpRequestOptions = {}): Promise<void> {
    this.assertOpen();
    return this.webhooks.unsubscribe(this.registration(serverId), target, options);
  }

  /**
   * Calls a server's tool by its remote name for the application, whether or not the
   * model sees it, and returns the raw `CallToolResult` (a tool-level error has
   * `isError: true`). Deadlines, tasks and input rounds work as for model calls; calls
   * overlap others only under the `parallel` policy. Throws `McpToolCallError` when the
   * call ends without a result.
   */
  async callServerTool(serverId: string, remoteName: string, args: Record<string, unknown> = {}, options: McpServerCallOptions = {}): Promise<CallToolResult> {
    this.assertOpen();
    const registration = this.registration(serverId);
    const name = this.table.nameOf(serverId, remoteName);
    const tool = name === undefined ? undefined : this.table.get(name)?.tool;
    const outcome = await invokeTool(
      { table: this.table, logger: this.logger },
      registration,
      { remoteName, tool, shared: registration.config.concurrency === 'parallel' },
      args,
      options,
    );
    if ('result' in outcome) return outcome.result;
    throw new McpToolCallError(serverId, remoteName, outcome.failure.code, outcome.failure.message, outcome.failure.serverError);
  }

  /** Ids of the registered servers, sorted. */
  serverIds(): string[] {
    return [...this.registrations.keys()].sort();
  }

  /** A server's configuration with every secret redacted. */
  serverConfig(serverId: string): Record<string, unknown> {
    return redactedConfig(this.registration(serverId).config);
  }

  /** The status of every server, sorted by id. Observes only; never connects. */
  serverStatuses(): McpServerStatus[] {
    const statuses = Array.from(this.registrations.values(), (registration) =>
      registration.status(this.table.countFor(registration.id)),
    );
    return statuses.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  private registration(serverId: string): ServerRegistration {
    const registration = this.registrations.get(serverId);
    if (registration === undefined) throw new McpUnknownServerError(serverId);
    return registration;
  }

  /** What `util.inspect` and `JSON.stringify` show: ids and statuses, never configurations or sessions. */
  toJSON(): { servers: McpServerStatus[] } {
    return { servers: this.serverStatuses() };
  }

  [inspect.custom](_depth: number, options: InspectOptions): string {
    return `McpToolProvider ${inspect(this.toJSON(), options)}`;
  }

  /** Closes every session and releases every server. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.webhooks.clear();
    const registrations = [...this.registrations.values()];
    this.registrations.clear();
    for (const registration of registrations) this.table.remove(registration.id);
    const results = await Promise.allSettled(registrations.map((registration) => registration.remove()));
    await Promise.allSettled([...this.background]);
    for (const result of results) {
      if (result.status === 'rejected') this.logger.warn({ error: errorMessage(result.reason) }, 'MCP server failed to close');
    }
  }
}
