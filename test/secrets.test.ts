import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type McpLogger, McpToolProvider, type McpServerConfig, ToolHost } from '../src/index.js';
import { resolveServerConfig } from '../src/mcp/config/config.js';
import { redactSecrets } from '../src/mcp/config/redaction.js';
import { type HttpFixture, startHttpFixture, stdioFixture } from './helpers.js';

const SECRETS = {
  env: 'env-secret-7f3a9c',
  long: 'long-env-secret-0123456789abcdef0123',
  header: 'header-secret-51be0d',
  bearer: 'bearer-secret-c0ffee',
  query: 'query-secret-9d2e11',
};

/** Every line written to it, with its fields, as text. */
function capturingLogger(): { logger: McpLogger; lines: string[] } {
  const lines: string[] = [];
  const write = (level: string) => (fields: Record<string, unknown>, message: string) => {
    lines.push(`${level} ${message} ${JSON.stringify(fields)} ${inspect(fields, { depth: null })}`);
  };
  return { logger: { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') }, lines };
}

function expectNoSecret(text: string, where: string): void {
  for (const [kind, secret] of Object.entries(SECRETS)) {
    expect(text.includes(secret), `the ${kind} secret appears in ${where}`).toBe(false);
  }
  // A cut through the long secret must not leave its end behind either.
  expect(text.includes(SECRETS.long.slice(-16)), `the end of the long secret appears in ${where}`).toBe(false);
}

/** A stdio transport running `script` with `apiKey` as its API_KEY. */
function scriptServer(script: string, apiKey: string) {
  return { type: 'stdio' as const, command: process.execPath, args: ['-e', script], env: { API_KEY: apiKey } };
}

/**
 * A 2025-era stdio server (hand-rolled JSON-RPC) whose tools/list fails with an error
 * that quotes its API_KEY: a server echoing a secret back in a protocol error.
 */
const ECHOING_SERVER = `
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, method } = JSON.parse(line);
  if (id === undefined) return;
  if (method === 'initialize') return send({ id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'echoing', version: '1' } } });
  send({ id, error: { code: -32603, message: 'upstream refused key ' + process.env.API_KEY } });
});`;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

describe('secrets', () => {
  it('never appear in errors, log lines, statuses or inspected objects', async () => {
    const server: HttpFixture = await startHttpFixture('hostile-http.mjs');
    cleanups.push(() => server.close());
    const { logger, lines } = capturingLogger();
    const servers: McpServerConfig[] = [
      // A working stdio server that receives a secret in its environment.
      stdioFixture('works', 'hostile-stdio.mjs', { args: ['env'], env: { API_KEY: SECRETS.env } }),
      // A stdio server that prints its secret to stderr and dies; its stderr is logged too.
      { id: 'leaky', transport: { ...scriptServer('console.error("my key is " + process.env.API_KEY); process.exit(1)', SECRETS.env), logStderr: true } },
      // One whose stderr ends so that the error's 1,000-character excerpt would start inside the secret.
      { id: 'cut', transport: scriptServer('console.error("key " + process.env.API_KEY + "z".repeat(983)); process.exit(1)', SECRETS.long) },
      // One that quotes its secret in a tools/list error.
      { id: 'echoing', lifecycle: 'initialize', transport: scriptServer(ECHOING_SERVER, SECRETS.env) },
      // An HTTP server whose endpoint redirects; the request carried every kind of secret.
      {
        id: 'remote',
        transport: {
          type: 'http',
          url: `${server.url}/redirect-cross?key=${SECRETS.query}`,
          headers: { 'X-Api-Key': SECRETS.header },
          bearerToken: SECRETS.bearer,
        },
      },
    ];
    const provider = new McpToolProvider({ servers, logger });
    const host = new ToolHost({ providers: [provider] });
    cleanups.push(() => host.close());
    await host.init();

    const failures: unknown[] = [];
    await provider.refresh().catch((error: unknown) => failures.push(error));
    await provider.addServer({ ...servers[1]!, id: 'leaky2' }).catch((error: unknown) => failures.push(error));
    // The error init() throws for a required server that echoes its secret.
    const strict = new McpToolProvider({ servers: [{ ...servers[3]!, required: true }], logger });
    cleanups.push(() => strict.close());
    await strict.init().catch((error: unknown) => failures.push(error));
    expect(failures).toHaveLength(3);
    const call = await host.call('mcp_works_echo', { text: 'hello' });
    expect(call.isError).toBe(false);

    const statuses = provider.serverStatuses();
    expect(statuses.find((status) => status.id === 'leaky')?.stderrTail).toContain('my key is [REDACTED]');
    // The server's own lines were logged, scrubbed.
    expect(lines.some((line) => line.includes('my key is [REDACTED]'))).toBe(true);
    expect(statuses.find((status) => status.id === 'echoing')?.lastError).toContain('upstream refused key [REDACTED]');
    for (const failure of failures) {
      expectNoSecret(inspect(failure, { depth: null }), 'an inspected error');
      expectNoSecret(String((failure as Error).message), 'an error message');
      expectNoSecret(JSON.stringify(failure), 'a serialised error');
    }
    expect(lines.length).toBeGreaterThan(0);
    lines.forEach((line) => expectNoSecret(line, 'a log line'));
    expectNoSecret(JSON.stringify(statuses), 'the statuses');
    expectNoSecret(inspect(statuses, { depth: null }), 'the inspected statuses');
    for (const id of provider.serverIds()) {
      expectNoSecret(JSON.stringify(provider.serverConfig(id)), `the configuration of ${id}`);
    }
    expectNoSecret(inspect(provider, { depth: null }), 'the inspected provider');
    expectNoSecret(inspect(host, { depth: null }), 'the inspected host');
    expectNoSecret(JSON.stringify(provider), 'the serialised provider');
    expectNoSecret(JSON.stringify(call), 'a call result');
  });
});

describe('redactSecrets', () => {
  it('scrubs the credentials of a "<scheme> <credentials>" header even when a server echoes them alone', () => {
    const config = resolveServerConfig({
      id: 'remote',
      transport: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer sk-live-0123456789' } },
    });
    expect(redactSecrets('token sk-live-0123456789 was revoked; sent "Bearer sk-live-0123456789"', config)).toBe(
      'token [REDACTED] was revoked; sent "[REDACTED]"',
    );
    // The scheme alone is not a secret.
    expect(redactSecrets('use a Bearer token', config)).toBe('use a Bearer token');
  });
});
