/**
 * What one endpoint offers of the gateway's catalog: everything, or a profile's part of
 * it. Names are the catalog's (one naming for the whole gateway, so a tool is called the
 * same at `/mcp` and at `/mcp/<profile>`); a view only leaves things out, and what it
 * leaves out cannot be called through it either.
 */
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { GatewayCatalog, ServerFilter, ToolRoute } from './catalog.js';
import type { GatewayProfileFilter } from './profiles.js';

/** What `tools/list` offers: every tool, or only the discovery helpers and what a client selected. */
export type GatewayExposure = 'all' | 'discovery';

export class GatewayView {
  private toolCache: { all: Tool[]; tools: Tool[] } | undefined;
  private readonly reaches: ServerFilter = (serverId) => this.profile === undefined || this.profile.reaches(serverId);

  constructor(
    readonly catalog: GatewayCatalog,
    /** The profile this view shows; `undefined`: the whole catalog. */
    private profile?: GatewayProfileFilter,
  ) {}

  /** Shows another version of the profile (the config file was edited); `null`: it was removed, and the view offers nothing. */
  retarget(profile: GatewayProfileFilter | null): void {
    this.profile = profile ?? { name: 'removed', scopes: [], allows: () => false, reaches: () => false };
    this.toolCache = undefined;
  }

  /** The published tools this view offers, in the catalog's order. */
  tools(): Tool[] {
    const all = this.catalog.tools();
    if (this.profile === undefined) return all;
    if (this.toolCache?.all !== all) this.toolCache = { all, tools: all.filter((tool) => this.toolRoute(tool.name) !== undefined) };
    return this.toolCache.tools;
  }

  toolRoute(name: string): ToolRoute | undefined {
    const route = this.catalog.toolRoute(name);
    return route === undefined || (this.profile !== undefined && !this.profile.allows(route.serverId, route.remoteName)) ? undefined : route;
  }

  async prompts(signal: AbortSignal): Promise<Prompt[]> {
    const prompts = await this.catalog.prompts(signal, this.reaches);
    return this.profile === undefined ? prompts : prompts.filter((prompt) => this.promptRoute(prompt.name) !== undefined);
  }

  promptRoute(name: string): { serverId: string; name: string } | undefined {
    const route = this.catalog.promptRoute(name);
    return route === undefined || (this.profile !== undefined && !this.profile.allows(route.serverId, route.name)) ? undefined : route;
  }

  resources(signal: AbortSignal): Promise<Resource[]> {
    return this.catalog.resources(signal, this.reaches);
  }

  templates(signal: AbortSignal): Promise<ResourceTemplate[]> {
    return this.catalog.templates(signal, this.reaches);
  }

  templateOwner(uriTemplate: string, signal: AbortSignal): Promise<{ serverId: string } | undefined> {
    return this.catalog.templateOwner(uriTemplate, signal, this.reaches);
  }

  resourceRoute(uri: string, signal: AbortSignal): Promise<{ serverId: string; uri: string } | undefined> {
    return this.catalog.resourceRoute(uri, signal, this.reaches);
  }
}
