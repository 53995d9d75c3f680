/**
 * The editor dialects of `mcp.json`: which one a file speaks, and the mapping of one
 * server entry to an `McpFleetServerConfig` and back. Reading accepts every key style in
 * every dialect; writing uses the dialect's own style for new entries and the style an
 * entry was read with for changed ones. Unknown keys are kept and never interpreted,
 * except that a key that looks like a misspelling of a known one is refused.
 */
import { basename, dirname } from 'node:path';
import { McpConfigError } from '../mcp/errors.js';
import type { McpFleetServerConfig } from './server-config.js';

/** The editors whose files mcp-fleet reads and writes. */
export type McpConfigDialect = 'claude_desktop' | 'claude_code' | 'cursor' | 'vscode' | 'windsurf' | 'gemini_cli';

/** Every dialect, in no particular order of preference. */
export const MCP_CONFIG_DIALECTS: readonly McpConfigDialect[] = ['claude_desktop', 'claude_code', 'cursor', 'vscode', 'windsurf', 'gemini_cli'];

/** A path inside an entry: property names and array indexes. */
export type McpEntryPath = (string | number)[];

/** How an entry was written, so a changed entry keeps its style. */
export interface McpEntryStyle {
  /** The key that held the URL (`url`, `serverUrl`, `httpUrl`); absent for stdio. */
  urlKey: UrlKey | undefined;
  /** The `type` as written, if the entry had one. */
  typeValue: string | undefined;
  includeKey: 'include' | 'includeTools';
  excludeKey: 'exclude' | 'excludeTools';
  /** A Gemini CLI `oauth` block (no `flow`): Gemini's own, kept untouched. */
  foreignOAuth: boolean;
}

/** An entry read into a fleet config (not yet validated) and its style. */
export interface McpReadEntry {
  config: Record<string, unknown>;
  style: McpEntryStyle;
}

/** A problem in one entry, with the path of the key it is about (relative to the entry). */
export class McpEntryError extends McpConfigError {
  readonly entryPath: McpEntryPath;

  constructor(serverId: string, entryPath: McpEntryPath, problem: string) {
    const field = writtenField(entryPath);
    super(`MCP server "${serverId}": ${entryPath.length === 0 ? 'the entry' : `\`${field}\``} ${problem}.`, { serverId, field });
    this.entryPath = entryPath;
  }
}

type UrlKey = 'url' | 'serverUrl' | 'httpUrl';
type RemoteType = 'http' | 'sse';

const URL_KEYS: readonly UrlKey[] = ['url', 'serverUrl', 'httpUrl'];
const STDIO_KEYS = ['command', 'args', 'env', 'cwd', 'envFile', 'inheritEnv', 'logStderr'] as const;
const REMOTE_KEYS = ['headers', 'bearerToken', 'oauth', 'allowInsecureHttp'] as const;
/** The fleet's own fields, flat on the entry, in the order a new entry lists them. */
const FLEET_KEYS = [
  'disabled',
  'autoApprove',
  'include',
  'exclude',
  'restartPolicy',
  'lifecycle',
  'required',
  'startup',
  'timeouts',
  'limits',
  'concurrency',
  'tasks',
  'elicitation',
  'resources',
  'secrets',
] as const;
const TYPES = new Set(['stdio', 'http', 'streamable-http', 'sse']);
const REMOTE_TYPES = new Set(['http', 'streamable-http', 'sse']);

/** Every key mcp-fleet reads (and so owns when writing). */
const KNOWN_KEYS: readonly string[] = ['type', ...STDIO_KEYS, ...URL_KEYS, ...REMOTE_KEYS, ...FLEET_KEYS, 'includeTools', 'excludeTools'];
const KNOWN = new Set(KNOWN_KEYS);

/**
 * Keys editors give entries, kept silently even when one is close to a known key
 * (`timeout` and `timeouts`, `dev` and `env`). Compared normalised (see `normalKey`).
 */
const EDITOR_KEYS = new Set(
  [
    // VS Code
    'dev', 'gallery', 'version', 'sandbox',
    // Gemini CLI
    'trust', 'timeout', 'description', 'tcp', 'authProviderType', 'targetAudience', 'targetServiceAccount', 'extensionName',
    // Windsurf, Cline, Roo Code
    'disabledTools', 'alwaysAllow', 'transportType', 'networkTimeout',
    // Claude Code
    'headersHelper',
    // notes people leave in JSON
    'name', 'title', 'comment', 'comments', 'note', 'notes', 'icon',
  ].map(normalKey),
);

/** Common names for a known key that edit distance alone would not catch. */
const MISSPELLINGS: Record<string, string> = {
  environment: 'env',
  enviroment: 'env',
  envvars: 'env',
  environmentvariables: 'env',
  arguments: 'args',
  argv: 'args',
  cmd: 'command',
  executable: 'command',
  workingdirectory: 'cwd',
  workdir: 'cwd',
  endpoint: 'url',
  includetool: 'includeTools',
  excludetool: 'excludeTools',
};

/** How a new entry of each dialect writes a remote server: the URL key and the `type`. */
const NEW_REMOTE_STYLE: Record<McpConfigDialect, Record<RemoteType, { urlKey: UrlKey; typeValue?: string }>> = {
  claude_desktop: { http: { urlKey: 'url', typeValue: 'http' }, sse: { urlKey: 'url', typeValue: 'sse' } },
  claude_code: { http: { urlKey: 'url', typeValue: 'http' }, sse: { urlKey: 'url', typeValue: 'sse' } },
  vscode: { http: { urlKey: 'url', typeValue: 'http' }, sse: { urlKey: 'url', typeValue: 'sse' } },
  cursor: { http: { urlKey: 'url' }, sse: { urlKey: 'url', typeValue: 'sse' } },
  windsurf: { http: { urlKey: 'serverUrl' }, sse: { urlKey: 'serverUrl', typeValue: 'sse' } },
  gemini_cli: { http: { urlKey: 'httpUrl' }, sse: { urlKey: 'url' } },
};

/** The dialects whose own tools write `"type": "stdio"` on a local server. */
const TYPED_STDIO = new Set<McpConfigDialect>(['vscode', 'claude_code']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function has(entry: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(entry, key) && entry[key] !== undefined;
}

function normalKey(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, '');
}

/** Optimal-string-alignment distance (a swap of neighbours counts once), or `limit + 1` once past `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      row.push(value);
    }
    if (Math.min(...row) > limit) return limit + 1;
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** The known key `key` is probably a misspelling of, if any. */
function misspelledKey(key: string): string | undefined {
  const normal = normalKey(key);
  if (EDITOR_KEYS.has(normal)) return undefined;
  if (Object.hasOwn(MISSPELLINGS, normal)) return MISSPELLINGS[normal];
  // Short keys get one edit, longer ones two: `arg`, `comand`, `requried`.
  const limit = normal.length <= 4 ? 1 : 2;
  let best: { key: string; distance: number } | undefined;
  for (const known of KNOWN_KEYS) {
    const distance = normalKey(known) === normal ? 0 : editDistance(normal, normalKey(known), limit);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { key: known, distance };
  }
  return best?.key;
}

/** A field path as written in a file: `env.API_KEY`, `args[2]`. */
export function writtenField(path: readonly (string | number)[]): string {
  let text = '';
  for (const segment of path) text += typeof segment === 'number' ? `[${segment}]` : text === '' ? segment : `.${segment}`;
  return text;
}

/** The key holding the servers in a dialect: `servers` in VS Code, `mcpServers` elsewhere. */
export function serversKeyOf(dialect: McpConfigDialect): 'servers' | 'mcpServers' {
  return dialect === 'vscode' ? 'servers' : 'mcpServers';
}

/** The dialect a file's name and folder say, if they say one. */
function dialectOfPath(path: string): McpConfigDialect | undefined {
  const name = basename(path);
  const folder = basename(dirname(path));
  if (name === '.mcp.json' || name === '.claude.json') return 'claude_code';
  if (name === 'claude_desktop_config.json') return 'claude_desktop';
  if (name === 'mcp.json' && folder === '.cursor') return 'cursor';
  // `.vscode/mcp.json` in a workspace; `Code/User/mcp.json` (and `Code - Insiders`) for the user.
  if (name === 'mcp.json' && (folder === '.vscode' || (folder === 'User' && basename(dirname(dirname(path))).startsWith('Code')))) return 'vscode';
  if (name === 'mcp_config.json' && path.split(/[\\/]/).some((part) => /windsurf/i.test(part))) return 'windsurf';
  if (name === 'settings.json' && folder === '.gemini') return 'gemini_cli';
  return undefined;
}

function dialectOfEntries(entries: Record<string, unknown>[], strong: boolean): McpConfigDialect | undefined {
  if (strong) {
    if (entries.some((entry) => has(entry, 'serverUrl'))) return 'windsurf';
    if (entries.some((entry) => has(entry, 'httpUrl') || has(entry, 'includeTools') || has(entry, 'excludeTools'))) return 'gemini_cli';
    if (entries.some((entry) => typeof entry.type === 'string' && REMOTE_TYPES.has(entry.type))) return 'claude_code';
    return undefined;
  }
  if (entries.some((entry) => has(entry, 'url') && !has(entry, 'type'))) return 'cursor';
  if (entries.some((entry) => JSON.stringify(entry).includes('${env:'))) return 'cursor';
  return undefined;
}

/**
 * The dialect of a parsed file: VS Code when the top level has `servers` and no
 * `mcpServers`; else the file's name and folder when they are an editor's
 * (`.mcp.json`, `.claude.json`, `claude_desktop_config.json`, `.cursor/mcp.json`,
 * `.vscode/mcp.json`, `mcp_config.json` under `windsurf`, `.gemini/settings.json`);
 * else entry markers (`serverUrl`: Windsurf; `httpUrl`, `includeTools`, `excludeTools`:
 * Gemini CLI; `type` http/sse/streamable-http: Claude Code; then a bare `url` or a
 * `${env:` template: Cursor); default `claude_desktop`, the generic shape.
 */
export function detectDialect(root: unknown, path?: string): McpConfigDialect {
  const top = isRecord(root) ? root : {};
  const hasServers = isRecord(top.servers);
  const hasMcpServers = has(top, 'mcpServers');
  if (hasServers && !hasMcpServers) return 'vscode';
  const byPath = path === undefined ? undefined : dialectOfPath(path);
  // A `.vscode/mcp.json` holding `mcpServers` is not in VS Code's shape: let its entries decide.
  if (byPath !== undefined && !(byPath === 'vscode' && hasMcpServers)) return byPath;
  const entries = isRecord(top.mcpServers) ? Object.values(top.mcpServers).filter(isRecord) : [];
  return dialectOfEntries(entries, true) ?? dialectOfEntries(entries, false) ?? 'claude_desktop';
}

function remoteTypeOf(typeValue: string | undefined, urlKey: UrlKey, dialect: McpConfigDialect): RemoteType {
  if (typeValue === 'sse') return 'sse';
  if (typeValue !== undefined) return 'http';
  // In Gemini CLI a bare `url` is the SSE endpoint and `httpUrl` the Streamable HTTP one.
  return urlKey === 'url' && dialect === 'gemini_cli' ? 'sse' : 'http';
}

function checkKeys(id: string, entry: Record<string, unknown>): void {
  for (const key of Object.keys(entry)) {
    if (KNOWN.has(key)) continue;
    const known = misspelledKey(key);
    if (known !== undefined) throw new McpEntryError(id, [key], `is not a known field; did you mean \`${known}\`? Rename it (or remove it)`);
  }
}

/** An entry's keys that mcp-fleet does not read (an editor's own, such as `x-team`), as written. */
export function unknownFieldsOf(entry: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry).filter(([key]) => !KNOWN.has(key)));
}

/**
 * Checks fields to write into an entry besides its config: none may be a key mcp-fleet
 * reads (the config says those), nor look like a misspelling of one (the file would not
 * load back). Throws `McpEntryError`.
 */
export function checkUnknownFields(id: string, fields: Record<string, unknown>): void {
  for (const key of Object.keys(fields)) {
    if (KNOWN.has(key)) throw new McpEntryError(id, [key], 'is a field mcp-fleet reads, not an unknown one; give it in the server\'s config instead');
  }
  checkKeys(id, fields);
}

function readTransport(id: string, entry: Record<string, unknown>, dialect: McpConfigDialect, style: McpEntryStyle): Record<string, unknown> {
  const urlKeys = URL_KEYS.filter((key) => has(entry, key));
  if (urlKeys.length > 1) throw new McpEntryError(id, [urlKeys[1]!], `and \`${urlKeys[0]}\` both give the server's URL; keep one`);
  const urlKey = urlKeys[0];
  const hasCommand = has(entry, 'command');
  const newUrlKey = NEW_REMOTE_STYLE[dialect].http.urlKey;
  if (hasCommand && urlKey !== undefined) {
    throw new McpEntryError(id, [urlKey], 'is set together with `command`; a server is either local (`command`) or remote (a URL), so remove one');
  }
  if (!hasCommand && urlKey === undefined) {
    throw new McpEntryError(id, [], `has neither \`command\` nor a URL; add "command" (and "args") for a local server, or "${newUrlKey}" for a remote one`);
  }
  const typeValue = entry.type;
  if (has(entry, 'type') && (typeof typeValue !== 'string' || !TYPES.has(typeValue))) {
    throw new McpEntryError(id, ['type'], 'must be "stdio", "http", "streamable-http" or "sse"');
  }
  style.typeValue = typeof typeValue === 'string' ? typeValue : undefined;
  if (hasCommand) {
    if (style.typeValue !== undefined && style.typeValue !== 'stdio') {
      throw new McpEntryError(id, ['type'], `says a remote server, but the entry has \`command\`; use "stdio", or replace \`command\` with "${newUrlKey}"`);
    }
    const misplaced = REMOTE_KEYS.find((key) => has(entry, key));
    if (misplaced !== undefined) throw new McpEntryError(id, [misplaced], 'applies only to remote servers (with a URL); remove it');
    const transport: Record<string, unknown> = { type: 'stdio' };
    for (const key of STDIO_KEYS) if (has(entry, key)) transport[key] = entry[key];
    return transport;
  }
  if (style.typeValue === 'stdio') throw new McpEntryError(id, ['type'], 'is "stdio", but the entry has a URL; use "http" or "sse", or give `command` instead');
  const misplaced = STDIO_KEYS.find((key) => has(entry, key));
  if (misplaced !== undefined) throw new McpEntryError(id, [misplaced], 'applies only to local servers (with `command`); remove it');
  style.urlKey = urlKey;
  const transport: Record<string, unknown> = { type: remoteTypeOf(style.typeValue, urlKey!, dialect), url: entry[urlKey!] };
  for (const key of REMOTE_KEYS) if (has(entry, key)) transport[key] = entry[key];
  // Gemini CLI's own `oauth` block has no `flow`; it is Gemini's business, not a fleet OAuth config.
  if (dialect === 'gemini_cli' && isRecord(entry.oauth) && !has(entry.oauth, 'flow')) {
    delete transport.oauth;
    style.foreignOAuth = true;
  }
  return transport;
}

/**
 * Maps one file entry to an (unvalidated) fleet config and records its key style.
 * Throws `McpEntryError` (with the entry path of the offending key) for a misspelled
 * key, an entry with neither `command` nor a URL or with both, two URL keys, a bad
 * `type`, or a field that belongs to the other kind of server.
 */
export function readEntry(id: string, entry: Record<string, unknown>, dialect: McpConfigDialect): McpReadEntry {
  checkKeys(id, entry);
  for (const [plain, gemini] of [['include', 'includeTools'], ['exclude', 'excludeTools']] as const) {
    if (has(entry, plain) && has(entry, gemini)) throw new McpEntryError(id, [gemini], `and \`${plain}\` both list tools; keep one`);
  }
  const style: McpEntryStyle = {
    urlKey: undefined,
    typeValue: undefined,
    includeKey: has(entry, 'includeTools') ? 'includeTools' : 'include',
    excludeKey: has(entry, 'excludeTools') ? 'excludeTools' : 'exclude',
    foreignOAuth: false,
  };
  const config: Record<string, unknown> = { id, transport: readTransport(id, entry, dialect, style) };
  for (const key of FLEET_KEYS) {
    const written = key === 'include' ? style.includeKey : key === 'exclude' ? style.excludeKey : key;
    if (has(entry, written)) config[key] = entry[written];
  }
  return { config, style };
}

/** The style of an entry the dialect writes from scratch. */
export function newEntryStyle(dialect: McpConfigDialect): McpEntryStyle {
  const gemini = dialect === 'gemini_cli';
  return {
    urlKey: undefined,
    typeValue: undefined,
    includeKey: gemini ? 'includeTools' : 'include',
    excludeKey: gemini ? 'excludeTools' : 'exclude',
    foreignOAuth: false,
  };
}

/** What a server looks like as an entry: the keys mcp-fleet writes, and the keys it owns (may remove). */
export interface McpWrittenEntry {
  fields: Record<string, unknown>;
  owned: Set<string>;
}

/**
 * The entry for `server` in `dialect`. `previous` is the style the entry was read with
 * (absent for a new entry): its URL key, `type` and include/exclude keys are kept while
 * they still mean the same thing; a new entry gets the dialect's style. Only fields the
 * config has are written, so nothing is added that the user did not write.
 */
export function writeEntry(server: McpFleetServerConfig, dialect: McpConfigDialect, previous?: McpEntryStyle): McpWrittenEntry {
  const style = previous ?? newEntryStyle(dialect);
  const fields: Record<string, unknown> = {};
  const transport = server.transport as unknown as Record<string, unknown>;
  const put = (key: string, value: unknown): void => {
    if (value !== undefined) fields[key] = value;
  };
  if (server.transport.type === 'stdio') {
    if (previous === undefined ? TYPED_STDIO.has(dialect) : previous.typeValue === 'stdio') fields.type = 'stdio';
    for (const key of STDIO_KEYS) put(key, transport[key]);
  } else {
    const type = server.transport.type;
    const kept = style.urlKey !== undefined && remoteTypeOf(style.typeValue, style.urlKey, dialect) === type;
    const { urlKey, typeValue } = kept ? { urlKey: style.urlKey!, typeValue: style.typeValue } : NEW_REMOTE_STYLE[dialect][type];
    put('type', typeValue);
    fields[urlKey] = server.transport.url;
    for (const key of REMOTE_KEYS) put(key, transport[key]);
  }
  const config = server as unknown as Record<string, unknown>;
  for (const key of FLEET_KEYS) {
    const written = key === 'include' ? style.includeKey : key === 'exclude' ? style.excludeKey : key;
    put(written, config[key]);
  }
  const owned = new Set(KNOWN_KEYS);
  if (style.foreignOAuth && fields.oauth === undefined) owned.delete('oauth');
  return { fields, owned };
}

/**
 * The entry path of a config field (as in `McpConfigError.field`) in an entry of
 * `style`: `transport.url` is the URL key the entry used, `include` may be
 * `includeTools`, and `env`/`headers` names are kept whole (they may hold dots).
 * Array indexes become numbers where the entry has an array.
 */
export function entryPathOf(field: string, style: McpEntryStyle, entry: unknown): McpEntryPath {
  if (field === 'id' || field === '(root)' || field === '') return [];
  let segments = field.split('.');
  if (segments[0] === 'transport') {
    segments = segments.slice(1);
    if (segments[0] === 'url') segments[0] = style.urlKey ?? 'url';
    if (segments[0] === 'type') return ['type'];
    if ((segments[0] === 'env' || segments[0] === 'headers') && segments.length > 2) segments = [segments[0], segments.slice(1).join('.')];
  }
  if (segments[0] === 'include') segments[0] = style.includeKey;
  if (segments[0] === 'exclude') segments[0] = style.excludeKey;
  const path: McpEntryPath = [];
  let value: unknown = entry;
  for (const segment of segments) {
    const index = Array.isArray(value) && /^\d+$/.test(segment) ? Number(segment) : undefined;
    path.push(index ?? segment);
    value = index !== undefined ? (value as unknown[])[index] : isRecord(value) ? value[segment] : undefined;
  }
  return path;
}
