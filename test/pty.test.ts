/**
 * The pseudo-terminal helper itself: a child run through it sees a terminal on every
 * stream, of the size asked for; typed input reaches it through the line discipline;
 * Ctrl-C is a SIGINT the child may handle or die of; exit codes, quoting and the screen
 * text come through unchanged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { plainText, runInPty, type PtyRun } from './pty.js';

const runs: PtyRun[] = [];

/** `node -e script ...args` in a pty, killed after the test. */
function node(script: string, args: string[] = [], options: Parameters<typeof runInPty>[2] = {}): PtyRun {
  const run = runInPty(process.execPath, ['-e', script, ...args], options);
  runs.push(run);
  return run;
}

afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

describe('runInPty', () => {
  it('gives the child a terminal on stdin, stdout and stderr, of the size asked for', async () => {
    const run = node(
      'console.log(JSON.stringify({ stdin: process.stdin.isTTY, stdout: process.stdout.isTTY, stderr: process.stderr.isTTY, columns: process.stdout.columns, rows: process.stdout.rows, term: process.env.TERM }))',
      [],
      { columns: 123, rows: 45 },
    );
    expect(await run.exited).toBe(0);
    const seen = JSON.parse(run.text().trim()) as Record<string, unknown>;
    expect(seen).toEqual({ stdin: true, stdout: true, stderr: true, columns: 123, rows: 45, term: 'xterm-256color' });
  });

  it('defaults to an 80 x 24 terminal', async () => {
    const run = node('console.log(process.stdout.columns + "x" + process.stdout.rows)');
    expect(await run.exited).toBe(0);
    expect(run.text().trim()).toBe('80x24');
  });

  it('delivers typed input to the child, echoed by the terminal as a person sees it', async () => {
    const run = node('process.stdout.write("name? "); process.stdin.once("data", (d) => { console.log("got " + JSON.stringify(String(d))); process.exit(0); })');
    await run.waitFor('name? ');
    run.write('Ada Lovelace\r');
    await run.waitFor('got ');
    expect(await run.exited).toBe(0);
    // Cooked mode: the line discipline echoes the typing and turns Enter (\r) into \n.
    expect(run.text()).toBe('name? Ada Lovelace\ngot "Ada Lovelace\\n"\n');
  });

  it('interrupts a child that handles SIGINT: it runs its handler and ends as it chooses', async () => {
    const run = node('process.on("SIGINT", () => { console.log("caught SIGINT"); process.exit(4); }); console.log("ready"); setInterval(() => {}, 1000)');
    await run.waitFor('ready');
    run.interrupt();
    await run.waitFor('caught SIGINT');
    expect(await run.exited).toBe(4);
    // The terminal shows the interrupt as a person sees it.
    expect(run.text()).toContain('^C');
  });

  it('interrupts a child that does not handle SIGINT: it dies of it, exit code 130', async () => {
    const run = node('console.log("ready"); setInterval(() => {}, 1000)');
    await run.waitFor('ready');
    run.interrupt();
    expect(await run.exited).toBe(130);
  });

  it('passes the exit code through', async () => {
    expect(await node('process.exit(7)').exited).toBe(7);
    expect(await node('').exited).toBe(0);
  });

  it('passes arguments through sh unchanged, quotes, dollars, backslashes and all', async () => {
    const tricky = [`it's`, '"double"', '$HOME `id` $(id)', 'back\\slash', 'two  spaces', '', '*', 'ünïcødé'];
    const run = node('console.log(JSON.stringify(process.argv.slice(1)))', tricky);
    expect(await run.exited).toBe(0);
    expect(JSON.parse(run.text().trim())).toEqual(tricky);
  });

  it('merges stdout and stderr as the screen shows them, and text() drops escape codes', async () => {
    const run = node('process.stdout.write("\\x1b[31mred\\x1b[39m out\\n"); process.stderr.write("\\x1b]0;title\\x07err\\n")');
    expect(await run.exited).toBe(0);
    expect(run.output).toContain('\x1b[31mred\x1b[39m out\r\n');
    expect(run.text()).toBe('red out\nerr\n');
  });

  it('takes the environment over the test\'s own, and leaves colour switches out', async () => {
    const run = node('console.log(JSON.stringify([process.env.GREETING, process.env.NO_COLOR, process.env.FORCE_COLOR, process.env.REMOVED]))', [], {
      env: { GREETING: 'hello', REMOVED: undefined },
    });
    expect(await run.exited).toBe(0);
    expect(JSON.parse(run.text().trim())).toEqual(['hello', null, null, null]);
  });

  it('rejects waitFor with the screen so far when the pattern never shows', async () => {
    const run = node('console.log("something else"); setInterval(() => {}, 1000)');
    await run.waitFor(/something/);
    await expect(run.waitFor('never shown', 300)).rejects.toThrow(/300 ms passed waiting for never shown; the screen so far:\nsomething else/);
  });

  it('rejects waitFor at once when the command ends without the pattern', async () => {
    const run = node('console.log("bye")');
    const started = Date.now();
    await expect(run.waitFor('never shown')).rejects.toThrow(/the command ended waiting for never shown/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('kills a command that ignores the hang-up and termination signals', async () => {
    const run = node('for (const s of ["SIGHUP", "SIGTERM", "SIGINT"]) process.on(s, () => {}); console.log("stubborn"); setInterval(() => {}, 1000)');
    await run.waitFor('stubborn');
    run.kill();
    expect(await run.exited).toBe(137);
  });
});

describe('plainText', () => {
  it('removes colour, cursor movement and title sequences and turns \\r\\n into \\n', () => {
    expect(plainText('\x1b[1mbold\x1b[22m\r\n\x1b[2K\x1b[1A\x1b[?25lline\x1b]0;t\x07\x1b7x\x1b8\r\n')).toBe('bold\nlinex\n');
  });
});
