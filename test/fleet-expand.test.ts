/**
 * Template expansion of fleet server configs: every template form, defaults, missing
 * variables and inputs, env files, collected secrets, inputs asked once across
 * concurrent starts, and no value in any error message.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpConfigError } from '../src/mcp/errors.js';
import { loadMcpConfig } from '../src/fleet/config-file.js';
import { expandServerConfig, type McpConfigInput, type McpExpansionContext, type McpInputRequest } from '../src/fleet/expand.js';
import type { McpFleetServerConfig } from '../src/fleet/server-config.js';
import { hasTemplates, parseTemplate, templateReferences } from '../src/fleet/templates.js';
import { fixture, tempDir } from './helpers.js';

const WORKSPACE = join(tmpdir(), 'workspace-of-tests');
const HOME = join(tmpdir(), 'home-of-tests');

function context(overrides: Partial<McpExpansionContext> = {}): McpExpansionContext {
  return { env: {}, home: HOME, workspaceFolder: WORKSPACE, inputs: [], askInput: undefined, answers: new Map(), ...overrides };
}

function stdio(overrides: Partial<McpFleetServerConfig['transport']> = {}, server: Partial<McpFleetServerConfig> = {}): McpFleetServerConfig {
  return { id: 'tasks', transport: { type: 'stdio', command: 'node', ...overrides } as McpFleetServerConfig['transport'], ...server };
}

async function expansionError(server: McpFleetServerConfig, ctx: McpExpansionContext): Promise<McpConfigError> {
  try {
    await expandServerConfig(server, ctx);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return error as McpConfigError;
  }
  throw new Error('expected expandServerConfig to throw');
}

describe('the template language', () => {
  it('splits a string into literal text and references, in order', () => {
    expect(parseTemplate('a ${VAR} b ${VAR2:-x y} ${env:E} ${userHome}${/}${input:key-1} c')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'variable', name: 'VAR', source: '${VAR}' },
      { kind: 'text', text: ' b ' },
      { kind: 'variable', name: 'VAR2', default: 'x y', source: '${VAR2:-x y}' },
      { kind: 'text', text: ' ' },
      { kind: 'variable', name: 'E', source: '${env:E}' },
      { kind: 'text', text: ' ' },
      { kind: 'predefined', name: 'userHome', source: '${userHome}' },
      { kind: 'predefined', name: 'pathSeparator', source: '${/}' },
      { kind: 'input', id: 'key-1', source: '${input:key-1}' },
      { kind: 'text', text: ' c' },
    ]);
    expect(parseTemplate('')).toEqual([]);
    expect(parseTemplate('$HOME and $ alone')).toEqual([{ kind: 'text', text: '$HOME and $ alone' }]);
    expect(parseTemplate('${EMPTY:-}')).toEqual([{ kind: 'variable', name: 'EMPTY', default: '', source: '${EMPTY:-}' }]);
    expect(hasTemplates('plain')).toBe(false);
    expect(hasTemplates('a ${B')).toBe(true);
  });

  it.each([
    ['${config:editor.fontSize}', /\$\{config:\.\.\.\} template, which mcp-fleet does not support/],
    ['${command:pick}', /\$\{command:\.\.\.\}/],
    ['${file}', /editor variable \$\{file\}/],
    ['x ${', /without a closing "\}" at character 10/],
    ['${cwd}', /editor variable \$\{cwd\}/],
    ['${}', /empty template/],
    ['${1ABC}', /unsupported template/],
    ['${A:-${B}}', /default that holds another template/],
    ['${A:b}', /a default is written \$\{VAR:-default\}/],
    ['${env:1X}', /whose name is not valid/],
  ])('refuses %s, naming the field', (text, message) => {
    let error: unknown;
    try {
      parseTemplate(`secret-${text}`, { serverId: 'tasks', field: 'transport.args.0' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(McpConfigError);
    const configError = error as McpConfigError;
    expect(configError.field).toBe('transport.args.0');
    expect(configError.serverId).toBe('tasks');
    expect(configError.message).toMatch(/^MCP server "tasks": `transport\.args\.0` /);
    expect(configError.message).toMatch(message);
    expect(configError.message).toContain('supported templates are ${VAR}, ${VAR:-default}');
    expect(configError.message).not.toContain('secret-');
  });

  it('lists the references a config uses, by field', () => {
    const server = stdio({ command: '${NODE:-node}', args: ['${input:k}'], env: { A: '${env:B}' } });
    expect(templateReferences(server, 'tasks').map(({ field, reference }) => [field, reference.source])).toEqual([
      ['transport.command', '${NODE:-node}'],
      ['transport.args.0', '${input:k}'],
      ['transport.env.A', '${env:B}'],
    ]);
  });
});

describe('expandServerConfig', () => {
  it('expands every template form in every templated field and copies the rest', async () => {
    const server: McpFleetServerConfig = {
      id: 'tasks',
      transport: {
        type: 'stdio',
        command: '${NODE_BIN:-node}',
        args: ['${workspaceFolder}/server.mjs', '--home=${userHome}', 'a${/}b${pathSeparator}c', '${workspaceFolderBasename}', '${env:MODE}', '${input:k}'],
        env: { TOKEN: '${TOKEN}', EMPTY_DEFAULT: '${UNSET:-}', SET_EMPTY: '${BLANK:-fallback}', LITERAL: 'plain $HOME' },
        cwd: '${workspaceFolder}',
        inheritEnv: true,
      },
      include: ['${NOT_A_TEMPLATE_FIELD}'],
      disabled: false,
      autoApprove: ['echo'],
      restartPolicy: { initialDelayMs: 10 },
      timeouts: { callMs: 5_000 },
    };
    const { config, secrets } = await expandServerConfig(
      server,
      context({
        env: { TOKEN: 'tok-123456', MODE: 'fast', BLANK: '' },
        inputs: [{ id: 'k', type: 'promptString' }],
        askInput: () => 'answer-1',
      }),
    );
    expect(config).toEqual({
      id: 'tasks',
      transport: {
        type: 'stdio',
        command: 'node',
        args: [`${WORKSPACE}/server.mjs`, `--home=${HOME}`, `a${sep}b${sep}c`, basename(WORKSPACE), 'fast', 'answer-1'],
        env: { TOKEN: 'tok-123456', EMPTY_DEFAULT: '', SET_EMPTY: 'fallback', LITERAL: 'plain $HOME' },
        cwd: WORKSPACE,
        inheritEnv: true,
      },
      include: ['${NOT_A_TEMPLATE_FIELD}'],
      timeouts: { callMs: 5_000 },
      // The input first (asked before substitution), then variables in field order.
      secrets: ['answer-1', 'fast', 'tok-123456'],
    });
    expect(secrets).toEqual(config.secrets);
  });

  it('expands remote fields: url, header values, bearer token and OAuth strings', async () => {
    const server: McpFleetServerConfig = {
      id: 'remote',
      transport: {
        type: 'http',
        url: 'https://${HOST:-mcp.example.com}/mcp?team=${TEAM}',
        headers: { 'X-Team': '${TEAM}', 'X-Static': 'static' },
        oauth: { flow: 'client_credentials', clientId: '${CLIENT_ID}', clientSecret: '${env:CLIENT_SECRET}', scopes: ['${SCOPE:-read}'] },
      },
    };
    const { config, secrets } = await expandServerConfig(server, context({ env: { TEAM: 'platform', CLIENT_ID: 'fleet-client', CLIENT_SECRET: 'very-secret' } }));
    expect(config.transport).toEqual({
      type: 'http',
      url: 'https://mcp.example.com/mcp?team=platform',
      headers: { 'X-Team': 'platform', 'X-Static': 'static' },
      oauth: { flow: 'client_credentials', clientId: 'fleet-client', clientSecret: 'very-secret', scopes: ['read'] },
    });
    expect(secrets).toEqual(['platform', 'fleet-client', 'very-secret']);
    const bearer = await expandServerConfig(
      { id: 'remote', transport: { type: 'sse', url: 'https://example.com/sse', bearerToken: '${TOKEN}' } },
      context({ env: { TOKEN: 'bearer-value' } }),
    );
    expect(bearer.config.transport).toEqual({ type: 'sse', url: 'https://example.com/sse', bearerToken: 'bearer-value' });
  });

  it('keeps existing secrets and adds no secrets key when there is nothing to add', async () => {
    const plain = await expandServerConfig(stdio({ args: ['x'] }), context());
    expect(plain).toEqual({ config: { id: 'tasks', transport: { type: 'stdio', command: 'node', args: ['x'] } }, secrets: [] });
    const kept = await expandServerConfig(stdio({ args: ['${A}'] }, { secrets: ['given-secret'] }), context({ env: { A: 'from-env' } }));
    expect(kept.secrets).toEqual(['given-secret', 'from-env']);
    expect(kept.config.secrets).toEqual(['given-secret', 'from-env']);
  });

  it('refuses an unset variable without a default, naming server, field and variable but no value', async () => {
    const server = stdio({ env: { TASKS_API_KEY: '${TASKS_API_KEY}', OTHER: '${OTHER}' } });
    const error = await expansionError(server, context({ env: { OTHER: 'other-value' } }));
    expect(error.message).toBe(
      'MCP server "tasks": `transport.env.TASKS_API_KEY` uses ${TASKS_API_KEY}, which is not set; set it in the environment or give a default: ${TASKS_API_KEY:-value}.',
    );
    expect(error.serverId).toBe('tasks');
    expect(error.field).toBe('transport.env.TASKS_API_KEY');
    const envForm = await expansionError(stdio({ args: ['--key', 'k=${env:API_KEY}'] }), context());
    expect(envForm.field).toBe('transport.args.1');
    expect(envForm.message).toContain('uses ${API_KEY}, which is not set');
  });

  it('reads only own variables of the environment', async () => {
    const error = await expansionError(stdio({ args: ['${constructor}'] }), context({ env: process.env }));
    expect(error.message).toContain('uses ${constructor}, which is not set');
  });

  it('refuses ${workspaceFolder} when no workspace is known', async () => {
    const error = await expansionError(stdio({ cwd: '${workspaceFolder}' }), context({ workspaceFolder: undefined }));
    expect(error.field).toBe('transport.cwd');
    expect(error.message).toContain('uses ${workspaceFolder}, but no workspace folder is known');
  });

  it('checks a templated url once it is expanded', async () => {
    const error = await expansionError({ id: 'remote', transport: { type: 'http', url: '${REMOTE_URL}' } }, context({ env: { REMOTE_URL: 'not a url secret-host' } }));
    expect(error.field).toBe('transport.url');
    expect(error.message).toContain('is not a valid URL');
    expect(error.message).not.toContain('secret-host');
  });

  describe('inputs', () => {
    const searchKey: McpConfigInput = { id: 'search-key', type: 'promptString', description: 'API key of the search server', password: true };

    it('refuses an input that is not declared', async () => {
      const error = await expansionError(stdio({ env: { KEY: '${input:search-key}' } }), context({ askInput: () => 'never-asked' }));
      expect(error.field).toBe('transport.env.KEY');
      expect(error.message).toBe(
        'MCP server "tasks": `transport.env.KEY` uses ${input:search-key}, which is not declared in `inputs`; declare an input with id "search-key" (the "inputs" list of a VS Code mcp.json).',
      );
    });

    it('refuses an input nobody can answer, naming its id and description', async () => {
      const server = stdio({ env: { KEY: '${input:search-key}' } });
      const noHandler = await expansionError(server, context({ inputs: [searchKey] }));
      expect(noHandler.message).toContain('uses ${input:search-key} ("API key of the search server"), but nothing can ask for it; give the McpServerManager an `inputs` handler');
      const unanswered = await expansionError(server, context({ inputs: [searchKey], askInput: () => undefined }));
      expect(unanswered.message).toContain('uses ${input:search-key} ("API key of the search server"), which was not answered');
      expect(unanswered.field).toBe('transport.env.KEY');
    });

    it('asks the handler with the server, the field and the declared input, and reuses the answer', async () => {
      const requests: McpInputRequest[] = [];
      const ctx = context({
        inputs: [searchKey],
        askInput: (request) => {
          requests.push(request);
          return 'typed-key';
        },
      });
      const first = await expandServerConfig(stdio({ env: { KEY: '${input:search-key}' }, args: ['${input:search-key}'] }), ctx);
      const second = await expandServerConfig({ ...stdio({ args: ['--key=${input:search-key}'] }), id: 'other' }, ctx);
      expect(requests).toEqual([{ serverId: 'tasks', field: 'transport.args.0', input: searchKey }]);
      expect(first.config.transport).toMatchObject({ args: ['typed-key'], env: { KEY: 'typed-key' } });
      expect(second.config.transport).toMatchObject({ args: ['--key=typed-key'] });
      expect(second.secrets).toEqual(['typed-key']);
      expect(ctx.answers.get('search-key')).toBe('typed-key');
    });

    it('asks once when two servers start at the same time', async () => {
      let asked = 0;
      let release!: (value: string) => void;
      const ctx = context({
        inputs: [searchKey],
        askInput: () => {
          asked++;
          return new Promise<string>((resolve) => (release = resolve));
        },
      });
      const one = expandServerConfig(stdio({ env: { KEY: '${input:search-key}' } }), ctx);
      const two = expandServerConfig({ ...stdio({ args: ['${input:search-key}'] }), id: 'two' }, ctx);
      await new Promise((resolve) => setTimeout(resolve, 10));
      release('shared-answer');
      const [a, b] = await Promise.all([one, two]);
      expect(asked).toBe(1);
      expect(a.config.transport).toMatchObject({ env: { KEY: 'shared-answer' } });
      expect(b.config.transport).toMatchObject({ args: ['shared-answer'] });
    });

    it('asks again at the next start when the first question went unanswered', async () => {
      let asked = 0;
      const ctx = context({ inputs: [searchKey], askInput: () => (++asked === 1 ? undefined : 'second-try') });
      const server = stdio({ env: { KEY: '${input:search-key}' } });
      await expansionError(server, ctx);
      const { config } = await expandServerConfig(server, ctx);
      expect(asked).toBe(2);
      expect(config.transport).toMatchObject({ env: { KEY: 'second-try' } });
    });
  });

  describe('envFile', () => {
    it('merges the env file under env (env wins), relative to the workspace folder', async () => {
      const workspace = tempDir();
      mkdirSync(join(workspace, 'conf'));
      writeFileSync(join(workspace, 'conf', 'app.env'), '# comment\nREGION=eu-west\nexport QUOTED="a b"\nKEY=from-file-loses\n');
      const { config, secrets } = await expandServerConfig(
        stdio({ env: { KEY: 'from-env-wins' }, envFile: 'conf/app.env' }, { disabled: true }),
        context({ workspaceFolder: workspace }),
      );
      expect(config).toEqual({
        id: 'tasks',
        transport: { type: 'stdio', command: 'node', env: { REGION: 'eu-west', QUOTED: 'a b', KEY: 'from-env-wins' } },
        secrets: expect.arrayContaining(['eu-west', 'a b']) as string[],
      });
      expect([...secrets].sort()).toEqual(['a b', 'eu-west']);
    });

    it('reads the VS Code fixture: envFile beside the workspace, an input on top', async () => {
      const document = await loadMcpConfig(fixture('configs/vscode/.vscode/mcp.json'));
      const search = document.servers().find((server) => server.id === 'search')!;
      const { config, secrets } = await expandServerConfig(search, {
        env: {},
        home: HOME,
        workspaceFolder: document.workspaceFolder,
        inputs: document.inputs,
        askInput: () => 'typed-search-key',
        answers: new Map(),
      });
      expect(config.transport).toEqual({
        type: 'stdio',
        command: 'node',
        args: [`${fixture('configs/vscode')}/../../fleet-server.mjs`],
        env: { SEARCH_REGION: 'eu-west', SEARCH_API_KEY: 'typed-search-key' },
      });
      expect(secrets).toEqual(['typed-search-key', 'eu-west']);
    });

    it('names the server, the field and the path of a missing env file, never a value', async () => {
      const workspace = tempDir();
      const error = await expansionError(stdio({ envFile: '${workspaceFolder}/missing.env' }), context({ workspaceFolder: workspace }));
      expect(error.field).toBe('transport.envFile');
      expect(error.message).toBe(
        `MCP server "tasks": \`transport.envFile\` names the file ${JSON.stringify(join(workspace, 'missing.env'))}, which cannot be read (it does not exist); create it or fix the path.`,
      );
      const secretPath = await expansionError(stdio({ envFile: '${SECRET_DIR}/app.env' }), context({ env: { SECRET_DIR: '/very-secret-dir' } }));
      expect(secretPath.message).toContain('"${SECRET_DIR}/app.env" (as written)');
      expect(secretPath.message).not.toContain('very-secret-dir');
      const folder = await expansionError(stdio({ envFile: workspace }), context());
      expect(folder.message).toContain('(it is a folder)');
    });
  });

  it('never puts a value into an error message', async () => {
    const values = { SECRET_A: 'value-aaaa', SECRET_B: 'value-bbbb' };
    const servers: McpFleetServerConfig[] = [
      stdio({ command: '${SECRET_A}', args: ['${SECRET_B}', '${MISSING}'] }),
      stdio({ env: { A: '${SECRET_A}' }, cwd: '${workspaceFolder}' }),
      { id: 'remote', transport: { type: 'http', url: 'ftp://${SECRET_A}/mcp' } },
      { id: 'remote', transport: { type: 'http', url: 'https://example.com/mcp', headers: { 'X-A': '${SECRET_A}\n' } } },
    ];
    const contexts = [context({ env: values }), context({ env: values, workspaceFolder: undefined }), context({ env: values }), context({ env: values })];
    for (const [index, server] of servers.entries()) {
      const error = await expansionError(server, contexts[index]!);
      expect(error.message).not.toContain('value-aaaa');
      expect(error.message).not.toContain('value-bbbb');
    }
  });
});
