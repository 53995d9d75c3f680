/**
 * The command's terminal prompts, typed into through a real pseudo-terminal: forms of
 * every field type with defaults, re-asking, choices and required marks; send, decline
 * and cancel (Ctrl-C, Escape, the signal) without the process dying; URL elicitations;
 * VS Code inputs with defaults, options and hidden typing; one question at a time; and
 * no prompt at all without a terminal. Each run is `test/fixtures/prompt-host.ts`, which
 * prints every answer as `RESULT <index> <json>` and then whether stdin is still raw.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpConfigInput } from '../src/fleet/expand.js';
import type { McpElicitationRequest, McpFormElicitation } from '../src/mcp/calls/interaction.js';
import { fixture } from './helpers.js';
import { runInPty, type PtyRun } from './pty.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Scenario {
  questions: ({ elicit: McpElicitationRequest } | { input: McpConfigInput })[];
  abortAfterMs?: number;
  handleSigint?: boolean;
}

const runs: PtyRun[] = [];
afterEach(() => {
  for (const run of runs.splice(0)) run.kill();
});

/** The prompt host in a pty, with colour on (as a person's terminal has it). */
function host(scenario: Scenario): PtyRun {
  const run = runInPty(process.execPath, ['--import', 'tsx', fixture('prompt-host.ts'), JSON.stringify(scenario)], { cwd: ROOT, columns: 120 });
  runs.push(run);
  return run;
}

function form(properties: Record<string, unknown>, required: string[] = [], message = 'Tell us about you'): { elicit: McpFormElicitation } {
  return { elicit: { mode: 'form', message, requestedSchema: { type: 'object', properties, required } } };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Waits until `after` is on screen and the screen ends in a question waiting for typing, then types `typed`. */
async function answer(run: PtyRun, after: string, typed: string, question = '> '): Promise<void> {
  await run.waitFor(new RegExp(`${escapeRegExp(after)}[^]*${escapeRegExp(question)}$`));
  run.write(typed);
}

/** Every `RESULT <index> <json>` line, by index. */
function results(run: PtyRun): unknown[] {
  const found: unknown[] = [];
  for (const match of run.text().matchAll(/^RESULT (\d+) (.*)$/gm)) found[Number(match[1])] = JSON.parse(match[2]!);
  return found;
}

/** Waits for the host to finish on its own (stdin released), and checks it left the terminal in cooked mode. */
async function finished(run: PtyRun): Promise<unknown[]> {
  expect(await run.exited).toBe(0);
  expect(run.text()).toMatch(/^RAW false\nEND\n$/m);
  return results(run);
}

describe('terminalElicitation, form mode', () => {
  it('asks each field in order with its title, type, choices and required mark, and sends the typed values in their types', async () => {
    const run = host({
      questions: [
        form(
          {
            name: { type: 'string', title: 'Your name', description: 'As on your passport' },
            age: { type: 'integer', title: 'Age', minimum: 0, maximum: 150 },
            height: { type: 'number', title: 'Height in metres' },
            subscribe: { type: 'boolean', title: 'Subscribe' },
            size: { type: 'string', title: 'Size', enum: ['s', 'm', 'l'] },
            colour: { type: 'string', title: 'Colour', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] },
            toppings: { type: 'array', title: 'Toppings', items: { type: 'string', enum: ['cheese', 'olives', 'basil'] } },
            email: { type: 'string', format: 'email' },
            aliases: { type: 'array', title: 'Aliases', items: { type: 'string' } },
          },
          ['name', 'age', 'colour'],
        ),
      ],
    });
    await answer(run, 'As on your passport', 'Ada Lovelace\r');
    await answer(run, 'Age (integer, 0 to 150, required) *', '36\r');
    await answer(run, 'Height in metres (number, optional)', '1.65\r');
    await answer(run, 'Subscribe (boolean, y/n, optional)', 'Yes\r');
    await answer(run, '3) l', 'm\r');
    await answer(run, '2) Green', '2\r');
    await answer(run, '3) basil', '3, 1\r');
    await answer(run, 'email (string, email, optional)', 'ada@example.com\r');
    await answer(run, 'Aliases (list, comma-separated, optional)', 'Countess, A. A. L.\r');
    await answer(run, 'Send?', '\r', '[Y/n] ');
    expect(await finished(run)).toEqual([
      {
        action: 'accept',
        content: { name: 'Ada Lovelace', age: 36, height: 1.65, subscribe: true, size: 'm', colour: 'g', toppings: ['basil', 'cheese'], email: 'ada@example.com', aliases: ['Countess', 'A. A. L.'] },
      },
    ]);
    const screen = run.text();
    expect(screen).toContain('? Server demo asks: Tell us about you\n');
    expect(screen).toContain('Your name (string, required) *\n  As on your passport\n');
    expect(screen).toContain('Size (choose one, optional)\n  1) s\n  2) m\n  3) l\n');
    expect(screen).toContain('Colour (choose one, required) *\n  1) Red\n  2) Green\n');
    expect(screen).toContain('Toppings (choose any, comma-separated, optional)\n  1) cheese\n  2) olives\n  3) basil\n');
    // Optional fields carry no mark.
    expect(screen).not.toMatch(/optional\) \*/);
  });

  it('takes the defaults on empty answers, shows them, and leaves optional fields without one out', async () => {
    const run = host({
      questions: [
        form({
          city: { type: 'string', default: 'Paris' },
          count: { type: 'integer', default: 3 },
          ratio: { type: 'number', default: 0.5 },
          loud: { type: 'boolean', default: false },
          level: { type: 'string', oneOf: [{ const: 'lo', title: 'Low' }, { const: 'hi', title: 'High' }], default: 'hi' },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, default: ['a', 'c'] },
          note: { type: 'string' },
          // A default that does not fit the field is not offered (it would fail the whole form).
          broken: { type: 'integer', default: 'many' },
        }),
      ],
    });
    await answer(run, 'city (string, optional, default: Paris)', '\r');
    await answer(run, 'count (integer, optional, default: 3)', '\r');
    await answer(run, 'ratio (number, optional, default: 0.5)', '\r');
    await answer(run, 'loud (boolean, y/n, optional, default: no)', '\r');
    await answer(run, '2) High (default)', '\r');
    await answer(run, '3) c (default)', '\r');
    await answer(run, 'note (string, optional)', '\r');
    await answer(run, 'broken (integer, optional)', '\r');
    await answer(run, 'Send?', 'y\r', '[Y/n] ');
    expect(await finished(run)).toEqual([{ action: 'accept', content: { city: 'Paris', count: 3, ratio: 0.5, loud: false, level: 'hi', tags: ['a', 'c'] } }]);
    expect(run.text()).toContain('tags (choose any, comma-separated, optional, default: a, c)\n  1) a (default)\n  2) b\n  3) c (default)\n');
  });

  it('asks again with a one-line reason when an answer does not fit its field', async () => {
    const run = host({
      questions: [
        form(
          {
            name: { type: 'string', minLength: 2 },
            age: { type: 'integer', minimum: 18 },
            price: { type: 'number' },
            agree: { type: 'boolean' },
            pick: { type: 'string', enum: ['x', 'y'] },
            many: { type: 'array', items: { type: 'string', enum: ['p', 'q'] }, maxItems: 1 },
            mail: { type: 'string', format: 'email' },
            day: { type: 'string', format: 'date' },
          },
          ['name'],
        ),
      ],
    });
    await answer(run, 'name (string, at least 2 characters, required)', '\r');
    await answer(run, 'required: type a value', 'A\r');
    await answer(run, 'must be at least 2 characters', 'Al\r');
    await answer(run, 'age (integer, at least 18, optional)', 'twenty\r');
    await answer(run, 'not an integer: type a whole number, like 42', '12\r');
    await answer(run, 'must be at least 18', '18.5\r');
    await answer(run, '> 18.5\n  ✗ not an integer', '21\r');
    await answer(run, 'price (number, optional)', '1,5\r');
    await answer(run, 'not a number: type digits, like 42 or 3.5', '-1.5e2\r');
    await answer(run, 'agree (boolean, y/n, optional)', 'maybe\r');
    await answer(run, 'not yes or no: type y or n', 'FALSE\r');
    await answer(run, '2) y', '3\r');
    await answer(run, 'not one of the choices: type its number (1 to 2)', 'Y\r');
    await answer(run, '2) q', 'p, z\r');
    await answer(run, '"z" is not one of the choices', '1,2\r');
    await answer(run, 'choose at most 1', 'q\r');
    await answer(run, 'mail (string, email, optional)', 'not-an-address\r');
    await answer(run, 'not an email address', 'al@example.org\r');
    await answer(run, 'day (string, date, optional)', '2024-02-30\r');
    await answer(run, 'not a date as YYYY-MM-DD', '2024-02-29\r');
    await answer(run, 'Send?', 'perhaps\r', '[Y/n] ');
    await answer(run, 'type y to send, n to decline', 'yes\r', '[Y/n] ');
    expect(await finished(run)).toEqual([
      { action: 'accept', content: { name: 'Al', age: 21, price: -150, agree: false, pick: 'y', many: ['q'], mail: 'al@example.org', day: '2024-02-29' } },
    ]);
  });

  it('keeps answers typed ahead (pasted lines) for the questions they answer', async () => {
    const run = host({ questions: [form({ name: { type: 'string' }, age: { type: 'integer' } })] });
    await answer(run, 'name (string, optional)', 'Ada\r36\ry\r');
    expect(await finished(run)).toEqual([{ action: 'accept', content: { name: 'Ada', age: 36 } }]);
    expect(run.text()).toContain('age (integer, optional)\n  > 36\nSend? [Y/n] y\n');
  });

  it('declines when the person answers n to Send?', async () => {
    const run = host({ questions: [form({ name: { type: 'string' } })] });
    await answer(run, 'name (string, optional)', 'Ada\r');
    await answer(run, 'Send?', 'n\r', '[Y/n] ');
    expect(await finished(run)).toEqual([{ action: 'decline' }]);
  });

  it('cancels on Ctrl-C, and the process neither dies nor stays in raw mode', async () => {
    const run = host({ questions: [form({ name: { type: 'string' }, age: { type: 'integer' } })] });
    await answer(run, 'name (string, optional)', 'Ada\r');
    await answer(run, 'age (integer, optional)', '4');
    run.interrupt();
    // Exit code 0, not 130: the form took Ctrl-C as a key, no SIGINT was raised.
    expect(await finished(run)).toEqual([{ action: 'cancel' }]);
    expect(run.text()).toContain('  > 4\n  (cancelled)\n');
  });

  it('cancels on Escape', async () => {
    const run = host({ questions: [form({ name: { type: 'string' } })] });
    await answer(run, 'name (string, optional)', '\x1b');
    expect(await finished(run)).toEqual([{ action: 'cancel' }]);
  });

  it('cancels on Ctrl-D at an empty answer', async () => {
    const run = host({ questions: [form({ name: { type: 'string' } })] });
    await answer(run, 'name (string, optional)', '\x04');
    expect(await finished(run)).toEqual([{ action: 'cancel' }]);
  });

  it('closes the form and cancels when the request is withdrawn (its signal aborts)', async () => {
    const run = host({ questions: [form({ name: { type: 'string' } })], abortAfterMs: 2_500 });
    await run.waitFor(/name \(string, optional\)\n {2}> $/);
    expect(await finished(run)).toEqual([{ action: 'cancel' }]);
    expect(run.text()).toContain('  > \n  (cancelled)\n');
  });

  it('strips escape sequences and control characters from the server\'s text', async () => {
    const run = host({
      questions: [
        form(
          {
            field: {
              type: 'string',
              title: 'Na\x1b[31mme\x1b[0m\x07',
              description: 'line\rfake\x1b]0;owned\x07 end\x1b[2J\u202eevil',
              enum: ['one\x1b[1A', 'two'],
            },
          },
          [],
          'Hello\x1b[2J\x1b[H\x1bc there\x9b31m\nsecond\x00 line',
        ),
      ],
    });
    await answer(run, '2) two', '\x1b');
    expect(await finished(run)).toEqual([{ action: 'cancel' }]);
    const screen = run.text();
    expect(screen).toContain('? Server demo asks:\n  Hello there31m\n  second line\n');
    expect(screen).toContain('Name (choose one, optional)\n  line fake endevil\n  1) one\n  2) two\n');
    for (const hostile of ['\x1b[2J', '\x1b[H', '\x1bc', '\x1b]0;', '\x1b[1A', '\x1b[31mme', '\x07', '\x9b', '\u202e', '\x00']) {
      expect(run.output).not.toContain(hostile);
    }
  });
});

describe('terminalElicitation, URL mode', () => {
  const url = { elicit: { mode: 'url' as const, message: 'Sign in to continue', url: 'https://auth.example.com/authorize?state=1' } };

  it('shows the message, the URL and where it leads, and accepts on y', async () => {
    const run = host({ questions: [url] });
    await answer(run, 'Opened it?', 'y\r', '[y/N] ');
    expect(await finished(run)).toEqual([{ action: 'accept' }]);
    expect(run.text()).toContain('? Server demo asks: Sign in to continue\n  Open this URL in your browser:\n  https://auth.example.com/authorize?state=1\n  (it leads to auth.example.com)\n');
  });

  it('declines on an empty answer (no is the default) and cancels on Ctrl-C', async () => {
    const run = host({ questions: [url, url] });
    await answer(run, 'Opened it?', '\r', '[y/N] ');
    await run.waitFor(/Opened it\?[^]*Opened it\? \[y\/N\] $/);
    run.interrupt();
    expect(await finished(run)).toEqual([{ action: 'decline' }, { action: 'cancel' }]);
  });
});

describe('terminalInputs', () => {
  it('asks by description and id and returns the typed answer', async () => {
    const run = host({ questions: [{ input: { id: 'region', type: 'promptString', description: 'The cloud region' } }] });
    await answer(run, 'The cloud region (input region for server demo)', 'eu-west-1\r');
    expect(await finished(run)).toEqual(['eu-west-1']);
  });

  it('offers the default and takes it on an empty answer', async () => {
    const run = host({ questions: [{ input: { id: 'region', type: 'promptString', description: 'The cloud region', default: 'us-east-1' } }] });
    await answer(run, 'The cloud region (input region for server demo, default: us-east-1)', '\r');
    expect(await finished(run)).toEqual(['us-east-1']);
  });

  it('lists a pickString\'s options by number and takes a number or an option, re-asking otherwise', async () => {
    const input = { id: 'tier', type: 'pickString', description: 'Which tier', options: ['free', 'pro', 'team'], default: 'pro' };
    const run = host({ questions: [{ input }, { input: { ...input, id: 'tier2' } }, { input: { ...input, id: 'tier3' } }] });
    await answer(run, '  1) free\n  2) pro (default)\n  3) team\n', '4\r');
    await answer(run, 'not one of the choices: type a number from 1 to 3', '3\r');
    await answer(run, 'input tier2', 'free\r');
    await answer(run, 'input tier3', '\r');
    expect(await finished(run)).toEqual(['team', 'free', 'pro']);
  });

  it('types a password hidden: nothing typed is echoed, Backspace works, and the terminal is restored', async () => {
    const run = host({ questions: [{ input: { id: 'token', type: 'promptString', description: 'API token', password: true } }] });
    await answer(run, 'API token (input token for server demo, typed hidden)', 's3cr3X');
    run.write('\x7ft-value\r');
    expect(await finished(run)).toEqual(['s3cr3t-value']);
    const screen = run.text();
    const beforeResult = screen.slice(0, screen.indexOf('RESULT'));
    for (const piece of ['s3cr3', 't-value', '*']) expect(beforeResult).not.toContain(piece);
    expect(beforeResult).toMatch(/typed hidden\)\n {2}> \n$/);
  });

  it('keeps a hidden default secret: offered, not shown, taken on Enter', async () => {
    const run = host({ questions: [{ input: { id: 'token', type: 'promptString', description: 'API token', password: true, default: 'hunter2' } }] });
    await answer(run, 'API token (input token for server demo, typed hidden, Enter keeps the default)', '\r');
    expect(await finished(run)).toEqual(['hunter2']);
    const screen = run.text();
    expect(screen.slice(0, screen.indexOf('RESULT'))).not.toContain('hunter2');
  });

  it('leaves an input unanswered on Escape and on Ctrl-D, hidden or not', async () => {
    const visible = { id: 'a', type: 'promptString', description: 'First' };
    const hidden = { id: 'b', type: 'promptString', description: 'Second', password: true };
    const run = host({ questions: [{ input: visible }, { input: hidden }, { input: { ...visible, id: 'c' } }, { input: { ...hidden, id: 'd' } }] });
    await answer(run, 'input a', '\x1b');
    await answer(run, 'input b', '\x1b');
    await answer(run, 'input c', '\x04');
    await answer(run, 'input d', '\x04');
    expect(await finished(run)).toEqual([null, null, null, null]);
    expect(run.text().match(/\(left unanswered\)/g)).toHaveLength(4);
  });

  it('takes Ctrl-C as a SIGINT for the process, after putting the terminal back in cooked mode', async () => {
    const run = host({ questions: [{ input: { id: 'token', type: 'promptString', description: 'API token', password: true } }], handleSigint: true });
    await answer(run, 'API token', 'abc');
    run.interrupt();
    await run.waitFor('SIGINT raw=false');
    expect(await run.exited).toBe(130);

    const visible = host({ questions: [{ input: { id: 'region', type: 'promptString' } }], handleSigint: true });
    await answer(visible, 'region (input region', 'eu');
    visible.interrupt();
    await visible.waitFor('SIGINT raw=false');
    expect(await visible.exited).toBe(130);
  });

  it('takes Ctrl-C as the end of a process that does not handle SIGINT, as outside a question', async () => {
    const run = host({ questions: [{ input: { id: 'region', type: 'promptString' } }] });
    await answer(run, 'region (input region', 'eu');
    run.interrupt();
    expect(await run.exited).toBe(130);
    expect(run.text()).not.toContain('RESULT');
  });

  it('closes the question when the request\'s signal aborts', async () => {
    const run = host({ questions: [{ input: { id: 'a', type: 'promptString' } }, { input: { id: 'b', type: 'promptString', password: true } }], abortAfterMs: 2_500 });
    await run.waitFor(/input a for server demo\)\n {2}> $/);
    // The second question, still waiting its turn, is dropped without being shown.
    expect(await finished(run)).toEqual([null, null]);
    expect(run.text()).not.toContain('input b');
  });
});

describe('one question at a time', () => {
  it('holds a second question (input or elicitation) until the first is answered', async () => {
    const run = host({
      questions: [
        { input: { id: 'first', type: 'promptString', description: 'First question' } },
        form({ colour: { type: 'string', title: 'Second question' } }),
        { input: { id: 'third', type: 'promptString', description: 'Third question', password: true } },
      ],
    });
    await run.waitFor(/First question[^]*> $/);
    // Give the others every chance to draw over it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(run.text()).not.toContain('Second question');
    run.write('one\r');
    await answer(run, 'Second question (string, optional)', 'two\r');
    await answer(run, 'Send?', '\r', '[Y/n] ');
    await answer(run, 'Third question', 'three\r');
    expect(await finished(run)).toEqual(['one', { action: 'accept', content: { colour: 'two' } }, 'three']);
    const screen = run.text();
    expect(screen.indexOf('First question')).toBeLessThan(screen.indexOf('Second question'));
    expect(screen.indexOf('Send?')).toBeLessThan(screen.indexOf('Third question'));
  });
});

describe('without a terminal', () => {
  it('has no inputs handler and declines every elicitation at once', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fixture('prompt-host.ts'), JSON.stringify({ questions: [form({ name: { type: 'string' } }), { elicit: { mode: 'url', message: 'm', url: 'https://example.com' } }, { input: { id: 'x', type: 'promptString' } }] })],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const lines = stdout.split('\n');
    expect(lines[0]).toBe('HANDLERS modes=form,url inputs=none');
    // In the order they settled: the fixture's own "no handler" needs no wait.
    expect(lines.slice(1, 4).sort()).toEqual(['RESULT 0 {"action":"decline"}', 'RESULT 1 {"action":"decline"}', 'RESULT 2 "no handler"']);
    expect(lines.slice(4)).toEqual(['RAW false', 'END', '']);
  });
});
