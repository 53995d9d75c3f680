/**
 * mcp.json files as documents: every editor dialect read into the exact fleet configs
 * and detected; every error kind with its path:line:column, server, field and fix, and
 * no secret in any message; render keeping the text byte for byte, patching only what
 * changed, appending and deleting in each dialect's style; a fast-check round trip over
 * generated fleets and every fixture; and the atomic file write.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { parse as parseJsonc } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import type { McpHttpTransportConfig } from '../src/mcp/config/config.js';
import { McpConfigError } from '../src/mcp/errors.js';
import { sanitizeNamePart } from '../src/mcp/catalog/naming.js';
import { writeFileAtomic } from '../src/fleet/atomic-write.js';
import { loadMcpConfig, McpConfigDocument, McpConfigFileError, parseMcpConfig, type McpConfigLoadOptions } from '../src/fleet/config-file.js';
import { MCP_CONFIG_DIALECTS, type McpConfigDialect } from '../src/fleet/dialects.js';
import type { McpFleetServerConfig } from '../src/fleet/server-config.js';
import { validateFleetServerId } from '../src/fleet/server-id.js';
import { checkFleetServerConfig } from '../src/fleet/validate.js';
import { fixture, tempDir } from './helpers.js';

/** Writes `text` at `relative` under a fresh temporary folder; returns the absolute path. */
function writeConfig(relative: string, text: string): string {
  const path = join(tempDir(), relative);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** 1-based line and column of the `nth` occurrence of `needle` in `text`. */
function at(text: string, needle: string, nth = 0): { line: number; column: number } {
  let offset = -1;
  for (let i = 0; i <= nth; i++) offset = text.indexOf(needle, offset + 1);
  if (offset === -1) throw new Error(`${needle} not in text`);
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

async function fileError(pathOrText: string, options?: McpConfigLoadOptions): Promise<McpConfigFileError> {
  try {
    await loadMcpConfig(pathOrText, options);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigFileError);
    return error as McpConfigFileError;
  }
  throw new Error('expected loadMcpConfig to throw');
}

/** Loads `text` from a file at `relative`; expects an error at `needle` (its `nth` occurrence). */
async function errorAt(relative: string, text: string, needle: string, nth = 0): Promise<McpConfigFileError> {
  const path = writeConfig(relative, text);
  const error = await fileError(path);
  const { line, column } = at(text, needle, nth);
  expect(error.file).toBe(path);
  expect([error.line, error.column]).toEqual([line, column]);
  expect(error.message.startsWith(`${path}:${line}:${column}: `)).toBe(true);
  expect(error.code).toBe('config_invalid');
  return error;
}

const servers = (entries: Record<string, unknown>): string => JSON.stringify({ mcpServers: entries }, null, 2);

const WORKSPACE = (name: string): string => fixture(`configs/${name}`).replace(/\/$/, '');

const FIXTURES: { file: string; dialect: McpConfigDialect; workspace: string; servers: McpFleetServerConfig[] }[] = [
  {
    file: 'configs/claude-desktop/claude_desktop_config.json',
    dialect: 'claude_desktop',
    workspace: WORKSPACE('claude-desktop'),
    servers: [
      {
        id: 'memory',
        transport: {
          type: 'stdio',
          command: 'node',
          args: ['${workspaceFolder}/../../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js'],
          env: { MEMORY_FILE_PATH: '${MEMORY_FILE_PATH}' },
        },
      },
      {
        id: 'notes',
        transport: { type: 'stdio', command: 'node', args: ['${workspaceFolder}/../../fleet-server.mjs'], env: { FIXTURE_NAME: 'notes', FIXTURE_LOG: '${FIXTURE_LOG}' } },
        autoApprove: ['echo'],
        restartPolicy: { initialDelayMs: 50, maxDelayMs: 200, maxRestartAttempts: 3 },
      },
    ],
  },
  {
    file: 'configs/claude-code/.mcp.json',
    dialect: 'claude_code',
    workspace: WORKSPACE('claude-code'),
    servers: [
      {
        id: 'tasks',
        transport: {
          type: 'stdio',
          command: '${NODE_BIN:-node}',
          args: ['${FIXTURES_DIR:-test/fixtures}/fleet-server.mjs'],
          env: { FIXTURE_NAME: '${TASKS_NAME:-tasks}', TASKS_API_KEY: '${TASKS_API_KEY}' },
        },
      },
      { id: 'remote', transport: { type: 'http', url: '${REMOTE_URL}', headers: { Authorization: 'Bearer ${REMOTE_TOKEN}', 'X-Team': '${TEAM:-platform}' } } },
    ],
  },
  {
    file: 'configs/vscode/.vscode/mcp.json',
    dialect: 'vscode',
    workspace: WORKSPACE('vscode'),
    servers: [
      {
        id: 'search',
        transport: {
          type: 'stdio',
          command: 'node',
          args: ['${workspaceFolder}/../../fleet-server.mjs'],
          env: { SEARCH_API_KEY: '${input:search-key}' },
          envFile: '${workspaceFolder}/search.env',
        },
      },
      {
        id: 'everything',
        transport: { type: 'stdio', command: 'node', args: ['${workspaceFolder}/../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js'] },
      },
    ],
  },
  {
    file: 'configs/cursor/.cursor/mcp.json',
    dialect: 'cursor',
    workspace: WORKSPACE('cursor'),
    servers: [
      {
        id: 'docs',
        transport: { type: 'stdio', command: 'node', args: ['${workspaceFolder}/../../fleet-server.mjs'], env: { DOCS_TOKEN: '${env:DOCS_TOKEN}', FIXTURE_NAME: 'docs' } },
      },
      { id: 'weather', transport: { type: 'http', url: '${env:WEATHER_URL}', headers: { 'X-Api-Key': '${env:WEATHER_KEY}' } } },
    ],
  },
  {
    file: 'configs/windsurf/mcp_config.json',
    dialect: 'windsurf',
    workspace: WORKSPACE('windsurf'),
    servers: [
      { id: 'linear', transport: { type: 'http', url: 'https://mcp.linear.example/mcp', headers: { Authorization: 'Bearer ${env:LINEAR_TOKEN}' } } },
      { id: 'git', transport: { type: 'stdio', command: 'uvx', args: ['mcp-server-git', '--repository', '${userHome}${/}src${/}project'] }, disabled: true },
    ],
  },
  {
    file: 'configs/gemini/.gemini/settings.json',
    dialect: 'gemini_cli',
    workspace: WORKSPACE('gemini'),
    servers: [
      {
        id: 'github',
        transport: { type: 'http', url: 'https://api.github.example/mcp/', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } },
        include: ['get_issue', 'list_issues'],
      },
      { id: 'events', transport: { type: 'sse', url: 'http://127.0.0.1:8080/sse' }, exclude: ['delete_all'] },
      {
        id: 'files',
        transport: {
          type: 'stdio',
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '${workspaceFolder}'],
          env: { LOG_LEVEL: '${LOG_LEVEL:-info}' },
          cwd: '${workspaceFolder}',
        },
      },
    ],
  },
];

describe('reading each dialect', () => {
  it.each(FIXTURES)('reads $file as $dialect into the exact configs', async ({ file, dialect, workspace, servers: expected }) => {
    const document = await loadMcpConfig(fixture(file));
    expect(document.dialect).toBe(dialect);
    expect(document.path).toBe(fixture(file));
    expect(document.workspaceFolder).toBe(workspace);
    expect(document.servers()).toStrictEqual(expected);
    expect(document.text).toBe(readFileSync(fixture(file), 'utf8'));
    // Fresh copies: changing one does not change the document.
    document.servers()[0]!.disabled = true;
    expect(document.servers()).toStrictEqual(expected);
  });

  it('reads VS Code inputs, and none elsewhere', async () => {
    const vscode = await loadMcpConfig(fixture('configs/vscode/.vscode/mcp.json'));
    expect(vscode.inputs).toEqual([{ id: 'search-key', type: 'promptString', description: 'API key of the search server', password: true }]);
    expect((await loadMcpConfig(fixture('configs/cursor/.cursor/mcp.json'))).inputs).toEqual([]);
    const options = parseMcpConfig('{ "inputs": [{ "id": "region", "type": "pickString", "options": ["eu", { "label": "US", "value": "us" }], "default": "eu" }], "servers": {} }');
    expect(options.inputs).toEqual([{ id: 'region', type: 'pickString', options: ['eu', 'us'], default: 'eu' }]);
  });

  it.each([
    ['{ "servers": { "a": { "command": "x" } } }', 'vscode'],
    ['{ "mcpServers": { "a": { "serverUrl": "https://example.com/mcp" } } }', 'windsurf'],
    ['{ "mcpServers": { "a": { "httpUrl": "https://example.com/mcp" } } }', 'gemini_cli'],
    ['{ "mcpServers": { "a": { "command": "x", "excludeTools": ["t"] } } }', 'gemini_cli'],
    ['{ "mcpServers": { "a": { "type": "http", "url": "https://example.com/mcp" } } }', 'claude_code'],
    ['{ "mcpServers": { "a": { "type": "sse", "url": "https://example.com/sse" } } }', 'claude_code'],
    ['{ "mcpServers": { "a": { "type": "streamable-http", "url": "https://example.com/mcp" } } }', 'claude_code'],
    ['{ "mcpServers": { "a": { "url": "https://example.com/mcp" } } }', 'cursor'],
    ['{ "mcpServers": { "a": { "command": "x", "env": { "K": "${env:K}" } } } }', 'cursor'],
    ['{ "mcpServers": { "a": { "command": "x" } } }', 'claude_desktop'],
    ['{ "servers": {}, "mcpServers": { "a": { "command": "x" } } }', 'claude_desktop'],
  ])('detects %s as %s', (text, dialect) => {
    expect(parseMcpConfig(text).dialect).toBe(dialect);
  });

  it.each([
    ['.mcp.json', 'claude_code'],
    ['home/.claude.json', 'claude_code'],
    ['Claude/claude_desktop_config.json', 'claude_desktop'],
    ['project/.cursor/mcp.json', 'cursor'],
    ['Code/User/mcp.json', 'vscode'],
    ['.codeium/windsurf/mcp_config.json', 'windsurf'],
    ['project/.gemini/settings.json', 'gemini_cli'],
    ['anything.json', 'claude_desktop'],
  ])('detects a plain file at %s as %s', async (relative, dialect) => {
    const entries = { a: { command: 'x' } };
    const path = writeConfig(relative, dialect === 'vscode' ? JSON.stringify({ servers: entries }) : servers(entries));
    expect((await loadMcpConfig(path)).dialect).toBe(dialect);
  });

  it('trusts an editor file name over entry markers: a bare url in .gemini/settings.json is SSE', async () => {
    const path = writeConfig('.gemini/settings.json', servers({ a: { url: 'https://example.com/sse' } }));
    const document = await loadMcpConfig(path);
    expect(document.dialect).toBe('gemini_cli');
    expect(document.servers()[0]!.transport).toEqual({ type: 'sse', url: 'https://example.com/sse' });
    expect(document.workspaceFolder).toBe(dirname(dirname(path)));
  });

  it('keeps a key named like an Object.prototype member as an unknown key', () => {
    expect(parseMcpConfig(servers({ a: { command: 'x', constructor: 1, toString: 2 } })).servers()).toEqual([{ id: 'a', transport: { type: 'stdio', command: 'x' } }]);
  });

  it('forces a dialect when asked, and refuses one it does not know', () => {
    expect(() => parseMcpConfig('{}', { dialect: 'notepad' as McpConfigDialect })).toThrow('Unknown MCP config dialect "notepad"');
    const text = servers({ a: { url: 'https://example.com/sse' } });
    expect(parseMcpConfig(text).servers()[0]!.transport.type).toBe('http');
    const gemini = parseMcpConfig(text, { dialect: 'gemini_cli' });
    expect(gemini.dialect).toBe('gemini_cli');
    expect(gemini.servers()[0]!.transport.type).toBe('sse');
  });

  it('takes text or a path, drops a byte order mark, and defaults the workspace to the file folder', async () => {
    const text = servers({ a: { command: 'x' } });
    expect((await loadMcpConfig(`\n  ${text}`)).path).toBeUndefined();
    expect((await loadMcpConfig(`// comment\n${text}`)).servers()).toHaveLength(1);
    expect((await loadMcpConfig(`/* comment */${text}`)).workspaceFolder).toBeUndefined();
    const path = writeConfig('project/servers.json', `\uFEFF${text}`);
    const document = await loadMcpConfig(path);
    expect(document.text).toBe(text);
    expect(document.workspaceFolder).toBe(dirname(path));
    expect((await loadMcpConfig(path, { workspaceFolder: '/elsewhere' })).workspaceFolder).toBe('/elsewhere');
    expect(parseMcpConfig(text, { path: '/p/.vscode/x.json' }).workspaceFolder).toBe('/p');
  });

  it('reads Gemini settings and ~/.claude.json without servers as zero servers', async () => {
    const path = writeConfig('.gemini/settings.json', '{ "theme": "GitHub" }\n');
    expect((await loadMcpConfig(path)).servers()).toEqual([]);
    const claude = await loadMcpConfig(writeConfig('.claude.json', '{ "numStartups": 3, "projects": {} }'));
    expect([claude.dialect, claude.servers()]).toEqual(['claude_code', []]);
  });

  it('keeps editor keys and unknown keys without interpreting them', () => {
    const document = parseMcpConfig(
      servers({
        a: { command: 'x', dev: { watch: 'src/**' }, gallery: true, version: '1.0.0', 'x-owner': 'team', disabledTools: ['t'], alwaysAllow: ['t'] },
        b: { httpUrl: 'https://example.com/mcp', trust: true, timeout: 5000, description: 'd', tcp: 'h:1', authProviderType: 'dynamic_discovery', oauth: { enabled: true } },
      }),
    );
    expect(document.servers()).toStrictEqual([
      { id: 'a', transport: { type: 'stdio', command: 'x' } },
      { id: 'b', transport: { type: 'http', url: 'https://example.com/mcp' } },
    ]);
  });

  it('reads every fleet field flat on the entry', () => {
    const entry = {
      command: 'x',
      args: ['a'],
      env: { A: 'b' },
      cwd: '/tmp',
      envFile: '.env',
      inheritEnv: true,
      logStderr: true,
      disabled: false,
      autoApprove: ['t'],
      restartPolicy: { initialDelayMs: 10, maxDelayMs: 20, backoffMultiplier: 1.5, maxRestartAttempts: 0 },
      lifecycle: 'initialize',
      include: ['t'],
      exclude: ['u'],
      tasks: { maxWaitMs: 5000 },
      timeouts: { callMs: 1000 },
      limits: { catalogItems: 10 },
      concurrency: 'parallel',
      required: true,
      startup: 'eager',
      elicitation: true,
      resources: true,
      secrets: ['s'],
    };
    const { command, args, env, cwd, envFile, inheritEnv, logStderr, ...fleet } = entry;
    expect(parseMcpConfig(servers({ a: entry })).servers()).toStrictEqual([
      { id: 'a', transport: { type: 'stdio', command, args, env, cwd, envFile, inheritEnv, logStderr }, ...fleet },
    ]);
    const remote = { type: 'http', url: 'https://example.com/mcp', oauth: { flow: 'client_credentials', clientId: 'c', clientSecret: '${S}' }, allowInsecureHttp: true };
    expect(parseMcpConfig(servers({ r: remote })).servers()[0]!.transport).toEqual({ ...remote });
  });
});

describe('errors', () => {
  it('names the line, column and what was expected in malformed JSON', async () => {
    const text = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}\n';
    const error = await errorAt('.mcp.json', text, '"b"');
    expect(error.message).toContain('invalid JSON: expected "," between two values');
    const unterminated = await errorAt('.mcp.json', '{ "mcpServers": { "a": { "command": "sk-live-SECRET } } }', '"sk-live');
    expect(unterminated.message).toContain('expected a closing double quote');
    expect(unterminated.message).not.toContain('SECRET');
    const empty = await fileError(writeConfig('.mcp.json', '  \n'));
    expect(empty.message).toContain('the file is empty');
  });

  it('accepts comments and trailing commas in every dialect', async () => {
    const document = await loadMcpConfig(writeConfig('claude_desktop_config.json', '{ // c\n "mcpServers": { "a": { "command": "x", /* c */ }, }, }'));
    expect(document.servers()).toHaveLength(1);
  });

  it('names the path of a missing file', async () => {
    const path = join(tempDir(), 'missing.json');
    const error = await fileError(path);
    expect(error.message).toBe(`${path}: the MCP config file does not exist; create it, or check the path.`);
    expect([error.file, error.line, error.column]).toEqual([path, undefined, undefined]);
  });

  it('says what to add when the top level has no servers', async () => {
    const desktop = await errorAt('claude_desktop_config.json', '{ "servers2": {} }', '{');
    expect(desktop.message).toContain('the file has no "mcpServers" object; add one, such as { "mcpServers": { "<id>": { "command": "..." } } }.');
    const vscode = await errorAt('.vscode/mcp.json', '{}', '{');
    expect(vscode.message).toContain('no "servers" object; add one');
    const path = writeConfig('x.json', '{ "mcpServers": {} }');
    expect((await fileError(path, { dialect: 'vscode' })).message).toContain('it has "mcpServers", the key of the other editors');
    await errorAt('x.json', '{ "mcpServers": [] }', '[');
    await errorAt('x.json', '[1]', '[');
  });

  it('names both lines of a server defined twice', async () => {
    const text = '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "a": { "command": "y" }\n  }\n}';
    const error = await errorAt('.mcp.json', text, '"a"', 1);
    expect(error.message).toContain('MCP server "a" is given twice (lines 3 and 4); keep one');
    const field = await errorAt('.mcp.json', '{\n  "mcpServers": { "a": {\n    "command": "x",\n    "env": { "K": "1", "K": "2" } } } }', '"K"', 1);
    expect(field.message).toContain('MCP server "a": `env.K` is given twice (lines 4 and 4)');
  });

  it('says what to add to an entry with neither command nor URL', async () => {
    const error = await errorAt('.mcp.json', servers({ tools: { args: ['x'] } }), '"tools"');
    expect(error.message).toContain('MCP server "tools": the entry has neither `command` nor a URL; add "command" (and "args") for a local server, or "url" for a remote one.');
    expect(error.serverId).toBe('tools');
    const windsurf = await errorAt('windsurf/mcp_config.json', servers({ tools: {} }), '"tools"');
    expect(windsurf.message).toContain('or "serverUrl" for a remote one');
  });

  it.each([
    ['comand', 'command'],
    ['arg', 'args'],
    ['Env', 'env'],
    ['enviroment', 'env'],
    ['env_file', 'envFile'],
    ['restart_policy', 'restartPolicy'],
    ['autoapprove', 'autoApprove'],
    ['requried', 'required'],
    ['uri', 'url'],
    ['includetools', 'includeTools'],
  ])('refuses the misspelled key %s, suggesting %s', async (key, known) => {
    const text = servers({ srv: { command: 'x', [key]: 'v' } });
    const error = await errorAt('.mcp.json', text, `"${key}"`);
    expect(error.message).toContain(`MCP server "srv": \`${key}\` is not a known field; did you mean \`${known}\`?`);
    expect(error.field).toBe(key);
    expect(error.serverId).toBe('srv');
  });

  it('names the field as written, at its key, with the provider rule and fix', async () => {
    const cases: [Record<string, unknown>, string, string, RegExp][] = [
      [{ command: 'x', args: 'a b' }, 'args', '"args"', /`args` invalid input: expected array, received string; write an array \[\.\.\.\] there\.$/i],
      [{ command: 'x', env: { A: 1 } }, 'env.A', '"A"', /`env\.A` invalid input: expected string/i],
      [{ type: 'websocket', url: 'wss://x' }, 'type', '"type"', /`type` must be "stdio", "http", "streamable-http" or "sse"/],
      [{ command: 'x', timeouts: { callMs: 0 } }, 'timeouts.callMs', '"callMs"', /`timeouts\.callMs` too small/i],
      [{ command: 'x', restartPolicy: { maxDelayMs: 10 } }, 'restartPolicy.maxDelayMs', '"maxDelayMs"', /leaves maxDelayMs smaller than initialDelayMs \(defaults: 30,000 and 1,000\); raise maxDelayMs/],
      [{ command: 'x', restartPolicy: { retries: 1 } }, 'restartPolicy.retries', '"retries"', /is not a known field; use initialDelayMs/],
      [{ command: 'x', disabled: 'yes' }, 'disabled', '"disabled"', /`disabled` invalid input: expected boolean, received string; write true or false there\.$/i],
      [{ command: 'x', headers: { A: 'b' } }, 'headers', '"headers"', /applies only to remote servers/],
      [{ url: 'https://example.com/mcp', cwd: '/tmp' }, 'cwd', '"cwd"', /applies only to local servers/],
      [{ url: 'https://example.com/mcp', headers: { 'Mcp-Session-Id': 'v' } }, 'headers.Mcp-Session-Id', '"Mcp-Session-Id"', /protocol or routing header/],
      [{ command: 'x', url: 'https://example.com/mcp' }, 'url', '"url"', /either local \(`command`\) or remote/],
      [{ command: 'x', args: ['${config:editor.tabSize}'] }, 'args[0]', '"${config', /`args\[0\]` has a \$\{config:\.\.\.\} template/],
      [{ command: 'x', lifecycle: 'sometimes' }, 'lifecycle', '"lifecycle"', /`lifecycle` invalid option/i],
      [{ type: 'sse', url: 'https://example.com/sse', lifecycle: 'discover' }, 'lifecycle', '"lifecycle"', /cannot be "discover" for an SSE server/],
    ];
    for (const [entry, field, needle, message] of cases) {
      const error = await errorAt('claude_desktop_config.json', servers({ srv: entry }), needle);
      expect(error.field).toBe(field);
      expect(error.serverId).toBe('srv');
      expect(error.message).toMatch(/MCP server "srv": /);
      expect(error.message).toMatch(message);
    }
  });

  it('maps provider field paths back to the key the entry used', async () => {
    const gemini = await errorAt('.gemini/settings.json', servers({ gh: { httpUrl: 'ftp://example.com/mcp' } }), '"httpUrl"');
    expect(gemini.field).toBe('httpUrl');
    expect(gemini.message).toContain('`httpUrl` uses the unsupported scheme');
    expect(gemini.message).not.toContain('transport.url');
    const windsurf = await errorAt('windsurf/mcp_config.json', servers({ w: { serverUrl: 'http://example.com/mcp' } }), '"serverUrl"');
    expect(windsurf.message).toContain('`serverUrl` uses plain http to a non-loopback host; use https, or set `allowInsecureHttp: true`');
    const tools = await errorAt('.gemini/settings.json', servers({ gh: { command: 'x', includeTools: 'all' } }), '"includeTools"');
    expect(tools.field).toBe('includeTools');
    const oauth = await errorAt('.mcp.json', servers({ o: { type: 'http', url: 'https://example.com/mcp', oauth: { flow: 'authorization_code' } } }), '"oauth"');
    expect(oauth.field).toBe('oauth.redirectUri');
  });

  it('refuses an invalid id at its key', async () => {
    const error = await errorAt('.mcp.json', servers({ 'my server': { command: 'x' } }), '"my server"');
    expect(error.field).toBe('id');
    expect(error.message).toContain('MCP server id "my server" is invalid: an id is a non-empty string of ASCII letters, digits, "-" and "_"; rename the server.');
    await errorAt('.mcp.json', servers({ '../../x': { command: 'x' } }), '"../../x"');
  });

  it('refuses ids that normalise alike in tool names, naming both', async () => {
    const text = '{\n  "mcpServers": {\n    "a-b": { "command": "x" },\n    "a_b": { "command": "y" }\n  }\n}';
    const error = await errorAt('.mcp.json', text, '"a_b"');
    expect(error.message).toContain('MCP servers "a-b" (line 3) and "a_b" (line 4) would share tool names (both become "mcp_a_b_..."); rename one.');
  });

  it('refuses malformed VS Code inputs at their position', async () => {
    await errorAt('.vscode/mcp.json', '{ "inputs": {}, "servers": {} }', '{}');
    const noId = await errorAt('.vscode/mcp.json', '{ "inputs": [{ "type": "promptString" }], "servers": {} }', '{ "type"');
    expect(noId.message).toContain('`inputs[0].id` must be a non-empty string');
    const twice = await errorAt('.vscode/mcp.json', '{ "inputs": [{ "id": "k", "type": "t" }, { "id": "k", "type": "t" }], "servers": {} }', '"id"', 1);
    expect(twice.message).toContain('`inputs[1].id` repeats the id of inputs[0]');
  });

  it('never puts a value from the file into a message', async () => {
    const secret = 'sk-live-0123456789';
    const texts = [
      servers({ s: { command: 'x', env: { KEY: secret }, comand: secret } }),
      servers({ s: { command: 'x', env: { KEY: 1 }, args: [secret] } }),
      servers({ s: { type: 'http', url: `https://example.com/mcp?key=${secret}`, headers: { 'X-Key': `${secret}\n` } } }),
      servers({ s: { type: 'http', url: `https://${secret}@example.com/mcp` } }),
      servers({ s: { command: 'x', args: [`${secret}\${oops`] } }),
      servers({ s: { command: 'x', timeouts: { callMs: secret } } }),
      servers({ s: { command: 'x', env: { KEY: secret }, type: secret } }),
      `{ "mcpServers": { "s": { "command": "${secret}" "args": [] } } }`,
      `{ "inputs": [{ "id": "k", "type": "t", "default": 7 }], "servers": { "s": { "command": "${secret}" } } }`,
    ];
    for (const text of texts) {
      const error = await fileError(writeConfig('config.json', text), text.includes('"inputs"') ? { dialect: 'vscode' } : undefined);
      expect(error.message).not.toContain(secret);
      expect(error.message).not.toContain('0123456789');
    }
  });

  it('refuses to render an invalid fleet, naming the server', () => {
    const document = McpConfigDocument.create({ dialect: 'claude_code' });
    expect(() => document.render([{ id: 'a', transport: { type: 'stdio', command: ' ' } }])).toThrow(/MCP server "a": `transport\.command` must not be empty/);
    const x: McpFleetServerConfig = { id: 'a', transport: { type: 'stdio', command: 'x' } };
    expect(() => document.render([x, { ...x, transport: { type: 'stdio', command: 'y' } }])).toThrow('MCP server "a" is given twice; keep one.');
    const alike = [x, { ...x, id: 'A' }];
    expect(() => document.render(alike)).toThrow(McpConfigError);
    expect(() => document.render([{ id: 'x/y', transport: { type: 'stdio', command: 'x' } }])).toThrow(/MCP server id "x\/y" is invalid/);
  });
});

describe('programmatic fleet configs', () => {
  function invalid(input: unknown): McpConfigError {
    try {
      checkFleetServerConfig(input);
    } catch (error) {
      expect(error).toBeInstanceOf(McpConfigError);
      return error as McpConfigError;
    }
    throw new Error('expected checkFleetServerConfig to throw');
  }

  it('validates ids: ASCII letters, digits, "-" and "_", the refused id quoted and cut', () => {
    expect(validateFleetServerId('files_v2-beta')).toBe('files_v2-beta');
    for (const id of ['', '../../x', 'a b', 'ü', 'a.b']) expect(() => validateFleetServerId(id)).toThrow(McpConfigError);
    const long = `${'x'.repeat(70)} y`;
    const error = (() => {
      try {
        validateFleetServerId(long, 'addServer');
      } catch (caught) {
        return caught as McpConfigError;
      }
      throw new Error('expected a throw');
    })();
    expect(error.message).toBe(`MCP server id "${'x'.repeat(64)}"… (addServer) is invalid: an id is a non-empty string of ASCII letters, digits, "-" and "_"; rename the server.`);
    expect([error.field, error.serverId]).toEqual(['id', long]);
    expect(() => validateFleetServerId(42)).toThrow('MCP server id of type number is invalid');
  });

  it('returns a deep copy of what was given, no defaults filled in', () => {
    const input = { id: 'a', transport: { type: 'stdio' as const, command: 'x', args: ['${A}'], env: { K: 'v' } }, disabled: undefined, autoApprove: ['t'] };
    const checked = checkFleetServerConfig(input);
    expect(checked).toStrictEqual({ id: 'a', transport: { type: 'stdio', command: 'x', args: ['${A}'], env: { K: 'v' } }, autoApprove: ['t'] });
    if (checked.transport.type === 'stdio') checked.transport.args!.push('changed');
    expect(input.transport.args).toEqual(['${A}']);
  });

  it('checks a templated url only after expansion, and everything else now', () => {
    expect(checkFleetServerConfig({ id: 'r', transport: { type: 'http', url: '${REMOTE_URL}', headers: { 'X-K': 'Bearer ${T}' } } }).transport).toEqual({
      type: 'http',
      url: '${REMOTE_URL}',
      headers: { 'X-K': 'Bearer ${T}' },
    });
    expect(invalid({ id: 'r', transport: { type: 'http', url: '${U}', headers: { 'Mcp-Session-Id': '${T}' } } }).field).toBe('transport.headers.Mcp-Session-Id');
    expect(invalid({ id: 'r', transport: { type: 'http', url: '${U}', bearerToken: '${T}', oauth: { flow: 'client_credentials', clientId: 'c', clientSecret: '${S}' } } }).field).toBe(
      'transport.oauth',
    );
    expect(invalid({ id: 's', transport: { type: 'stdio', command: 'x' }, timeouts: { callMs: 0 } }).field).toBe('timeouts.callMs');
    expect(invalid({ id: 's', transport: { type: 'stdio', command: '${' } }).field).toBe('transport.command');
  });

  it('checks the fleet fields', () => {
    const stdio = { type: 'stdio', command: 'x' };
    expect(invalid({ id: 's', transport: { type: 'http', url: 'https://e.example/mcp', envFile: '.env' } }).message).toContain('`transport.envFile` applies only to stdio servers');
    expect(invalid({ id: 's', transport: stdio, disabled: 1 }).field).toBe('disabled');
    expect(invalid({ id: 's', transport: stdio, autoApprove: [1] }).field).toBe('autoApprove.0');
    expect(invalid({ id: 's', transport: stdio, restartPolicy: { initialDelayMs: 0 } }).field).toBe('restartPolicy.initialDelayMs');
    expect(invalid({ id: 's', transport: stdio, restartPolicy: { initialDelayMs: 1.5 } }).field).toBe('restartPolicy.initialDelayMs');
    expect(invalid({ id: 's', transport: stdio, restartPolicy: { initialDelayMs: 86_400_001 } }).field).toBe('restartPolicy.initialDelayMs');
    expect(invalid({ id: 's', transport: stdio, restartPolicy: { initialDelayMs: 60_000 } }).field).toBe('restartPolicy.initialDelayMs');
    expect(invalid({ id: 's', transport: stdio, restartPolicy: { backoffMultiplier: 0.5 } }).field).toBe('restartPolicy.backoffMultiplier');
    expect(invalid({ id: 's', transport: stdio, restartPolicy: { maxRestartAttempts: -1 } }).field).toBe('restartPolicy.maxRestartAttempts');
    expect(invalid({ id: 's', transport: stdio, restartPolicy: { delay: 1 } }).field).toBe('restartPolicy.delay');
    expect(invalid({ id: 's', transport: stdio, unknown: true }).field).toBe('unknown');
    expect(invalid('not an object').field).toBe('(root)');
    expect(checkFleetServerConfig({ id: 's', transport: stdio, restartPolicy: { initialDelayMs: 60_000, maxDelayMs: 60_000, maxRestartAttempts: 0 } })).toBeDefined();
  });
});

/** The text with the first occurrence of `from` replaced by `to` (asserting it is there). */
function replaced(text: string, from: string, to: string): string {
  expect(text).toContain(from);
  return text.replace(from, to);
}

describe('render', () => {
  it.each(FIXTURES)('keeps $file byte for byte when nothing changed', async ({ file }) => {
    const document = await loadMcpConfig(fixture(file));
    const text = document.render(document.servers());
    expect(text).toBe(readFileSync(fixture(file), 'utf8'));
    expect(parseMcpConfig(text, { path: document.path }).text).toBe(document.text);
  });

  it('patches only the changed field of a VS Code file, keeping comments, trailing commas and inputs', async () => {
    const document = await loadMcpConfig(fixture('configs/vscode/.vscode/mcp.json'));
    const [search, everything] = document.servers();
    const rendered = document.render([search!, { ...everything!, transport: { type: 'stdio', command: 'node', args: ['server.js', '--fast'] } }]);
    expect(rendered).toBe(
      replaced(document.text, '["${workspaceFolder}/../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js"]', '["server.js", "--fast"]'),
    );
  });

  it('patches one env value inside an entry, keeping autoApprove, restartPolicy and templates', async () => {
    const document = await loadMcpConfig(fixture('configs/claude-desktop/claude_desktop_config.json'));
    const [memory, notes] = document.servers();
    const changed = structuredClone(notes!);
    if (changed.transport.type === 'stdio') changed.transport.env!.FIXTURE_NAME = 'renamed';
    expect(document.render([memory!, changed])).toBe(replaced(document.text, '"FIXTURE_NAME": "notes"', '"FIXTURE_NAME": "renamed"'));
  });

  it('keeps unknown fields and comments of a changed entry, and adds no default it did not have', () => {
    const text = [
      '{',
      '  "mcpServers": {',
      '    // the build server',
      '    "build": {',
      '      "command": "make", // the runner',
      '      "x-owner": "platform-team",',
      '      "args": ["serve"]',
      '    }',
      '  }',
      '}',
      '',
    ].join('\n');
    const document = parseMcpConfig(text, { path: '/p/.mcp.json' });
    expect(document.dialect).toBe('claude_code');
    const [build] = document.servers();
    const rendered = document.render([{ ...build!, transport: { type: 'stdio', command: 'make' }, disabled: true, autoApprove: ['compile'] }]);
    expect(rendered).toBe(
      [
        '{',
        '  "mcpServers": {',
        '    // the build server',
        '    "build": {',
        '      "command": "make", // the runner',
        '      "x-owner": "platform-team",',
        '      "disabled": true,',
        '      "autoApprove": ["compile"]',
        '    }',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('keeps the key style an entry was read with', async () => {
    const gemini = await loadMcpConfig(fixture('configs/gemini/.gemini/settings.json'));
    const [github, events, files] = gemini.servers();
    const text = gemini.render([
      { ...github!, transport: { ...(github!.transport as McpHttpTransportConfig), url: 'https://api.github.example/v2/' }, include: ['get_issue'] },
      { ...events!, exclude: ['drop'] },
      files!,
    ]);
    let expected = replaced(gemini.text, '"httpUrl": "https://api.github.example/mcp/"', '"httpUrl": "https://api.github.example/v2/"');
    expected = replaced(expected, '"includeTools": ["get_issue", "list_issues"]', '"includeTools": ["get_issue"]');
    expected = replaced(expected, '"excludeTools": ["delete_all"]', '"excludeTools": ["drop"]');
    expect(text).toBe(expected);

    const code = await loadMcpConfig(fixture('configs/claude-code/.mcp.json'));
    const [tasks, remote] = code.servers();
    const typed = code.render([{ ...tasks!, transport: { type: 'stdio', command: 'node' } }, remote!]);
    expect(parseJsonc(typed)).toMatchObject({ mcpServers: { tasks: { type: 'stdio', command: 'node' } } });
    expect((parseJsonc(typed) as { mcpServers: { tasks: object } }).mcpServers.tasks).toEqual({ type: 'stdio', command: 'node' });

    const streamable = parseMcpConfig(servers({ r: { type: 'streamable-http', url: 'https://a.example/mcp' } }));
    const moved = streamable.render([{ id: 'r', transport: { type: 'http', url: 'https://b.example/mcp' } }]);
    expect(moved).toBe(replaced(streamable.text, 'https://a.example/mcp', 'https://b.example/mcp'));
  });

  it('rewrites the transport keys in the dialect style when a server changes kind', async () => {
    const cursor = await loadMcpConfig(fixture('configs/cursor/.cursor/mcp.json'));
    const [docs, weather] = cursor.servers();
    const toSse = cursor.render([docs!, { ...weather!, transport: { ...(weather!.transport as McpHttpTransportConfig), type: 'sse' } }]);
    expect((parseJsonc(toSse) as { mcpServers: Record<string, unknown> }).mcpServers.weather).toEqual({
      url: '${env:WEATHER_URL}',
      headers: { 'X-Api-Key': '${env:WEATHER_KEY}' },
      type: 'sse',
    });
    const toRemote = cursor.render([{ id: 'docs', transport: { type: 'http', url: 'https://docs.example/mcp' } }, weather!]);
    expect((parseJsonc(toRemote) as { mcpServers: Record<string, unknown> }).mcpServers.docs).toEqual({ url: 'https://docs.example/mcp' });
    expect(parseMcpConfig(toRemote, { path: cursor.path }).servers()[0]).toEqual({ id: 'docs', transport: { type: 'http', url: 'https://docs.example/mcp' } });
  });

  const NEW_SERVERS: McpFleetServerConfig[] = [
    { id: 'local', transport: { type: 'stdio', command: 'npx', args: ['-y', 'pkg'] }, include: ['a'] },
    { id: 'web', transport: { type: 'http', url: 'https://example.com/mcp' } },
    { id: 'stream', transport: { type: 'sse', url: 'https://example.com/sse' } },
  ];
  const APPENDED: Record<McpConfigDialect, Record<string, unknown>> = {
    claude_desktop: {
      local: { command: 'npx', args: ['-y', 'pkg'], include: ['a'] },
      web: { type: 'http', url: 'https://example.com/mcp' },
      stream: { type: 'sse', url: 'https://example.com/sse' },
    },
    claude_code: {
      local: { type: 'stdio', command: 'npx', args: ['-y', 'pkg'], include: ['a'] },
      web: { type: 'http', url: 'https://example.com/mcp' },
      stream: { type: 'sse', url: 'https://example.com/sse' },
    },
    vscode: {
      local: { type: 'stdio', command: 'npx', args: ['-y', 'pkg'], include: ['a'] },
      web: { type: 'http', url: 'https://example.com/mcp' },
      stream: { type: 'sse', url: 'https://example.com/sse' },
    },
    cursor: {
      local: { command: 'npx', args: ['-y', 'pkg'], include: ['a'] },
      web: { url: 'https://example.com/mcp' },
      stream: { type: 'sse', url: 'https://example.com/sse' },
    },
    windsurf: {
      local: { command: 'npx', args: ['-y', 'pkg'], include: ['a'] },
      web: { serverUrl: 'https://example.com/mcp' },
      stream: { type: 'sse', serverUrl: 'https://example.com/sse' },
    },
    gemini_cli: {
      local: { command: 'npx', args: ['-y', 'pkg'], includeTools: ['a'] },
      web: { httpUrl: 'https://example.com/mcp' },
      stream: { url: 'https://example.com/sse' },
    },
  };

  it.each(FIXTURES)('appends new entries to $file in the $dialect style and deletes removed ones', async ({ file, dialect }) => {
    const document = await loadMcpConfig(fixture(file));
    const [first] = document.servers();
    const text = document.render([first!, ...NEW_SERVERS]);
    const key = dialect === 'vscode' ? 'servers' : 'mcpServers';
    const written = (parseJsonc(text, [], { allowTrailingComma: true }) as Record<string, Record<string, unknown>>)[key]!;
    expect(Object.keys(written)).toEqual([first!.id, 'local', 'web', 'stream']);
    for (const id of ['local', 'web', 'stream']) expect(written[id]).toEqual(APPENDED[dialect][id]);
    // The first entry is untouched, byte for byte, and strict JSON files stay strict JSON.
    const original = parseMcpConfig(document.text, { path: document.path });
    expect(parseMcpConfig(text, { path: document.path }).servers()).toEqual([original.servers()[0], ...NEW_SERVERS]);
    if (dialect !== 'vscode') expect(() => JSON.parse(text) as unknown).not.toThrow();
    // Entries appended to a newline-indented file are indented like their siblings.
    expect(text).toContain(`    "local": {`);
  });

  it('deletes entries cleanly, first or last, comment above and all', async () => {
    const desktop = await loadMcpConfig(fixture('configs/claude-desktop/claude_desktop_config.json'));
    const [memory, notes] = desktop.servers();
    expect(desktop.render([memory!])).toBe(
      '{\n  "mcpServers": {\n    "memory": {\n      "command": "node",\n      "args": ["${workspaceFolder}/../../../../node_modules/@modelcontextprotocol/server-memory/dist/index.js"],\n      "env": { "MEMORY_FILE_PATH": "${MEMORY_FILE_PATH}" }\n    }\n  }\n}\n',
    );
    const original = JSON.parse(desktop.text) as { mcpServers: Record<string, unknown> };
    expect(JSON.parse(desktop.render([notes!]))).toEqual({ mcpServers: { notes: original.mcpServers.notes } });
    expect(desktop.render([])).toBe('{\n  "mcpServers": {}\n}\n');
    const vscode = await loadMcpConfig(fixture('configs/vscode/.vscode/mcp.json'));
    const withoutSearch = vscode.render([vscode.servers()[1]!]);
    expect(withoutSearch).not.toContain('A local server');
    expect(withoutSearch).toContain('// Workspace MCP servers (VS Code).');
    expect(withoutSearch).toContain('"inputs": [');
    expect(parseMcpConfig(withoutSearch, { path: vscode.path }).servers()).toEqual([vscode.servers()[1]]);
  });

  it('keeps tabs and CRLF line endings', () => {
    const text = '{\r\n\t"mcpServers": {\r\n\t\t"a": {\r\n\t\t\t"command": "x"\r\n\t\t}\r\n\t}\r\n}\r\n';
    const document = parseMcpConfig(text);
    const rendered = document.render([...document.servers(), { id: 'b', transport: { type: 'stdio', command: 'y', env: { K: 'v' } } }]);
    expect(rendered).toBe('{\r\n\t"mcpServers": {\r\n\t\t"a": {\r\n\t\t\t"command": "x"\r\n\t\t},\r\n\t\t"b": {\r\n\t\t\t"command": "y",\r\n\t\t\t"env": {\r\n\t\t\t\t"K": "v"\r\n\t\t\t}\r\n\t\t}\r\n\t}\r\n}\r\n');
    expect(parseMcpConfig(rendered).render([])).toBe('{\r\n\t"mcpServers": {}\r\n}\r\n');
  });

  it('leaves compact entries alone when their neighbours come and go', () => {
    const text = '{"mcpServers":{"a":{"command":"x"},"b":{"command":"y","args":["1"]},"c":{"command":"z"}}}';
    const document = parseMcpConfig(text);
    const [a, b, c] = document.servers();
    expect(document.render([b!, c!])).toBe('{"mcpServers":{"b":{"command":"y","args":["1"]},"c":{"command":"z"}}}');
    expect(document.render([a!, b!])).toBe('{"mcpServers":{"a":{"command":"x"},"b":{"command":"y","args":["1"]}}}');
    expect(document.render([a!, c!])).toBe('{"mcpServers":{"a":{"command":"x"},"c":{"command":"z"}}}');
    expect(document.render([a!, b!, c!, { id: 'd', transport: { type: 'stdio', command: 'w' } }])).toBe(
      '{"mcpServers":{"a":{"command":"x"},"b":{"command":"y","args":["1"]},"c":{"command":"z"},"d":{"command":"w"}}}',
    );
    const changed = document.render([a!, { ...b!, transport: { type: 'stdio', command: 'y', args: ['1', '2'] } }, c!]);
    expect(changed).toBe('{"mcpServers":{"a":{"command":"x"},"b":{"command":"y","args":["1","2"]},"c":{"command":"z"}}}');
  });

  it('adds mcpServers to Gemini settings that had none, keeping every other setting', async () => {
    const text = '{\n  "theme": "GitHub",\n  "general": { "vimMode": true }\n}\n';
    const document = await loadMcpConfig(writeConfig('.gemini/settings.json', text));
    const rendered = document.render([{ id: 'g', transport: { type: 'http', url: 'https://example.com/mcp' } }]);
    expect(rendered).toBe('{\n  "theme": "GitHub",\n  "general": { "vimMode": true },\n  "mcpServers": {\n    "g": {\n      "httpUrl": "https://example.com/mcp"\n    }\n  }\n}\n');
    expect(document.render([])).toBe(text);
  });

  it.each(FIXTURES)('writes $file in every other dialect, reading back to the same servers with its unknown fields and other settings', async ({ file, dialect: from }) => {
    const document = await loadMcpConfig(fixture(file));
    const servers = document.servers();
    const plain = JSON.parse(JSON.stringify(parseJsonc(document.text, [], { allowTrailingComma: true }))) as Record<string, unknown>;
    for (const to of MCP_CONFIG_DIALECTS.filter((dialect) => dialect !== from)) {
      if (from === 'vscode' && to !== 'vscode') {
        // Its search server asks a VS Code input, which no other dialect declares.
        expect(() => document.render(servers, { dialect: to })).toThrow(/MCP server "search" uses VS Code inputs/);
        continue;
      }
      const text = document.render(servers, { dialect: to });
      const back = parseMcpConfig(text, { path: document.path, dialect: to });
      expect(back.servers(), to).toEqual(servers);
      for (const server of servers) expect(back.unknownFields(server.id), `${to} ${server.id}`).toEqual(document.unknownFields(server.id));
      const written = parseJsonc(text, [], { allowTrailingComma: true }) as Record<string, unknown>;
      const [fromKey, toKey] = [from === 'vscode' ? 'servers' : 'mcpServers', to === 'vscode' ? 'servers' : 'mcpServers'];
      expect(Object.keys(written)).toEqual(Object.keys(plain).map((key) => (key === fromKey ? toKey : key)));
      for (const key of Object.keys(plain).filter((key) => key !== fromKey)) expect(written[key]).toEqual(plain[key]);
    }
  });

  it('writes each entry in the new dialect\'s style, keeping comments, and refuses a servers key that is taken', () => {
    const text = [
      '{',
      '  // shared with the team',
      '  "mcpServers": {',
      '    "web": { "serverUrl": "https://web.example/mcp", "x-team": "core" },',
      '    "local": { "command": "node", "args": ["s.js"], "include": ["a"] }',
      '  }',
      '}',
      '',
    ].join('\n');
    const windsurf = parseMcpConfig(text, { dialect: 'windsurf' });
    expect(windsurf.render(windsurf.servers(), { dialect: 'vscode' })).toBe(
      [
        '{',
        '  // shared with the team',
        '  "servers": {',
        '    "web": { "x-team": "core", "type": "http", "url": "https://web.example/mcp" },',
        '    "local": { "command": "node", "args": ["s.js"], "include": ["a"], "type": "stdio" }',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect(windsurf.render(windsurf.servers(), { dialect: 'gemini_cli' })).toContain('"local": { "command": "node", "args": ["s.js"], "includeTools": ["a"] }');
    const taken = parseMcpConfig('{ "servers": "mine", "mcpServers": { "a": { "command": "x" } } }', { dialect: 'cursor' });
    expect(() => taken.render(taken.servers(), { dialect: 'vscode' })).toThrow(/already has a top-level "servers" key/);
  });

  it('writes unknown fields carried from another file into new entries only, and refuses keys mcp-fleet reads', async () => {
    const source = parseMcpConfig('{ "mcpServers": { "a": { "command": "x", "x-team": "core", "alwaysAllow": ["t"], "args": ["1"] } } }');
    expect(source.unknownFields('a')).toEqual({ 'x-team': 'core', alwaysAllow: ['t'] });
    expect(source.unknownFields('missing')).toEqual({});
    const target = await loadMcpConfig(fixture('configs/cursor/.cursor/mcp.json'));
    const fields = new Map([
      ['a', source.unknownFields('a')],
      ['docs', { 'x-ignored': true }],
    ]);
    const text = target.render([...target.servers(), ...source.servers()], { unknownFields: fields });
    const written = (parseJsonc(text) as { mcpServers: Record<string, unknown> }).mcpServers;
    expect(written.a).toEqual({ command: 'x', args: ['1'], 'x-team': 'core', alwaysAllow: ['t'] });
    // An entry the file has keeps what it has.
    expect(written.docs).not.toHaveProperty('x-ignored');
    expect(() => target.render(source.servers(), { unknownFields: new Map([['a', { command: 'y' }]]) })).toThrow(/`command` is a field mcp-fleet reads/);
    expect(() => target.render(source.servers(), { unknownFields: new Map([['a', { comand: 'y' }]]) })).toThrow(/did you mean `command`/);
  });

  it.each(MCP_CONFIG_DIALECTS)('creates a fresh %s file and writes servers into it', (dialect) => {
    const document = McpConfigDocument.create({ dialect, path: '/project/.vscode/mcp.json' });
    expect(document.workspaceFolder).toBe('/project');
    expect(document.dialect).toBe(dialect);
    expect(document.servers()).toEqual([]);
    expect(document.text).toBe(`{\n  "${dialect === 'vscode' ? 'servers' : 'mcpServers'}": {}\n}\n`);
    const text = document.render(NEW_SERVERS);
    expect(text).toContain('\n    "local": {\n      ');
    expect(parseMcpConfig(text, { dialect }).servers()).toEqual(NEW_SERVERS);
  });
});

describe('round trip (fast-check)', () => {
  const word = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._/:@-]{0,8}$/);
  const anyText = fc.string({ unit: 'binary', maxLength: 6 }).filter((text) => !text.includes('$'));
  const reference = fc.constantFrom('${HOME}', '${API_KEY:-none}', '${EMPTY:-}', '${env:TOKEN}', '${workspaceFolder}', '${userHome}', '${/}', '${input:key}', '${pathSeparator}');
  const templated = fc.array(fc.oneof(word, reference), { minLength: 1, maxLength: 3 }).map((parts) => parts.join(''));
  const loose = fc.oneof(anyText, templated);
  const envName = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,6}$/);
  const header = fc.constantFrom('X-Team', 'X-Api-Key', 'User-Agent', 'X-Trace-Id');
  const id = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,5}(?:[-_][a-z0-9]{1,3})?$/);

  const stdio = fc.record(
    {
      type: fc.constant('stdio' as const),
      command: templated,
      args: fc.array(loose, { maxLength: 3 }),
      env: fc.dictionary(envName, loose, { maxKeys: 3 }),
      cwd: templated,
      envFile: templated,
      inheritEnv: fc.boolean(),
      logStderr: fc.boolean(),
    },
    { requiredKeys: ['type', 'command'] },
  );
  const auth = fc.oneof(
    fc.constant({}),
    fc.record({ bearerToken: templated }),
    fc.constant({ oauth: { flow: 'client_credentials' as const, clientId: 'fleet', clientSecret: '${CLIENT_SECRET}' } }),
  );
  const remote = fc
    .tuple(
      fc.record(
        {
          type: fc.constantFrom('http' as const, 'sse' as const),
          url: fc.constantFrom('https://example.com/mcp', 'http://127.0.0.1:8080/mcp', '${REMOTE_URL}', 'https://${HOST:-example.com}/mcp'),
          headers: fc.dictionary(header, templated, { maxKeys: 2 }),
          allowInsecureHttp: fc.boolean(),
        },
        { requiredKeys: ['type', 'url'] },
      ),
      auth,
    )
    .map(([transport, credentials]) => ({ ...transport, ...credentials }));
  const fleetFields = fc.record(
    {
      disabled: fc.boolean(),
      autoApprove: fc.array(word, { maxLength: 2 }),
      restartPolicy: fc.record(
        {
          initialDelayMs: fc.integer({ min: 1, max: 1000 }),
          maxDelayMs: fc.integer({ min: 1000, max: 86_400_000 }),
          backoffMultiplier: fc.double({ min: 1, max: 10, noNaN: true }),
          maxRestartAttempts: fc.integer({ min: 0, max: 100 }),
        },
        { requiredKeys: [] },
      ),
      lifecycle: fc.constantFrom('auto' as const, 'initialize' as const),
      include: fc.array(word, { maxLength: 2 }),
      exclude: fc.array(word, { maxLength: 2 }),
      tasks: fc.oneof(fc.constant(false as const), fc.record({ maxWaitMs: fc.integer({ min: 1000, max: 100_000 }) }, { requiredKeys: [] })),
      timeouts: fc.record({ callMs: fc.integer({ min: 1, max: 86_400_000 }), probeMs: fc.integer({ min: 1, max: 60_000 }) }, { requiredKeys: [] }),
      limits: fc.record({ catalogItems: fc.integer({ min: 1, max: 5000 }), outputTextBytes: fc.integer({ min: 256, max: 100_000 }) }, { requiredKeys: [] }),
      concurrency: fc.constantFrom('serial' as const, 'read_only_parallel' as const, 'parallel' as const),
      required: fc.boolean(),
      startup: fc.constant('eager' as const),
      elicitation: fc.boolean(),
      resources: fc.boolean(),
      secrets: fc.array(word, { maxLength: 2 }),
    },
    { requiredKeys: [] },
  );
  const server = (ids: fc.Arbitrary<string>): fc.Arbitrary<McpFleetServerConfig> =>
    fc
      .tuple(ids, fc.oneof(stdio, remote), fleetFields)
      .map(([serverId, transport, fields]): McpFleetServerConfig => ({ id: serverId, transport, ...fields }))
      .filter((candidate) => {
        try {
          checkFleetServerConfig(candidate);
          return true;
        } catch {
          return false;
        }
      });

  /** A list the document could be given: some of its servers as they are, some changed, some new; unique tool-name ids. */
  const fleetFor = (document: McpConfigDocument): fc.Arbitrary<McpFleetServerConfig[]> => {
    const current = document.servers();
    const ids = current.length === 0 ? id : fc.oneof(id, fc.constantFrom(...current.map((entry) => entry.id)));
    return fc
      .tuple(fc.subarray(current), fc.array(server(ids), { maxLength: 4 }), fc.boolean())
      .map(([kept, generated, keptFirst]) => {
        const list = keptFirst ? [...kept, ...generated] : [...generated, ...kept];
        const seen = new Set<string>();
        return list.filter((entry) => {
          const part = sanitizeNamePart(entry.id);
          if (seen.has(part)) return false;
          seen.add(part);
          return true;
        });
      });
  };

  /** Where render puts each server: the file's own entries keep their places, new ones follow in list order. */
  const inFileOrder = (document: McpConfigDocument, list: McpFleetServerConfig[]): McpFleetServerConfig[] => {
    const order = document.servers().map((entry) => entry.id);
    const existing = list.filter((entry) => order.includes(entry.id)).sort((x, y) => order.indexOf(x.id) - order.indexOf(y.id));
    return [...existing, ...list.filter((entry) => !order.includes(entry.id))];
  };

  const documents: { name: string; load: () => Promise<{ document: McpConfigDocument; options: McpConfigLoadOptions }> }[] = [
    ...FIXTURES.map(({ file }) => ({
      name: file,
      load: async () => {
        const document = await loadMcpConfig(fixture(file));
        return { document, options: { path: document.path } };
      },
    })),
    ...MCP_CONFIG_DIALECTS.map((dialect) => ({
      name: `a new ${dialect} file`,
      load: () => Promise.resolve({ document: McpConfigDocument.create({ dialect }), options: { dialect } }),
    })),
    {
      name: 'a file with comments and trailing commas everywhere',
      load: () => {
        const text = [
          '// top',
          '{',
          '  /* before */ "mcpServers": { // servers',
          '    // a',
          '    "a": { "command": "x", "env": { "A": "1", }, }, // after a',
          '    /* b',
          '       multi */',
          '    "b": {',
          '      "type": "http", // t',
          '      "url": "https://example.com/mcp",',
          '      "headers": { "X-Team": "t" }, // h',
          '      "x-unknown": [1, 2], // keep',
          '    },',
          '',
          '    "c": {"command":"y","args":["1","2"]}',
          '  },',
          '  "other": true,',
          '}',
          '',
        ].join('\n');
        return Promise.resolve({ document: parseMcpConfig(text, { path: '/p/.mcp.json' }), options: { path: '/p/.mcp.json' } });
      },
    },
    {
      name: 'an empty servers object holding a comment',
      load: () => {
        const text = '{\n  "mcpServers": {\n    // nothing yet\n  }\n}\n';
        return Promise.resolve({ document: parseMcpConfig(text, { path: '/p/.cursor/mcp.json' }), options: { path: '/p/.cursor/mcp.json' } });
      },
    },
    {
      name: 'a compact CRLF file',
      load: () => {
        const text = '{"mcpServers":{"a":{"command":"x"}},"other":1}\r\n';
        return Promise.resolve({ document: parseMcpConfig(text), options: {} });
      },
    },
  ];

  it.each(documents)('render(servers()) keeps $name, and render(x) reads back as x', async ({ load }) => {
    const { document, options } = await load();
    expect(parseMcpConfig(document.render(document.servers()), options).text).toBe(document.text);
    fc.assert(
      fc.property(fleetFor(document), (list) => {
        const text = document.render(list);
        const again = parseMcpConfig(text, options);
        // Without a path or a forced dialect, entry markers decide: a Claude Desktop text given a
        // remote server (`type: "http"`, as Claude Code writes it) reads as Claude Code, the same configs.
        if (options.path !== undefined || options.dialect !== undefined) expect(again.dialect).toBe(document.dialect);
        expect(again.servers()).toStrictEqual(inFileOrder(document, list).map((entry) => checkFleetServerConfig(entry)));
        // A rendered file is a fixed point of its own servers.
        expect(again.render(again.servers())).toBe(text);
      }),
      { numRuns: 60 },
    );
  });
});

describe('writeFileAtomic', () => {
  it('replaces the file whole, keeps its mode and leaves no temporary file', async () => {
    const folder = tempDir();
    const path = join(folder, 'mcp.json');
    writeFileSync(path, 'old content that is longer than the new one');
    chmodSync(path, 0o600);
    await writeFileAtomic(path, '{ "new": true }\n');
    expect(readFileSync(path, 'utf8')).toBe('{ "new": true }\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(folder)).toEqual(['mcp.json']);
  });

  it('creates a new file with the default mode', async () => {
    const folder = tempDir();
    const path = join(folder, 'fresh.json');
    await writeFileAtomic(path, 'x');
    expect(readFileSync(path, 'utf8')).toBe('x');
    const umask = process.umask();
    expect(statSync(path).mode & 0o777).toBe(0o666 & ~umask);
    expect(readdirSync(folder)).toEqual(['fresh.json']);
  });

  it('writes through a symlink, which stays a symlink', async () => {
    const folder = tempDir();
    const real = join(folder, 'real.json');
    writeFileSync(real, 'old');
    const link = join(folder, 'link.json');
    symlinkSync(real, link);
    await writeFileAtomic(link, 'new');
    expect(readFileSync(real, 'utf8')).toBe('new');
    expect(statSync(link).isFile()).toBe(true);
    expect(readdirSync(folder).sort()).toEqual(['link.json', 'real.json']);
  });

  it('removes its temporary file when the write fails', async () => {
    const folder = tempDir();
    // Renaming a file over a folder fails after the temporary file was written.
    mkdirSync(join(folder, 'taken'));
    writeFileSync(join(folder, 'taken', 'keep'), '');
    await expect(writeFileAtomic(join(folder, 'taken'), 'x')).rejects.toThrow();
    expect(readdirSync(folder)).toEqual(['taken']);
  });
});
