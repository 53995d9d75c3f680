/**
 * The `mcp-fleet` command as a user runs it: the built executable (dist/cli/main.js, what
 * `npx mcp-fleet` runs), as a child process with pipes, against real servers.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadMcpConfig } from '../src/index.js';
import { fixture, followAuthorization, type HttpFixture, startHttpFixture, tempDir } from './helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'dist', 'cli', 'main.js');
const FLEET_SERVER = `${process.execPath} ${fixture('fleet-server.mjs')}`;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command; `input` is written to its stdin, which then closes (unless `keepOpen`). */
function cli(args: string[], options: { cwd?: string; env?: Record<string, string>; input?: string } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? tempDir(),
      env: { PATH: process.env.PATH!, HOME: options.env?.HOME ?? tempDir(), XDG_CONFIG_HOME: tempDir(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('help and version', () => {
  it('--help lists the commands and the exit codes; --version prints the version', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['list', 'call', 'ping', 'status', 'search', 'resources', 'read', 'prompts', 'prompt', 'auth', 'config']) {
      expect(help.stdout).toContain(command);
    }
    expect(help.stdout).toContain('130 interrupted');
    const version = await cli(['--version']);
    const { version: packageVersion } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(version).toMatchObject({ code: 0, stdout: `${packageVersion}\n` });
    const callHelp = await cli(['call', '--help']);
    expect(callHelp.stdout).toContain('--args <json>');
  });

  it('stops quietly when the reader of its output goes away (| head, | true)', async () => {
    const child = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" --help | true`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
    expect(stderr).toBe('');
  });

  it('an unknown command or option is a usage error (exit 2)', async () => {
    expect((await cli(['frobnicate'])).code).toBe(2);
    expect((await cli(['list', '--frobnicate'])).code).toBe(2);
  });
});

describe('ad-hoc servers', () => {
  const everything = `${process.execPath} ./node_modules/@modelcontextprotocol/server-everything/dist/index.js`;

  it('list with only an ad-hoc server shows its tools with readable signatures, as list <server> does', async () => {
    const tools = await cli(['list', '--stdio', FLEET_SERVER]);
    expect(tools.code).toBe(0);
    // Piped: tab-separated rows, no header, then the counts.
    expect(tools.stdout).toContain('echo(text: string)\tEchoes the text back.\n');
    expect(tools.stdout).toContain('whoami()');
    expect(tools.stdout.trimEnd().split('\n').at(-1)).toMatch(/^2 tools, /);
    expect(await cli(['list', 'fleet-server', '--stdio', FLEET_SERVER])).toMatchObject({ code: 0, stdout: tools.stdout });
    const json = JSON.parse((await cli(['list', '--stdio', FLEET_SERVER, '--json'])).stdout) as { server: { id: string } };
    expect(json).toEqual(JSON.parse((await cli(['list', 'fleet-server', '--stdio', FLEET_SERVER, '--json'])).stdout));
    expect(json.server.id).toBe('fleet-server');
  });

  it('list with several ad-hoc servers shows each one\'s tools in turn, and names one by its package, not its file', async () => {
    const ran = await cli(['list', '--stdio', FLEET_SERVER, '--stdio', everything], { cwd: ROOT });
    expect(ran.code).toBe(0);
    const blocks = ran.stdout.split('\n\n');
    expect(blocks.map((block) => block.split('\n', 1)[0])).toEqual(['fleet-server', 'server-everything']);
    expect(blocks[1]).toContain('get-sum(a: number, b: number)\tReturns the sum of two numbers');
    const json = JSON.parse((await cli(['list', '--stdio', FLEET_SERVER, '--stdio', everything, '--json'], { cwd: ROOT })).stdout) as {
      servers: { server: { id: string; toolCount: number }; tools: { name: string }[]; prompts: number | null }[];
    };
    expect(json.servers.map((listing) => listing.server.id)).toEqual(['fleet-server', 'server-everything']);
    expect(json.servers[1]!.tools.map((tool) => tool.name)).toContain('get-sum');
    for (const listing of json.servers) expect(listing.tools).toHaveLength(listing.server.toolCount);
  });

  it('list with several ad-hoc servers still shows the ones that start when one does not, and exits 1', async () => {
    const missing = join(tempDir(), 'missing-program');
    const ran = await cli(['list', '--stdio', missing, '--stdio', FLEET_SERVER]);
    expect(ran.code).toBe(1);
    expect(ran.stdout.split('\n', 1)[0]).toBe('fleet-server');
    expect(ran.stdout).toContain('echo(text: string)');
    expect(ran.stderr).toContain('missing-program');
    const json = JSON.parse((await cli(['list', '--stdio', missing, '--stdio', FLEET_SERVER, '--json'])).stdout) as { servers: { server: { id: string; state: string }; tools: unknown[]; prompts: null }[] };
    expect(json.servers[0]).toMatchObject({ server: { id: 'missing-program', state: 'failed_to_start' }, tools: [], resources: null, resourceTemplates: null, prompts: null });
    expect(json.servers[1]!.tools).toHaveLength(2);
  });

  it('list <server> prints its counts on stdout with the tools, the same as --json has them', async () => {
    const ran = await cli(['list', 'ev', '--stdio', everything, '--name', 'ev'], { cwd: ROOT });
    expect(ran.code).toBe(0);
    const counts = /^(\d+) tools, (\d+) resources \((\d+) templates\), (\d+) prompts$/.exec(ran.stdout.trimEnd().split('\n').at(-1)!);
    expect(counts).not.toBeNull();
    expect(ran.stderr).not.toContain(' tools, ');
    const json = JSON.parse((await cli(['list', 'ev', '--stdio', everything, '--name', 'ev', '--json'], { cwd: ROOT })).stdout) as {
      server: { toolCount: number };
      tools: unknown[];
      resources: number;
      resourceTemplates: number;
      prompts: number;
    };
    expect(counts!.slice(1).map(Number)).toEqual([json.tools.length, json.resources, json.resourceTemplates, json.prompts]);
    expect(json.server.toolCount).toBe(json.tools.length);
    expect(json.resources).toBeGreaterThan(0);
  });

  it('lists every tool of server-everything by a command line with quotes, named by --name', async () => {
    const everything = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
    const ran = await cli(['list', 'ev', '--stdio', `"${process.execPath}" '${everything}'`, '--name', 'ev', '--json']);
    expect(ran.code).toBe(0);
    const listed = JSON.parse(ran.stdout) as { server: { id: string }; tools: { name: string; signature: string }[]; resources: number; prompts: number };
    expect(listed.server.id).toBe('ev');
    expect(listed.tools.map((tool) => tool.name)).toContain('get-sum');
    expect(listed.tools.find((tool) => tool.name === 'get-sum')!.signature).toBe('get-sum(a: number, b: number)');
    expect(listed.resources).toBeGreaterThan(0);
    expect(listed.prompts).toBeGreaterThan(0);
  });
});

describe('call', () => {
  const v2 = `${process.execPath} ${fixture('v2-server.mjs')}`;

  it('prints the tool text; --json prints the envelope with server_id and the remote tool name', async () => {
    const text = await cli(['call', 'fleet-server.echo', 'text=hello there', '--stdio', FLEET_SERVER]);
    expect(text).toMatchObject({ code: 0, stdout: 'hello there\n' });
    const json = await cli(['call', 'v2.issues.get-by-id', 'id=7', '--stdio', v2, '--name', 'v2', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ server_id: 'v2', tool: 'issues.get-by-id', isError: false, content: [{ type: 'text', text: 'issue 7' }] });
  });

  it('takes values that parse as JSON as JSON, and --args wins', async () => {
    const ran = await cli(['call', 'v2.add', 'a=2', 'b=40', '--stdio', v2, '--name', 'v2', '--json']);
    expect(JSON.parse(ran.stdout)).toMatchObject({ structuredContent: { sum: 42 } });
    const overridden = await cli(['call', 'v2.add', 'a=2', 'b=40', '--args', '{"b": 1}', '--stdio', v2, '--name', 'v2', '--json']);
    expect(JSON.parse(overridden.stdout)).toMatchObject({ structuredContent: { sum: 3 } });
  });

  it('a tool error exits 1; a bad argument, a missing one or an unknown tool exits 2, naming the fix', async () => {
    const failed = await cli(['call', 'v2.fail', '--stdio', v2, '--name', 'v2']);
    expect(failed).toMatchObject({ code: 1, stdout: 'this tool always fails\n' });
    const bad = await cli(['call', 'v2.echo', 'text', '--stdio', v2, '--name', 'v2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('an argument without "=" was given');
    const missing = await cli(['call', 'v2.add', 'a=1', '--stdio', v2, '--name', 'v2']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('v2.add needs b=...: add(a: number, b: number)');
    const unknown = await cli(['call', 'v2.ech', '--stdio', v2, '--name', 'v2']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('has no tool "ech"; did you mean echo?');
    expect((await cli(['call', 'nodot', '--stdio', v2])).code).toBe(2);
  });

  it('saves an image to a temporary file and prints its path instead of base64', async () => {
    const ran = await cli(['call', 'v2.pixel', '--stdio', v2, '--name', 'v2']);
    expect(ran.code).toBe(0);
    const saved = /saved to (\S+\.png)\]/.exec(ran.stdout);
    expect(saved).not.toBeNull();
    expect(readFileSync(saved![1]!).subarray(1, 4).toString()).toBe('PNG');
    expect(ran.stdout).not.toContain('iVBORw0KGgo');
  });
});

describe('the other commands', () => {
  const everything = `${process.execPath} ${join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js')}`;
  const ev = ['--stdio', everything, '--name', 'ev'];

  it('search ranks tools across servers and names them as call takes them', async () => {
    const ran = await cli(['search', 'sum', ...ev, '--stdio', FLEET_SERVER]);
    expect(ran.code).toBe(0);
    expect(ran.stdout.split('\n')[0]).toBe('ev.get-sum\tReturns the sum of two numbers');
    const json = JSON.parse((await cli(['search', 'echo', '--limit', '5', ...ev, '--json'])).stdout) as { tools: { name: string }[] };
    expect(json.tools[0]!.name).toBe('mcp_ev_echo');
  });

  it('search says when nothing matches, with no empty table', async () => {
    const ran = await cli(['search', 'xylophone', 'quartet', ...ev]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain('No tool matches "xylophone quartet".');
    const json = JSON.parse((await cli(['search', 'xylophone', ...ev, '--json'])).stdout) as { tools: unknown[]; message: string };
    expect(json.tools).toEqual([]);
    expect(json.message).toContain('No tool matches "xylophone"');
  });

  it('resources, read, prompts and prompt show what the server offers', async () => {
    const listed = await cli(['resources', 'ev', ...ev, '--json']);
    const { resources } = JSON.parse(listed.stdout) as { resources: { uri: string; mimeType?: string }[] };
    const text = resources.find((resource) => resource.mimeType === 'text/markdown')!;
    const read = await cli(['read', 'ev', text.uri, ...ev]);
    expect(read.code).toBe(0);
    expect(read.stdout.length).toBeGreaterThan(0);
    const prompts = await cli(['prompts', 'ev', ...ev]);
    expect(prompts.stdout).toContain('simple-prompt()');
    const prompt = await cli(['prompt', 'ev', 'simple-prompt', ...ev]);
    expect(prompt).toMatchObject({ code: 0 });
    expect(prompt.stdout).toMatch(/^user: \S/);
  });

  it('call --timeout ends a call that hangs with exit 1, naming the deadline', async () => {
    const hang = `env FIXTURE_TOOLS='${JSON.stringify([{ name: 'hang', _fixture: { hang: true } }])}' ${process.execPath} ${fixture('catalog-server.mjs')}`;
    const ran = await cli(['call', 'c.hang', '--timeout', '300', '--stdio', hang, '--name', 'c', '--json']);
    expect(ran.code).toBe(1);
    expect(JSON.parse(ran.stdout)).toMatchObject({ error: { code: 'timeout' } });
  });

  it('without a terminal, an elicitation is declined and the call goes on', async () => {
    const ran = await cli(['call', 'i.confirm', '--stdio', `${process.execPath} ${fixture('interactive-server.mjs')}`, '--name', 'i']);
    expect(ran).toMatchObject({ code: 0, stdout: 'declined\n' });
  });

  it('status --watch --json prints each supervision change as a line, and Ctrl-C ends it with 130', async () => {
    const dir = tempDir();
    const log = join(dir, 'w.jsonl');
    writeFileSync(
      join(dir, 'mcp.json'),
      JSON.stringify({ mcpServers: { w: { command: process.execPath, args: [fixture('fleet-server.mjs')], env: { FIXTURE_LOG: log }, restartPolicy: { initialDelayMs: 50 } } } }),
    );
    const child = spawn(process.execPath, [BIN, 'status', '--watch', '--json'], { cwd: dir, env: { PATH: process.env.PATH!, HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const lines = () => stdout.split('\n').filter((line) => line.startsWith('{"id"')).map((line) => JSON.parse(line) as { state: string; pid?: number });
    await vi.waitFor(() => expect(stdout).toContain('"servers"'), { timeout: 15_000 });
    const first = (JSON.parse(stdout.slice(0, stdout.indexOf('\n}\n') + 2)) as { servers: { pid: number }[] }).servers[0]!.pid;
    process.kill(first, 'SIGKILL');
    await vi.waitFor(() => expect(lines().map((line) => line.state)).toEqual(['crashed', 'restarting', 'running']), { timeout: 15_000 });
    expect(lines()[2]!.pid).not.toBe(first);
    child.kill('SIGINT');
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(130);
  });
});

describe('found in review', () => {
  const v2 = `${process.execPath} ${fixture('v2-server.mjs')}`;

  it('a server that outlives its stdin closing is stopped with SIGTERM, and the command still ends with its own exit code', async () => {
    const keep = `env FIXTURE_EXIT_AFTER_MS=100000 ${FLEET_SERVER}`;
    expect(await cli(['call', 'keep.echo', 'text=hi', '--stdio', keep, '--name', 'keep'])).toMatchObject({ code: 0, stdout: 'hi\n' });
    expect((await cli(['call', 'keep.nosuch', '--stdio', keep, '--name', 'keep'])).code).toBe(2);
  });

  it('leading NAME=value words of --stdio are the server\'s environment, secret like any env value', async () => {
    const ran = await cli(['call', 'w.whoami', '--json', '--stdio', `SECRET_T=sek-4567abcd ${FLEET_SERVER}`, '--name', 'w']);
    expect((JSON.parse(ran.stdout) as { structuredContent: { env: Record<string, string> } }).structuredContent.env.SECRET_T).toBe('sek-4567abcd');
    const failed = await cli(['list', '--json', '--stdio', `TOKEN=tok-9876wxyz ${join(tempDir(), 'missing-program')}`]);
    expect(failed.code).toBe(1);
    expect(failed.stdout + failed.stderr).not.toContain('tok-9876wxyz');
  });

  it('fits key=value to the schema: a digit for a string is sent as text, a word for a number is a usage error', async () => {
    expect(await cli(['call', 'v2.echo', 'text=5', '--stdio', v2, '--name', 'v2'])).toMatchObject({ code: 0, stdout: '5\n' });
    const wrong = await cli(['call', 'v2.add', 'a=x', 'b=3', '--stdio', v2, '--name', 'v2']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('a takes number, not a string');
  });

  it('a host failure is one line on stderr in text, the envelope in --json, also when the server does not start', async () => {
    const hang = `env FIXTURE_TOOLS='${JSON.stringify([{ name: 'hang', _fixture: { hang: true } }])}' ${process.execPath} ${fixture('catalog-server.mjs')}`;
    const timedOut = await cli(['call', 'c.hang', '--timeout', '300', '--stdio', hang, '--name', 'c']);
    expect(timedOut).toMatchObject({ code: 1, stdout: '' });
    expect(timedOut.stderr).toContain('(--timeout)');
    const gone = await cli(['call', 'x.echo', '--json', '--stdio', join(tempDir(), 'missing-program'), '--name', 'x']);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stdout)).toMatchObject({ server_id: 'x', tool: 'echo', error: { code: 'connect_failed' } });
  });

  it('list says how a server that dies at start ended, in the table and in --json', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { dies: { command: process.execPath, args: ['-e', 'process.exit(1)'] } } }));
    const text = await cli(['list'], { cwd: dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^dies\tfailed_to_start\t.*could not be set up: the server process exited with code 1 before answering initialize\./m);
    const json = JSON.parse((await cli(['list', '--json'], { cwd: dir })).stdout) as { servers: { lastError?: string }[] };
    expect(json.servers[0]!.lastError).toBe('MCP server "dies" could not be set up: the server process exited with code 1 before answering initialize.');
  });

  it('--name names the ad-hoc server given just before it, and is refused before any', async () => {
    const ran = await cli(['list', '--json', '--stdio', FLEET_SERVER, '--stdio', FLEET_SERVER, '--name', 'second']);
    expect((JSON.parse(ran.stdout) as { servers: { server: { id: string } }[] }).servers.map((listing) => listing.server.id)).toEqual(['fleet-server', 'second']);
    expect((await cli(['list', '--name', 'x', '--stdio', FLEET_SERVER])).code).toBe(2);
  });

  it('a prompt without a required argument is a usage error', async () => {
    const everything = `${process.execPath} ${join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js')}`;
    const ran = await cli(['prompt', 'ev', 'args-prompt', '--stdio', everything, '--name', 'ev']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('needs city=...');
  });

  it('config add keeps ${...} templates of a command line, takes headers as curl writes them, and never echoes a value it refuses', async () => {
    const dir = tempDir();
    await cli(['config', 'add', 't', '--stdio', 'node x.js --key ${API_KEY} --url=${env:BASE}/v1'], { cwd: dir });
    await cli(['config', 'add', 'h', '--http', 'https://api.example.com/mcp?key=query-secret-77', '--header', 'Authorization: Bearer tok-SECRET-abc'], { cwd: dir });
    expect((await loadMcpConfig(join(dir, 'mcp.json'))).servers()).toEqual([
      { id: 't', transport: { type: 'stdio', command: 'node', args: ['x.js', '--key', '${API_KEY}', '--url=${env:BASE}/v1'] } },
      { id: 'h', transport: { type: 'http', url: 'https://api.example.com/mcp?key=query-secret-77', headers: { Authorization: 'Bearer tok-SECRET-abc' } } },
    ]);
    const listed = (await cli(['config', 'list'], { cwd: dir })).stdout + (await cli(['config', 'list', '--json'], { cwd: dir })).stdout;
    expect(listed).not.toContain('query-secret-77');
    expect(listed).not.toContain('tok-SECRET-abc');
    const refused = await cli(['config', 'add', 'e', '--stdio', 'node y.js', '--env', 'sk-SECRETVALUE'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toContain('sk-SECRETVALUE');
  });

  it('config add to a .vscode/mcp.json that does not exist yet creates it in VS Code\'s shape', async () => {
    const dir = tempDir();
    expect((await cli(['config', 'add', 'fs', '--stdio', 'node fs.js', '--config', '.vscode/mcp.json'], { cwd: dir })).code).toBe(0);
    const file = await loadMcpConfig(join(dir, '.vscode', 'mcp.json'));
    expect(file.dialect).toBe('vscode');
    expect(file.text).toContain('"servers"');
  });

  it('import skips a VS Code server that needs the inputs of its own file, saying why', async () => {
    const project = tempDir();
    mkdirSync(join(project, '.vscode'));
    writeFileSync(
      join(project, '.vscode', 'mcp.json'),
      JSON.stringify({ inputs: [{ type: 'promptString', id: 'key' }], servers: { f: { type: 'stdio', command: 'f', env: { K: '${input:key}' } }, g: { type: 'stdio', command: 'g' } } }),
    );
    const ran = await cli(['config', 'import', '--from', 'vscode', '--config', 'mcp.json', '--json'], { cwd: project });
    const result = JSON.parse(ran.stdout) as { imported: { id: string }[]; skipped: { id: string; reason: string }[] };
    expect(result.imported.map((entry) => entry.id)).toEqual(['g']);
    expect(result.skipped[0]!.id).toBe('f');
    expect(result.skipped[0]!.reason).toContain('VS Code inputs');
  });
});

describe('which servers', () => {
  it('uses the first config file of the folder and says which on stderr; --config and MCP_FLEET_CONFIG come first', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.vscode'));
    const entry = (name: string) => ({ type: 'stdio', command: process.execPath, args: [fixture('fleet-server.mjs')], env: { FIXTURE_NAME: name } });
    writeFileSync(join(dir, '.vscode', 'mcp.json'), JSON.stringify({ servers: { from_vscode: entry('vscode') } }));
    const fromFolder = await cli(['list'], { cwd: dir });
    expect(fromFolder.stderr).toContain(`using ${join(dir, '.vscode', 'mcp.json')} (vscode)`);
    expect(fromFolder.stdout).toContain('from_vscode');
    const other = join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ mcpServers: { from_env: entry('env') } }));
    expect((await cli(['list'], { cwd: dir, env: { MCP_FLEET_CONFIG: other } })).stdout).toContain('from_env');
    writeFileSync(join(dir, 'explicit.json'), JSON.stringify({ mcpServers: { explicit: entry('explicit') } }));
    expect((await cli(['list', '--config', 'explicit.json'], { cwd: dir, env: { MCP_FLEET_CONFIG: other } })).stdout).toContain('explicit');
  });

  it('without any config or ad-hoc server, says where it looked and how to fix it (exit 2)', async () => {
    const ran = await cli(['list']);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('no MCP config found here');
    expect(ran.stderr).toContain('--stdio');
  });

  it('ping reports every server, and a failing one exits 1', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'mcp.json'),
      JSON.stringify({ mcpServers: { good: { command: process.execPath, args: [fixture('fleet-server.mjs')] }, bad: { command: join(dir, 'missing-program') } } }),
    );
    const ran = await cli(['ping', '--json'], { cwd: dir });
    expect(ran.code).toBe(1);
    const { servers } = JSON.parse(ran.stdout) as { servers: { id: string; ok: boolean; ms: number; toolCount: number; error?: string }[] };
    expect(servers.map(({ id, ok, toolCount }) => ({ id, ok, toolCount }))).toEqual([
      { id: 'good', ok: true, toolCount: 2 },
      { id: 'bad', ok: false, toolCount: 0 },
    ]);
    expect(servers[1]!.error).toContain('missing-program');
  });
});

describe('a tool over a per-tool budget', () => {
  it('list publishes the rest of its server and names the tool left out, with the budget and the sizes; --json says the same', async () => {
    const dir = tempDir();
    const tools = [{ name: 'search' }, { name: 'learn_shopify_api', description: 'x'.repeat(13_201) }];
    const shop = { command: process.execPath, args: [fixture('catalog-server.mjs')], env: { FIXTURE_TOOLS: JSON.stringify(tools) }, limits: { descriptionBytes: 8192 } };
    writeFileSync(join(dir, 'mcp.json'), JSON.stringify({ mcpServers: { shop } }));
    const ran = await cli(['list'], { cwd: dir });
    expect(ran.code).toBe(0);
    expect(ran.stdout.split('\n')[0]!.split('\t').slice(0, 2)).toEqual(['shop', 'running']);
    expect(ran.stdout.split('\n')[0]!.split('\t')[3]).toBe('1');
    expect(ran.stderr).toContain('shop: 1 tool left out: learn_shopify_api (limits.descriptionBytes 13,201 > 8,192)');
    const json = JSON.parse((await cli(['list', '--json'], { cwd: dir })).stdout) as { servers: Record<string, unknown>[] };
    expect(json.servers[0]).toMatchObject({
      id: 'shop',
      toolCount: 1,
      leftOut: { count: 1, tools: [{ name: 'learn_shopify_api', budget: 'descriptionBytes', field: 'description', bytes: 13_201, limit: 8192 }] },
    });
    const one = await cli(['list', 'shop'], { cwd: dir });
    expect(one.stdout).toContain('search()');
    expect(one.stdout).not.toContain('learn_shopify_api');
    expect(one.stderr).toContain('shop: 1 tool left out: learn_shopify_api (limits.descriptionBytes 13,201 > 8,192)');
  });
});

describe('config', () => {
  it('add, disable, enable and remove change the file as the manager saves it, and list shows each step', async () => {
    const dir = tempDir();
    const file = join(dir, 'mcp.json');
    const run = (...args: string[]) => cli(['config', ...args], { cwd: dir });
    expect((await run('add', 'notes', '--stdio', `node server.js --token '\${NOTES_TOKEN}'`, '--env', 'MODE=fast', '--env', 'KEY=${NOTES_KEY}')).code).toBe(0);
    expect((await run('add', 'remote', '--http', 'https://mcp.example.com/mcp', '--header', 'Authorization=Bearer literal-secret-123')).code).toBe(0);
    expect((await loadMcpConfig(file)).servers()).toEqual([
      { id: 'notes', transport: { type: 'stdio', command: 'node', args: ['server.js', '--token', '${NOTES_TOKEN}'], env: { MODE: 'fast', KEY: '${NOTES_KEY}' } } },
      { id: 'remote', transport: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer literal-secret-123' } } },
    ]);
    const listed = await run('list');
    expect(listed.stdout).toBe('notes\tstdio\tnode server.js --token ${NOTES_TOKEN}\tenabled\nremote\thttp\thttps://mcp.example.com/mcp\tenabled\n');
    const json = await run('list', '--json');
    expect(json.stdout).not.toContain('literal-secret-123');
    expect(JSON.parse(json.stdout)).toMatchObject({ dialect: 'claude_code', servers: [{ transport: { env: { MODE: '[REDACTED]', KEY: '${NOTES_KEY}' } } }, { transport: { headers: { Authorization: '[REDACTED]' } } }] });

    await run('disable', 'notes');
    expect((await loadMcpConfig(file)).servers()[0]!.disabled).toBe(true);
    expect((await run('list')).stdout).toContain('notes\tstdio\tnode server.js --token ${NOTES_TOKEN}\tdisabled');
    await run('enable', 'notes');
    expect((await loadMcpConfig(file)).servers()[0]!.disabled).toBeUndefined();
    await run('remove', 'remote');
    expect((await loadMcpConfig(file)).servers().map((server) => server.id)).toEqual(['notes']);
    const unknown = await run('remove', 'ghost');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('"ghost"');
  });

  it('import brings in the servers of a Cursor file', async () => {
    const home = tempDir();
    const project = tempDir();
    mkdirSync(join(home, '.cursor'));
    writeFileSync(
      join(home, '.cursor', 'mcp.json'),
      JSON.stringify({ mcpServers: { docs: { command: 'docs-server', env: { TOKEN: '${env:DOCS_TOKEN}' } }, web: { url: 'https://web.example.com/mcp' } } }),
    );
    const ran = await cli(['config', 'import', '--from', 'cursor', '--json'], { cwd: project, env: { HOME: home } });
    expect(ran.code).toBe(0);
    expect((JSON.parse(ran.stdout) as { imported: { id: string }[] }).imported.map((entry) => entry.id)).toEqual(['docs', 'web']);
    const saved = await loadMcpConfig(join(project, 'mcp.json'));
    expect(saved.servers()).toEqual([
      { id: 'docs', transport: { type: 'stdio', command: 'docs-server', env: { TOKEN: '${env:DOCS_TOKEN}' } } },
      { id: 'web', transport: { type: 'http', url: 'https://web.example.com/mcp' } },
    ]);
    // A second import skips what is there already.
    const again = await cli(['config', 'import', '--from', 'cursor', '--json'], { cwd: project, env: { HOME: home } });
    expect((JSON.parse(again.stdout) as { skipped: unknown[] }).skipped).toHaveLength(2);
  });

  it('import keeps the fields of each entry it does not read, written in the dialect of the file it imports into', async () => {
    const home = tempDir();
    const project = tempDir();
    mkdirSync(join(home, '.codeium', 'windsurf'), { recursive: true });
    writeFileSync(
      join(home, '.codeium', 'windsurf', 'mcp_config.json'),
      JSON.stringify({ mcpServers: { linear: { serverUrl: 'https://mcp.linear.example/mcp', 'x-team': 'core', disabledTools: ['delete_issue'] } } }),
    );
    mkdirSync(join(project, '.vscode'));
    const target = join(project, '.vscode', 'mcp.json');
    writeFileSync(target, '{\n  // ours\n  "servers": {}\n}\n');
    const ran = await cli(['config', 'import', '--from', 'windsurf', '--config', '.vscode/mcp.json', '--json'], { cwd: project, env: { HOME: home } });
    expect((JSON.parse(ran.stdout) as { imported: { id: string }[] }).imported.map((entry) => entry.id)).toEqual(['linear']);
    const saved = await loadMcpConfig(target);
    expect(saved.dialect).toBe('vscode');
    expect(saved.text).toContain('// ours');
    expect(saved.servers()).toEqual([{ id: 'linear', transport: { type: 'http', url: 'https://mcp.linear.example/mcp' } }]);
    expect(saved.unknownFields('linear')).toEqual({ 'x-team': 'core', disabledTools: ['delete_issue'] });
  });
});

describe('auth', () => {
  let stack: HttpFixture;
  beforeAll(async () => {
    stack = await startHttpFixture('oauth-stack.mjs');
  });
  afterAll(async () => stack.close());

  it('completes from a pasted redirect URL; the next call needs no prompt; --logout makes it ask again', async () => {
    const dir = tempDir();
    const config = tempDir();
    writeFileSync(
      join(dir, 'mcp.json'),
      JSON.stringify({ mcpServers: { api: { type: 'http', url: stack.url, oauth: { flow: 'authorization_code', redirectUri: 'http://127.0.0.1:1/callback' } } } }),
    );
    const env = { XDG_CONFIG_HOME: config };
    const before = await cli(['call', 'api.whoami'], { cwd: dir, env });
    expect(before.code).toBe(1);
    expect(before.stderr).toContain('requires authorization');

    // The person opens the printed URL, approves, and pastes the address the browser ends on.
    const child = spawn(process.execPath, [BIN, 'auth', 'api'], { cwd: dir, env: { PATH: process.env.PATH!, HOME: dir, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const url = await new Promise<string>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = stdout.split('\n').find((candidate) => candidate.startsWith('http'));
        if (line !== undefined) resolve(line);
      }),
    );
    child.stdin.write(`${await followAuthorization(url)}\n`);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stderr).toContain('api is authorized');
    expect(existsSync(join(config, 'mcp-fleet', 'credentials'))).toBe(true);

    const after = await cli(['call', 'api.whoami', '--json'], { cwd: dir, env });
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toMatchObject({ server_id: 'api', isError: false });

    expect((await cli(['auth', 'api', '--logout'], { cwd: dir, env })).code).toBe(0);
    expect((await cli(['call', 'api.whoami'], { cwd: dir, env })).code).toBe(1);
  });

  it('completes through the loopback redirect URI when nothing is pasted, even with stdin closed', async () => {
    const dir = tempDir();
    const port = await freePort();
    writeFileSync(
      join(dir, 'mcp.json'),
      JSON.stringify({ mcpServers: { api: { type: 'http', url: stack.url, oauth: { flow: 'authorization_code', redirectUri: `http://127.0.0.1:${port}/callback` } } } }),
    );
    const child = spawn(process.execPath, [BIN, 'auth', 'api'], { cwd: dir, env: { PATH: process.env.PATH!, HOME: dir, XDG_CONFIG_HOME: tempDir() }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const url = await new Promise<string>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = stdout.split('\n').find((candidate) => candidate.startsWith('http'));
        if (line !== undefined) resolve(line);
      }),
    );
    // The browser, sent back to this machine, reaches the listener.
    const redirect = await followAuthorization(url);
    expect(new URL(redirect).port).toBe(String(port));
    expect((await fetch(redirect)).status).toBe(200);
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(0);
  });
});

describe('secrets', () => {
  it('no secret from env, headers or a bearer token appears in any output, errors with --debug included', async () => {
    const dir = tempDir();
    const secrets = ['env-secret-aaaa1111', 'header-secret-bbbb2222', 'bearer-secret-cccc3333'];
    writeFileSync(
      join(dir, 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          local: { command: process.execPath, args: ['-e', 'console.error(process.env.API_KEY); process.exit(3)'], env: { API_KEY: secrets[0] } },
          remote: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { 'X-Api-Key': secrets[1] }, bearerToken: secrets[2] },
        },
      }),
    );
    const outputs: string[] = [];
    for (const args of [['list'], ['list', '--json'], ['ping', '--debug'], ['status', '--json', '--debug'], ['call', 'local.x', '--debug'], ['call', 'remote.x', '--debug'], ['config', 'list'], ['config', 'list', '--json']]) {
      const ran = await cli(args, { cwd: dir });
      outputs.push(ran.stdout, ran.stderr);
    }
    const all = outputs.join('\n');
    expect(all).toContain('[REDACTED]');
    for (const secret of secrets) expect(all).not.toContain(secret);
  });
});
