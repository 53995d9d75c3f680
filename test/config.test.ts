/**
 * Unit tests of server configuration validation, defaults and redaction (checklist A,
 * adapted to our camelCase TypeScript shape and millisecond timeouts).
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REDACTED, redactedConfig, resolveServerConfig, type ResolvedServerConfig } from '../src/mcp/config/config.js';
import { McpConfigError, McpFleetError } from '../src/mcp/errors.js';
import { DEFAULT_LIMITS, DEFAULT_TIMEOUTS } from '../src/mcp/config/policy.js';

const STDIO = { type: 'stdio', command: 'server' } as const;
const HTTP = { type: 'http', url: 'https://mcp.example.com/mcp' } as const;

/** The error `resolveServerConfig(input)` throws; fails the test when it does not throw. */
function configError(input: unknown): McpConfigError {
  try {
    resolveServerConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return error as McpConfigError;
  }
  throw new Error('expected resolveServerConfig to throw');
}

function expectInvalid(input: unknown, field: string, message?: RegExp): McpConfigError {
  const error = configError(input);
  expect(error.field).toBe(field);
  expect(error.code).toBe('config_invalid');
  expect(error.message).toContain(`\`${field}\``);
  if (message !== undefined) expect(error.message).toMatch(message);
  return error;
}

function withServer(overrides: Record<string, unknown>, transport: Record<string, unknown> = STDIO): Record<string, unknown> {
  return { id: 'files', transport, ...overrides };
}

describe('resolveServerConfig defaults', () => {
  it('fills every default into the minimal stdio config', () => {
    const resolved = resolveServerConfig({ id: 'files', transport: { type: 'stdio', command: 'server' } });
    expect({ ...resolved }).toEqual({
      id: 'files',
      namePart: 'files',
      transport: { type: 'stdio', command: 'server', args: [], env: {}, cwd: undefined, inheritEnv: false, logStderr: false },
      lifecycle: 'auto',
      required: false,
      startup: 'eager',
      include: [],
      exclude: [],
      limits: { ...DEFAULT_LIMITS },
      timeouts: { ...DEFAULT_TIMEOUTS },
      concurrency: 'serial',
      elicitation: false,
      resources: false,
      tasks: undefined,
      secrets: [],
    });
  });

  it('uses the design defaults for limits and timeouts', () => {
    expect(DEFAULT_LIMITS).toEqual({
      catalogPages: 100,
      catalogItems: 2048,
      cursorBytes: 64 * 1024,
      schemaBytes: 64 * 1024,
      outputSchemaBytes: 256 * 1024,
      schemaDepth: 128,
      descriptionBytes: 16 * 1024,
      serverMetadataBytes: 32 * 1024,
      messageBytes: 8 * 1024 * 1024,
      outputTextBytes: 32 * 1024,
      outputMediaBytes: 5 * 1024 * 1024,
      outputMediaItems: 8,
      stderrBytes: 64 * 1024,
    });
    expect(DEFAULT_TIMEOUTS).toEqual({
      setupMs: 90_000,
      listMs: 30_000,
      requestMs: 180_000,
      callMs: 600_000,
      elicitationMs: 300_000,
      connectAttemptMs: 45_000,
      probeMs: 10_000,
      closeMs: 2_000,
    });
  });

  it('fills the defaults of an http transport', () => {
    const resolved = resolveServerConfig({ id: 'remote', transport: HTTP });
    expect({ ...resolved.transport }).toEqual({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: {},
      bearerToken: undefined,
      allowInsecureHttp: false,
    });
  });

  it('keeps the defaults for the fields a partial limits or timeouts object leaves out', () => {
    const resolved = resolveServerConfig(withServer({ limits: { outputTextBytes: 256 }, timeouts: { callMs: 1 } }));
    expect(resolved.limits).toEqual({ ...DEFAULT_LIMITS, outputTextBytes: 256 });
    expect(resolved.timeouts).toEqual({ ...DEFAULT_TIMEOUTS, callMs: 1 });
  });

  it('enables tasks with a 300,000 ms wait for {} and keeps an explicit wait', () => {
    expect(resolveServerConfig(withServer({ tasks: {} })).tasks).toEqual({ maxWaitMs: 300_000 });
    expect(resolveServerConfig(withServer({ tasks: { maxWaitMs: 86_400_000 } })).tasks).toEqual({ maxWaitMs: 86_400_000 });
    expect(resolveServerConfig(withServer({ tasks: false })).tasks).toBeUndefined();
  });

  it('keeps every explicit setting', () => {
    const resolved = resolveServerConfig({
      id: ' GitHub-Prod ',
      transport: { type: 'stdio', command: 'node', args: ['server.js', '--flag'], env: { A: 'b' }, cwd: '/srv', inheritEnv: true, logStderr: true },
      lifecycle: 'initialize',
      required: true,
      startup: 'eager',
      include: ['a'],
      exclude: ['b'],
      concurrency: 'read_only_parallel',
      elicitation: true,
      resources: true,
    });
    expect(resolved.id).toBe('GitHub-Prod');
    expect(resolved.namePart).toBe('github_prod');
    expect({ ...resolved.transport }).toEqual({
      type: 'stdio',
      command: 'node',
      args: ['server.js', '--flag'],
      env: { A: 'b' },
      cwd: '/srv',
      inheritEnv: true,
      logStderr: true,
    });
    expect(resolved).toMatchObject({
      lifecycle: 'initialize',
      required: true,
      include: ['a'],
      exclude: ['b'],
      concurrency: 'read_only_parallel',
      elicitation: true,
      resources: true,
    });
  });

  it('trims the bearer token and drops a blank one', () => {
    const token = resolveServerConfig({ id: 'r', transport: { ...HTTP, bearerToken: '  tok-123  ' } }).transport;
    expect(token.type === 'http' && token.bearerToken).toBe('tok-123');
    const blank = resolveServerConfig({ id: 'r', transport: { ...HTTP, bearerToken: '   ' } }).transport;
    expect(blank.type === 'http' && blank.bearerToken).toBeUndefined();
  });

  it('does not share the env and headers objects with the input', () => {
    const env = { A: '1' };
    const resolved = resolveServerConfig(withServer({}, { ...STDIO, env }));
    env.A = 'changed';
    expect(resolved.transport.type === 'stdio' && resolved.transport.env).toEqual({ A: '1' });
  });
});

describe('resolveServerConfig validation', () => {
  it('is a McpFleetError with the config_invalid code, naming the server id', () => {
    const error = expectInvalid(withServer({ lifecycle: 'handshake' }), 'lifecycle');
    expect(error).toBeInstanceOf(McpFleetError);
    expect(error.serverId).toBe('files');
    expect(error.message).toContain('MCP server "files"');
  });

  it('rejects a blank or missing id', () => {
    for (const id of ['', '   ']) {
      const error = expectInvalid({ id, transport: STDIO }, 'id', /must not be empty/);
      expect(error.serverId).toBeUndefined();
      expect(error.message).toContain('MCP server config');
    }
    expectInvalid({ transport: STDIO }, 'id');
  });

  it('rejects an id that does not make a valid tool name prefix', () => {
    expectInvalid({ id: 'a'.repeat(70), transport: STDIO }, 'id', /valid tool name prefix/);
  });

  it('rejects a config that is not an object', () => {
    expect(configError('files').field).toBe('(root)');
    expect(configError(null).field).toBe('(root)');
  });

  it('rejects a blank stdio command', () => {
    expectInvalid({ id: 'files', transport: { type: 'stdio', command: '  ' } }, 'transport.command', /MCP server "files".*must not be empty/);
  });

  it('names an unknown field (a typo) by its own path', () => {
    expectInvalid(withServer({ lifecyle: 'auto' }), 'lifecyle', /not a known field/);
    expectInvalid(withServer({ limits: { outputTextByte: 300 } }), 'limits.outputTextByte', /MCP server "files"/);
    expectInvalid({ id: 'files', transport: { ...HTTP, bearer_token: 'secret-value' } }, 'transport.bearer_token');
  });

  it('rejects an unknown transport type', () => {
    expectInvalid({ id: 'files', transport: { type: 'websocket', url: 'https://x' } }, 'transport.type');
  });

  it('rejects a bad lifecycle, startup and concurrency', () => {
    expectInvalid(withServer({ lifecycle: 'handshake' }), 'lifecycle', /"auto"\|"discover"\|"initialize"/);
    expectInvalid(withServer({ startup: 'lazy' }), 'startup');
    expectInvalid(withServer({ concurrency: 'always' }), 'concurrency');
  });

  it('rejects a required server that starts in the background', () => {
    expectInvalid(withServer({ required: true, startup: 'background' }), 'startup', /required/);
    expect(resolveServerConfig(withServer({ required: false, startup: 'background' })).startup).toBe('background');
  });

  it('rejects outputTextBytes below 256 and non-positive limits', () => {
    expectInvalid(withServer({ limits: { outputTextBytes: 255 } }), 'limits.outputTextBytes', />=256/);
    expectInvalid(withServer({ limits: { catalogItems: 0 } }), 'limits.catalogItems');
    expectInvalid(withServer({ limits: { messageBytes: -1 } }), 'limits.messageBytes');
    expectInvalid(withServer({ limits: { schemaBytes: 1.5 } }), 'limits.schemaBytes');
    expectInvalid(withServer({ limits: { outputSchemaBytes: 0 } }), 'limits.outputSchemaBytes');
    expectInvalid(withServer({ limits: { schemaDepth: 1001 } }), 'limits.schemaDepth');
  });

  it('rejects a JWK private key that is not JSON without quoting any of it', () => {
    const key = '{"kty":"EC","crv":"P-256","d":Qx7pSECRETdPART,"x":"a","y":"b"}';
    const transport = { type: 'http', url: 'https://mcp.example.com/mcp', oauth: { flow: 'client_credentials', clientId: 'c', privateKey: key } };
    const error = expectInvalid(withServer({}, transport), 'transport.oauth.privateKey', /not valid JSON/);
    expect(error.message).not.toContain('SECRET');
  });

  it('rejects timeouts outside [1, 86,400,000] ms', () => {
    expectInvalid(withServer({ timeouts: { callMs: 0 } }), 'timeouts.callMs');
    expectInvalid(withServer({ timeouts: { setupMs: 86_400_001 } }), 'timeouts.setupMs');
    expectInvalid(withServer({ timeouts: { listMs: 10.5 } }), 'timeouts.listMs');
    expect(resolveServerConfig(withServer({ timeouts: { requestMs: 86_400_000 } })).timeouts.requestMs).toBe(86_400_000);
  });

  it('rejects a task wait outside [1,000, 86,400,000] ms and tasks: true', () => {
    expectInvalid(withServer({ tasks: { maxWaitMs: 999 } }), 'tasks.maxWaitMs');
    expectInvalid(withServer({ tasks: { maxWaitMs: 86_400_001 } }), 'tasks.maxWaitMs');
    expectInvalid(withServer({ tasks: true }), 'tasks');
  });

  it('rejects an invalid URL', () => {
    expectInvalid({ id: 'r', transport: { type: 'http', url: 'not a url' } }, 'transport.url', /not a valid URL/);
    expectInvalid({ id: 'r', transport: { type: 'http', url: '  ' } }, 'transport.url');
  });

  it('rejects a scheme other than http and https', () => {
    for (const url of ['ftp://example.com/mcp', 'ws://example.com/mcp', 'file:///tmp/mcp']) {
      expectInvalid({ id: 'r', transport: { type: 'http', url } }, 'transport.url', /unsupported scheme/);
    }
  });

  it('rejects a URL with credentials without echoing them', () => {
    const error = expectInvalid({ id: 'r', transport: { type: 'http', url: 'https://user:pa55word@example.com/mcp' } }, 'transport.url', /credentials/);
    expect(error.message).not.toContain('pa55word');
    expectInvalid({ id: 'r', transport: { type: 'http', url: 'https://token-only@example.com/mcp' } }, 'transport.url', /credentials/);
  });

  it('rejects a URL with a fragment', () => {
    expectInvalid({ id: 'r', transport: { type: 'http', url: 'https://example.com/mcp#part' } }, 'transport.url', /fragment/);
  });

  it('rejects plain http to a non-loopback host unless allowInsecureHttp', () => {
    expectInvalid({ id: 'r', transport: { type: 'http', url: 'http://example.com/mcp' } }, 'transport.url', /plain http/);
    expectInvalid({ id: 'r', transport: { type: 'http', url: 'http://10.0.0.5:8080/mcp' } }, 'transport.url');
    const allowed = resolveServerConfig({ id: 'r', transport: { type: 'http', url: 'http://example.com/mcp', allowInsecureHttp: true } });
    expect(allowed.transport).toMatchObject({ url: 'http://example.com/mcp', allowInsecureHttp: true });
  });

  it('allows plain http to loopback addresses', () => {
    for (const url of ['http://localhost:3000/mcp', 'http://127.0.0.1/mcp', 'http://127.1.2.3:9/mcp', 'http://[::1]:8080/mcp']) {
      expect(resolveServerConfig({ id: 'r', transport: { type: 'http', url } }).transport).toMatchObject({ url });
    }
  });

  it('rejects protocol and routing headers, case-insensitively', () => {
    const reserved = ['Mcp-Session-Id', 'MCP-Protocol-Version', 'Content-Type', 'Accept', 'Host', 'Content-Length', 'mcp-session-id', 'ACCEPT', 'Last-Event-ID', 'Mcp-Param-Region', 'Mcp-Method'];
    for (const name of reserved) {
      expectInvalid({ id: 'r', transport: { ...HTTP, headers: { [name]: 'value-1234' } } }, `transport.headers.${name}`, /protocol or routing header/);
    }
  });

  it('accepts ordinary custom headers', () => {
    const resolved = resolveServerConfig({ id: 'r', transport: { ...HTTP, headers: { 'X-Api-Key': 'k', 'X-Tenant': 't' } } });
    expect(resolved.transport.type === 'http' && Object.keys(resolved.transport.headers)).toEqual(['X-Api-Key', 'X-Tenant']);
  });

  it('rejects an invalid header name', () => {
    expectInvalid({ id: 'r', transport: { ...HTTP, headers: { 'Bad Header': 'v' } } }, 'transport.headers.Bad Header', /valid HTTP header name/);
  });

  it('rejects an Authorization header together with bearerToken', () => {
    for (const name of ['Authorization', 'authorization']) {
      expectInvalid(
        { id: 'r', transport: { ...HTTP, bearerToken: 'tok-123', headers: { [name]: 'Bearer other' } } },
        `transport.headers.${name}`,
        /conflicts with `bearerToken`/,
      );
    }
    // Alone, an Authorization header is a custom header like any other.
    expect(resolveServerConfig({ id: 'r', transport: { ...HTTP, headers: { Authorization: 'Bearer x' } } }).transport.type).toBe('http');
  });
});

describe('redaction', () => {
  const BEARER = 'bearer-secret-0001';
  const HEADER_VALUE = 'header-secret-0002';
  const ENV_VALUE = 'env-secret-0003';

  function httpConfig(): ResolvedServerConfig {
    return resolveServerConfig({ id: 'remote', transport: { ...HTTP, bearerToken: BEARER, headers: { 'X-Api-Key': HEADER_VALUE } } });
  }

  function stdioConfig(): ResolvedServerConfig {
    return resolveServerConfig({ id: 'local', transport: { ...STDIO, env: { API_KEY: ENV_VALUE } } });
  }

  it('treats the values listed in `secrets` as secrets wherever they appear in the configuration', () => {
    const token = 'arg-token-0004';
    const resolved = resolveServerConfig({
      id: 'local',
      transport: { ...STDIO, args: ['--token', token, `--url=https://x/${token}`] },
      secrets: [token],
    });
    for (const text of [JSON.stringify(resolved), inspect(resolved, { depth: 5 }), JSON.stringify(redactedConfig(resolved))]) {
      expect(text).not.toContain(token);
    }
    expect((redactedConfig(resolved).transport as { args: string[] }).args).toEqual(['--token', REDACTED, `--url=https://x/${REDACTED}`]);
  });

  it('never shows the bearer token or header values in JSON.stringify, but shows the header names', () => {
    const resolved = httpConfig();
    for (const text of [JSON.stringify(resolved), JSON.stringify(resolved.transport), JSON.stringify({ nested: [resolved] })]) {
      expect(text).not.toContain(BEARER);
      expect(text).not.toContain(HEADER_VALUE);
      expect(text).toContain('X-Api-Key');
      expect(text).toContain(REDACTED);
    }
    const parsed = JSON.parse(JSON.stringify(resolved)) as { transport: Record<string, unknown> };
    expect(parsed.transport).toEqual({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { 'X-Api-Key': REDACTED },
      bearerToken: REDACTED,
      allowInsecureHttp: false,
    });
  });

  it('never shows the bearer token or header values in util.inspect', () => {
    const resolved = httpConfig();
    for (const text of [inspect(resolved, { depth: 10 }), inspect(resolved.transport, { depth: 10 }), inspect({ wrapper: resolved }, { depth: 10 })]) {
      expect(text).not.toContain(BEARER);
      expect(text).not.toContain(HEADER_VALUE);
      expect(text).toContain('X-Api-Key');
      expect(text).toContain(REDACTED);
    }
  });

  it('never shows env values, but shows env keys', () => {
    const resolved = stdioConfig();
    for (const text of [JSON.stringify(resolved), inspect(resolved, { depth: 10 }), inspect(resolved.transport), JSON.stringify(resolved.transport)]) {
      expect(text).not.toContain(ENV_VALUE);
      expect(text).toContain('API_KEY');
      expect(text).toContain(REDACTED);
    }
  });

  it('keeps the real values available to the code that needs them', () => {
    const http = httpConfig().transport;
    expect(http.type === 'http' && http.bearerToken).toBe(BEARER);
    expect(http.type === 'http' && http.headers['X-Api-Key']).toBe(HEADER_VALUE);
    const stdio = stdioConfig().transport;
    expect(stdio.type === 'stdio' && stdio.env.API_KEY).toBe(ENV_VALUE);
  });

  it('omits the bearer token entirely when none is set', () => {
    const resolved = resolveServerConfig({ id: 'r', transport: HTTP });
    expect(redactedConfig(resolved).transport).toEqual({ type: 'http', url: HTTP.url, headers: {}, bearerToken: undefined, allowInsecureHttp: false });
  });

  it('never puts a secret in an error message, even when the secret is malformed', () => {
    const cases: { input: unknown; secret: string; field: string }[] = [
      { input: { id: 'r', transport: { ...HTTP, headers: { 'X-Api-Key': 'line-secret-9\nInjected: 1' } } }, secret: 'line-secret-9', field: 'transport.headers.X-Api-Key' },
      { input: { id: 'r', transport: { ...HTTP, headers: { 'X-Api-Key': 'nul-secret-9\u0000' } } }, secret: 'nul-secret-9', field: 'transport.headers.X-Api-Key' },
      { input: { id: 'r', transport: { ...HTTP, bearerToken: 'tok-secret-9\r\nX: y' } }, secret: 'tok-secret-9', field: 'transport.bearerToken' },
      { input: { id: 'r', transport: { ...HTTP, bearerToken: 'tok-secret-8', headers: { Authorization: 'Bearer hdr-secret-8' } } }, secret: 'secret-8', field: 'transport.headers.Authorization' },
      { input: { id: 'r', transport: { ...HTTP, headers: { Host: 'host-secret-7' } } }, secret: 'host-secret-7', field: 'transport.headers.Host' },
      { input: { id: 'r', transport: { ...HTTP, headers: { 'X-Num': 123_456_789 } } }, secret: '123456789', field: 'transport.headers.X-Num' },
      { input: { id: 'r', transport: { ...HTTP, bearerToken: 987_654_321 } }, secret: '987654321', field: 'transport.bearerToken' },
      { input: { id: 'l', transport: { ...STDIO, env: { TOKEN: 555_666_777 } } }, secret: '555666777', field: 'transport.env.TOKEN' },
      { input: { id: 'l', transport: { ...STDIO, env: { TOKEN: 'env-secret-6' } }, lifecycle: 'bad' }, secret: 'env-secret-6', field: 'lifecycle' },
      { input: { id: 'r', transport: { ...HTTP, url: 'http://example.com/mcp', bearerToken: 'tok-secret-5', headers: { 'X-K': 'hdr-secret-5' } } }, secret: 'secret-5', field: 'transport.url' },
    ];
    for (const { input, secret, field } of cases) {
      const error = configError(input);
      expect(error.field).toBe(field);
      expect(error.message).not.toContain(secret);
      expect(inspect(error)).not.toContain(secret);
      expect(JSON.stringify(error)).not.toContain(secret);
    }
  });
});
