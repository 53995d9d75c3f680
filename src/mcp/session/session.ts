/**
 * One live connection to a server: a transport plus an SDK `Client`, opened with the
 * configured lifecycle. `auto` probes `server/discover` (bounded), and on any failure
 * that is not an authorization failure retries once on a fresh transport with the
 * legacy `initialize` handshake. An SSE server (2024-11-05) always gets `initialize`.
 * The era verdict is remembered by the caller, so a reconnect does not pay the probe again.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { inspect } from 'node:util';
import { EventRouter } from '../context/events/router.js';
import { type Client, OAuthError, type ClientCapabilities, type ServerCapabilities, type Transport } from '@modelcontextprotocol/client';
import type { ResolvedServerConfig } from '../config/config.js';
import { asError, errorMessage, McpAuthorizationRequired, McpFleetError } from '../errors.js';
import { isAuthorizationError, isTransientError } from './errors-sdk.js';
import type { McpLogger } from '../logger.js';
import { childEnvironment } from '../transport/env.js';
import { createHttpTransport, HostHttpTransport } from '../transport/http.js';
import { SseTransport } from '../transport/sse.js';
import type { McpServerAuthorizer } from '../auth/authorizer.js';
import { McpMessageTooLargeError, McpSpawnError, StdioTransport } from '../transport/stdio.js';
import { McpResponseTooLargeError } from '../transport/bounded-fetch.js';
import { redactError, redactSecrets } from '../config/redaction.js';
import { retryTransient } from './retry.js';
import { ListenPump } from './subscription.js';
import { elicitationCapability, type McpElicitationHandler } from '../calls/interaction.js';
import { installServerRequests, RELAYED_CAPABILITIES, ServerRequestRouter } from './server-requests.js';
import { HostClient } from './host-client.js';
import { installTap, keepResponsesInOrder, taskHandleOf } from './tap.js';
import { cancelTask } from '../calls/tasks.js';
import { isJsonObject } from '../../core/json.js';
import { OperationSignal } from '../deadline.js';

/** Identity of this host, sent to servers. */
export const CLIENT_INFO = { name: 'mcp-fleet', version: '0.1.0', title: 'mcp-fleet MCP host' } as const;

/** A remembered era verdict: reuse it to reconnect without probing. */
export type EraVerdict = NonNullable<Parameters<Client['connect']>[1]>['prior'];

/** What a server says about itself, from `server/discover` or `initialize`. Untrusted data. */
export interface ServerMeta {
  name?: string;
  title?: string;
  description?: string;
  version?: string;
  instructions?: string;
}

export interface OpenSessionOptions {
  config: ResolvedServerConfig;
  logger: McpLogger;
  /** The verdict of an earlier session, if any. */
  prior: EraVerdict | undefined;
  /** Bounds the whole set-up; the caller combines its own signal with the set-up deadline. */
  signal: AbortSignal;
  capabilities?: ClientCapabilities;
  /** Called once when the live session's connection closes (crash, drop, local close). */
  onClose?: () => void;
  /** Called for every `notifications/tools/list_changed` the server sends. */
  onToolsChanged?: () => void;
  /** Called with the URI of every `notifications/resources/updated` the server sends. */
  onResourceUpdated?: (uri: string) => void;
  /** Called for the server's prompt and resource list changes and its log messages. */
  onRelayed?: (notification: McpRelayedNotification) => void;
  /**
   * Called once when a Streamable HTTP server answers 404 to anything sent with the
   * session's id (a call, a notification, the GET stream): it forgot the session.
   */
  onExpired?: (session: McpSession) => void;
  /** The OAuth authorizer of an HTTP server that uses OAuth. */
  authorizer?: McpServerAuthorizer;
  /** The application's elicitation handler, only when the server opted in too. */
  elicitation?: McpElicitationHandler;
  /** Relays the server's elicitation, sampling and roots requests to the relayed call in flight (see `ServerRequestRouter`). */
  relayServerRequests?: boolean;
}

/** The SEP-2663 tasks extension identifier. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The server notifications a relay (the gateway) hears besides tool list changes. */
const RELAYED_NOTIFICATIONS = ['notifications/prompts/list_changed', 'notifications/resources/list_changed', 'notifications/message'] as const;

/** A server notification passed on to whoever relays the server (`McpToolProviderOptions.onNotification`). */
export interface McpRelayedNotification {
  method: (typeof RELAYED_NOTIFICATIONS)[number] | 'notifications/tools/list_changed';
  params: Record<string, unknown>;
}

/**
 * What this host tells a server it can do: elicitation and tasks only when opted in;
 * sampling and roots only when it relays them to callers who may (the gateway).
 */
function clientCapabilities(config: ResolvedServerConfig, elicitation: McpElicitationHandler | undefined, relay: boolean): ClientCapabilities {
  return {
    ...(relay ? RELAYED_CAPABILITIES : elicitation === undefined ? {} : { elicitation: elicitationCapability(elicitation) }),
    ...(config.tasks === undefined ? {} : { tasks: {}, extensions: { [TASKS_EXTENSION]: {} } }),
  };
}

/** Thrown when a session cannot be set up; names the server and keeps the cause. */
export class McpConnectError extends McpFleetError {
  constructor(serverId: string, message: string, cause?: unknown) {
    super('connect_failed', message, { serverId, cause });
  }
}

export class McpSession {
  /** Why the session ended, when it ended because the server broke a bound. */
  failure: Error | undefined;
  /**
   * Whether the server answered 404 to something sent with this session's id: it forgot
   * the session. Work that was not tracked on it may then fail with its close instead.
   */
  expired = false;
  private isClosed = false;
  private retired = false;
  private inflight = 0;
  /** Whether anything was ever tracked: a session nothing has used yet is quiet at once. */
  private used = false;
  /** Wakes `whenQuiet` callers when the last tracked work ends; made on first use, like the pumps below (most sessions need neither). */
  private quietWaiters: Set<() => void> | undefined;
  private closing: Promise<void> | undefined;
  private pump: ListenPump | undefined;
  /** Told the URI of every `notifications/resources/updated`, once a resource is subscribed. */
  onResourceUpdated: ((uri: string) => void) | undefined;
  private hearingResourceUpdates = false;
  /** The `subscriptions/listen` pumps of subscribed resources (2026-07-28), by URI, each with its first acknowledgement. */
  private resourcePumps: Map<string, { pump: ListenPump; opened: Promise<void> }> | undefined;
  /** The relayed calls in flight that answer the server's requests themselves. */
  readonly serverRequests = new ServerRequestRouter();

  constructor(
    readonly client: HostClient,
    readonly transport: Transport,
    readonly serverId: string,
    /** Where this session's MCP Events notifications go, for its push streams. */
    readonly events: EventRouter = new EventRouter(),
  ) {}

  get era(): 'modern' | 'legacy' {
    return this.client.getProtocolEra() ?? 'legacy';
  }

  get protocolVersion(): string | undefined {
    return this.client.getNegotiatedProtocolVersion();
  }

  get capabilities(): ServerCapabilities {
    return this.client.getServerCapabilities() ?? {};
  }

  get meta(): ServerMeta {
    const info = this.client.getServerVersion();
    const instructions = this.client.getInstructions() ?? this.client.getDiscoverResult()?.instructions;
    return {
      name: info?.name,
      title: info?.title,
      description: (info as { description?: string } | undefined)?.description,
      version: info?.version,
      instructions,
    };
  }

  /** The verdict to reconnect with, skipping the probe. */
  verdict(): EraVerdict {
    const discover = this.client.getDiscoverResult();
    return this.era === 'modern' && discover !== undefined ? { kind: 'modern', discover } : { kind: 'legacy' };
  }

  /** Whether the session may no longer be used: closed here, by the server or the network, or retired. */
  get closed(): boolean {
    return this.isClosed || this.retired;
  }

  markClosed(): void {
    this.isClosed = true;
  }

  /**
   * Keeps the catalog fresh on a `2026-07-28` session whose server advertises
   * `tools.listChanged`: opens a `subscriptions/listen` stream and reopens it when it
   * ends; `onGap` runs whenever changes may have been missed. Resolves once the first
   * stream is acknowledged (or could not be opened).
   */
  watchToolChanges(onGap: () => void, logger: McpLogger): Promise<void> {
    if (this.era !== 'modern' || this.capabilities.tools?.listChanged !== true || this.pump !== undefined) return Promise.resolve();
    const pump = new ListenPump(this, { filter: { toolsListChanged: true }, label: 'tools/list_changed', onGap, logger });
    this.pump = pump;
    return pump.open().catch((error: unknown) => {
      if (!this.closed) logger.warn({ serverId: this.serverId, error: errorMessage(error) }, 'tools/list_changed subscription failed; live catalog updates are off');
    });
  }

  /**
   * Asks the server for updates of `uri`: `resources/subscribe` on 2025 revisions, a
   * `subscriptions/listen` stream on 2026-07-28. Fails when the server does not offer it.
   */
  async subscribeResource(uri: string, watch: { onGap: () => void; logger: McpLogger }, signal?: AbortSignal): Promise<void> {
    this.hearResourceUpdates();
    if (this.era === 'modern') {
      // A subscriber arriving while the stream opens shares it; if that open fails, it tries its own.
      for (let existing = this.resourcePumps?.get(uri); existing?.pump.live; existing = this.resourcePumps?.get(uri)) {
        try {
          return await existing.opened;
        } catch {
          signal?.throwIfAborted();
        }
      }
      // A stream per URI, reopened when it ends; across a gap the listeners are told the resource may have changed.
      const pump = new ListenPump(this, {
        filter: { resourceSubscriptions: [uri] },
        label: `resource ${uri}`,
        onGap: watch.onGap,
        logger: watch.logger,
        check: (honored) => {
          if (!honored.resourceSubscriptions?.includes(uri)) throw new Error('the server does not offer resource subscriptions');
        },
      });
      // In the map before the first await, so a concurrent subscriber finds it; gone again if the open fails.
      const entry = {
        pump,
        opened: pump.open(signal).catch((error: unknown) => {
          if (this.resourcePumps?.get(uri) === entry) this.resourcePumps.delete(uri);
          throw error;
        }),
      };
      (this.resourcePumps ??= new Map()).set(uri, entry);
      return entry.opened;
    }
    if (this.capabilities.resources?.subscribe !== true) throw new Error('the server does not offer resource subscriptions');
    await this.client.subscribeResource({ uri }, signal ? { signal } : undefined);
  }

  /** Routes `notifications/resources/updated` to `onResourceUpdated` from now on. */
  private hearResourceUpdates(): void {
    const onUpdated = this.onResourceUpdated;
    if (this.hearingResourceUpdates || onUpdated === undefined) return;
    this.hearingResourceUpdates = true;
    this.client.setNotificationHandler('notifications/resources/updated', (notification) => onUpdated(notification.params.uri));
  }

  /** Stops updates of `uri`. */
  async unsubscribeResource(uri: string): Promise<void> {
    const entry = this.resourcePumps?.get(uri);
    if (entry !== undefined) {
      this.resourcePumps?.delete(uri);
      await entry.pump.close();
      return;
    }
    if (this.era === 'legacy') await this.client.unsubscribeResource({ uri });
  }

  /** Counts `work` as in flight: a retired session closes only once its in-flight work is done. */
  track<T>(work: Promise<T>): Promise<T> {
    this.inflight++;
    this.used = true;
    const done = (): void => {
      this.inflight--;
      if (this.inflight > 0) return;
      if (this.retired) void this.close();
      if (this.quietWaiters !== undefined) for (const wake of this.quietWaiters) wake();
    };
    work.then(done, done);
    return work;
  }

  /**
   * Resolves once nothing tracked (calls, operations) is in flight on the session and
   * nothing new started within a turn of the event loop, or after `maxMs` at the latest.
   * Background work such as catalog paging waits on it, so the calls an agent is making
   * reach the server first instead of queueing behind a page the server must serialise.
   * A session nothing has used yet (the first listing after set-up) does not wait.
   */
  async whenQuiet(maxMs: number): Promise<void> {
    if (!this.used) return;
    const deadline = performance.now() + maxMs;
    for (;;) {
      if (this.inflight === 0) {
        // A caller that just got its answer often starts its next call within the same turn.
        await nextTurn();
        if (this.inflight === 0) return;
      }
      const left = deadline - performance.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.quietWaiters?.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        (this.quietWaiters ??= new Set()).add(wake);
      });
    }
  }

  /**
   * Retires the session: nothing new starts on it, work already sent may finish, and
   * it closes when the last of that work ends.
   */
  retire(): void {
    this.retired = true;
    if (this.inflight === 0) void this.close();
  }

  /** The last stderr output of a stdio server. */
  stderrText(): string | undefined {
    return this.transport instanceof StdioTransport ? this.transport.stderrText() : undefined;
  }

  /** The process id of a stdio server's child, while it runs. */
  get pid(): number | undefined {
    return this.transport instanceof StdioTransport ? (this.transport.pid ?? undefined) : undefined;
  }

  /** How a stdio server's child ended (`exited with code 1`, `was killed by SIGKILL`), once it has. */
  exitDescription(): string | undefined {
    return this.transport instanceof StdioTransport ? this.transport.exitDescription() : undefined;
  }

  /** Why the connection ended, in words, for a session that closed on its own. */
  closeReason(): string {
    const exit = this.exitDescription();
    if (exit !== undefined) return `the server process ${exit}`;
    if (this.failure !== undefined) return this.failure.message;
    return this.transport instanceof StdioTransport ? 'the server closed its standard streams' : 'the connection closed';
  }

  /** Never shows the client or transport, which hold headers and environment values. */
  [inspect.custom](): string {
    return `McpSession { serverId: ${JSON.stringify(this.serverId)}, era: ${this.era}, closed: ${this.closed} }`;
  }

  toJSON(): Record<string, unknown> {
    return { serverId: this.serverId, era: this.era, closed: this.closed };
  }

  close(): Promise<void> {
    this.isClosed = true;
    this.pump?.stop();
    for (const { pump } of this.resourcePumps?.values() ?? []) pump.stop();
    this.resourcePumps?.clear();
    this.closing ??= (async () => {
      const connected = this.client.transport === this.transport;
      await this.client.close().catch(() => {});
      // The client closes the transport it connected, and lets go of it once it reports the
      // close; one it never connected, or did not close, is closed here. Closing it twice
      // would report the close twice, and the SDK would handle it (building its error) again.
      if (connected && this.client.transport === undefined) return;
      await this.transport.close().catch(() => {});
    })();
    return this.closing;
  }
}

function newTransport(
  config: ResolvedServerConfig,
  logger: McpLogger,
  authorizer: McpServerAuthorizer | undefined,
  signal: AbortSignal,
): Transport {
  const transport = config.transport;
  if (transport.type === 'stdio') {
    return new StdioTransport({
      serverId: config.id,
      command: transport.command,
      args: transport.args,
      env: childEnvironment(transport.env, transport.inheritEnv),
      cwd: transport.cwd,
      maxLineBytes: config.limits.messageBytes,
      stderrBytes: config.limits.stderrBytes,
      closeGraceMs: config.timeouts.closeMs,
      logger,
      logStderr: transport.logStderr,
      redact: (text) => redactSecrets(text, config),
    });
  }
  if (transport.type === 'sse') {
    // The signal bounds the wait for the stream's `endpoint` event, which the SDK leaves open.
    return new SseTransport({ serverId: config.id, transport, messageBytes: config.limits.messageBytes, signal, ...(authorizer ? { authorizer } : {}) });
  }
  return createHttpTransport({ serverId: config.id, transport, messageBytes: config.limits.messageBytes, ...(authorizer ? { authorizer } : {}) });
}

type Negotiation = 'auto' | 'legacy' | 'pin';

async function attempt(options: OpenSessionOptions, negotiation: Negotiation, prior: EraVerdict | undefined): Promise<McpSession> {
  const { config, logger } = options;
  const mode = negotiation === 'pin' ? ({ pin: '2026-07-28' } as const) : negotiation;
  const client = new HostClient(CLIENT_INFO, {
    capabilities: options.capabilities ?? clientCapabilities(config, options.elicitation, options.relayServerRequests === true),
    versionNegotiation: { mode, probe: { timeoutMs: config.timeouts.probeMs } },
    // Pagination is walked by the catalog itself, page by page, under its own budgets.
    listMaxPages: config.limits.catalogPages,
  });
  // Linked by hand and released once connected (cheaper than `AbortSignal.any` with `AbortSignal.timeout`).
  const attemptDeadline = new OperationSignal([options.signal], config.timeouts.connectAttemptMs);
  const attemptSignal = attemptDeadline.signal;
  const transport = newTransport(config, logger, options.authorizer, attemptSignal);
  const events = new EventRouter();
  installTap(transport, { serverId: config.id, elicitation: options.elicitation, era: () => client.getProtocolEra(), events });
  const session = new McpSession(client, transport, config.id, events);
  if (options.elicitation !== undefined || options.relayServerRequests === true) {
    // Serves a 2025 server's pushed requests; a 2026 input_required round reaches the elicitation handler through the same path.
    installServerRequests(client, session.serverRequests, {
      serverId: config.id,
      logger,
      relay: options.relayServerRequests === true,
      elicitation: options.elicitation,
      elicitationTimeoutMs: config.timeouts.elicitationMs,
    });
  }
  // Only what the handlers use is captured: a closure over `options` would keep the
  // set-up signal and everything else in it for as long as the session lives.
  const onClose = options.onClose;
  client.onclose = () => {
    if (session.closed) return;
    session.markClosed();
    onClose?.();
  };
  const onExpired = options.onExpired;
  if (transport instanceof HostHttpTransport) {
    transport.onsessionexpired = () => {
      session.expired = true;
      onExpired?.(session);
    };
  }
  // A task handed over after its caller gave up (the answer was still on its way) is
  // cancelled: nobody will poll it, and the server would keep it running.
  client.onLateResult = (result) => {
    const task = isJsonObject(result) ? taskHandleOf(result) : undefined;
    if (task !== undefined) cancelTask(session, task, logger);
  };
  client.onerror = (error) => {
    // A bound broken by the server ends the session; remember why, for the caller's error.
    if (error instanceof McpMessageTooLargeError || error instanceof McpResponseTooLargeError) session.failure = error;
    logger.debug({ serverId: config.id, error: redactSecrets(errorMessage(error), config) }, 'MCP transport reported an error');
  };
  // Heard from the first resource subscription on (see `subscribeResource`): most sessions never make one.
  session.onResourceUpdated = options.onResourceUpdated;
  const onRelayed = options.onRelayed;
  if (onRelayed !== undefined) {
    for (const method of RELAYED_NOTIFICATIONS) {
      client.setNotificationHandler(method, (notification) => onRelayed({ method, params: notification.params ?? {} }));
    }
  }
  if (options.onToolsChanged !== undefined) {
    const onChanged = options.onToolsChanged;
    client.setNotificationHandler('notifications/tools/list_changed', () => onChanged());
  }
  // The SDK's stdio probe does not stop at the signal; closing the transport does (and ends the child).
  const abandon = (): void => void transport.close();
  attemptSignal.addEventListener('abort', abandon, { once: true });
  try {
    await client.connect(transport, { signal: attemptSignal, timeout: config.timeouts.connectAttemptMs, ...(prior ? { prior } : {}) });
    keepResponsesInOrder(transport);
    return session;
  } catch (error) {
    // Read before closing: a child that ends because the attempt closes it did not exit on its own.
    const exit = attemptSignal.aborted || !(transport instanceof StdioTransport) ? undefined : await transport.exitDescriptionSoon(EXIT_REPORT_GRACE_MS);
    const exited = exit === undefined ? undefined : `the server process ${exit} before answering ${negotiation === 'legacy' ? 'initialize' : 'server/discover'}`;
    session.markClosed();
    await session.close();
    const stderr = session.stderrText();
    const failure = asConnectError(config, session.failure ?? error, { signal: options.signal, stderr, exited });
    throw Object.assign(failure, { stderrTail: stderr === undefined ? undefined : redactSecrets(stderr, config) });
  } finally {
    attemptSignal.removeEventListener('abort', abandon);
    attemptDeadline.dispose();
  }
}

/** An authorization failure at set-up, saying what the application should do about it. */
function authorizationRequired(config: ResolvedServerConfig, error: unknown): McpAuthorizationRequired {
  const oauth = config.transport.type === 'stdio' ? undefined : config.transport.oauth;
  if (OAuthError.isInstance(error)) {
    const fix =
      oauth?.flow === 'client_credentials'
        ? 'check the client id, secret or key, and the scopes'
        : 'run beginAuthorization/completeAuthorization for it, then retry';
    return new McpAuthorizationRequired(
      config.id,
      `MCP server "${config.id}" could not be authorized: the authorization server answered ${error.code}; ${fix}.`,
      error,
    );
  }
  if (oauth === undefined) {
    return new McpAuthorizationRequired(
      config.id,
      `MCP server "${config.id}" refused the request as unauthorized; check its \`bearerToken\` or headers, or configure \`oauth\`.`,
      error,
    );
  }
  return new McpAuthorizationRequired(config.id, undefined, error);
}

/** How long a failed set-up waits for a child whose pipes closed to report its exit. */
const EXIT_REPORT_GRACE_MS = 500;

/** How much of a failed server's stderr an error message quotes. */
const STDERR_EXCERPT_CHARS = 1_000;

/**
 * A failed set-up attempt as the error its caller sees. `exited` says how a stdio child
 * ended on its own before it answered (`the server process exited with code 1 before
 * answering initialize`), which says more than the SDK's "Connection closed".
 */
function asConnectError(
  config: ResolvedServerConfig,
  error: unknown,
  context: { signal: AbortSignal; stderr: string | undefined; exited: string | undefined },
): Error {
  const { signal, stderr, exited } = context;
  if (error instanceof McpFleetError) return error;
  if (isAuthorizationError(error)) return authorizationRequired(config, error);
  // Redacted before it is cut, so the cut cannot leave part of a secret unrecognised.
  const excerpt = stderr === undefined ? undefined : redactSecrets(stderr, config).trim().slice(-STDERR_EXCERPT_CHARS);
  const tail = excerpt ? ` Its stderr ended with: ${JSON.stringify(excerpt)}` : '';
  const reason = signal.aborted ? 'set-up was cancelled or timed out (timeouts.setupMs)' : `could not be set up: ${exited ?? errorMessage(error)}`;
  return new McpConnectError(config.id, redactSecrets(`MCP server "${config.id}" ${reason}.${tail}`, config), redactError(asError(error), config));
}

/**
 * Opens a session with the server's lifecycle. Transient failures (HTTP 5xx, 429,
 * connection refused) are retried after 250 ms and then 1 s, inside the set-up
 * deadline. Throws `McpAuthorizationRequired` for authorization failures and
 * `McpConnectError` for anything else.
 */
export async function openSession(options: OpenSessionOptions): Promise<McpSession> {
  const { config, prior } = options;
  const run = (negotiation: Negotiation, verdict: EraVerdict | undefined): Promise<McpSession> =>
    retryTransient(() => attempt(options, negotiation, verdict), (error) => isTransientError((error as Error).cause), options.signal);
  // HTTP+SSE is the 2024-11-05 transport, which has no server/discover: never probe it, even under `auto`.
  if (config.transport.type === 'sse') return run('legacy', undefined);
  switch (config.lifecycle) {
    case 'initialize':
      return run('legacy', undefined);
    case 'discover':
      return run('pin', prior?.kind === 'modern' ? prior : undefined);
    case 'auto': {
      if (prior !== undefined) return run(prior.kind === 'modern' ? 'auto' : 'legacy', prior);
      try {
        return await run('auto', undefined);
      } catch (error) {
        // Neither an authorization failure nor a program that cannot start is a lifecycle problem.
        const cause = (error as Error).cause;
        if (error instanceof McpAuthorizationRequired || cause instanceof McpSpawnError || options.signal.aborted) throw error;
        // A legacy server may exit on (or ignore) the probe: fresh transport, plain handshake.
        options.logger.debug(
          { serverId: config.id, error: errorMessage(error) },
          'server/discover probe failed; retrying with the initialize handshake',
        );
        return run('legacy', undefined);
      }
    }
  }
}
