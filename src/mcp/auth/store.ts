/**
 * Credential stores: where OAuth grants (tokens), dynamically registered clients and
 * discovery results live between calls, processes and restarts. A key names the server
 * and its endpoint, so changing a server's URL never reuses an unrelated grant.
 */
import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { inspect } from 'node:util';
import { Mutex } from '../locks.js';

/** Identifies one grant: the server id and the endpoint it authorizes. */
export interface McpCredentialKey {
  serverId: string;
  /** The MCP endpoint URL, without query or fragment. */
  endpoint: string;
}

/** Stored tokens: the token response, the issuer stamp, and when the access token expires. */
export type McpStoredTokens = StoredOAuthTokens & {
  /** Expiry of the access token, in milliseconds since the epoch, when the server gave one. */
  expires_at?: number;
};

/** Everything persisted for one key. Secret: never log it. */
export interface McpStoredCredentials {
  tokens?: McpStoredTokens;
  /** A client registered dynamically (RFC 7591) or by URL (client ID metadata document). */
  client?: StoredOAuthClientInformation;
  /** Protected-resource and authorization-server metadata found by discovery. */
  discovery?: OAuthDiscoveryState;
}

/** Releases a refresh guard. */
export type McpRefreshGuardRelease = () => Promise<void> | void;

/**
 * Where credentials are kept. `load`, `save` and `clear` must not take the refresh
 * guard themselves: the provider calls them while holding it.
 */
export interface McpCredentialStore {
  load(key: McpCredentialKey): Promise<McpStoredCredentials | undefined>;
  save(key: McpCredentialKey, credentials: McpStoredCredentials): Promise<void>;
  clear(key: McpCredentialKey): Promise<void>;
  /**
   * Optional: an exclusive guard per key, held across re-reading the grant, the token
   * exchange and saving the result, so two holders (processes, workers) never refresh
   * the same grant at once. Resolves with the function that releases it.
   */
  acquireRefreshGuard?(key: McpCredentialKey): Promise<McpRefreshGuardRelease>;
}

/** A stable text form of a key. */
export function credentialKeyId(key: McpCredentialKey): string {
  return JSON.stringify([key.serverId, key.endpoint]);
}

/** The endpoint part of a key: the URL without query and fragment. */
export function credentialEndpoint(url: string): string {
  const parsed = new URL(url);
  parsed.search = '';
  parsed.hash = '';
  return parsed.href;
}

/**
 * Keeps credentials in memory: for tests and short-lived processes. Everything is lost
 * when the process ends. Refresh guards serialise holders of the same key within the
 * process; other keys proceed independently.
 */
export class InMemoryMcpCredentialStore implements McpCredentialStore {
  private readonly entries = new Map<string, McpStoredCredentials>();
  private readonly guards = new Map<string, Mutex>();

  load(key: McpCredentialKey): Promise<McpStoredCredentials | undefined> {
    const entry = this.entries.get(credentialKeyId(key));
    return Promise.resolve(entry === undefined ? undefined : structuredClone(entry));
  }

  save(key: McpCredentialKey, credentials: McpStoredCredentials): Promise<void> {
    this.entries.set(credentialKeyId(key), structuredClone(credentials));
    return Promise.resolve();
  }

  clear(key: McpCredentialKey): Promise<void> {
    this.entries.delete(credentialKeyId(key));
    return Promise.resolve();
  }

  acquireRefreshGuard(key: McpCredentialKey): Promise<McpRefreshGuardRelease> {
    const id = credentialKeyId(key);
    let mutex = this.guards.get(id);
    if (mutex === undefined) {
      mutex = new Mutex();
      this.guards.set(id, mutex);
    }
    return new Promise((granted) => {
      void mutex.run(
        () =>
          new Promise<void>((release) => {
            granted(() => release());
          }),
      );
    });
  }

  /** Never shows credentials. */
  toJSON(): { keys: number } {
    return { keys: this.entries.size };
  }

  [inspect.custom](): string {
    return `InMemoryMcpCredentialStore { keys: ${this.entries.size} }`;
  }
}
