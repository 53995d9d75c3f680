/**
 * `discoverHttpOauth(url)`: whether an MCP endpoint is protected by OAuth, and how, from
 * its RFC 9728 protected resource metadata and its authorization server's RFC 8414 (or
 * OpenID Connect) metadata. Lets an application decide from a bare URL whether a flow
 * is needed and which one.
 */
import { discoverOAuthServerInfo, type FetchLike } from '@modelcontextprotocol/client';
import { boundedFetch } from '../transport/bounded-fetch.js';

/** What an endpoint's OAuth metadata says. */
export interface McpOAuthDiscovery {
  /** The resource the endpoint names itself (RFC 8707 resource indicator). */
  resource: string | undefined;
  /** The authorization server's issuer. */
  authorizationServer: string;
  scopesSupported: string[];
  grantTypesSupported: string[];
  /** Whether dynamic client registration (RFC 7591) is available. */
  registrationSupported: boolean;
  /** Whether client ID metadata documents (SEP-991) are accepted. */
  clientIdMetadataDocumentSupported: boolean;
}

/**
 * Probes `url` (an MCP endpoint) for OAuth metadata. Returns `undefined` when the
 * endpoint publishes no protected resource metadata and no authorization server
 * metadata is found: it does not use OAuth (or only a pre-2025 fallback).
 */
export async function discoverHttpOauth(url: string, options: { fetch?: FetchLike; signal?: AbortSignal } = {}): Promise<McpOAuthDiscovery | undefined> {
  const base = boundedFetch({ serverId: new URL(url).host, messageBytes: 1024 * 1024, fetch: options.fetch });
  const fetchFn: FetchLike = (input, init) => base(input, { ...init, ...(options.signal ? { signal: options.signal } : {}) });
  const info = await discoverOAuthServerInfo(url, { fetchFn });
  const metadata = info.authorizationServerMetadata;
  if (info.resourceMetadata === undefined && metadata === undefined) return undefined;
  return {
    resource: info.resourceMetadata?.resource,
    authorizationServer: metadata?.issuer ?? String(info.authorizationServerUrl),
    scopesSupported: info.resourceMetadata?.scopes_supported ?? metadata?.scopes_supported ?? [],
    grantTypesSupported: metadata?.grant_types_supported ?? ['authorization_code'],
    registrationSupported: metadata?.registration_endpoint !== undefined,
    clientIdMetadataDocumentSupported: metadata?.client_id_metadata_document_supported === true,
  };
}
