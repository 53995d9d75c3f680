/**
 * The gateway as an OAuth 2.1 resource server: it publishes Protected Resource Metadata
 * (RFC 9728) naming the authorization server it trusts, and accepts a request only with a
 * JWT access token that server signed (checked against its JWKS), issued by it, meant for
 * this gateway (audience = the endpoint's URL, RFC 8707), unexpired, and carrying the
 * required scopes. Tokens are verified with `jose`, which refuses unsigned (`alg: none`)
 * tokens whatever they claim. Nothing of a token reaches a log line or an answer.
 */
import type { AuthInfo } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { McpConfigError } from '../mcp/errors.js';

export interface McpGatewayOAuthOptions {
  /** The authorization server's issuer URL; tokens must carry it as `iss`. */
  issuer: string;
  /**
   * Where its signing keys are. Default: the `jwks_uri` of its metadata
   * (`/.well-known/oauth-authorization-server`, else `/.well-known/openid-configuration`), read on first use.
   */
  jwksUri?: string;
  /**
   * The gateway's URL as its clients reach it (behind a proxy, the public one): published as
   * the metadata's `resource`, and the audience every token must name (RFC 8707). Default: the endpoint's URL as bound.
   */
  resource?: string;
  /** Scopes every token must carry (also published as `scopes_supported`). Default: none. */
  requiredScopes?: string[];
}

/** What a request's `Authorization` header proved: who it is, or why it is refused. */
export type BearerCheck = { ok: true; auth: AuthInfo } | { ok: false; error: 'invalid_request' | 'invalid_token' | 'insufficient_scope'; description: string };

/** The RFC 9728 path of the metadata for a resource at `path` (`/mcp` → `/.well-known/oauth-protected-resource/mcp`). */
export function protectedResourceMetadataPath(path: string): string {
  return `/.well-known/oauth-protected-resource${path === '/' ? '' : path}`;
}

/** Refuses options that name something other than a URL (before anything listens). */
export function checkOAuthOptions(options: McpGatewayOAuthOptions): void {
  for (const [field, value] of [['issuer', options.issuer], ['jwksUri', options.jwksUri], ['resource', options.resource]] as const) {
    if (value !== undefined && !URL.canParse(value)) throw new McpConfigError(`The gateway's OAuth ${field} "${value}" is not a URL.`, { field: `oauth.${field}` });
  }
}

export class GatewayResourceServer {
  private keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  /** The URL this server protects, and the audience its tokens must name. */
  readonly resource: string;

  constructor(
    private readonly options: McpGatewayOAuthOptions,
    /** The endpoint's URL as bound, when `options.resource` does not say. */
    boundUrl: string,
  ) {
    checkOAuthOptions(options);
    this.resource = options.resource ?? boundUrl;
  }

  /** The Protected Resource Metadata document (RFC 9728 section 2). */
  metadata(): Record<string, unknown> {
    return {
      resource: this.resource,
      authorization_servers: [this.options.issuer],
      bearer_methods_supported: ['header'],
      ...(this.options.requiredScopes === undefined ? {} : { scopes_supported: this.options.requiredScopes }),
    };
  }

  /** The `WWW-Authenticate` header of a refusal: where the metadata is, and what was wrong. */
  challenge(metadataUrl: string, refusal?: Extract<BearerCheck, { ok: false }>, moreScopes: readonly string[] = []): string {
    const parts = [`resource_metadata="${metadataUrl}"`];
    const scopes = [...(this.options.requiredScopes ?? []), ...moreScopes];
    if (scopes.length > 0) parts.push(`scope="${scopes.join(' ')}"`);
    if (refusal !== undefined && refusal.error !== 'invalid_request') parts.push(`error="${refusal.error}"`, `error_description="${refusal.description}"`);
    return `Bearer ${parts.join(', ')}`;
  }

  /** Verifies a bearer token; `moreScopes` are needed besides the gateway's own (a profile's). */
  async check(authorization: string | undefined, moreScopes: readonly string[] = []): Promise<BearerCheck> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (match === null) return { ok: false, error: 'invalid_request', description: 'no bearer token' };
    const token = match[1]!;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.keySet(), { issuer: this.options.issuer, audience: this.resource }));
    } catch (error) {
      return { ok: false, error: 'invalid_token', description: refusalReason(error) };
    }
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter((scope) => scope !== '') : [];
    const missing = [...(this.options.requiredScopes ?? []), ...moreScopes].filter((scope) => !scopes.includes(scope));
    if (missing.length > 0) return { ok: false, error: 'insufficient_scope', description: `the token lacks the scope ${missing.join(' ')}` };
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : typeof payload.azp === 'string' ? payload.azp : (payload.sub ?? 'unknown');
    return {
      ok: true,
      auth: { token, clientId, scopes, ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }), resource: new URL(this.resource), extra: { sub: payload.sub } },
    };
  }

  private async keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.keys ??= createRemoteJWKSet(new URL(this.options.jwksUri ?? (await discoverJwksUri(this.options.issuer))));
    return this.keys;
  }
}

/** The authorization server's metadata named no keys (or could not be read). */
class KeyDiscoveryError extends Error {}

/** Why a token was refused, in words that name no part of it. */
function refusalReason(error: unknown): string {
  if (error instanceof KeyDiscoveryError) return error.message;
  if (error instanceof joseErrors.JWTExpired) return 'the token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `the token's ${error.claim} claim is not accepted here`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSNoMatchingKey) return 'the token is not signed by the authorization server';
  if (error instanceof joseErrors.JOSEAlgNotAllowed || error instanceof joseErrors.JOSENotSupported) return 'the token is not signed with an accepted algorithm';
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid) return "the authorization server's keys could not be read";
  return 'the token is not a valid signed JWT';
}

/** The JWKS URL from the authorization server's metadata (RFC 8414, else OpenID Connect discovery). */
async function discoverJwksUri(issuer: string): Promise<string> {
  const base = new URL(issuer);
  const suffix = base.pathname === '/' ? '' : base.pathname.replace(/\/$/, '');
  for (const wellKnown of ['oauth-authorization-server', 'openid-configuration']) {
    const response = await fetch(new URL(`/.well-known/${wellKnown}${suffix}`, base), { redirect: 'error', signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    if (response?.ok !== true) continue;
    const metadata = (await response.json().catch(() => ({}))) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri === 'string' && URL.canParse(metadata.jwks_uri)) return metadata.jwks_uri;
  }
  throw new KeyDiscoveryError(`the gateway could not read a jwks_uri from the metadata of the authorization server ${issuer}; give it the keys' URL (--oauth-jwks-uri, or the jwksUri option)`);
}
