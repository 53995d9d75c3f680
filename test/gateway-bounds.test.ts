/**
 * The gateway's bound on tool calls in flight, through the library (`McpGateway` on
 * `serveGatewayHttp`): one call past `maxCallsInFlight` is answered at once with a
 * tool-level error saying so, without reaching the server, and the calls in flight finish.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { McpServerManager } from '../src/fleet/manager.js';
import { parseMcpConfig } from '../src/fleet/config-file.js';
import { McpGateway } from '../src/gateway/gateway.js';
import { serveGatewayHttp } from '../src/gateway/serve-http.js';
import { observationLog, observed, tempDir } from './helpers.js';
import { cleanUp, onCleanUp, stdioServer, textOf, v1Client } from './gateway-helpers.js';

afterEach(cleanUp);

test('a call past maxCallsInFlight is refused as a tool-level error without reaching the server, and the calls in flight finish', async () => {
  const gate = join(tempDir(), 'open');
  const log = observationLog();
  const tools = [{ name: 'wait', description: 'Waits for the gate', inputSchema: { type: 'object' }, _fixture: { gate } }];
  const file = parseMcpConfig(JSON.stringify({ mcpServers: { slow: stdioServer('catalog-server.mjs', { FIXTURE_TOOLS: JSON.stringify(tools), FIXTURE_LOG: log }) } }));
  const manager = new McpServerManager({ file });
  await manager.startAll();
  const gateway = new McpGateway(manager, { maxCallsInFlight: 2 });
  const http = await serveGatewayHttp(gateway, { port: 0 });
  onCleanUp(async () => {
    await http.close();
    await gateway.close();
    await manager.close();
  });
  const client = await v1Client(http.url);
  const running = [client.callTool({ name: 'wait', arguments: {} }), client.callTool({ name: 'wait', arguments: {} })];
  while (gateway.callsInFlight < 2) await new Promise((resolve) => setTimeout(resolve, 10));
  const refused = await client.callTool({ name: 'wait', arguments: {} });
  expect(refused.isError).toBe(true);
  expect(textOf(refused)).toContain('2 tool calls in flight, its limit; the tool did not run');
  writeFileSync(gate, '');
  for (const result of await Promise.all(running)) expect(result.isError).toBeFalsy();
  expect(observed(log).filter((entry) => entry.event === 'call-start')).toHaveLength(2);
});
