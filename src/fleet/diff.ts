/**
 * What changed between the registry and an edited file, server by server: the fleet
 * applies only that, so servers the edit did not touch keep running as they are.
 */
import { jsonEqual } from '../mcp/presentation.js';
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
