/**
 * What the gateway needs of what it serves: `McpServerManager` (the fleet, the usual
 * case) and `McpToolProvider` both fit, so a gateway can front a supervised fleet or a
 * provider an application built itself.
 */
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplateType as ResourceTemplate } from '@modelcontextprotocol/client';
import type { ToolGroup } from '../core/group.js';
import type { ToolSearchFields } from '../core/search/fields.js';
import type { ToolDefinition } from '../core/tool.js';
import type { McpRelayOptions, McpServerCallOptions } from '../mcp/calls/relay.js';
import type { McpCompletion, McpCompletionReference } from '../mcp/context/prompts.js';
import type { McpResourceListener } from '../mcp/context/resources.js';
import type { McpOperationOptions, McpToolOrigin } from '../mcp/provider.js';

export interface McpGatewayUpstream {
  serverIds(): string[];
  definitions(): ToolDefinition[];
  toolOrigin(name: string): McpToolOrigin | undefined;
  /** The fleet's tool groups (one per server), by fleet names: the discovery helpers' directory. Default: one group per server id. */
  groups?(): ToolGroup[];
  /** What search knows of a tool beyond its definition, by fleet name. */
  searchFields?(name: string): ToolSearchFields | undefined;
  refreshServer?(serverId: string, options?: McpOperationOptions): Promise<void>;
  callServerTool(serverId: string, remoteName: string, args?: Record<string, unknown>, options?: McpServerCallOptions): Promise<CallToolResult>;
  listResources(serverId: string, options?: McpOperationOptions): Promise<Resource[]>;
  listResourceTemplates(serverId: string, options?: McpOperationOptions): Promise<ResourceTemplate[]>;
  readResource(serverId: string, uri: string, options?: McpOperationOptions & McpRelayOptions): Promise<ReadResourceResult>;
  subscribeResource(serverId: string, uri: string, listener: McpResourceListener, options?: McpOperationOptions): Promise<void>;
  unsubscribeResource(serverId: string, uri: string, listener?: McpResourceListener, options?: McpOperationOptions): Promise<boolean>;
  listPrompts(serverId: string, options?: McpOperationOptions): Promise<Prompt[]>;
  getPrompt(serverId: string, name: string, args?: Record<string, string>, options?: McpOperationOptions & McpRelayOptions): Promise<GetPromptResult>;
  complete(
    serverId: string,
    ref: McpCompletionReference,
    argument: { name: string; value: string },
    options?: McpOperationOptions & { context?: Record<string, string> },
  ): Promise<McpCompletion>;
}
