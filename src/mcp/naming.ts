/**
 * Model-facing names for MCP tools: `mcp_<server>_<tool>`, normalised to `[a-z0-9_]`,
 * at most 64 characters, with an 8-hex SHA-256 suffix when a name is too long or
 * collides. A published identity (server id, remote name) keeps its name for the life
 * of its registration, so names never move under a model between refreshes.
 */
import { createHash } from 'node:crypto';
import { MAX_TOOL_NAME_LENGTH } from '../core/tool.js';

/** Prefix of every MCP tool name. */
export const TOOL_PREFIX = 'mcp';

/** Retries with `#0` .. `#7` appended to the hash key before a tool is dropped. */
const HASH_RETRIES = 8;
const SUFFIX_LENGTH = 8;

/**
 * Normalises one name segment: ASCII-lowercased, every run of characters outside
 * `[a-z0-9]` (non-ASCII included) becomes one `_`, leading and trailing `_` are
 * trimmed, an empty result becomes `x`, and an `x` is prefixed when the first
 * character is not a letter.
 */
export function sanitizeNamePart(part: string): string {
  let result = '';
  let pendingSeparator = false;
  for (const char of part) {
    const lower = char.length === 1 && char >= 'A' && char <= 'Z' ? char.toLowerCase() : char;
    if ((lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9')) {
      if (pendingSeparator && result !== '') result += '_';
      pendingSeparator = false;
      result += lower;
    } else {
      pendingSeparator = true;
    }
  }
  if (result === '') return 'x';
  const first = result.charAt(0);
  return first >= 'a' && first <= 'z' ? result : `x${result}`;
}

/** First 8 lowercase hex digits of SHA-256 over the UTF-8 bytes of `key`. */
export function hashSuffix(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex').slice(0, SUFFIX_LENGTH);
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

/** Candidate names for one identity, best first. */
function candidates(serverId: string, serverNamePart: string, remoteName: string, mustHash: boolean): string[] {
  const base = baseToolName(serverNamePart, remoteName);
  const key = `${serverId}:${remoteName}`;
  const result: string[] = [];
  if (!mustHash && base.length <= MAX_TOOL_NAME_LENGTH) result.push(base);
  result.push(nameWithHash(base, key));
  for (let attempt = 0; attempt < HASH_RETRIES; attempt++) result.push(nameWithHash(base, `${key}#${attempt}`));
  return result;
}

/** Thrown when a server's retained identities exceed its catalog item budget. */
export class NameBudgetError extends Error {}

/** The outcome of naming one server's catalog. */
export interface NameAssignment {
  /** Remote name → model-facing name, for every tool that got one. */
  names: Map<string, string>;
  /** Remote names that could not be given a free name and are not published. */
  dropped: string[];
}

/**
 * The name registry of one provider: which identity owns each model-facing name, and
 * the names each server's identities retain. Naming is deterministic: remote names
 * are processed sorted, and tools of one server that collide after normalisation are
 * all hashed, so the result does not depend on list order.
 */
export class ToolNameIndex {
  /** Model-facing name → owning identity (`serverId`, NUL, remote name). */
  private readonly owners = new Map<string, string>();
  /** Server id → (remote name → model-facing name), retained for the life of the registration. */
  private readonly identities = new Map<string, Map<string, string>>();

  /**
   * Names the tools `remoteNames` of server `serverId`. Retained identities keep their
   * names; new ones take the first free candidate. Nothing changes when this throws.
   */
  assign(serverId: string, serverNamePart: string, remoteNames: readonly string[], maxIdentities: number): NameAssignment {
    const retained = new Map(this.identities.get(serverId) ?? []);
    const listed = [...new Set(remoteNames)].sort();
    // Bases shared by two or more remote names of this server (listed or retained) are hashed for every new one.
    const baseCount = new Map<string, number>();
    for (const remote of new Set([...listed, ...retained.keys()])) {
      const base = baseToolName(serverNamePart, remote);
      baseCount.set(base, (baseCount.get(base) ?? 0) + 1);
    }
    const names = new Map<string, string>();
    const claimed = new Map<string, string>();
    const dropped: string[] = [];
    for (const remote of listed) {
      const existing = retained.get(remote);
      if (existing !== undefined) {
        names.set(remote, existing);
        continue;
      }
      const identity = `${serverId}\u0000${remote}`;
      const mustHash = (baseCount.get(baseToolName(serverNamePart, remote)) ?? 0) > 1;
      const free = candidates(serverId, serverNamePart, remote, mustHash).find((name) => {
        const owner = this.owners.get(name) ?? claimed.get(name);
        return owner === undefined || owner === identity;
      });
      if (free === undefined) {
        dropped.push(remote);
        continue;
      }
      claimed.set(free, identity);
      retained.set(remote, free);
      names.set(remote, free);
    }
    if (retained.size > maxIdentities) {
      throw new NameBudgetError(
        `the catalog identity budget (${maxIdentities}) is exhausted; remove and re-add the server to reset it`,
      );
    }
    for (const [name, identity] of claimed) this.owners.set(name, identity);
    this.identities.set(serverId, retained);
    return { names, dropped };
  }

  /** Releases every name of a server (on removal). */
  release(serverId: string): void {
    const retained = this.identities.get(serverId);
    if (retained === undefined) return;
    for (const name of retained.values()) this.owners.delete(name);
    this.identities.delete(serverId);
  }
}
