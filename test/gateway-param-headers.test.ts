/**
 * SEP-2243 through `mcp-fleet serve --http`: a tool whose argument is declared with
 * `x-mcp-header` is called by a 2026-07-28 client that mirrors it into `Mcp-Param-<Name>`.
 * The gateway refuses a call whose header and argument disagree (or whose header is
 * missing, or not canonical Base64) with -32020, and the server never sees it.
 */
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { observationLog, observed, tempDir } from './helpers.js';
import { cleanUp, JSON_HEADERS, modernClient, raw, rawCall, serve, stdioServer, textOf, writeConfig } from './gateway-helpers.js';

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const MODERN_HEADERS = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'route' };

afterEach(cleanUp);

const ROUTE = {
  name: 'route',
  description: 'Routes by region',
  inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, note: { type: 'string' } } },
};

test('a call whose Mcp-Param header disagrees with its argument is refused with -32020 before it reaches the server; a matching one, and the SDK client, pass', async () => {
  const log = observationLog();
  const config = join(tempDir(), 'mcp.json');
  writeConfig(config, { regions: stdioServer('catalog-server.mjs', { FIXTURE_TOOLS: JSON.stringify([ROUTE]), FIXTURE_LOG: log }) });
  const gateway = await serve(config, ['--no-watch']);
  const call = (headers: Record<string, string>) => rawCall(gateway.url, { name: 'route', arguments: { region: 'eu-west', note: 'x' } }, headers);

  expect(textOf(await call({ 'mcp-param-region': 'eu-west' }))).toContain('"region":"eu-west"');
  expect(textOf(await call({ 'mcp-param-region': `=?base64?${Buffer.from('eu-west').toString('base64')}?=` }))).toContain('"region":"eu-west"');
  const wrong: Record<string, string>[] = [{ 'mcp-param-region': 'us-east' }, {}, { 'mcp-param-region': '=?base64?ZXUt!!!d2VzdA==?=' }];
  for (const headers of wrong) {
    const refused = (await call(headers)) as { error?: { code: number; message: string } };
    expect(refused.error?.code, JSON.stringify(headers)).toBe(-32020);
    expect(refused.error?.message).toContain('Mcp-Param-Region');
  }
  // SEP-2243: the refusal is an HTTP 400, answered before dispatch, carrying the request's id.
  const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'route', arguments: { region: 'eu-west' }, _meta: MODERN_META } });
  const answer = await raw(gateway.url, { headers: { ...JSON_HEADERS, ...MODERN_HEADERS, 'mcp-param-region': 'us-east' }, body });
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.body)).toMatchObject({ id: 7, error: { code: -32020, data: { mismatch: { header: 'Mcp-Param-Region' } } } });
  expect(observed(log).filter((entry) => entry.event === 'call-start')).toHaveLength(2);

  // The SDK's own client mirrors the argument itself.
  const client = await modernClient(gateway.url);
  expect(textOf(await client.callTool({ name: 'route', arguments: { region: 'ap-south' } }))).toContain('"region":"ap-south"');
});
