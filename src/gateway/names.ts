/**
 * The names the gateway publishes for its servers' tools and prompts. A name, once
 * given, is kept for the life of the gateway: adding, removing or restarting a server
 * never renames what a client already saw. With `auto` a server's own name is used
 * while no other server holds it; a later claimant gets `<server>_<name>`. Names are
 * legal everywhere (SEP-986: 1-64 characters of `A-Za-z0-9_.-/`), shortened with a hash
 * suffix where needed.
 */
import { createHash } from 'node:crypto';

/** How published names are chosen: `auto` keeps a server's own name when unique; `prefixed` always prefixes. */
export type GatewayNaming = 'auto' | 'prefixed';

const MAX_NAME = 64;
const LEGAL = /^[A-Za-z0-9_./-]{1,64}$/;

function legalPart(text: string): string {
  return text.replace(/[^A-Za-z0-9_./-]/g, '_');
}

function hashed(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

/** `<server>_<name>`, legal and at most 64 characters (a hash of the whole keeps shortened ones apart). */
export function prefixedName(serverId: string, name: string): string {
  const full = `${legalPart(serverId)}_${legalPart(name)}`;
  if (full.length <= MAX_NAME && full === `${serverId}_${name}`) return full;
  const suffix = `_${hashed(`${serverId}\u0000${name}`)}`;
  return full.length + suffix.length <= MAX_NAME ? `${full}${suffix}` : `${full.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}

/** The names of one kind (tools, or prompts), held for the gateway's lifetime. */
export class PublishedNames {
  /** Published name → owner key (`serverId\0name`). */
  private readonly owners = new Map<string, string>();
  /** Owner key → published name. */
  private readonly names = new Map<string, string>();

  /**
   * @param naming `auto` or `prefixed`.
   * @param prefix The form a name takes when it cannot be bare (`<server>_<name>` for tools and prompts).
   * @param legal Which bare names may be published as they are.
   */
  constructor(
    private readonly naming: GatewayNaming,
    private readonly prefix: (serverId: string, name: string) => string = prefixedName,
    private readonly legal: (name: string) => boolean = (name) => LEGAL.test(name),
  ) {}

  /** The published name of a server's item, given on first sight and kept. */
  nameOf(serverId: string, name: string): string {
    const key = `${serverId}\u0000${name}`;
    const known = this.names.get(key);
    if (known !== undefined) return known;
    let chosen = this.naming === 'auto' && this.legal(name) && !this.owners.has(name) ? name : this.prefix(serverId, name);
    // Two servers' prefixed forms can meet only through shortening or replaced characters; a hash of the key settles it.
    for (let round = 0; this.owners.has(chosen); round++) chosen = this.prefix(serverId, `${name}~${round}`);
    this.owners.set(chosen, key);
    this.names.set(key, chosen);
    return chosen;
  }

  /** The server and name behind a published name. */
  ownerOf(published: string): { serverId: string; name: string } | undefined {
    const key = this.owners.get(published);
    if (key === undefined) return undefined;
    const split = key.indexOf('\u0000');
    return { serverId: key.slice(0, split), name: key.slice(split + 1) };
  }
}

/** A resource URI of a server whose own URI another server already published: `mcp-fleet://<server>/<uri, encoded>`. */
export function prefixedUri(serverId: string, uri: string): string {
  return `mcp-fleet://${encodeURIComponent(serverId)}/${encodeURIComponent(uri)}`;
}
