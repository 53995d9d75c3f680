/**
 * The leanest peer, `@ai-sdk/mcp` (the Vercel AI SDK's own MCP client, which does not use
 * the official SDK), set up the way each scenario sets up mcp-fleet and the raw SDK.
 *
 * Eras: 2.0.99 speaks both. With `protocolVersionDiscovery` (its default) it probes with
 * `server/discover` and stays on 2026-07-28 when the server answers; without it, it sends
 * `initialize` for 2025-11-25 and nothing else. So `modern` = discovery on, `legacy` = off,
 * and `auto` (cold start against a legacy server) = its default, probe then fall back.
 *
 * Calls go through `client.callTool({ name, arguments })`: the exported method closest to a
 * plain `tools/call`. `(await client.tools()).echo.execute(...)` wraps the same method
 * (an abort check, then the result as is when no output schema is given), so it would add
 * one closure, not a different path.
 */
import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import type { Closers, Era, Side } from './call-latency.js';
import { elapsedMs } from './util.js';

export type AiSdkMode = Era | 'auto';

/** A stdio server to spawn, or a Streamable HTTP URL. */
export type AiSdkTarget = { command: string; args: string[]; env: Record<string, string> } | { url: string };

export async function aiSdkClient(mode: AiSdkMode, target: AiSdkTarget): Promise<MCPClient> {
  return createMCPClient({
    clientName: 'bench-ai-sdk',
    transport: 'url' in target ? { type: 'http', url: target.url } : new StdioMCPTransport({ ...target, stderr: 'ignore' }),
    protocolVersionDiscovery: mode !== 'legacy',
  });
}

/** A call-latency side: connect, list the tools once (like the other sides), then `callTool`. */
export async function aiSdkSide(era: Era, target: AiSdkTarget, args: Record<string, unknown>, closers: Closers): Promise<Side> {
  const start = process.hrtime.bigint();
  const client = await aiSdkClient(era, target);
  closers.push(() => client.close());
  const { tools } = await client.listTools();
  if (!tools.some((tool) => tool.name === 'echo')) throw new Error('@ai-sdk/mcp: the fixture lists no echo tool');
  const setupMs = elapsedMs(start);
  return {
    setupMs,
    protocolVersion: client.initializeResult.protocolVersion,
    call: async () => {
      const result = await client.callTool({ name: 'echo', arguments: args });
      if (result.isError === true) throw new Error('@ai-sdk/mcp: echo returned an error');
    },
  };
}
