/**
 * Unit tests of the route table's ordering: definitions and group members stay sorted by
 * model-facing name whether a publication sorts afresh or reuses the previous order.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { InMemoryMcpCredentialStore, silentLogger } from '../src/index.js';
import { resolveServerConfig } from '../src/mcp/config/config.js';
import { TOOL_PREFIX } from '../src/mcp/catalog/naming.js';
import { ServerRegistration } from '../src/mcp/registration.js';
import { RouteTable } from '../src/mcp/catalog/routes.js';

const tools = (...names: string[]): Tool[] => names.map((name) => ({ name, inputSchema: { type: 'object' } }));

function setup(): { table: RouteTable; registration: ServerRegistration } {
  const config = resolveServerConfig({ id: 'srv', transport: { type: 'stdio', command: 'node' } });
  return { table: new RouteTable(TOOL_PREFIX, silentLogger), registration: new ServerRegistration(config, silentLogger, new InMemoryMcpCredentialStore()) };
}

const published = (table: RouteTable): { definitions: string[]; members: string[] } => ({
  definitions: table.definitions().map((definition) => definition.name),
  members: table.groups()[0]?.members ?? [],
});

describe('RouteTable order', () => {
  it('sorts a first publication by model-facing name, whatever the list order', () => {
    const { table, registration } = setup();
    table.publish(registration, tools('zeta', 'Alpha', 'mid'), undefined);
    const expected = ['mcp_srv_alpha', 'mcp_srv_mid', 'mcp_srv_zeta'];
    expect(published(table)).toEqual({ definitions: expected, members: expected });
  });

  it('keeps the order when a refresh lists the same tools in another order', () => {
    const { table, registration } = setup();
    table.publish(registration, tools('b', 'a', 'c'), undefined);
    table.publish(registration, tools('c', 'b', 'a'), undefined);
    const expected = ['mcp_srv_a', 'mcp_srv_b', 'mcp_srv_c'];
    expect(published(table)).toEqual({ definitions: expected, members: expected });
  });

  it('sorts again when a refresh swaps one tool for another (same count, other names)', () => {
    const { table, registration } = setup();
    table.publish(registration, tools('b', 'd'), undefined);
    table.publish(registration, tools('d', 'a'), undefined);
    const expected = ['mcp_srv_a', 'mcp_srv_d'];
    expect(published(table)).toEqual({ definitions: expected, members: expected });
    expect(table.has('mcp_srv_b')).toBe(false);
    expect(table.get('mcp_srv_a')?.remoteName).toBe('a');
  });
});
