/**
 * What the gateway publishes: every server's tools, prompts, resources and resource
 * templates under names that never move (see `names.ts`), and the route back from a
 * published name or URI to its server. Tools come from the fleet's own catalog (listed,
 * budgeted, refreshed on `list_changed`); prompts and resources are listed from the
 * servers on demand and kept until a server announces a change or changes state.
 */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import { UriTemplate } from '@modelcontextprotocol/server';
import { errorMessage, McpFleetError } from '../mcp/errors.js';
import type { McpLogger } from '../mcp/logger.js';
import { type GatewayNaming, prefixedUri, PublishedNames } from './names.js';
import type { McpGatewayUpstream } from './upstream.js';

/** A published tool and where it goes. */
export interface ToolRoute {
  serverId: string;
  remoteName: string;
  /** Its name in the fleet's own catalog (what the fleet's groups and search know it by). */
  fleetName: string;
  /** The tool as its server listed it. */
  tool: Tool;
}

interface ServerListing {
  prompts?: Prompt[];
  resources?: Resource[];
  templates?: ResourceTemplate[];
}

/** Which servers a listing asks (a profile's); every one by default. */
export type ServerFilter = (serverId: string) => boolean;
const everyServer: ServerFilter = () => true;

/** Why a listing found nothing for a server: it offers none, or it is not allowed to (left out quietly). */
function quiet(error: unknown): boolean {
  return error instanceof McpFleetError && (error.code === 'resources_disabled' || error.code === 'server_not_running' || error.code === 'server_unavailable');
}

export class GatewayCatalog {
  private readonly toolNames: PublishedNames;
  private readonly promptNames: PublishedNames;
  private readonly uris: PublishedNames;
  private readonly listings = new Map<string, ServerListing>();
  private toolCache: { definitions: readonly unknown[]; tools: Tool[]; routes: Map<string, ToolRoute> } | undefined;

  constructor(
    private readonly upstream: McpGatewayUpstream,
    naming: GatewayNaming,
    private readonly logger: McpLogger,
  ) {
    this.toolNames = new PublishedNames(naming);
    this.promptNames = new PublishedNames(naming);
    // URIs pass untouched unless two servers claim one, whatever the tool naming.
    this.uris = new PublishedNames('auto', prefixedUri, () => true);
  }

  /** Every published tool, with its published name, in the fleet's order (server id, then name). */
  tools(): Tool[] {
    return this.published().tools;
  }

  /** Where a published tool name goes, if it is published now. */
  toolRoute(name: string): ToolRoute | undefined {
    return this.published().routes.get(name);
  }

  /** The fleet's catalog under published names, made again only when the fleet's definitions change (it keeps them as one array until then). */
  private published(): { tools: Tool[]; routes: Map<string, ToolRoute> } {
    const definitions = this.upstream.definitions();
    if (this.toolCache?.definitions === definitions) return this.toolCache;
    const tools: Tool[] = [];
    const routes = new Map<string, ToolRoute>();
    for (const definition of definitions) {
      const origin = this.upstream.toolOrigin(definition.name);
      if (origin === undefined) continue;
      const name = this.toolNames.nameOf(origin.serverId, origin.remoteName);
      tools.push({ ...origin.tool, name });
      routes.set(name, { serverId: origin.serverId, remoteName: origin.remoteName, fleetName: definition.name, tool: origin.tool });
    }
    this.toolCache = { definitions, tools, routes };
    return this.toolCache;
  }

  /** Forgets what was listed of a server's prompts or resources (it announced a change, or changed state). */
  invalidate(serverId: string, kind: 'prompts' | 'resources' | 'all' = 'all'): void {
    const listing = this.listings.get(serverId);
    if (listing === undefined) return;
    if (kind === 'all') this.listings.delete(serverId);
    else if (kind === 'prompts') delete listing.prompts;
    else {
      delete listing.resources;
      delete listing.templates;
    }
  }

  private listing(serverId: string): ServerListing {
    let listing = this.listings.get(serverId);
    if (listing === undefined) this.listings.set(serverId, (listing = {}));
    return listing;
  }

  /** Every server's list of one kind, concurrently; a server that cannot answer is left out (and logged). */
  private async gather<T>(key: keyof ServerListing, list: (serverId: string) => Promise<T[]>, reaches: ServerFilter): Promise<{ serverId: string; items: T[] }[]> {
    const serverIds = this.upstream.serverIds().filter(reaches);
    return Promise.all(
      serverIds.map(async (serverId) => {
        const cached = this.listings.get(serverId)?.[key] as T[] | undefined;
        if (cached !== undefined) return { serverId, items: cached };
        try {
          const items = await list(serverId);
          (this.listing(serverId) as Record<string, unknown>)[key] = items;
          return { serverId, items };
        } catch (error) {
          if (!quiet(error)) this.logger.warn({ serverId, error: errorMessage(error) }, `gateway: listing ${key} failed; left out`);
          return { serverId, items: [] };
        }
      }),
    );
  }

  async prompts(signal: AbortSignal, reaches: ServerFilter = everyServer): Promise<Prompt[]> {
    const lists = await this.gather('prompts', (serverId) => this.upstream.listPrompts(serverId, { signal }), reaches);
    return lists.flatMap(({ serverId, items }) => items.map((prompt) => ({ ...prompt, name: this.promptNames.nameOf(serverId, prompt.name) })));
  }

  promptRoute(name: string): { serverId: string; name: string } | undefined {
    return this.promptNames.ownerOf(name);
  }

  async resources(signal: AbortSignal, reaches: ServerFilter = everyServer): Promise<Resource[]> {
    const lists = await this.gather('resources', (serverId) => this.upstream.listResources(serverId, { signal }), reaches);
    return lists.flatMap(({ serverId, items }) => items.map((resource) => ({ ...resource, uri: this.uris.nameOf(serverId, resource.uri) })));
  }

  async templates(signal: AbortSignal, reaches: ServerFilter = everyServer): Promise<ResourceTemplate[]> {
    const lists = await this.gather('templates', (serverId) => this.upstream.listResourceTemplates(serverId, { signal }), reaches);
    return lists.flatMap(({ items }) => items);
  }

  /** The server that lists a resource template (to complete its arguments). */
  async templateOwner(uriTemplate: string, signal: AbortSignal, reaches: ServerFilter = everyServer): Promise<{ serverId: string } | undefined> {
    const templates = await this.gather('templates', (serverId) => this.upstream.listResourceTemplates(serverId, { signal }), reaches);
    const owner = templates.find(({ items }) => items.some((template) => template.uriTemplate === uriTemplate));
    return owner === undefined ? undefined : { serverId: owner.serverId };
  }

  /**
   * The server a URI belongs to, and the URI as that server knows it: a URI it listed, then
   * one its templates match, then the only server with resources at all.
   */
  async resourceRoute(uri: string, signal: AbortSignal, reaches: ServerFilter = everyServer): Promise<{ serverId: string; uri: string } | undefined> {
    const listed = this.uris.ownerOf(uri);
    if (listed !== undefined) return reaches(listed.serverId) ? { serverId: listed.serverId, uri: listed.name } : undefined;
    const templates = await this.gather('templates', (serverId) => this.upstream.listResourceTemplates(serverId, { signal }), reaches);
    for (const { serverId, items } of templates) {
      if (items.some((template) => new UriTemplate(template.uriTemplate).match(uri) !== null)) return { serverId, uri };
    }
    // A URI nobody listed: the one server that offers resources at all may still know it.
    const resources = await this.gather('resources', (serverId) => this.upstream.listResources(serverId, { signal }), reaches);
    const offering = new Set([...resources, ...templates].filter(({ items }) => items.length > 0).map(({ serverId }) => serverId));
    return offering.size === 1 ? { serverId: [...offering][0]!, uri } : undefined;
  }
}
