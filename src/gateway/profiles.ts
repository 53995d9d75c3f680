/**
 * Profiles: named views of the fleet for different clients, from the config file's
 * `profiles` section (`{"review": {"include": ["git.*", "github.get_*"], "exclude":
 * ["*.delete_*"]}}`). A pattern names `<server>.<name>` (a tool's or a prompt's own name,
 * as its server lists it); `*` stands for any run of characters and `?` for one, `/`
 * and `.` included (tool names may hold either, so path-style globbing would not fit).
 */
import { McpConfigError } from '../mcp/errors.js';

/** One profile as written in the config file. */
export interface McpGatewayProfile {
  /** Patterns of what the profile offers. Default: everything. */
  include?: string[];
  /** Patterns of what it leaves out, even when included. Default: nothing. */
  exclude?: string[];
  /** OAuth scopes a token must carry to use the profile (OAuth mode). Default: the gateway's own required scopes only. */
  scopes?: string[];
}

/** A profile ready to match. */
export interface GatewayProfileFilter {
  name: string;
  /** Whether `<serverId>.<name>` is offered. */
  allows(serverId: string, name: string): boolean;
  /** Whether anything of the server may be offered (its resources go with it). */
  reaches(serverId: string): boolean;
  scopes: string[];
}

/** A profile name is a path segment of `/mcp/<profile>`. */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function globRegExp(pattern: string): RegExp {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's');
}

function patterns(value: unknown, where: string): RegExp[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || entry.trim() === '')) {
    throw new McpConfigError(`${where} must be a list of patterns such as "git.*" or "github.get_*".`, { field: where });
  }
  return (value as string[]).map((entry) => globRegExp(entry.trim()));
}

/** The part of a pattern before its first dot, as a server pattern (`git.*` → `git`; `*` → any). */
function serverPart(pattern: string): RegExp {
  const dot = pattern.indexOf('.');
  return globRegExp(dot === -1 ? pattern : pattern.slice(0, dot));
}

/** Reads and checks the `profiles` section; an error names the profile and field. */
export function compileProfiles(section: unknown): Map<string, GatewayProfileFilter> {
  const profiles = new Map<string, GatewayProfileFilter>();
  if (section === undefined) return profiles;
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    throw new McpConfigError('"profiles" must be an object of named profiles, such as {"review": {"include": ["git.*"]}}.', { field: 'profiles' });
  }
  for (const [name, raw] of Object.entries(section)) {
    const where = `profiles.${name}`;
    if (!PROFILE_NAME.test(name)) {
      throw new McpConfigError(`${where}: a profile name is letters, digits, "_" and "-" (at most 64, served at /mcp/<name>).`, { field: where });
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new McpConfigError(`${where} must be an object with "include" and/or "exclude" patterns.`, { field: where });
    }
    const profile = raw as Record<string, unknown>;
    for (const key of Object.keys(profile)) {
      if (key !== 'include' && key !== 'exclude' && key !== 'scopes') {
        throw new McpConfigError(`${where}.${key} is not a profile field: use "include", "exclude" or "scopes".`, { field: `${where}.${key}` });
      }
    }
    const include = patterns(profile.include, `${where}.include`);
    const exclude = patterns(profile.exclude, `${where}.exclude`);
    const scopes = profile.scopes === undefined ? [] : profile.scopes;
    if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string' || !/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope))) {
      throw new McpConfigError(`${where}.scopes must be a list of OAuth scope names.`, { field: `${where}.scopes` });
    }
    const servers = ((profile.include as string[] | undefined) ?? ['*']).map((entry) => serverPart(entry.trim()));
    profiles.set(name, {
      name,
      scopes: scopes as string[],
      allows: (serverId, item) => {
        const key = `${serverId}.${item}`;
        return (include.length === 0 || include.some((pattern) => pattern.test(key))) && !exclude.some((pattern) => pattern.test(key));
      },
      reaches: (serverId) => servers.some((pattern) => pattern.test(serverId)),
    });
  }
  return profiles;
}
