/**
 * `--expose discovery`: a client is offered the discovery helpers (`tools_groups`,
 * `tools_search`, `tools_select`) instead of every tool, the same helpers and budgets a
 * `ToolSession` gives a model, over the view's published tools and names.
 *
 * A connection (a 2025 session, stdio) keeps a `ToolSession`: what the helpers return
 * joins that connection's `tools/list`, and the client is told with `list_changed`. A
 * 2026-07-28 HTTP request has no connection to keep a selection on, so a 2026-07-28
 * client is also offered `tools_call`, which calls any tool of the view by name; and a
 * tool the helpers returned may be called by its own name in either era, listed or not.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import type { Server } from '@modelcontextprotocol/server';
import { discoveryTools, type DiscoveryCatalog } from '../core/discovery.js';
import type { ToolGroup } from '../core/group.js';
import { ToolSession } from '../core/session.js';
import type { StaticTool, ToolDefinition, ToolOutput } from '../core/tool.js';
import type { McpGatewayUpstream } from './upstream.js';
import type { GatewayView } from './view.js';

export const TOOLS_CALL = 'tools_call';

const TOOLS_CALL_TOOL: Tool = {
  name: TOOLS_CALL,
  description:
    'Call a tool found with tools_search or tools_select, by its exact name, with its arguments as that tool\'s schema describes them.',
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The exact tool name.' },
      arguments: { type: 'object', description: 'The arguments of the tool.' },
    },
    required: ['name'],
  },
};

/** A `tools_call` request's target, or why it cannot be called. */
export function unwrapToolsCall(args: Record<string, unknown>): { name: string; arguments: Record<string, unknown> } | { error: string } {
  const name = args.name;
  const inner = args.arguments ?? {};
  if (typeof name !== 'string' || name.trim() === '') return { error: 'tools_call needs `name`, the exact name of the tool to call.' };
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return { error: 'tools_call: `arguments` must be an object.' };
  return { name: name.trim(), arguments: inner as Record<string, unknown> };
}

function asMcpTool(definition: ToolDefinition): Tool {
  return { name: definition.name, description: definition.description, inputSchema: definition.parameters as Tool['inputSchema'] };
}

function asCallToolResult(output: ToolOutput): CallToolResult {
  const parts = output.modelOutput?.parts ?? [];
  const text = parts.length === 0 ? JSON.stringify(output.output) : parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
  return { content: [{ type: 'text', text }], ...(output.isError ? { isError: true } : { structuredContent: output.output }) };
}

export class GatewayDiscovery {
  private readonly helpers: Map<string, StaticTool>;
  private readonly sessions = new WeakMap<Server, ToolSession>();

  constructor(
    private readonly view: GatewayView,
    private readonly upstream: McpGatewayUpstream,
  ) {
    const catalog: DiscoveryCatalog = {
      definitions: () => this.definitions(),
      groups: () => this.groups(),
      searchFields: (name) => {
        const route = this.view.toolRoute(name);
        return route === undefined ? undefined : this.upstream.searchFields?.(route.fleetName);
      },
    };
    this.helpers = new Map(discoveryTools(catalog).map((tool) => [tool.definition.name, tool]));
  }

  isHelper(name: string): boolean {
    return this.helpers.has(name);
  }

  /**
   * What `tools/list` returns: the helpers, the connection's selection, and `tools_call`
   * for a 2026-07-28 client (over HTTP it has no connection to keep a selection on; on
   * stdio it hears list changes only if it listens for them).
   */
  list(server: Server, persistent: boolean, modern: boolean): Tool[] {
    const helpers = [...this.helpers.values()].map((helper) => asMcpTool(helper.definition));
    const call = modern ? [TOOLS_CALL_TOOL] : [];
    if (!persistent) return [...helpers, ...call];
    const published = new Map(this.view.tools().map((tool) => [tool.name, tool]));
    const selected = this.session(server)
      .definitions()
      .map((definition) => published.get(definition.name))
      .filter((tool) => tool !== undefined);
    return [...helpers, ...call, ...selected];
  }

  /**
   * Runs a helper. On a connection, what it returns joins the connection's list;
   * `changed` says whether the list did change (the client is then told).
   */
  async call(server: Server, persistent: boolean, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<{ result: CallToolResult; changed: boolean }> {
    if (!persistent) return { result: asCallToolResult(await this.helpers.get(name)!.call(args, { signal })), changed: false };
    const session = this.session(server);
    const before = session.discovered().join('\n');
    const output = await session.call(name, args, { signal });
    return { result: asCallToolResult(output), changed: session.discovered().join('\n') !== before };
  }

  private session(server: Server): ToolSession {
    let session = this.sessions.get(server);
    if (session === undefined) {
      session = new ToolSession({
        definitions: () => [...[...this.helpers.values()].map((helper) => helper.definition), ...this.definitions()],
        call: async (name, args, options) => this.helpers.get(name)!.call((args ?? {}) as Record<string, unknown>, options ?? {}),
      });
      this.sessions.set(server, session);
    }
    return session;
  }

  /** The view's tools as the helpers describe them. */
  private definitions(): ToolDefinition[] {
    return this.view.tools().map((tool) => ({ name: tool.name, description: tool.description ?? tool.title ?? '', parameters: tool.inputSchema }));
  }

  /** The fleet's groups under published names (one per server when the upstream has none). */
  private groups(): ToolGroup[] {
    const tools = this.view.tools();
    const published = new Map<string, string>();
    const byServer = new Map<string, string[]>();
    for (const tool of tools) {
      const route = this.view.toolRoute(tool.name)!;
      published.set(route.fleetName, tool.name);
      const members = byServer.get(route.serverId) ?? [];
      members.push(tool.name);
      byServer.set(route.serverId, members);
    }
    const fleetGroups = this.upstream.groups?.();
    if (fleetGroups !== undefined) {
      return fleetGroups
        .map((group) => ({ ...group, members: group.members.map((member) => published.get(member)).filter((member) => member !== undefined) }))
        .filter((group) => group.members.length > 0);
    }
    return [...byServer].map(([serverId, members]) => ({ id: `mcp:${serverId}`, title: serverId, description: `The tools of the MCP server "${serverId}".`, members }));
  }
}
