/**
 * Capability groups: which tools belong together and how they combine. Groups are a
 * discovery-layer concept; they are never sent to a model API as function schemas.
 */
import type { ToolGroupInfo } from './tool.js';

/** A bundle of tools with a shared purpose, such as every tool of one MCP server. */
export interface ToolGroup extends ToolGroupInfo {
  /** Model-facing names of the member tools. */
  members: string[];
}

/**
 * Merges groups by id (case-insensitively) and keeps only members that are visible
 * definitions, sorted case-insensitively; groups left without members are dropped.
 * The first group seen for an id supplies its title, description and instructions.
 */
export function normaliseGroups(groups: Iterable<ToolGroup>, visible: ReadonlySet<string>): ToolGroup[] {
  const byId = new Map<string, ToolGroup>();
  for (const group of groups) {
    const key = group.id.toLowerCase();
    let merged = byId.get(key);
    if (merged === undefined) {
      merged = { ...group, members: [] };
      byId.set(key, merged);
    }
    for (const member of group.members) {
      const name = member.toLowerCase();
      if (visible.has(name) && !merged.members.includes(name)) merged.members.push(name);
    }
  }
  const result: ToolGroup[] = [];
  for (const group of byId.values()) {
    if (group.members.length === 0) continue;
    group.members.sort(compareInsensitive);
    result.push(group);
  }
  return result;
}

function compareInsensitive(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}
