/**
 * The published catalog of a provider: every route (model-facing name → server, remote
 * name, original MCP `Tool`, generation, revision), the stable name registry, and the
 * snapshot of definitions and groups the host reads.
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { ToolGroup } from '../../core/group.js';
import type { ToolDefinition } from '../../core/tool.js';
import { descriptionOpening, toolDefinition } from './catalog.js';
import type { McpLogger } from '../logger.js';
import { NameBudgetError, ToolNameIndex } from './naming.js';
import { McpCatalogError } from './catalog.js';
import type { ServerRegistration } from '../registration.js';
import type { ServerMeta } from '../session/session.js';

/** Where a model-facing name leads. */
export interface McpRoute {
  /** Model-facing name. */
  name: string;
  serverId: string;
  /** The tool's original name on its server. */
  remoteName: string;
  definition: ToolDefinition;
  /** The original MCP tool: annotations, output schema and `_meta` included. */
  tool: Tool;
  /** Generation of the registration that published it. */
  generation: number;
  /** Catalog revision of that registration when it was published. */
  revision: number;
}

/** Group id of a server: `mcp:<id>`. */
export function groupId(prefix: string, serverId: string): string {
  return `${prefix}:${serverId}`;
}

/** A server's group title, description and instructions, with the fallbacks of checklist item 54. */
export function groupInfo(prefix: string, serverId: string, meta: ServerMeta | undefined): Omit<ToolGroup, 'members'> {
  const title = meta?.title?.trim() || (meta?.name?.trim() !== serverId ? meta?.name?.trim() : undefined);
  const description = meta?.description?.trim();
  const instructions = meta?.instructions?.trim();
  return {
    id: groupId(prefix, serverId),
    title: title || `MCP server \`${serverId}\``,
    description: description || `Tools provided by MCP server \`${serverId}\`.`,
    ...(instructions ? { instructions } : {}),
  };
}

/**
 * The routes of `tools` under their assigned `names` (tools without a name are left
 * out). Pure and callable on any slice of a catalog, so a refresh can build a big
 * catalog's routes a slice at a time; `RouteTable.install` stamps the revision.
 */
export function buildRoutes(registration: ServerRegistration, names: ReadonlyMap<string, string>, tools: readonly Tool[]): McpRoute[] {
  const { id } = registration.config;
  const opening = descriptionOpening(id);
  const routes: McpRoute[] = [];
  for (const tool of tools) {
    const name = names.get(tool.name);
    if (name === undefined) continue;
    routes.push({ name, serverId: id, remoteName: tool.name, definition: toolDefinition(name, id, tool, opening), tool, generation: registration.generation, revision: 0 });
  }
  return routes;
}

export class RouteTable {
  private readonly routes = new Map<string, McpRoute>();
  private readonly byServer = new Map<string, McpRoute[]>();
  private readonly groupsByServer = new Map<string, ToolGroup>();
  private readonly names = new ToolNameIndex();
  private definitionsCache: ToolDefinition[] | undefined;
  private groupsCache: ToolGroup[] | undefined;

  constructor(
    private readonly prefix: string,
    private readonly logger: McpLogger,
  ) {}

  get(name: string): McpRoute | undefined {
    return this.routes.get(name);
  }

  has(name: string): boolean {
    return this.routes.has(name);
  }

  /** The model-facing name of a server's published tool. */
  nameOf(serverId: string, remoteName: string): string | undefined {
    return this.byServer.get(serverId)?.find((route) => route.remoteName === remoteName)?.name;
  }

  /** Model-facing tools of one server. */
  countFor(serverId: string): number {
    return this.byServer.get(serverId)?.length ?? 0;
  }

  /**
   * Replaces a server's routes with `tools`, in one synchronous step. Throws
   * `McpCatalogError` (and changes nothing) when the server's name identities would
   * exceed `limits.catalogItems`.
   */
  publish(registration: ServerRegistration, tools: Tool[], meta: ServerMeta | undefined): void {
    const names = this.assignNames(registration, tools);
    this.install(registration, buildRoutes(registration, names, tools), meta);
  }

  /**
   * The first step of a publication: the model-facing name of each tool, assigned and
   * retained for the life of the registration. Throws `McpCatalogError` (and changes
   * nothing) when the server's identities would exceed `limits.catalogItems`.
   */
  assignNames(registration: ServerRegistration, tools: Tool[]): Map<string, string> {
    const { config } = registration;
    let assignment;
    try {
      assignment = this.names.assign(config.id, config.namePart, tools.map((tool) => tool.name), config.limits.catalogItems);
    } catch (error) {
      if (!(error instanceof NameBudgetError)) throw error;
      throw new McpCatalogError(config.id, `MCP server "${config.id}": ${error.message} (limits.catalogItems).`, {
        budget: 'catalogItems',
      });
    }
    for (const remote of assignment.dropped) {
      this.logger.warn({ serverId: config.id, tool: remote }, 'MCP tool dropped: no free model-facing name');
    }
    return assignment.names;
  }

  /** The last step of a publication: `routes` (from `buildRoutes`) replace the server's, under a new revision. */
  install(registration: ServerRegistration, routes: McpRoute[], meta: ServerMeta | undefined): void {
    const { id } = registration.config;
    const previous = this.groupsByServer.get(id)?.members;
    const revision = ++registration.revision;
    for (const route of routes) {
      route.revision = revision;
      this.routes.set(route.name, route);
    }
    // Names that stay were overwritten in place above; only the ones that went are deleted.
    for (const old of this.byServer.get(id) ?? []) if (this.routes.get(old.name) === old) this.routes.delete(old.name);
    const members = this.sortedNames(id, routes, previous);
    this.byServer.set(id, members.map((name) => this.routes.get(name)!));
    this.groupsByServer.set(id, { ...groupInfo(this.prefix, id, meta), members });
    this.invalidate();
  }

  /**
   * The names of a server's just-installed routes in code-unit order. A refresh usually
   * publishes the same names as before, and then the previous order is reused instead of
   * sorting again: the same count, all still routed to this server, means the same set.
   */
  private sortedNames(serverId: string, routes: readonly McpRoute[], previous: readonly string[] | undefined): string[] {
    if (previous?.length === routes.length && previous.every((name) => this.routes.get(name)?.serverId === serverId)) return [...previous];
    // The default sort compares strings by code unit without calling back into JavaScript.
    return routes.map((route) => route.name).sort();
  }

  /** Removes a server's routes and releases its names (on removal). */
  remove(serverId: string): void {
    this.unpublishRoutes(serverId);
    this.byServer.delete(serverId);
    this.groupsByServer.delete(serverId);
    this.names.release(serverId);
    this.invalidate();
  }

  private unpublishRoutes(serverId: string): void {
    for (const route of this.byServer.get(serverId) ?? []) this.routes.delete(route.name);
  }

  private invalidate(): void {
    this.definitionsCache = undefined;
    this.groupsCache = undefined;
  }

  /** Every published definition, by server id, then by name. */
  definitions(): ToolDefinition[] {
    this.definitionsCache ??= [...this.byServer.keys()]
      .sort()
      .flatMap((serverId) => this.byServer.get(serverId)!.map((route) => route.definition));
    return this.definitionsCache;
  }

  /** One group per server with at least one route, by server id. */
  groups(): ToolGroup[] {
    this.groupsCache ??= [...this.groupsByServer.keys()]
      .sort()
      .map((serverId) => this.groupsByServer.get(serverId)!)
      .filter((group) => group.members.length > 0);
    return this.groupsCache;
  }
}
