/**
 * What changed between the registry and an edited file, server by server: the fleet
 * applies only that, so servers the edit did not touch keep running as they are.
 */
import { jsonEqual } from '../mcp/calls/presentation.js';
import type { McpFleetServerConfig } from './server-config.js';

export interface FleetDiff {
  /** New servers, in file order. */
  added: McpFleetServerConfig[];
  /** Servers whose configuration changed (their new configuration), in file order. */
  updated: McpFleetServerConfig[];
  /** Ids of the servers the file no longer has. */
  removed: string[];
}

/** Compares configurations as JSON would write them, so an absent field and `undefined` are alike. */
export function sameConfig(a: unknown, b: unknown): boolean {
  return jsonEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}

export function diffFleet(current: readonly McpFleetServerConfig[], next: readonly McpFleetServerConfig[]): FleetDiff {
  const before = new Map(current.map((config) => [config.id, config]));
  const after = new Set(next.map((config) => config.id));
  return {
    added: next.filter((config) => !before.has(config.id)),
    updated: next.filter((config) => {
      const previous = before.get(config.id);
      return previous !== undefined && !sameConfig(previous, config);
    }),
    removed: current.filter((config) => !after.has(config.id)).map((config) => config.id),
  };
}

/**
 * A three-way merge of server lists, for saving over a file someone else changed: per
 * server, what the registry changed since `base` (the last time registry and file agreed)
 * wins; what it left alone is taken from the file as it is now, so the other writer's
 * servers, edits and removals survive. In the file's order, then the registry's additions.
 */
export function mergeServers(
  base: readonly McpFleetServerConfig[],
  ours: readonly McpFleetServerConfig[],
  theirs: readonly McpFleetServerConfig[],
): McpFleetServerConfig[] {
  const byId = (list: readonly McpFleetServerConfig[]) => new Map(list.map((config) => [config.id, config]));
  const [was, mine, now] = [byId(base), byId(ours), byId(theirs)];
  const ids = [...new Set([...now.keys(), ...mine.keys()])];
  return ids.flatMap((id) => {
    const untouched = mine.get(id) === undefined ? was.get(id) === undefined : was.get(id) !== undefined && sameConfig(mine.get(id), was.get(id));
    const chosen = untouched ? now.get(id) : mine.get(id);
    return chosen === undefined ? [] : [chosen];
  });
}
