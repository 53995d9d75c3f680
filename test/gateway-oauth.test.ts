/**
 * `mcp-fleet serve --http --oauth-issuer`: the gateway as an OAuth 2.1 resource server.
 * A real authorization server's two documents (RFC 8414 metadata naming its JWKS, and the
 * JWKS) are served on a loopback port; tokens are real JWTs signed with jose. What is
 * checked is what a client meets: the 401 naming the metadata, the metadata itself, a
 * good token let in, and every bad one (wrong audience, expired, unsigned, signed by
 * another key, wrong issuer, missing scope) refused, with no token in any output.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, test } from 'vitest';
import { tempDir } from './helpers.js';
import { cleanUp, INITIALIZE, JSON_HEADERS, onCleanUp, raw, serve, stdioServer, textOf, writeConfig } from './gateway-helpers.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

afterEach(cleanUp);

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

/** An authorization server that publishes its metadata and its public key, and nothing else. */
async function authorizationServer(): Promise<{ issuer: string; key: SigningKey }> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  let issuer = '';
  const server: Server = createServer((request, response) => {
    const body =
      request.url === '/.well-known/oauth-authorization-server'
        ? { issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token`, authorization_endpoint: `${issuer}/authorize` }
        : request.url === '/jwks'
          ? { keys: [jwk] }
          : undefined;
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  onCleanUp(() => new Promise((resolve) => server.close(() => resolve())));
  return { issuer, key: privateKey };
}

interface Claims {
  iss: string;
  aud: string;
  scope?: string;
  expiresAt?: number;
  issuedAt?: number;
}

function sign(key: SigningKey, claims: Claims): Promise<string> {
  const jwt = new SignJWT({ ...(claims.scope === undefined ? {} : { scope: claims.scope }), client_id: 'test-client' })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(claims.iss)
    .setAudience(claims.aud)
    .setSubject('user-1')
    .setIssuedAt(claims.issuedAt)
    .setExpirationTime(claims.expiresAt ?? '5m');
  return jwt.sign(key);
}

/** A token with `alg: none`: claims anything, signed by nobody. */
function unsigned(claims: Record<string, unknown>): string {
  const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

describe('mcp-fleet serve --http --oauth-issuer', () => {
  test('publishes protected resource metadata, lets in a token meant for it, and refuses wrong-audience, expired, unsigned and foreign tokens', async () => {
    const as = await authorizationServer();
    const other = await generateKeyPair('RS256');
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { modern: stdioServer('v2-server.mjs') });
    const gateway = await serve(config, ['--oauth-issuer', as.issuer, '--oauth-scope', 'mcp:tools']);
    const origin = new URL(gateway.url).origin;
    const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;

    // No token: 401, and the challenge says where the metadata is.
    const none = await raw(gateway.url, { headers: JSON_HEADERS, body: INITIALIZE });
    expect(none.status).toBe(401);
    expect(String(none.headers['www-authenticate'])).toContain(`resource_metadata="${metadataUrl}"`);
    const metadata = await raw(metadataUrl, { method: 'GET', headers: {} });
    expect(metadata.status).toBe(200);
    expect(JSON.parse(metadata.body)).toEqual({
      resource: gateway.url,
      authorization_servers: [as.issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:tools'],
    });

    const good = await sign(as.key, { iss: as.issuer, aud: gateway.url, scope: 'mcp:tools' });
    const tokens = {
      'wrong audience': await sign(as.key, { iss: as.issuer, aud: 'http://127.0.0.1:1/other', scope: 'mcp:tools' }),
      expired: await sign(as.key, { iss: as.issuer, aud: gateway.url, scope: 'mcp:tools', issuedAt: Math.floor(Date.now() / 1000) - 7200, expiresAt: Math.floor(Date.now() / 1000) - 3600 }),
      unsigned: unsigned({ iss: as.issuer, aud: gateway.url, scope: 'mcp:tools', sub: 'user-1', exp: Math.floor(Date.now() / 1000) + 300 }),
      'signed by another key': await sign(other.privateKey, { iss: as.issuer, aud: gateway.url, scope: 'mcp:tools' }),
      'another issuer': await sign(as.key, { iss: 'http://127.0.0.1:1', aud: gateway.url, scope: 'mcp:tools' }),
      'without the scope': await sign(as.key, { iss: as.issuer, aud: gateway.url, scope: 'other' }),
    };
    const bodies: string[] = [none.body];
    for (const [what, token] of Object.entries(tokens)) {
      const refused = await raw(gateway.url, { headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` }, body: INITIALIZE });
      expect(refused.status, what).toBe(what === 'without the scope' ? 403 : 401);
      const challenge = String(refused.headers['www-authenticate']);
      expect(challenge, what).toContain(`resource_metadata="${metadataUrl}"`);
      expect(challenge, what).toContain(what === 'without the scope' ? 'error="insufficient_scope"' : 'error="invalid_token"');
      bodies.push(refused.body, challenge);
    }

    // The good token, through a real client: it lists and calls.
    const client = new V1Client({ name: 'oauth-client', version: '1.0.0' });
    await client.connect(new V1HttpTransport(new URL(gateway.url), { requestInit: { headers: { authorization: `Bearer ${good}` } } }));
    onCleanUp(() => client.close());
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'authorized' } }))).toBe('authorized');

    for (const text of [...bodies, gateway.stderr()]) {
      for (const token of [good, ...Object.values(tokens)]) expect(text).not.toContain(token);
    }
  });

  test("a profile's scopes are what a token needs at /mcp/<profile>, beside the gateway's own; the audience stays the gateway's URL", async () => {
    const as = await authorizationServer();
    const config = join(tempDir(), 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { modern: stdioServer('v2-server.mjs') }, profiles: { review: { include: ['modern.echo'], scopes: ['mcp:review'] } } }));
    const gateway = await serve(config, ['--oauth-issuer', as.issuer, '--oauth-scope', 'mcp:tools', '--no-watch']);
    const review = `${gateway.url}/review`;
    const plain = await sign(as.key, { iss: as.issuer, aud: gateway.url, scope: 'mcp:tools' });
    const reviewer = await sign(as.key, { iss: as.issuer, aud: gateway.url, scope: 'mcp:tools mcp:review' });
    const refused = await raw(review, { headers: { ...JSON_HEADERS, authorization: `Bearer ${plain}` }, body: INITIALIZE });
    expect(refused.status).toBe(403);
    expect(String(refused.headers['www-authenticate'])).toContain('scope="mcp:tools mcp:review"');
    // The same token is good for the whole fleet at /mcp.
    expect((await raw(gateway.url, { headers: { ...JSON_HEADERS, authorization: `Bearer ${plain}` }, body: INITIALIZE })).status).toBe(200);
    const client = new V1Client({ name: 'oauth-reviewer', version: '1.0.0' });
    await client.connect(new V1HttpTransport(new URL(review), { requestInit: { headers: { authorization: `Bearer ${reviewer}` } } }));
    onCleanUp(() => client.close());
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
  });

  test('an OAuth issuer that is not a URL is refused at start, naming the option', async () => {
    const config = join(tempDir(), 'mcp.json');
    writeConfig(config, { modern: stdioServer('v2-server.mjs') });
    await expect(serve(config, ['--oauth-issuer', 'not a url'])).rejects.toThrow(/issuer "not a url" is not a URL/);
  });
});
