/**
 * `mcp-fleet events` as a user runs it: the built command (dist/cli/main.js) as a child
 * process, against the real MCP Events fixture server (test/fixtures/events-server.mjs).
 * Tailing live events needs a server the command does not own, so those tests serve the
 * fixture over Streamable HTTP and make it emit through `mcp-fleet call ev.emit` (its
 * event log is per process, shared by every connection).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fixture, type HttpFixture, observationLog, observed, startHttpFixture, tempDir } from './helpers.js';
import { runInPty } from './pty.js';

const BIN = join(fileURLToPath(new URL('..', import.meta.url)), 'dist', 'cli', 'main.js');
const EVENTS_SERVER = `${process.execPath} ${fixture('events-server.mjs')}`;
const WAIT = { timeout: 15_000, interval: 50 };

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function environment(): Record<string, string> {
  return { PATH: process.env.PATH!, HOME: tempDir(), XDG_CONFIG_HOME: tempDir() };
}

/** A run of the command that goes on (a tail): its output so far, and its end. */
interface Running {
  child: ChildProcessWithoutNullStreams;
  readonly stdout: string;
  readonly stderr: string;
  /** The JSON lines on stdout so far. */
  lines(): Record<string, unknown>[];
  /** The `cursor: <c>` lines on stderr so far. */
  cursors(): string[];
  exited: Promise<number | null>;
}

function start(args: string[]): Running {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: tempDir(), env: environment(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end();
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    lines: () =>
      stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    cursors: () => [...stderr.matchAll(/^cursor: (\S+)$/gm)].map((match) => match[1]!),
    exited,
  };
}

/** Runs the command to its end. */
async function cli(args: string[]): Promise<Ran> {
  const run = start(args);
  const code = await run.exited;
  return { code, stdout: run.stdout, stderr: run.stderr };
}

let servers: HttpFixture[] = [];

/** A fresh Events fixture over HTTP (so the cursors start at c0), and the options naming it `ev`. */
async function httpServer(env: Record<string, string> = {}): Promise<{ server: HttpFixture; ev: string[] }> {
  const server = await startHttpFixture('events-server.mjs', { env });
  servers.push(server);
  return { server, ev: ['--http', server.url, '--name', 'ev'] };
}

/** Makes the fixture behind `ev` run a tool (emit, terminate, ...) through the command. */
async function tool(ev: string[], name: string, ...words: string[]): Promise<void> {
  const ran = await cli(['call', `ev.${name}`, ...words, ...ev]);
  expect(ran.code, ran.stderr).toBe(0);
}

afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

describe('listing event types', () => {
  const ev = ['--stdio', EVENTS_SERVER, '--name', 'ev'];

  it('prints one tab-separated row per type when piped, and the types as { events } with --json', async () => {
    const text = await cli(['events', 'ev', ...ev]);
    expect(text.code).toBe(0);
    // The 100 KiB description of huge.type is over the budget: the library skips the type.
    expect(text.stdout.split('\n').filter((line) => line !== '')).toEqual([
      'ticket.created\tpoll, push, webhook\tA ticket was created in a project.',
      'build.failed\tpoll\tA CI build failed.',
      'strange.modes\tpoll\tLists an unknown delivery mode and a duplicate.',
    ]);
    expect(text.stderr).toContain('3 event types');
    const json = await cli(['events', 'ev', ...ev, '--json']);
    expect(json.code).toBe(0);
    const { events } = JSON.parse(json.stdout) as { events: { name: string; delivery: string[]; inputSchema: unknown }[] };
    expect(events.map((type) => type.name)).toEqual(['ticket.created', 'build.failed', 'strange.modes']);
    expect(events[0]).toMatchObject({ delivery: ['poll', 'push', 'webhook'], inputSchema: { properties: { project: { type: 'string' } } } });
  });

  it('says that a server without MCP Events has none, exits 0 as for a server without resources, and --json gives events: null', async () => {
    const without = ['--stdio', `FIXTURE_NO_EVENTS=1 ${EVENTS_SERVER}`, '--name', 'plain'];
    const text = await cli(['events', 'plain', ...without]);
    expect(text).toMatchObject({ code: 0, stdout: '' });
    expect(text.stderr).toContain('MCP server "plain" does not implement MCP Events');
    const json = await cli(['events', 'plain', ...without, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ events: null });
    const tail = await cli(['events', 'plain', 'ticket.created', ...without]);
    expect(tail.code).toBe(2);
    expect(tail.stderr).toContain('does not implement MCP Events, so it has no event type "ticket.created"');
  });

  it('shows an aligned NAME, DELIVERY and DESCRIPTION table on a terminal', async () => {
    const run = runInPty(process.execPath, [BIN, 'events', 'ev', ...ev], { env: { XDG_CONFIG_HOME: tempDir() }, columns: 100 });
    expect(await run.exited).toBe(0);
    const screen = run.text();
    expect(screen).toMatch(/NAME\s+DELIVERY\s+DESCRIPTION\n/);
    expect(screen).toMatch(/ticket\.created {2}poll, push, webhook {2}A ticket was created in a project\.\n/);
    expect(screen).toMatch(/build\.failed {4}poll {17}A CI build failed\.\n/);
  });
});

describe('tailing an event type', () => {
  it('replays from --cursor, then prints each live event as one JSON line in order, the cursor after each on stderr, until Ctrl-C (130)', async () => {
    const { ev } = await httpServer();
    await tool(ev, 'emit', 'name=ticket.created', 'count=2', 'title=before');
    const tail = start(['events', 'ev', 'ticket.created', '--cursor', 'c0', ...ev]);
    await vi.waitFor(() => expect(tail.lines()).toHaveLength(2), WAIT);
    await tool(ev, 'emit', 'name=ticket.created', 'title=live');
    await tool(ev, 'emit', 'name=build.failed');
    await tool(ev, 'emit', 'name=ticket.created', 'title=later');
    await vi.waitFor(() => expect([tail.lines().length, tail.cursors().length]).toEqual([4, 4]), WAIT);
    const lines = tail.lines();
    expect(lines.map((line) => Object.keys(line))).toEqual(Array(4).fill(['eventId', 'name', 'timestamp', 'data']));
    expect(lines.map((line) => line.eventId)).toEqual(['evt-1', 'evt-2', 'evt-3', 'evt-5']);
    expect(lines.map((line) => (line.data as { title: string }).title)).toEqual(['before', 'before', 'live', 'later']);
    expect(lines.every((line) => line.name === 'ticket.created' && typeof line.timestamp === 'string' && line.timestamp !== '')).toBe(true);
    expect(tail.cursors()).toEqual(['c1', 'c2', 'c3', 'c5']);
    // Piped, nothing but the cursors (no "listening" line: that is for a terminal).
    expect(tail.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('cursor: '))).toEqual([]);
    tail.child.kill('SIGINT');
    expect(await tail.exited).toBe(130);
  });

  it('resumes where an earlier run stopped: its last cursor: line as --cursor gives only the newer events', async () => {
    const { ev } = await httpServer();
    const first = start(['events', 'ev', 'ticket.created', ...ev]);
    // From now: the server's position comes at once, so a script knows where it started.
    await vi.waitFor(() => expect(first.cursors()).toEqual(['c0']), WAIT);
    await tool(ev, 'emit', 'name=ticket.created', 'count=2');
    await vi.waitFor(() => expect(first.lines()).toHaveLength(2), WAIT);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(130);
    await tool(ev, 'emit', 'name=ticket.created', 'title=while away');
    const second = start(['events', 'ev', 'ticket.created', '--cursor', first.cursors().at(-1)!, ...ev]);
    await vi.waitFor(() => expect([second.lines().map((line) => line.eventId), second.cursors()]).toEqual([['evt-3'], ['c3']]), WAIT);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(130);
  });

  it('polls a type that offers only poll, with key=value arguments fitted to its schema', async () => {
    const log = observationLog();
    const { ev } = await httpServer({ FIXTURE_LOG: log });
    await tool(ev, 'emit', 'name=build.failed', 'count=3');
    // project=5 is sent as the text typed, since the schema takes a string.
    const tail = start(['events', 'ev', 'ticket.created', 'project=5', '--mode', 'poll', '--cursor', 'c0', ...ev]);
    const builds = start(['events', 'ev', 'build.failed', '--cursor', 'c0', ...ev]);
    await vi.waitFor(() => expect([builds.lines().map((line) => line.eventId), builds.cursors()]).toEqual([['evt-1', 'evt-2', 'evt-3'], ['c3']]), WAIT);
    await vi.waitFor(() => expect(observed(log).some((entry) => entry.method === 'events/poll' && entry.name === 'ticket.created')).toBe(true), WAIT);
    const polls = observed(log).filter((entry) => entry.method === 'events/poll');
    expect(polls.find((entry) => entry.name === 'ticket.created')).toMatchObject({ arguments: { project: '5' }, cursor: 'c0' });
    expect(polls.some((entry) => entry.name === 'build.failed')).toBe(true);
    expect(observed(log).some((entry) => entry.method === 'events/stream')).toBe(false);
    for (const run of [tail, builds]) run.child.kill('SIGINT');
    expect(await Promise.all([tail.exited, builds.exited])).toEqual([130, 130]);
    expect(tail.lines()).toEqual([]);
  });

  it('Ctrl-C cancels the stream on the server before the command exits', async () => {
    const log = observationLog();
    const tail = start(['events', 'ev', 'ticket.created', '--stdio', `FIXTURE_LOG=${log} ${EVENTS_SERVER}`, '--name', 'ev']);
    await vi.waitFor(() => expect(tail.cursors()).toEqual(['c0']), WAIT);
    tail.child.kill('SIGINT');
    expect(await tail.exited).toBe(130);
    expect(observed(log).map((entry) => entry.event)).toEqual(expect.arrayContaining(['stream-opened', 'stream-cancelled']));
  });

  it('warns of a recoverable error and notes changed types on stderr, and goes on', async () => {
    const { ev } = await httpServer();
    const tail = start(['events', 'ev', 'ticket.created', ...ev]);
    await vi.waitFor(() => expect(tail.cursors()).toEqual(['c0']), WAIT);
    await tool(ev, 'stream-error');
    await tool(ev, 'list-changed', 'via=streams');
    await tool(ev, 'emit', 'name=ticket.created');
    await vi.waitFor(() => expect([tail.lines().length, tail.cursors().at(-1)]).toEqual([1, 'c1']), WAIT);
    expect(tail.stderr).toContain('warning ticket.created on MCP server "ev" (other): events/stream failed: Upstream failure: upstream_failure; the subscription goes on.');
    expect(tail.stderr).toContain('MCP server "ev" changed its event types (mcp-fleet events ev lists them).');
    tail.child.kill('SIGINT');
    expect(await tail.exited).toBe(130);
  });

  it('a terminal error ends it with exit 1, naming the server, the type and the kind; --json prints the error envelope', async () => {
    const { ev } = await httpServer();
    const text = start(['events', 'ev', 'ticket.created', ...ev]);
    const json = start(['events', 'ev', 'ticket.created', '--json', ...ev]);
    await vi.waitFor(() => expect([text.cursors(), json.cursors()]).toEqual([['c0'], ['c0']]), WAIT);
    await tool(ev, 'terminate', 'name=ticket.created');
    expect(await text.exited).toBe(1);
    expect(text.stdout).toBe('');
    expect(text.stderr).toContain('error the ticket.created subscription of MCP server "ev" ended (forbidden): events/stream failed: Access revoked: access_revoked\n');
    expect(await json.exited).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      server_id: 'ev',
      event: 'ticket.created',
      error: {
        code: 'event_failed',
        kind: 'forbidden',
        rpcCode: -32024,
        reason: 'access_revoked',
        data: { reason: 'access_revoked' },
        message: 'the ticket.created subscription of MCP server "ev" ended (forbidden): events/stream failed: Access revoked: access_revoked',
      },
    });
  });

  it("shows the server's error data: the warning says when the retry comes (its retryAfterMs), the --json envelope carries the data", async () => {
    const { ev } = await httpServer();
    const json = start(['events', 'ev', 'ticket.created', '--json', ...ev]);
    await vi.waitFor(() => expect(json.cursors()).toEqual(['c0']), WAIT);
    // The reopened stream will be refused for good; the first one ends out of quota.
    await tool(ev, 'fail-next', '--args', JSON.stringify({ method: 'events/stream', code: -32602, message: 'Invalid params', data: { field: 'cursor', reason: 'expired' } }));
    await tool(ev, 'terminate', '--args', JSON.stringify({ code: -32025, message: 'Too many streams', data: { limit: 'streams', max: 1, retryAfterMs: 3_000 } }));
    expect(await json.exited).toBe(2);
    expect(json.stderr).toContain('warning ticket.created on MCP server "ev" (resource_exhausted): events/stream failed: Too many streams; the subscription goes on, retrying in 3 s.');
    expect(JSON.parse(json.stdout)).toMatchObject({
      server_id: 'ev',
      event: 'ticket.created',
      error: { kind: 'invalid_params', rpcCode: -32602, reason: 'expired', data: { field: 'cursor', reason: 'expired' } },
    });
  });

  it('a cursor the server refuses ends it with exit 2; a server that does not start is the envelope with --json (exit 1)', async () => {
    const { ev } = await httpServer();
    const bogus = await cli(['events', 'ev', 'ticket.created', '--cursor', 'bogus', ...ev]);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain('ended (invalid_params): events/stream failed: Invalid cursor: "bogus"');
    const gone = await cli(['events', 'x', 'ticket.created', '--json', '--stdio', join(tempDir(), 'missing-program'), '--name', 'x']);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stdout)).toMatchObject({ server_id: 'x', event: 'ticket.created', error: { code: 'connect_failed' } });
  });

  it('an unknown type, a mode the type does not offer, a bad argument or a tail option without a type is a usage error (exit 2)', async () => {
    const { ev } = await httpServer();
    const cases: [string[], string][] = [
      [['ticket.creatd'], 'MCP server "ev" has no event type "ticket.creatd"; did you mean ticket.created? (mcp-fleet events ev lists them)'],
      [['build.failed', '--mode', 'push'], 'build.failed on MCP server "ev" is not delivered by push (it offers poll).'],
      [['ticket.created', '--mode', 'webhook'], "argument 'webhook' is invalid. Allowed choices are poll, push."],
      [['ticket.created', '--args', '{"project": 5}'], 'ticket.created: project takes string, not a number: ticket.created(project?: string)'],
      [['ticket.created', 'project'], 'an argument without "=" was given'],
      [['--cursor', 'c1'], '--args, --cursor and --mode are for tailing an event type: mcp-fleet events ev <name>'],
    ];
    for (const [args, message] of cases) {
      const ran = await cli(['events', 'ev', ...args, ...ev]);
      expect(ran.code, args.join(' ')).toBe(2);
      expect(ran.stderr).toContain(message);
      expect(ran.stdout).toBe('');
    }
  });

  it('on a terminal, says once that it listens, and Ctrl-C ends it with 130', async () => {
    const { ev } = await httpServer();
    const run = runInPty(process.execPath, [BIN, 'events', 'ev', 'ticket.created', ...ev], { env: { XDG_CONFIG_HOME: tempDir() }, columns: 120 });
    await run.waitFor('listening to ticket.created on ev (push, from now); Ctrl-C to stop', 15_000);
    await tool(ev, 'emit', 'name=ticket.created', 'title=seen');
    await run.waitFor('{"eventId":"evt-1","name":"ticket.created","timestamp":', 15_000);
    await run.waitFor('cursor: c1');
    run.interrupt();
    expect(await run.exited).toBe(130);
    expect(run.text().match(/listening/g)).toHaveLength(1);
  });
});
