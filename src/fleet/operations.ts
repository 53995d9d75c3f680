/**
 * The provider's per-server operations (resources, prompts, completion, events,
 * application tool calls, OAuth), offered by the fleet on the servers the provider holds for it. The
 * provider does the work; this only refuses, with a fleet-level message (a rejection, as
 * every failure of these methods is), a server that is not up.
 */
import type { McpRelayOptions, McpServerCallOptions } from '../mcp/calls/relay.js';
import { EventEmitter } from 'node:events';
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplateType as ResourceTemplate } from '@modelcontextprotocol/client';
import type { McpCompletion, McpCompletionReference } from '../mcp/context/prompts.js';
import type { McpOperationOptions, McpToolOrigin, McpToolProvider } from '../mcp/provider.js';
import type { McpResourceListener } from '../mcp/context/resources.js';
import type { McpEventSink, McpEventSubscription, McpEventSubscriptionRequest, McpEventType, McpWebhookSubscription, McpWebhookSubscriptionRequest } from '../mcp/context/events/types.js';
import type { McpWebhookTarget } from '../mcp/context/events/webhook.js';
import type { McpServerManagerEvents } from './status.js';

export abstract class FleetOperations extends EventEmitter<McpServerManagerEvents> {
  protected abstract readonly provider: McpToolProvider;

  /** `serverId`, once checked to be a server the provider holds; throws a fleet error otherwise. */
  protected abstract held(serverId: string): string;

  /** Where a model-facing tool comes from: its server, remote name and MCP tool. */
  toolOrigin(name: string): McpToolOrigin | undefined {
    return this.provider.toolOrigin(name);
  }

  /** The model-facing name of a server's tool, if it is published. */
  toolName(serverId: string, remoteName: string): string | undefined {
    return this.provider.toolName(serverId, remoteName);
  }

  /** Lists a server's tools again and publishes what changed. */
  async refreshServer(serverId: string, options?: McpOperationOptions): Promise<void> {
    return this.provider.refreshServer(this.held(serverId), options);
  }

  /** The resources a server lists (needs `resources: true`). */
  async listResources(serverId: string, options?: McpOperationOptions): Promise<Resource[]> {
    return this.provider.listResources(this.held(serverId), options);
  }

  /** The resource templates a server lists (needs `resources: true`). */
  async listResourceTemplates(serverId: string, options?: McpOperationOptions): Promise<ResourceTemplate[]> {
    return this.provider.listResourceTemplates(this.held(serverId), options);
  }

  /** Reads a resource by URI (needs `resources: true`). */
  async readResource(serverId: string, uri: string, options?: McpOperationOptions & McpRelayOptions): Promise<ReadResourceResult> {
    return this.provider.readResource(this.held(serverId), uri, options);
  }

  /** Calls `listener(uri)` when the resource changes; kept across supervised restarts, ended when the server is stopped. */
  async subscribeResource(serverId: string, uri: string, listener: McpResourceListener, options?: McpOperationOptions): Promise<void> {
    return this.provider.subscribeResource(this.held(serverId), uri, listener, options);
  }

  /** Removes `listener`, or every listener of `uri`. */
  async unsubscribeResource(serverId: string, uri: string, listener?: McpResourceListener, options?: McpOperationOptions): Promise<boolean> {
    return this.provider.unsubscribeResource(this.held(serverId), uri, listener, options);
  }

  /** The prompts a server offers. */
  async listPrompts(serverId: string, options?: McpOperationOptions): Promise<Prompt[]> {
    return this.provider.listPrompts(this.held(serverId), options);
  }

  /** A prompt with its arguments filled in. */
  async getPrompt(serverId: string, name: string, args?: Record<string, string>, options?: McpOperationOptions & McpRelayOptions): Promise<GetPromptResult> {
    return this.provider.getPrompt(this.held(serverId), name, args, options);
  }

  /** Completion values for a prompt or resource template argument. */
  async complete(
    serverId: string,
    ref: McpCompletionReference,
    argument: { name: string; value: string },
    options?: McpOperationOptions & { context?: Record<string, string> },
  ): Promise<McpCompletion> {
    return this.provider.complete(this.held(serverId), ref, argument, options);
  }

  /** Calls a server's tool by its remote name for the application (see `McpToolProvider.callServerTool`). */
  async callServerTool(serverId: string, remoteName: string, args?: Record<string, unknown>, options?: McpServerCallOptions): Promise<CallToolResult> {
    return this.provider.callServerTool(this.held(serverId), remoteName, args, options);
  }

  /** The event types a server publishes (MCP Events), or `null` when it does not implement the extension. */
  async listEvents(serverId: string, options?: McpOperationOptions): Promise<McpEventType[] | null> {
    return this.provider.listEvents(this.held(serverId), options);
  }

  /** A poll subscription to an event type (see `McpToolProvider.subscribeEvents`); it ends when the server is stopped or removed. */
  subscribeEvents(serverId: string, request: McpEventSubscriptionRequest, sink: McpEventSink): McpEventSubscription {
    return this.provider.subscribeEvents(this.held(serverId), request, sink);
  }

  /** Webhook delivery of an event type, renewed until `unsubscribeWebhook` (see `McpToolProvider.subscribeWebhook`). */
  async subscribeWebhook(serverId: string, request: McpWebhookSubscriptionRequest, options?: McpOperationOptions): Promise<McpWebhookSubscription> {
    return this.provider.subscribeWebhook(this.held(serverId), request, options);
  }

  /** Ends a webhook subscription. */
  async unsubscribeWebhook(serverId: string, target: McpWebhookTarget, options?: McpOperationOptions): Promise<void> {
    return this.provider.unsubscribeWebhook(this.held(serverId), target, options);
  }

  /** The OAuth URL of a server that needs authorization (it stays held after failing to start for that reason). */
  async beginAuthorization(serverId: string, options?: { scopes?: string[] }): Promise<string> {
    return this.provider.beginAuthorization(this.held(serverId), options);
  }

  /** Forgets a pending interactive authorization. */
  cancelAuthorization(serverId: string): boolean {
    return this.provider.cancelAuthorization(this.held(serverId));
  }

  /** Signs the server out: deletes its stored grant. */
  async clearCredentials(serverId: string): Promise<void> {
    return this.provider.clearCredentials(this.held(serverId));
  }
}
