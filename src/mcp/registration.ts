/**
 * The state of one registered server: its configuration, identity (generation) and
 * removal signal, the live session and the remembered era verdict, the dirty flag, the
 * locks that serialise connection set-up and catalog refreshes, the call gate and the
 * observable status. Connection set-up lives here: callers racing after a crash share
 * one new session.
 */
import { McpServerAuthorizer } from './auth/authorizer.js';
import type { McpCredentialStore } from './auth/store.js';
import type { McpElicitationHandler } from './calls/interaction.js';
import type { ResolvedServerConfig } from './config/config.js';
import { boundedFetch } from './transport/bounded-fetch.js';
import { errorMessage, McpAuthorizationRequired, McpServerRemovedError, McpServerUnavailableError } from './errors.js';
import { isAuthorizationError, isProtocolError } from './session/errors-sdk.js';
import { waitBounded } from '../core/wait.js';
import { type AbortSource, OperationSignal, RemovalSignal } from './deadline.js';
import { CallGate, Mutex } from './locks.js';
import type { McpLogger } from './logger.js';
import type { McpLeftOutTools, McpServerState, McpServerStatus } from './config/policy.js';
import { redactSecrets } from './config/redaction.js';
import type { McpRelayedNotification, McpSession } from './session/session.js';
import { type EraVerdict, openSession, type ServerMeta } from './session/session.js';

/** Called with the URI of a subscribed resource that changed; read it again to see how. */
export type McpResourceListener = (uri: string) => void;

let nextGeneration = 1;

/** How long set-up waits for the tool-change stream before listing anyway (a late stream then marks the catalog dirty). */
const LISTEN_WAIT_MS = 2_000;

/**
 * Who reconnects a server whose connection closed. `lazy`: the next call or refresh.
 * `manual`: nobody but `reconnect()` (a supervisor owns restarts, with its own policy).
 */
export type McpReconnectMode = 'lazy' | 'manual';

/** A server's connection closed without being asked to (a stdio child exited, a health check failed). */
export interface McpServerClosedEvent {
  serverId: string;
  /** What happened, in words (`the server process exited with code 1`); secrets redacted. */
  reason: string;
}

/** How a registration reconnects and whom it tells when its connection closes on its own. */
export interface ReconnectPolicy {
  mode: McpReconnectMode;
  onClosed: ((event: McpServerClosedEvent) => void) | undefined;
}

/** What a registration takes from the provider that made it. */
export interface RegistrationHost {
  /** The application's elicitation handler (used only when the server opted in). */
  elicitation?: McpElicitationHandler;
  /** Default: `lazy`, nobody told. */
  reconnect?: ReconnectPolicy;
  onNotification?: (serverId: string, notification: McpRelayedNotification) => void;
  /** Whether the server's requests to its client are relayed to the caller of the call they come with (the gateway). */
  relayServerRequests?: boolean;
}

export class ServerRegistration {
  /** Unique among every registration this process made; a re-added server gets a new one. */
  readonly generation = nextGeneration++;
  private readonly removal = new RemovalSignal();
  readonly connectLock = new Mutex();
  readonly refreshLock = new Mutex();
  readonly gate = new CallGate();

  session: McpSession | undefined;
  /** Era verdict of the last successful session, reused to reconnect without probing. */
  verdict: EraVerdict | undefined;
  /** Whether the published catalog may be stale; a fresh registration starts dirty. */
  dirty = true;
  /** Incremented by each publication. */
  revision = 0;
  /** What the server last said about itself. */
  meta: ServerMeta | undefined;
  /** Whether a catalog has been published at least once. */
  published = false;
  /** The tools the published catalog left out for breaking a per-tool budget. */
  leftOut: McpLeftOutTools | undefined;
  state: McpServerState = 'disconnected';
  lastError: string | undefined;
  private lastStderr: string | undefined;
  /** The live session or, once it has gone, the last one. */
  lastSession: McpSession | undefined;

  /**
   * Why the server may not be connected again until `reconnect()` (manual mode only): the
   * connection closed on its own, or the last set-up failed.
   */
  private down: { error: unknown; reason: string } | undefined;

  /**
   * What every session of this registration reports back, made once: closures made inside
   * `connect` would keep its scope (the set-up deadline) alive as long as the session lives.
   */
  private readonly sessionCallbacks = {
    onClose: (): void => this.onSessionClosed(),
    onToolsChanged: (): void => {
      this.dirty = true;
      this.onNotification?.(this.id, { method: 'notifications/tools/list_changed', params: {} });
    },
    onRelayed: (notification: McpRelayedNotification): void => this.onNotification?.(this.id, notification),
    onResourceUpdated: (uri: string): void => this.notifyResourceUpdated(uri),
    onExpired: (session: McpSession): void => this.expire(session),
  };

  /** Listeners of subscribed resources, by URI (made at the first); subscriptions are renewed on every new session. */
  resourceListeners: Map<string, Set<McpResourceListener>> | undefined;

  /** OAuth for an HTTP server configured with `oauth`. */
  readonly authorizer: McpServerAuthorizer | undefined;

  /** The application's elicitation handler, when this server opted in (`elicitation: true`). */
  readonly elicitation: McpElicitationHandler | undefined;
  /** Whether the server's elicitation, sampling and roots requests go to the caller of the call in flight. */
  readonly relayServerRequests: boolean;
  private readonly reconnectPolicy: ReconnectPolicy;
  private readonly onNotification: ((serverId: string, notification: McpRelayedNotification) => void) | undefined;

  constructor(
    readonly config: ResolvedServerConfig,
    readonly logger: McpLogger,
    store: McpCredentialStore,
    host: RegistrationHost = {},
  ) {
    this.elicitation = config.elicitation ? host.elicitation : undefined;
    this.reconnectPolicy = host.reconnect ?? { mode: 'lazy', onClosed: undefined };
    this.onNotification = host.onNotification;
    this.relayServerRequests = host.relayServerRequests === true;
    const transport = config.transport;
    this.authorizer =
      transport.type !== 'stdio' && transport.oauth !== undefined
        ? new McpServerAuthorizer({
            serverId: config.id,
            url: transport.url,
            oauth: transport.oauth,
            store,
            logger,
            fetch: boundedFetch({ serverId: config.id, messageBytes: config.limits.messageBytes }),
          })
        : undefined;
  }

  get id(): string {
    return this.config.id;
  }

  /**
   * Marks the catalog as needing a listing. A field, not a closure made where a session
   * is set up: such a closure keeps that whole scope (the first caller's signal, the
   * set-up deadline) for as long as the session listens.
   */
  private readonly markDirty = (): void => {
    this.dirty = true;
  };

  /** Aborts when the server is removed (or the provider closes); every call that waits on the server links to it. */
  get signal(): AbortSource {
    return this.removal;
  }

  get removed(): boolean {
    return this.removal.aborted;
  }

  /** The live session, or `undefined` when there is none or it has closed. */
  liveSession(): McpSession | undefined {
    return this.session !== undefined && !this.session.closed ? this.session : undefined;
  }

  /** The set-up in flight, shared by every caller that needs a session meanwhile. */
  private connecting: Promise<McpSession> | undefined;

  /**
   * Returns the live session, opening one if needed. Callers that race after a crash share
   * one set-up and its session. A caller whose `signal` aborts stops waiting at once; the
   * set-up goes on (within `timeouts.setupMs`, until the server is removed) for the next
   * caller, so nobody waits for a process to boot or to shut down after giving up.
   */
  ensureSession(signal: AbortSignal): Promise<McpSession> {
    const live = this.liveSession();
    if (live !== undefined) return Promise.resolve(live);
    if (this.connecting === undefined) {
      const connecting = this.connectLock.run(() => this.connect());
      this.connecting = connecting;
      const settled = (): void => {
        if (this.connecting === connecting) this.connecting = undefined;
      };
      connecting.then(settled, settled);
    }
    return waitBounded(this.connecting, { signal });
  }

  /** Opens and installs a session, under the connect lock; the caller's signal plays no part. */
  private async connect(): Promise<McpSession> {
    const current = this.liveSession();
    if (current !== undefined) return current;
    if (this.removed) throw new McpServerRemovedError(this.id);
    if (this.down !== undefined) throw this.downError(this.down);
    this.state = 'connecting';
    // Linked by hand and unlinked after: the removal signal lives as long as the registration.
    const setup = new OperationSignal([this.signal], this.config.timeouts.setupMs);
    let session: McpSession;
    try {
      session = await openSession({
        config: this.config,
        logger: this.logger,
        prior: this.verdict,
        signal: setup.signal,
        ...this.sessionCallbacks,
        ...(this.authorizer ? { authorizer: this.authorizer } : {}),
        ...(this.elicitation ? { elicitation: this.elicitation } : {}),
        ...(this.relayServerRequests ? { relayServerRequests: true } : {}),
      });
    } catch (error) {
      if (this.removed) throw new McpServerRemovedError(this.id);
      this.recordFailure(error);
      if (this.reconnectPolicy.mode === 'manual') this.down = { error, reason: this.lastError ?? errorMessage(error) };
      this.lastStderr = (error as { stderrTail?: string }).stderrTail ?? this.lastStderr;
      throw error;
    } finally {
      setup.dispose();
    }
    if (this.removed) {
      await session.close();
      throw new McpServerRemovedError(this.id);
    }
    this.session = session;
    this.lastSession = session;
    this.verdict = session.verdict();
    // The stream must be open before the catalog is listed: a change notified to nobody,
    // between the listing and the stream's acknowledgement, would be lost for the session.
    const listening = session.watchToolChanges(this.markDirty, this.logger);
    const acknowledged = await waitBounded(listening.then(() => true), { timeoutMs: LISTEN_WAIT_MS }).catch(() => false);
    // Acknowledged later: anything may have changed since the listing began.
    if (!acknowledged) void listening.then(this.markDirty);
    this.renewResourceSubscriptions(session);
    // A new session may serve a different catalog: list again before the next use.
    this.dirty = true;
    // Connected is what is true now, whether or not anyone still waits to list its catalog.
    if (!session.closed) this.state = 'ready';
    this.logger.info(
      { serverId: this.id, era: session.era, protocolVersion: session.protocolVersion },
      'MCP server connected',
    );
    return session;
  }

  private notifyResourceUpdated(uri: string): void {
    for (const listener of this.resourceListeners?.get(uri) ?? []) {
      try {
        listener(uri);
      } catch (error) {
        this.logger.warn({ serverId: this.id, uri, error: errorMessage(error) }, 'a resource listener threw');
      }
    }
  }

  /**
   * How a session watches `uri` for this registration: a gap in a 2026-07-28 listen
   * stream tells the listeners the resource may have changed (they read it again).
   */
  resourceWatch(uri: string): { onGap: () => void; logger: McpLogger } {
    return { onGap: () => this.notifyResourceUpdated(uri), logger: this.logger };
  }

  /** Subscribes a new session to every resource the application listens to (best effort). */
  private renewResourceSubscriptions(session: McpSession): void {
    for (const uri of this.resourceListeners?.keys() ?? []) {
      void session.subscribeResource(uri, this.resourceWatch(uri)).catch((error: unknown) =>
        this.logger.warn({ serverId: this.id, uri, error: errorMessage(error) }, 'could not renew a resource subscription'),
      );
    }
  }

  /** The error a call or refresh meets while the server is down (manual mode). */
  private downError(down: { error: unknown; reason: string }): Error {
    if (isAuthorizationError(down.error) || down.error instanceof McpAuthorizationRequired) {
      return new McpAuthorizationRequired(this.id, undefined, down.error);
    }
    return new McpServerUnavailableError(this.id, `MCP server "${this.id}" is not running (${down.reason}); try again later.`, down.error);
  }

  private onSessionClosed(): void {
    const session = this.session;
    if (session === undefined || !session.closed) return;
    this.lastStderr = session.stderrText() ?? this.lastStderr;
    this.dirty = true;
    if (this.removed) return;
    this.markClosed(redactSecrets(session.closeReason(), this.config));
  }

  /** A connection that ended on its own: recorded, reported, and (manual mode) held down until `reconnect()`. */
  private markClosed(reason: string): void {
    const manual = this.reconnectPolicy.mode === 'manual';
    this.lastError = reason;
    if (manual) {
      this.state = 'failed';
      this.down = { error: new Error(reason), reason };
    }
    this.logger.warn({ serverId: this.id, reason }, manual ? 'MCP server connection closed' : 'MCP server connection closed; it reconnects on next use');
    try {
      this.reconnectPolicy.onClosed?.({ serverId: this.id, reason });
    } catch (error) {
      this.logger.warn({ serverId: this.id, error: errorMessage(error) }, 'onServerClosed threw');
    }
  }

  /**
   * Checks that the live session still answers: `server/discover` on 2026-07-28, `ping`
   * on earlier revisions, within `timeouts.probeMs`. A server that answers at all (even
   * with an error) is alive. One that does not is treated as closed: its session is
   * retired and, as for a crash, reported (and held down in manual mode). Resolves
   * `false` when there is no live session or the check failed.
   */
  async check(signal: AbortSignal | undefined): Promise<boolean> {
    const session = this.liveSession();
    if (session === undefined) return false;
    const options = { timeout: this.config.timeouts.probeMs, ...(signal === undefined ? {} : { signal }) };
    try {
      await session.track(session.era === 'modern' ? session.client.discover(options) : session.client.ping(options));
      return true;
    } catch (error) {
      signal?.throwIfAborted();
      // An answer, even a refusal, shows the connection works; so does a request for credentials.
      if (isProtocolError(error) || isAuthorizationError(error)) return true;
      if (this.session !== session || session.closed) return false;
      this.session = undefined;
      this.dirty = true;
      session.retire();
      this.markClosed(redactSecrets(`the server did not answer a health check: ${errorMessage(error)}`, this.config));
      return false;
    }
  }

  /**
   * Lets the server connect again, whatever the reconnect mode, and clears what held it
   * down. `close` ends what is left of the old session first (a restart: two processes of
   * one server never overlap); `retire` lets the calls already sent on it finish (new
   * credentials). The caller then refreshes.
   */
  async reconnect(old: 'close' | 'retire'): Promise<void> {
    const session = this.session;
    await this.disconnect();
    if (old === 'close') await session?.close();
    this.down = undefined;
  }

  /** Records a failure in the status: `authorization_required` or `failed`. */
  recordFailure(error: unknown): void {
    // Meeting a server held down says nothing new: the status keeps why it went down.
    if (this.down !== undefined && error instanceof McpServerUnavailableError) return;
    this.state = isAuthorizationError(error) ? 'authorization_required' : 'failed';
    this.lastError = redactSecrets(errorMessage(error), this.config);
  }

  /**
   * Retires the live session but keeps the registration and its published tools: calls
   * already sent may finish, nothing new starts on it, and the next use reconnects.
   * Holds the connect lock, so a set-up in flight cannot install a session meanwhile.
   * Returns whether a live session existed.
   */
  async disconnect(): Promise<boolean> {
    return this.connectLock.run(() => {
      const session = this.session;
      this.session = undefined;
      if (session === undefined) return Promise.resolve(false);
      const existed = !session.closed;
      this.lastStderr = session.stderrText() ?? this.lastStderr;
      session.retire();
      this.state = 'disconnected';
      return Promise.resolve(existed);
    });
  }

  /** Forgets a session the server no longer knows (a legacy HTTP session answered 404 to any request), so the next use reconnects. */
  expire(session: McpSession): void {
    if (this.session !== session) return;
    this.session = undefined;
    this.dirty = true;
    session.retire();
  }

  /**
   * Cancels everything in flight and closes the session. Resolves once a set-up in flight
   * has let go of what it started too: its callers stop waiting at the abort, but the
   * child process it spawned is gone only when the set-up's own clean-up is done.
   */
  async remove(): Promise<void> {
    this.removal.abort(() => new McpServerRemovedError(this.id));
    const session = this.session;
    this.session = undefined;
    await Promise.all([session?.close(), this.connecting?.catch(() => {})]);
  }

  /** The observable status. Never connects. */
  status(toolCount: number): McpServerStatus {
    const live = this.liveSession();
    const state = this.state === 'ready' && live === undefined ? 'disconnected' : this.state;
    const session = live ?? this.lastSession;
    const stderr = live?.stderrText() ?? this.lastStderr;
    const pid = live?.pid;
    return {
      id: this.id,
      state,
      ...(pid === undefined ? {} : { pid }),
      ...(session?.era === undefined || session.protocolVersion === undefined
        ? {}
        : { era: session.era, protocolVersion: session.protocolVersion }),
      toolCount,
      ...(this.lastError === undefined || state === 'ready' ? {} : { lastError: this.lastError }),
      ...(stderr === undefined || stderr === '' ? {} : { stderrTail: redactSecrets(stderr, this.config) }),
      // A copy: a status is a snapshot, and the record stays the registration's.
      ...(this.leftOut === undefined ? {} : { leftOut: { count: this.leftOut.count, tools: this.leftOut.tools.map((tool) => ({ ...tool })) } }),
    };
  }
}
