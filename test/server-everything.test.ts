import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { ENV_ALLOWLIST, McpToolProvider, type McpToolEnvelope, ToolHost } from '../src/index.js';

// The published reference server, run as a real child process.
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

let host: ToolHost | undefined;
afterEach(async () => host?.close());

async function startEverything(options: { inheritEnv?: boolean } = {}): Promise<{ host: ToolHost; provider: McpToolProvider }> {
  const provider = new McpToolProvider({
    servers: [
      { id: 'everything', transport: { type: 'stdio', command: process.execPath, args: [everything, 'stdio'], ...options } },
    ],
  });
  host = new ToolHost({ providers: [provider] });
  await host.init();
  return { host, provider };
}

describe('@modelcontextprotocol/server-everything over stdio', () => {
  it('publishes its tools as mcp_everything_* in the group mcp:everything, and echoes', async () => {
    const { host, provider } = await startEverything();
    const names = provider.definitions().map((definition) => definition.name);
    expect(names).toContain('mcp_everything_echo');
    expect(names).toContain('mcp_everything_get_sum');
    expect(names.every((name) => name.startsWith('mcp_everything_'))).toBe(true);
    const [group] = host.groups().filter((candidate) => candidate.id === 'mcp:everything');
    expect(group?.members).toEqual([...names].sort());
    expect(group?.instructions).toBeTruthy();

    const result = await host.call('mcp_everything_echo', { message: 'hello fleet' });
    expect(result.isError).toBe(false);
    const envelope = result.output as McpToolEnvelope;
    expect(envelope.server_id).toBe('everything');
    expect(envelope.tool).toBe('echo');
    expect(result.modelOutput?.parts).toEqual([{ type: 'text', text: 'Echo: hello fleet' }]);
  });

  it('shows the server none of the host environment outside the allowlist by default', async () => {
    process.env.MCP_FLEET_TEST_SECRET = 'do-not-leak-this';
    try {
      const { host } = await startEverything();
      const result = await host.call('mcp_everything_get_env', {});
      const text = (result.output as McpToolEnvelope).content.map((block) => ('text' in block ? block.text : '')).join('');
      const childEnv = JSON.parse(text) as Record<string, string>;
      expect(Object.keys(childEnv).every((key) => ENV_ALLOWLIST.includes(key))).toBe(true);
      expect(text).not.toContain('do-not-leak-this');
    } finally {
      delete process.env.MCP_FLEET_TEST_SECRET;
    }
  });

  it('passes the whole host environment with inheritEnv: true', async () => {
    process.env.MCP_FLEET_TEST_SECRET = 'visible-on-purpose';
    try {
      const { host } = await startEverything({ inheritEnv: true });
      const result = await host.call('mcp_everything_get_env', {});
      expect(JSON.stringify(result.output)).toContain('visible-on-purpose');
    } finally {
      delete process.env.MCP_FLEET_TEST_SECRET;
    }
  });
});
