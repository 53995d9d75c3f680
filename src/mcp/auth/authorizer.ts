/**
 * OAuth for one HTTP server. The SDK's `auth()` does the protocol (RFC 9728 and 8414
 * discovery, dynamic or URL-based client registration, PKCE, RFC 8707 resources, RFC
 * 9207 `iss` checks, token requests); this class owns what the SDK leaves to the host:
 *
 * - where credentials live (an `McpCredentialStore`, keyed by server and endpoint);
 * - single-flight renewal: concurrent 401s, and the proactive renewal shortly before
 *   expiry, share one token request, under the store's refresh guard across processes;
 * - the interactive flow without a browser: `begin()` returns the URL, `complete()`
 *   takes the redirect URL back and checks its CSRF `state`;
 * - authorization failures as `McpAuthorizationRequired`, never as lifecycle problems.
 */
import { randomBytes } from 'node:crypto';
import {
  type AuthProvider,
  auth,
  createPrivateKeyJwtAuth,
  extractWWWAuthenticateParams,
  type FetchLike,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { McpOAuthConfig } from '../config/config.js';
import { errorMessage, McpAuthorizationRequired, McpFleetError } from '../errors.js';
import { Mutex } from '../locks.js';
import type { McpLogger } from '../logger.js';
import { credentialEndpoint, type McpCredentialKey, type McpCredentialStore, type McpStoredCredentials } from './store.js';

type UnauthorizedContext = Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0];

/**
 * How long before expiry an access token is renewed: 120 s for tokens of 4 min or more,
 * else half the lifetime. Never more than half: a token is not renewed in the first half
 * of its life, so a short-lived one (the checklist's item 147 said "at least 31 s", which
 * for a token under a minute is its whole life) is not renewed before every request, and
 * a fresh one is not renewed again by the calls that waited for it.
 */
export function renewalBufferMs(lifetimeMs: number): number {
  if (!Number.isFinite(lifetimeMs) || lifetimeMs <= 0) return 0;
  if (lifetimeMs >= 240_000) return 120_000;
  return lifetimeMs / 2;
}

/** A pending interactive authorization, kept in memory between `begin` and `complete`. */
interface PendingAuthorization {
  state: string;
  codeVerifier?: string;
  url?: URL;
}

export interface AuthorizerOptions {
  serverId: string;
  url: string;
  oauth: McpOAuthConfig;
  store: McpCredentialStore;
  logger: McpLogger;
  /** The fetch for OAuth requests (discovery, registration, tokens): bounded, never following redirects. */
  fetch: FetchLike;
}

/** Thrown for a redirect URL that this provider did not start, or that an attacker crafted. */
export class McpAuthorizationCallbackError extends McpFleetError {
  constructor(serverId: string, message: string) {
    super('authorization_callback_invalid', message, { serverId });
  }
}

/** How long before its expiry a token is no longer used when its renewal failed. */
const STILL_VALID_MARGIN_MS = 5_000;

export class McpServerAuthorizer {
  readonly key: McpCredentialKey;
  private readonly lock = new Mutex();
  private credentials: McpStoredCredentials | undefined;
  private loaded = false;
  private pending: PendingAuthorization | undefined;
  /** Only `begin()` may let the SDK start an authorization; anywhere else that means a person is needed. */
  private interactive = false;
  /** Scopes a server asked for in an `insufficient_scope` challenge, for the next authorization. */
  private stepUpScope: string | undefined;
  /** Set while a client-credentials renewal runs: the SDK must not see the current token then. */
  private hideTokensFromSdk = false;
  /** The bearer token each response answered, so a 401 renews only a token that is still current. */
  private readonly tokenOfResponse = new WeakMap<Response, string>();

  constructor(private readonly options: AuthorizerOptions) {
    this.key = { serverId: options.serverId, endpoint: credentialEndpoint(options.url) };
  }

  private get serverId(): string {
    return this.options.serverId;
  }

  private get oauth(): McpOAuthConfig {
    return this.options.oauth;
  }

  private async current(): Promise<McpStoredCredentials> {
    if (!this.loaded) {
      this.credentials = await this.options.store.load(this.key);
      this.loaded = true;
    }
    this.credentials ??= {};
    return this.credentials;
  }

  /**
   * Saves `fields` of the credentials, merged into what the store holds now: another
   * process may have rotated the tokens meanwhile, and saving the whole object from
   * memory would put its old refresh token back. (Memory catches up on the next re-read.)
   */
  private async persist(fields: readonly (keyof McpStoredCredentials)[]): Promise<void> {
    const mine = this.credentials ?? {};
    const merged: McpStoredCredentials = { ...((await this.options.store.load(this.key)) ?? {}) };
    for (const field of fields) {
      if (mine[field] === undefined) delete merged[field];
      else (merged as Record<string, unknown>)[field] = mine[field];
    }
    await this.options.store.save(this.key, merged);
  }

  /** Re-reads the store: another process may have renewed the grant. */
  private async reload(): Promise<McpStoredCredentials> {
    this.loaded = false;
    return this.current();
  }

  private requestedScope(): string | undefined {
    const configured = this.oauth.scopes?.join(' ');
    const union = new Set([...(configured ?? '').split(' '), ...(this.stepUpScope ?? '').split(' ')].filter(Boolean));
    return union.size === 0 ? undefined : [...union].join(' ');
  }

  /** The `OAuthClientProvider` the SDK's `auth()` drives, backed by this server's stored credentials. */
  private client(): OAuthClientProvider {
    const oauth = this.oauth;
    const credentials = (): McpStoredCredentials => (this.credentials ??= {});
    const preRegistered: StoredOAuthClientInformation | undefined =
      oauth.flow === 'client_credentials'
        ? {
            client_id: oauth.clientId,
            ...(oauth.clientSecret === undefined ? {} : { client_secret: oauth.clientSecret }),
            ...(oauth.authMethod === 'client_secret_post' ? { token_endpoint_auth_method: 'client_secret_post' } : {}),
          }
        : oauth.clientId === undefined
          ? undefined
          : { client_id: oauth.clientId, ...(oauth.clientSecret === undefined ? {} : { client_secret: oauth.clientSecret }) };
    const metadata: OAuthClientMetadata =
      oauth.flow === 'client_credentials'
        ? { client_name: 'mcp-fleet', redirect_uris: [], grant_types: ['client_credentials'] }
        : {
            client_name: oauth.clientName ?? 'mcp-fleet',
            redirect_uris: [oauth.redirectUri],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: oauth.clientSecret === undefined && oauth.clientId === undefined ? 'none' : 'client_secret_basic',
            application_type: oauth.applicationType ?? 'native',
          };
    const privateKeyAuth =
      oauth.flow === 'client_credentials' && (oauth.authMethod ?? (oauth.privateKey ? 'private_key_jwt' : undefined)) === 'private_key_jwt'
        ? createPrivateKeyJwtAuth({
            issuer: oauth.clientId,
            subject: oauth.clientId,
            privateKey: parseKey(oauth.privateKey!),
            alg: oauth.signingAlgorithm ?? 'ES256',
          })
        : undefined;
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return oauth.flow === 'authorization_code' ? oauth.redirectUri : undefined;
      },
      ...(oauth.flow === 'authorization_code' && oauth.clientMetadataUrl !== undefined ? { clientMetadataUrl: oauth.clientMetadataUrl } : {}),
      get clientMetadata() {
        return metadata;
      },
      state: () => {
        this.pending ??= { state: randomBytes(24).toString('base64url') };
        return this.pending.state;
      },
      clientInformation: () => preRegistered ?? credentials().client,
      ...(preRegistered === undefined
        ? {
            saveClientInformation: async (information: StoredOAuthClientInformation) => {
              credentials().client = information;
              await this.persist(['client']);
            },
          }
        : {}),
      tokens: () => (this.hideTokensFromSdk ? undefined : credentials().tokens),
      saveTokens: async (tokens: StoredOAuthTokens) => {
        const expiresIn = Number(tokens.expires_in);
        credentials().tokens = { ...tokens, ...(Number.isFinite(expiresIn) && expiresIn > 0 ? { expires_at: Date.now() + expiresIn * 1000 } : {}) };
        await this.persist(['tokens']);
      },
      redirectToAuthorization: (url: URL) => {
        if (!this.interactive) throw new McpAuthorizationRequired(this.serverId);
        this.pending = { ...(this.pending ?? { state: url.searchParams.get('state') ?? '' }), url };
      },
      saveCodeVerifier: (verifier: string) => {
        if (this.interactive && this.pending !== undefined) this.pending.codeVerifier = verifier;
      },
      codeVerifier: () => {
        const verifier = this.pending?.codeVerifier;
        if (verifier === undefined) throw new McpAuthorizationCallbackError(this.serverId, `No authorization is pending for MCP server "${this.serverId}".`);
        return verifier;
      },
      ...(privateKeyAuth === undefined ? {} : { addClientAuthentication: privateKeyAuth }),
      ...(oauth.flow === 'client_credentials'
        ? {
            prepareTokenRequest: (scope?: string) => {
              const params = new URLSearchParams({ grant_type: 'client_credentials' });
              if (scope) params.set('scope', scope);
              return params;
            },
          }
        : {}),
      invalidateCredentials: async (what) => {
        const stored = credentials();
        if (what === 'all' || what === 'tokens') delete stored.tokens;
        if (what === 'all' || what === 'client') delete stored.client;
        if (what === 'all' || what === 'discovery') delete stored.discovery;
        if (what === 'all' || what === 'verifier') delete this.pending?.codeVerifier;
        await this.persist(what === 'all' ? ['tokens', 'client', 'discovery'] : what === 'verifier' ? [] : [what]);
      },
      saveDiscoveryState: async (state: OAuthDiscoveryState) => {
        credentials().discovery = state;
        await this.persist(['discovery']);
      },
      discoveryState: () => credentials().discovery,
    };
    return provider;
  }

  private async runAuth(extra: { authorizationCode?: string; iss?: string; resourceMetadataUrl?: URL; scope?: string; force?: boolean }): Promise<'AUTHORIZED' | 'REDIRECT'> {
    return auth(this.client(), {
      serverUrl: this.options.url,
      fetchFn: this.options.fetch,
      ...(extra.authorizationCode === undefined ? {} : { authorizationCode: extra.authorizationCode, iss: extra.iss }),
      ...(extra.resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: extra.resourceMetadataUrl }),
      ...(extra.scope === undefined ? {} : { scope: extra.scope }),
      ...(extra.force ? { forceReauthorization: true } : {}),
    });
  }

  /** Whether an access token is still inside its lifetime (with a few seconds to spare for the request). */
  private stillValid(tokens: NonNullable<McpStoredCredentials['tokens']>): boolean {
    return tokens.expires_at !== undefined && Date.now() < tokens.expires_at - STILL_VALID_MARGIN_MS;
  }

  /** Whether stored tokens must be renewed before use. */
  private expiring(tokens: McpStoredCredentials['tokens']): boolean {
    if (tokens?.expires_at === undefined) return false;
    const lifetime = Number(tokens.expires_in) * 1000;
    return Date.now() >= tokens.expires_at - renewalBufferMs(lifetime);
  }

  /**
   * Obtains new tokens unless someone else already did: `staleToken` is the token that
   * failed or is expiring. Single-flight in this process (a mutex) and across processes
   * (the store's refresh guard); the grant is re-read under the guard.
   */
  private renew(
    staleToken: string | undefined,
    challenge: { resourceMetadataUrl?: URL; scope?: string } = {},
    options: { rediscover?: boolean } = {},
  ): Promise<void> {
    return this.lock.run(async () => {
      const release = await this.options.store.acquireRefreshGuard?.(this.key);
      try {
        const { tokens } = await this.reload();
        if (tokens?.access_token !== undefined && tokens.access_token !== staleToken && !this.expiring(tokens)) return;
        // After the re-read, or the stored metadata would come straight back.
        if (options.rediscover === true) delete this.credentials!.discovery;
        if (this.oauth.flow === 'authorization_code' && tokens?.refresh_token === undefined) {
          throw new McpAuthorizationRequired(this.serverId);
        }
        // The SDK asks for a new client-credentials token only when it sees none; the current
        // one stays in place for the calls made meanwhile (and if the renewal fails).
        this.hideTokensFromSdk = this.oauth.flow === 'client_credentials';
        const scope = challenge.scope ?? this.requestedScope();
        let result: 'AUTHORIZED' | 'REDIRECT';
        try {
          result = await this.runAuth({ ...challenge, ...(scope === undefined ? {} : { scope }) });
        } catch (error) {
          if (this.oauth.flow !== 'authorization_code') throw error;
          // The authorization server no longer accepts the refresh token (expired, revoked,
          // or reused): the SDK then tries to start a new authorization, which needs a person.
          const reason =
            error instanceof McpAuthorizationRequired ? 'the authorization server rejected the refresh token' : errorMessage(error);
          this.options.logger.warn({ serverId: this.serverId, error: reason }, 'OAuth token renewal failed; authorization is required');
          throw error instanceof McpAuthorizationRequired ? error : new McpAuthorizationRequired(this.serverId, undefined, error);
        }
        if (result !== 'AUTHORIZED') throw new McpAuthorizationRequired(this.serverId);
      } finally {
        this.hideTokensFromSdk = false;
        await release?.();
      }
    });
  }

  /** The `AuthProvider` of the server's transport: a current token before every request, renewal on 401. */
  authProvider(): AuthProvider {
    return {
      token: async () => {
        const { tokens } = await this.current();
        // Without any grant an interactive server needs a person; say so before touching the network.
        if (tokens?.access_token === undefined && this.oauth.flow === 'authorization_code') throw new McpAuthorizationRequired(this.serverId);
        if (tokens?.access_token === undefined || this.expiring(tokens)) {
          try {
            await this.renew(tokens?.access_token);
          } catch (error) {
            // Renewal starts before expiry: while the token still works, a failed renewal
            // (the authorization server down for a moment) does not stop the calls yet.
            const current = this.credentials?.tokens;
            if (current?.access_token === undefined || !this.stillValid(current)) throw error;
            this.options.logger.warn(
              { serverId: this.serverId, error: errorMessage(error) },
              'OAuth token renewal failed; the current token is used until it expires',
            );
            return current.access_token;
          }
        }
        return this.credentials?.tokens?.access_token;
      },
      onUnauthorized: async (context: UnauthorizedContext) => {
        const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(context.response);
        // A 401 may mean the server moved to another authorization server: discover again.
        await this.renew(
          this.tokenOfResponse.get(context.response),
          { ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }), ...(scope === undefined ? {} : { scope }) },
          { rediscover: true },
        );
      },
    };
  }

  /**
   * Wraps the transport's fetch so each response remembers the bearer token it answered,
   * and a 403 `insufficient_scope` challenge (SEP-2350) adds its scopes to the next request.
   */
  tapFetch(fetch: FetchLike): FetchLike {
    return async (url, init) => {
      const authorization = new Headers(init?.headers).get('authorization');
      const response = await fetch(url, init);
      if (authorization?.startsWith('Bearer ')) this.tokenOfResponse.set(response, authorization.slice('Bearer '.length));
      if (response.status === 403) {
        const { error, scope } = extractWWWAuthenticateParams(response);
        if (error === 'insufficient_scope') this.noteRequiredScope(scope);
      }
      return response;
    };
  }

  /** Records the scopes of an `insufficient_scope` challenge for the next authorization. */
  noteRequiredScope(scope: string | undefined): void {
    if (scope === undefined) return;
    const union = new Set([...(this.stepUpScope ?? '').split(' '), ...scope.split(' ')].filter(Boolean));
    this.stepUpScope = [...union].join(' ');
  }

  /**
   * Renews a client-credentials token with the scopes a server asked for. Returns false
   * for the interactive flow, where a person has to authorize again.
   */
  async stepUp(scope: string | undefined): Promise<boolean> {
    this.noteRequiredScope(scope);
    if (this.oauth.flow !== 'client_credentials') return false;
    const { tokens } = await this.current();
    await this.renew(tokens?.access_token, { scope: this.requestedScope() });
    return true;
  }

  /**
   * Starts the interactive flow: discovery, client registration if needed, PKCE and a
   * CSRF `state`. Returns the URL a person opens. It never reads the stored token, so a
   * re-consent works while a token is still valid.
   */
  async begin(options: { scopes?: string[] } = {}): Promise<URL> {
    if (this.oauth.flow !== 'authorization_code') {
      throw new McpFleetError('not_interactive', `MCP server "${this.serverId}" is not configured for the OAuth authorization_code flow.`, {
        serverId: this.serverId,
      });
    }
    return this.lock.run(async () => {
      const stored = await this.current();
      this.pending = undefined;
      // Discover afresh: the server may have moved to another authorization server.
      delete stored.discovery;
      if (options.scopes !== undefined) this.noteRequiredScope(options.scopes.join(' '));
      // A dynamically registered client may be limited to the scopes it registered with;
      // when more are needed now, register again.
      const registered = (stored.client as { scope?: string } | undefined)?.scope?.split(' ');
      const wanted = this.requestedScope()?.split(' ') ?? [];
      if (this.oauth.clientId === undefined && registered !== undefined && wanted.some((scope) => !registered.includes(scope))) {
        delete stored.client;
      }
      // What the server asks for (its metadata URL, its scope) comes in the 401 challenge.
      const challenge = await this.probeChallenge();
      this.noteRequiredScope(challenge.scope);
      this.interactive = true;
      try {
        const scope = this.requestedScope();
        const result = await this.runAuth({
          force: true,
          ...(scope === undefined ? {} : { scope }),
          ...(challenge.resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl: challenge.resourceMetadataUrl }),
        });
        // Set by the provider callbacks while auth() ran.
        const url = (this.pending as PendingAuthorization | undefined)?.url;
        if (result !== 'REDIRECT' || url === undefined) {
          throw new McpFleetError('authorization_failed', `MCP server "${this.serverId}" did not produce an authorization URL.`, { serverId: this.serverId });
        }
        return url;
      } catch (error) {
        this.pending = undefined;
        throw error;
      } finally {
        this.interactive = false;
      }
    });
  }

  /**
   * Completes the interactive flow with the redirect URL a person pasted (or was
   * captured by a loopback listener), or with a bare authorization code. The pending
   * state is consumed whether or not this succeeds.
   */
  async complete(redirectUrlOrCode: string): Promise<void> {
    const pending = this.pending;
    this.pending = undefined;
    if (pending?.codeVerifier === undefined) {
      throw new McpAuthorizationCallbackError(this.serverId, `No OAuth authorization is pending for MCP server "${this.serverId}"; call beginAuthorization first.`);
    }
    const { code, iss } = parseCallback(this.serverId, redirectUrlOrCode, pending.state);
    await this.lock.run(async () => {
      const release = await this.options.store.acquireRefreshGuard?.(this.key);
      this.pending = pending;
      try {
        await this.current();
        const result = await this.runAuth({ authorizationCode: code, ...(iss === undefined ? {} : { iss }) });
        if (result !== 'AUTHORIZED') throw new McpAuthorizationRequired(this.serverId);
      } finally {
        this.pending = undefined;
        await release?.();
      }
    });
  }

  /**
   * Sends the server one unauthenticated request to read its `WWW-Authenticate`
   * challenge: the protected resource metadata URL (RFC 9728) and the scope it wants.
   */
  private async probeChallenge(): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
    try {
      const response = await this.options.fetch(this.options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'mcp-fleet-authorization-probe', method: 'ping' }),
      });
      await response.body?.cancel().catch(() => {});
      if (response.status !== 401 && response.status !== 403) return {};
      const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
      return { ...(resourceMetadataUrl === undefined ? {} : { resourceMetadataUrl }), ...(scope === undefined ? {} : { scope }) };
    } catch {
      // Discovery without the challenge still works for servers that publish metadata at the well-known URLs.
      return {};
    }
  }

  /** Forgets a pending interactive authorization. Returns whether there was one. */
  cancel(): boolean {
    const had = this.pending !== undefined;
    this.pending = undefined;
    return had;
  }

  /** Deletes the stored grant; the next connection needs authorization again. */
  async clear(): Promise<void> {
    await this.lock.run(async () => {
      const release = await this.options.store.acquireRefreshGuard?.(this.key);
      try {
        await this.options.store.clear(this.key);
        this.credentials = {};
        this.loaded = true;
      } finally {
        await release?.();
      }
    });
  }
}

/** A private key given as PEM text, or as a JWK in JSON. */
function parseKey(key: string): string | Record<string, unknown> {
  const trimmed = key.trim();
  // A key that starts with "{" was checked to be JSON when the configuration was resolved.
  return trimmed.startsWith('{') ? (JSON.parse(trimmed) as Record<string, unknown>) : trimmed;
}

/**
 * The code and `iss` of a redirect URL, after checking its `state`; a bare code is
 * accepted as it is. An error redirect becomes an error naming the server.
 */
function parseCallback(serverId: string, input: string, expectedState: string): { code: string; iss: string | undefined } {
  const text = input.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return { code: text, iss: undefined };
  const params = new URL(text).searchParams;
  const state = params.get('state');
  if (state !== expectedState) {
    throw new McpAuthorizationCallbackError(serverId, `The redirect URL does not belong to the authorization started for MCP server "${serverId}" (its state does not match).`);
  }
  const error = params.get('error');
  const code = params.get('code');
  if (code === null) {
    throw new McpAuthorizationCallbackError(
      serverId,
      `The authorization server refused access to MCP server "${serverId}"${error === null ? '' : ` (${error.slice(0, 100)})`}.`,
    );
  }
  return { code, iss: params.get('iss') ?? undefined };
}
