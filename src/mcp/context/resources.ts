/**
 * Resources, for servers that opt in (`resources: true`): listing, templates, reading
 * and update subscriptions, on the server's session, with its budgets and deadlines.
 * They never become model tools, and returned URIs are never fetched by the library
 * (not from the filesystem, not from another origin): the application decides.
 */
import type { ReadResourceResult, Resource, ResourceTemplateType as ResourceTemplate } from '@modelcontextprotocol/client';
import { McpFleetError } from '../errors.js';
import type { McpResourceListener, ServerRegistration } from '../registration.js';
import { type McpRelayOptions, relayRequestOptions, relayParams } from '../calls/relay.js';
import { checkUri, listAll, type McpRequestOptions, McpOperationError, onSession } from './server-operations.js';

export type { McpResourceListener } from '../registration.js';

function requireResources(registration: ServerRegistration): void {
  if (!registration.config.resources) {
    throw new McpFleetError('resources_disabled', `MCP server "${registration.id}" does not allow resources; set \`resources: true\` in its configuration.`, {
      serverId: registration.id,
    });
  }
}

function listingTimeout(registration: ServerRegistration): number {
  return registration.config.timeouts.setupMs + registration.config.timeouts.listMs;
}

export async function listResources(registration: ServerRegistration, options: McpRequestOptions): Promise<Resource[]> {
  requireResources(registration);
  return onSession(registration, 'resources/list', listingTimeout(registration), options, async (session, signal) =>
    session.capabilities.resources === undefined ? [] : listAll<Resource>(registration, session, 'resources/list', 'resources', signal),
  );
}

export async function listResourceTemplates(registration: ServerRegistration, options: McpRequestOptions): Promise<ResourceTemplate[]> {
  requireResources(registration);
  return onSession(registration, 'resources/templates/list', listingTimeout(registration), options, async (session, signal) =>
    session.capabilities.resources === undefined
      ? []
      : listAll<ResourceTemplate>(registration, session, 'resources/templates/list', 'resourceTemplates', signal),
  );
}

export async function readResource(registration: ServerRegistration, uri: string, options: McpRequestOptions & McpRelayOptions): Promise<ReadResourceResult> {
  requireResources(registration);
  checkUri(registration, uri, 'resources/read');
  const { timeouts } = registration.config;
  return onSession(registration, `resources/read ${uri}`, timeouts.callMs, options, (session, signal) =>
    session.client.readResource({ uri, ...relayParams(options) }, { signal, timeout: timeouts.requestMs, cacheMode: 'bypass', ...relayRequestOptions(options) }),
  );
}

/**
 * Subscribes `listener` to updates of `uri`. The server is asked once per URI
 * (`resources/subscribe` on 2025 revisions, a `subscriptions/listen` stream on
 * 2026-07-28) and again after every reconnection. Resolves once the server accepted.
 */
export async function subscribeResource(
  registration: ServerRegistration,
  uri: string,
  listener: McpResourceListener,
  options: McpRequestOptions,
): Promise<void> {
  requireResources(registration);
  checkUri(registration, uri, 'resources/subscribe');
  options.signal?.throwIfAborted();
  const first = registration.resourceListeners?.has(uri) !== true;
  if (first) {
    await onSession(registration, `resources/subscribe ${uri}`, registration.config.timeouts.requestMs, options, (session, signal) =>
      session.subscribeResource(uri, registration.resourceWatch(uri), signal),
    );
  }
  const all = (registration.resourceListeners ??= new Map<string, Set<McpResourceListener>>());
  let listeners = all.get(uri);
  if (listeners === undefined) {
    listeners = new Set();
    all.set(uri, listeners);
  }
  listeners.add(listener);
}

/**
 * Removes `listener` (or every listener of `uri`); the server is told once nobody
 * listens any more. Returns whether anything was subscribed.
 */
export async function unsubscribeResource(
  registration: ServerRegistration,
  uri: string,
  listener: McpResourceListener | undefined,
  options: McpRequestOptions,
): Promise<boolean> {
  const listeners = registration.resourceListeners?.get(uri);
  if (listeners === undefined) return false;
  if (listener !== undefined && !listeners.delete(listener)) return false;
  if (listener === undefined) listeners.clear();
  if (listeners.size > 0) return true;
  registration.resourceListeners?.delete(uri);
  const session = registration.liveSession();
  if (session !== undefined) {
    await onSession(registration, `resources/unsubscribe ${uri}`, registration.config.timeouts.requestMs, options, (live) =>
      live.unsubscribeResource(uri),
    ).catch((error: unknown) => {
      if (!(error instanceof McpOperationError)) throw error;
      registration.logger.debug({ serverId: registration.id, uri }, 'resources/unsubscribe failed; the subscription is dropped anyway');
    });
  }
  return true;
}
