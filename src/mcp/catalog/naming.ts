/**
 * Model-facing names for MCP tools: `mcp_<server>_<tool>`, normalised to `[a-z0-9_]`,
 * at most 64 characters, with an 8-hex SHA-256 suffix when a name is too long or
 * collides. A published identity (server id, remote name) keeps its name for the life
 * of its registration, so names never move under a model between refreshes.
 */
import { hash } from 'node:crypto';
import { MAX_TOOL_NAME_LENGTH } from '../../core/tool.js';

/** Prefix of every MCP tool name. */
export const TOOL_PREFIX = 'mcp';

/** Retries with `#0` .. `#7` appended to the hash key before a tool is dropped. */
const HASH_RETRIES = 8;
const SUFFIX_LENGTH = 8;

/** A segment that normalisation leaves unchanged (the common case, checked first). */
const ALREADY_NORMAL = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/**
 * Normalises one name segment: ASCII-lowercased, every run of characters outside
 * `[a-z0-9]` (non-ASCII included) becomes one `_`, leading and trailing `_` are
 * trimmed, an empty result becomes `x`, and an `x` is prefixed when the first
 * character is not a letter.
 */
export function sanitizeNamePart(part: string): string {
  if (ALREADY_NORMAL.test(part)) return part;
  // Every UTF-16 unit outside [A-Za-z0-9] is a separator, so what remains is ASCII and safe to lowercase.
  const result = part.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toLowerCase();
  if (result === '') return 'x';
  const first = result.charCodeAt(0);
  return first >= 0x61 && first <= 0x7a ? result : `x${result}`;
}

/** First 8 lowercase hex digits of SHA-256 over the UTF-8 bytes of `key`. */
export function hashSuffix(key: string): string {
  // The one-shot `hash` costs a fraction of a `createHash` object per name.
  return hash('sha256', key, 'hex').slice(0, SUFFIX_LENGTH);
}

/** `base` cut to leave room for `_` and the suffix (trailing `_` trimmed), then `_<hash of key>`. */
export function nameWithHash(base: string, key: string): string {
  const prefix = base.slice(0, MAX_TOOL_NAME_LENGTH - SUFFIX_LENGTH - 1).replace(/_+$/, '');
  return `${prefix}_${hashSuffix(key)}`;
}

/** The unsuffixed name: `mcp_<server>_<tool>`, both segments normalised. */
export function baseToolName(serverNamePart: string, remoteName: string): string {
  return `${TOOL_PREFIX}_${serverNamePart}_${sanitizeNamePart(remoteName)}`;
}

/**
 * The first hashed candidate name for one identity that `isTaken` refuses, trying the
 * key and then up to `HASH_RETRIES` variants; hashed one at a time, since the first
 * almost always is free.
 */
function freeHashedName(serverId: string, base: string, remoteName: string, isTaken: (name: string) => boolean): string | undefined {
  const key = `${serverId}:${remoteName}`;
  for (let attempt = -1; attempt < HASH_RETRIES; attempt++) {
    const name = nameWithHash(base, attempt < 0 ? key : `${key}#${attempt}`);
    if (!isTaken(name)) return name;
  }
  return undefined;
}

/** Code-unit order, as `Array.prototype.sort` without a comparator, without its string conversions. */
const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Adds one to `base`'s count; returns `base`. */
function countBase(counts: Map<string, number>, base: string): string {
  counts.set(base, (counts.get(base) ?? 0) + 1);
  return base;
}

/** Thrown when a server's retained identities exceed its catalog item budget. */
export class NameBudgetError extends Error {}

/** The outcome of naming one server's catalog. */
export interface NameAssignment {
  /** Remote name → model-facing name, for every listed tool that got one. */
  names: Map<string, string>;
  /** Remote names that could not be given a free name and are not published. */
  dropped: string[];
}

/**
 * The name registry of one provider: the model-facing names in use, and the names each
 * server's identities retain. Naming is deterministic: tools of one server that collide
 * after normalisation are all hashed, unsuffixed names are given first, and hashed ones
 * in sorted remote-name order, so the result does not depend on list order.
 */
export class ToolNameIndex {
  /**
   * Every model-facing name in use, each owned by one retained identity. A name is only
   * ever offered to a new identity, so ownership never needs to be compared.
   */
  private readonly taken = new Set<string>();
  /** Server id → its identities' names (remote name → model-facing name), retained for the life of the registration. */
  private readonly servers = new Map<string, Map<string, string>>();

  /**
   * Names the tools `remoteNames` of server `serverId` (a name listed twice counts once).
   * Retained identities keep their names; new ones take the first free candidate. Throws
   * `NameBudgetError`, changing nothing, when the retained and new identities together
   * would exceed `maxIdentities`.
   */
  assign(serverId: string, serverNamePart: string, remoteNames: readonly string[], maxIdentities: number): NameAssignment {
    const retained = this.servers.get(serverId);
    const names = new Map<string, string>();
    const newcomers = new Set<string>();
    for (const remote of remoteNames) {
      const existing = retained?.get(remote);
      if (existing !== undefined) names.set(remote, existing);
      else newcomers.add(remote);
    }
    // The common refresh: every listed tool already has its name.
    if (newcomers.size === 0) return { names, dropped: [] };
    const fresh = [...newcomers];

    // Checked before anything changes; tools dropped below (no free name) count too.
    const kept = retained ?? new Map<string, string>();
    if (kept.size + fresh.length > maxIdentities) {
      throw new NameBudgetError(
        `the catalog identity budget (${maxIdentities}) is exhausted; remove and re-add the server to reset it`,
      );
    }
    // Bases shared by two or more remote names of this server (listed or retained) are
    // hashed for every new one. Counted afresh each time rather than kept: new identities
    // are rare after the first publication, and a count kept per server would cost a map
    // entry per tool for as long as the server is registered.
    const baseCount = new Map<string, number>();
    for (const remote of kept.keys()) countBase(baseCount, baseToolName(serverNamePart, remote));
    const bases = fresh.map((remote) => countBase(baseCount, baseToolName(serverNamePart, remote)));
    const take = (remote: string, name: string): void => {
      this.taken.add(name);
      kept.set(remote, name);
      names.set(remote, name);
    };
    // First every tool whose unsuffixed base is its own and free: no two of them can want the
    // same name, so list order cannot matter. The rest (a hashed name is needed) go in sorted
    // order, so that the rare contest between two of them does not depend on list order either.
    const needHash: number[] = [];
    for (let i = 0; i < fresh.length; i++) {
      const base = bases[i]!;
      if (baseCount.get(base) === 1 && base.length <= MAX_TOOL_NAME_LENGTH && !this.taken.has(base)) take(fresh[i]!, base);
      else needHash.push(i);
    }
    needHash.sort((a, b) => compareStrings(fresh[a]!, fresh[b]!));
    const dropped: string[] = [];
    for (const i of needHash) {
      const remote = fresh[i]!;
      const free = freeHashedName(serverId, bases[i]!, remote, (name) => this.taken.has(name));
      if (free !== undefined) take(remote, free);
      else dropped.push(remote);
    }
    this.servers.set(serverId, kept);
    return { names, dropped };
  }

  /** Releases every name of a server (on removal). */
  release(serverId: string): void {
    const retained = this.servers.get(serverId);
    if (retained === undefined) return;
    for (const name of retained.values()) this.taken.delete(name);
    this.servers.delete(serverId);
  }
}
