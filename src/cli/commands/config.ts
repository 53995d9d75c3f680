/**
 * `mcp-fleet config list | add <id> (--stdio "..." | --http <url>) [--env K=V] [--header K=V]
 * | remove <id> | enable <id> | disable <id> | import [--from <editor>]`: shows or edits the
 * config file through the library's `McpServerManager` and its atomic `save` (comments,
 * unknown fields and `${...}` templates kept). `config add` and `import` create ./mcp.json
 * (or the `--config` file) when there is no file yet. `import` adds the servers it copies
 * to the file's own manager, so they are written in that file's dialect, each with the
 * unknown fields its entry had. Secrets are never shown: a value
 * that is not a `${...}` template is replaced by `[REDACTED]`.
 *
 * JSON: `list` prints `{ file, dialect, servers: [<config, redacted>] }`; `import` prints
 * `{ file, imported: [{ id, from }], skipped: [{ id, from, reason }] }`; the others print
 * `{ file, server, action }`.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { loadMcpConfig, type McpConfigDocument } from '../../fleet/config-file.js';
import { detectDialect, type McpConfigDialect } from '../../fleet/dialects.js';
import { findMcpConfigs } from '../../fleet/locations.js';
import { McpServerManager } from '../../fleet/manager.js';
import type { McpFleetServerConfig } from '../../fleet/server-config.js';
import { hasTemplates } from '../../fleet/templates.js';
import { REDACTED } from '../../mcp/config/config.js';
import { commandLine } from '../args.js';
import { configPath } from '../context.js';
import { EXIT, type ExitCode, usageError } from '../errors.js';
import type { CommandContext } from '../context.js';

const EDITORS: Record<string, McpConfigDialect> = {
  claude: 'claude_desktop',
  'claude-desktop': 'claude_desktop',
  'claude-code': 'claude_code',
  cursor: 'cursor',
  vscode: 'vscode',
  windsurf: 'windsurf',
  gemini: 'gemini_cli',
};

/** A value shown as it is when it is only a template (the secret lives elsewhere), else redacted. */
function shown(value: string): string {
  return hasTemplates(value) && value.replace(/\$\{[^}]*\}/g, '').trim() === '' ? value : REDACTED;
}

/** A word as a shell would need it written: quoted only when it holds a space or a quote. */
function shellWord(word: string): string {
  return word === '' || /[\s'"\\]/.test(word) ? `'${word.replaceAll("'", `'\\''`)}'` : word;
}

/** A URL with every query value that is not a template redacted (some services take a key there). */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.search === '') return url;
    for (const key of [...new Set(parsed.searchParams.keys())]) {
      const values = parsed.searchParams.getAll(key);
      parsed.searchParams.delete(key);
      for (const value of values) parsed.searchParams.append(key, shown(value));
    }
    return parsed.href;
  } catch {
    // Not a URL yet (a template): its query, if any, is redacted whole.
    const at = url.indexOf('?');
    return at === -1 ? url : `${url.slice(0, at)}?${REDACTED}`;
  }
}

function redactValues(values: Record<string, string> | undefined): Record<string, string> | undefined {
  return values === undefined ? undefined : Object.fromEntries(Object.entries(values).map(([key, value]) => [key, shown(value)]));
}

/** A config as `config list` shows it: every secret-bearing value redacted unless it is a template. */
export function redactedServer(config: McpFleetServerConfig): McpFleetServerConfig {
  const transport = config.transport;
  if (transport.type === 'stdio') return { ...config, transport: { ...transport, ...(transport.env === undefined ? {} : { env: redactValues(transport.env)! }) } };
  const oauth = transport.oauth === undefined ? undefined : { ...transport.oauth, ...('clientSecret' in transport.oauth && transport.oauth.clientSecret !== undefined ? { clientSecret: shown(transport.oauth.clientSecret) } : {}), ...('privateKey' in transport.oauth && transport.oauth.privateKey !== undefined ? { privateKey: shown(transport.oauth.privateKey) } : {}) };
  return {
    ...config,
    ...(config.secrets === undefined ? {} : { secrets: config.secrets.map(() => REDACTED) }),
    transport: {
      ...transport,
      url: shownUrl(transport.url),
      ...(transport.headers === undefined ? {} : { headers: redactValues(transport.headers)! }),
      ...(transport.bearerToken === undefined ? {} : { bearerToken: shown(transport.bearerToken) }),
      ...(oauth === undefined ? {} : { oauth }),
    },
  };
}

/**
 * `KEY=VALUE` words (headers also as curl writes them, `Name: value`). A value may be a
 * secret, so an error names at most what comes before the separator.
 */
function pairs(words: readonly string[] | undefined, flag: '--env' | '--header'): Record<string, string> | undefined {
  if (words === undefined || words.length === 0) return undefined;
  const result: Record<string, string> = {};
  for (const word of words) {
    const colon = flag === '--header' ? /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/s.exec(word) : null;
    const at = word.indexOf('=');
    if (colon !== null && (at === -1 || colon[1]!.length < at)) {
      result[colon[1]!] = colon[2]!;
      continue;
    }
    if (at <= 0) throw usageError(`${flag} takes ${flag === '--env' ? 'NAME=VALUE' : 'Name=value (or "Name: value")'}; one was given without a name and "=".`);
    result[word.slice(0, at)] = word.slice(at + 1);
  }
  return result;
}

/** The file to edit; `create` allows one that does not exist yet (./mcp.json by default). */
function target(context: CommandContext, create: boolean): string {
  const explicit = context.options.config;
  const path = configPath(context.io, explicit);
  if (path !== undefined && (existsSync(path) || create)) return path;
  if (create) return join(context.io.cwd, 'mcp.json');
  throw usageError(
    explicit === undefined
      ? 'no MCP config found here (looked for ./mcp.json, ./.mcp.json, ./.vscode/mcp.json and ./.cursor/mcp.json); pass --config FILE, or create one with mcp-fleet config add.'
      : `${path} does not exist; create it with mcp-fleet config add --config ${explicit} <id> --stdio "..."`,
  );
}

/** The manager of the file, or of a new one, in the dialect its path says (`.vscode/mcp.json` is VS Code's shape). */
async function managerFor(path: string): Promise<McpServerManager> {
  if (existsSync(path)) return McpServerManager.fromFile(path);
  await mkdir(dirname(path), { recursive: true });
  return new McpServerManager({ dialect: detectDialect({}, path) });
}

export async function config(context: CommandContext, action: unknown, id: unknown): Promise<ExitCode> {
  switch (action) {
    case 'list':
      return listConfig(context);
    case 'add':
      return edit(context, 'add', requireId(id, 'add'));
    case 'remove':
    case 'enable':
    case 'disable':
      return edit(context, action, requireId(id, action));
    case 'import':
      return importConfigs(context);
    default:
      throw usageError(`config takes list, add, remove, enable, disable or import, not "${String(action)}".`);
  }
}

function requireId(id: unknown, action: string): string {
  if (typeof id !== 'string' || id === '') throw usageError(`config ${action} needs a server id: mcp-fleet config ${action} <id>${action === 'add' ? ' --stdio "<command>"' : ''}.`);
  return id;
}

async function listConfig(context: CommandContext): Promise<ExitCode> {
  const path = target(context, false);
  const file = await loadMcpConfig(path);
  const servers = file.servers().map(redactedServer);
  const { output } = context;
  if (output.json) {
    output.printJson({ file: path, dialect: file.dialect, servers });
    return EXIT.ok;
  }
  output.note(`${path} (${file.dialect})`);
  output.table(
    ['SERVER', 'TYPE', 'COMMAND OR URL', 'STATE'],
    servers.map((server) => {
      const transport = server.transport;
      const where = transport.type === 'stdio' ? [transport.command, ...(transport.args ?? [])].map(shellWord).join(' ') : transport.url;
      return [server.id, transport.type, where, server.disabled === true ? output.out.dim('disabled') : 'enabled'];
    }),
  );
  return EXIT.ok;
}

async function edit(context: CommandContext, action: 'add' | 'remove' | 'enable' | 'disable', id: string): Promise<ExitCode> {
  const path = target(context, action === 'add');
  const manager = await managerFor(path);
  try {
    if (action === 'add') await manager.addServer(newServer(context, id));
    else if (action === 'remove') await manager.removeServer(id);
    else if (action === 'enable') await manager.enableServer(id);
    else await manager.disableServer(id);
    await manager.save(path);
  } finally {
    await manager.shutdown();
  }
  const { output } = context;
  if (output.json) output.printJson({ file: path, server: id, action });
  else output.note(`${{ add: 'added', remove: 'removed', enable: 'enabled', disable: 'disabled' }[action]} ${id} in ${path}`);
  return EXIT.ok;
}

function newServer(context: CommandContext, id: string): McpFleetServerConfig {
  const { stdio, http } = context.options as { stdio?: string; http?: string };
  if ((stdio === undefined) === (http === undefined)) throw usageError('config add needs one of --stdio "<command line>" or --http <url>.');
  const env = pairs(context.options.env as string[] | undefined, '--env');
  const headers = pairs(context.options.header as string[] | undefined, '--header');
  if (stdio !== undefined) {
    if (headers !== undefined) throw usageError('--header applies to --http servers; a stdio server takes --env.');
    const line = commandLine(stdio);
    const merged = { ...line.env, ...env };
    return { id, transport: { type: 'stdio', command: line.command, args: line.args, ...(Object.keys(merged).length === 0 ? {} : { env: merged }) } };
  }
  if (env !== undefined) throw usageError('--env applies to --stdio servers; an HTTP server takes --header.');
  return { id, transport: { type: 'http', url: http!, ...(headers === undefined ? {} : { headers }) } };
}

async function importConfigs(context: CommandContext): Promise<ExitCode> {
  const path = target(context, true);
  const from = context.options.from as string | undefined;
  if (from !== undefined && EDITORS[from] === undefined) throw usageError(`--from takes ${Object.keys(EDITORS).join(', ')}, not "${from}".`);
  const wanted = from === undefined ? undefined : EDITORS[from];
  const locations = (await findMcpConfigs({ cwd: context.io.cwd, ...(context.io.env.HOME === undefined ? {} : { home: context.io.env.HOME }), env: context.io.env })).filter(
    (location) => location.path !== path && (wanted === undefined || location.dialect === wanted),
  );
  const manager = await managerFor(path);
  const imported: { id: string; from: string }[] = [];
  const skipped: { id: string; from: string; reason: string }[] = [];
  try {
    for (const location of locations) {
      let source: McpConfigDocument;
      try {
        source = await loadMcpConfig(location.path);
      } catch (error) {
        skipped.push({ id: '*', from: location.path, reason: (error as Error).message });
        continue;
      }
      for (const server of source.servers()) {
        if (JSON.stringify(server).includes('${input:')) {
          skipped.push({ id: server.id, from: location.path, reason: 'it uses VS Code inputs (${input:...}), which only its own file declares; copy it by hand with its inputs' });
          continue;
        }
        if (manager.serverIds().includes(server.id)) {
          skipped.push({ id: server.id, from: location.path, reason: 'a server with this id is already in the file' });
          continue;
        }
        try {
          // The editor's own keys of the entry (`alwaysAllow`, `x-team`) come along; the rest is written in the file's dialect.
          await manager.addServer(server, { unknownFields: source.unknownFields(server.id) });
          imported.push({ id: server.id, from: location.path });
        } catch (error) {
          skipped.push({ id: server.id, from: location.path, reason: (error as Error).message });
        }
      }
    }
    if (imported.length > 0) await manager.save(path);
  } finally {
    await manager.shutdown();
  }
  const { output } = context;
  if (output.json) {
    output.printJson({ file: path, imported, skipped });
    return EXIT.ok;
  }
  if (locations.length === 0) output.note(`no ${from === undefined ? 'editor' : from} config files found`);
  output.table(
    ['SERVER', 'FROM', 'RESULT'],
    [...imported.map((entry) => [entry.id, entry.from, output.out.green('imported')]), ...skipped.map((entry) => [entry.id, entry.from, output.out.dim(`skipped: ${entry.reason}`)])],
  );
  if (imported.length > 0) output.note(`imported ${imported.length} servers into ${path}`);
  return EXIT.ok;
}
