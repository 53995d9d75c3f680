/**
 * Questions for the person at the terminal: VS Code `${input:...}` values and servers'
 * elicitations (forms and URLs). Everything is written to stderr, so stdout carries only
 * the command's result, and read from stdin with `node:readline`.
 *
 * Server text (messages, titles, descriptions, URLs) and config text (input descriptions)
 * is not trusted: control characters and escape sequences are stripped before it reaches
 * the terminal, so it cannot move the cursor, rewrite what is on screen, retitle the
 * window or hide a part of a URL.
 *
 * While a question is open the terminal is in raw mode (readline's line editing, or no
 * echo at all for hidden input), so Ctrl-C arrives as a key rather than a signal: a form
 * takes it as "cancel". Raw mode is switched off again on every way out.
 */
import { createInterface, emitKeypressEvents, type Interface, type Key } from 'node:readline';
import type { McpConfigInput, McpInputHandler, McpInputRequest } from '../fleet/expand.js';
import type { McpElicitationHandler, McpElicitationResult, McpFormElicitation, McpUrlElicitation } from '../mcp/calls/interaction.js';
import type { CliIO, Colors } from './output.js';
import { choiceNumber, formFields, parse, writeField, yesNo, type Value } from './form-fields.js';
import { terminalSafe } from './terminal-text.js';

/** How a question ended without an answer. */
type Ending = 'interrupt' | 'escape' | 'eof' | 'aborted';

type Answer = { line: string } | { ending: Ending };

// ---------------------------------------------------------------------------------------
// One question at a time

/** The question in progress per terminal (keyed by its stdin), so two never interleave on screen. */
const queues = new WeakMap<object, Promise<void>>();

/**
 * Runs `ask` once every earlier question on this terminal is done. If `signal` aborts
 * while waiting, `ask` never runs and `whenAborted` is returned.
 */
async function oneAtATime<T>(io: CliIO, signal: AbortSignal | undefined, whenAborted: T, ask: () => Promise<T>): Promise<T> {
  const earlier = queues.get(io.stdin) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  // The next question waits for this one and, through it, for every earlier one, even if
  // this one leaves the queue early.
  queues.set(io.stdin, earlier.then(() => mine));
  try {
    if (signal !== undefined) {
      const aborted = await new Promise<boolean>((resolve) => {
        if (signal.aborted) return resolve(true);
        const onAbort = (): void => resolve(true);
        signal.addEventListener('abort', onAbort, { once: true });
        void earlier.then(() => {
          signal.removeEventListener('abort', onAbort);
          resolve(signal.aborted);
        });
      });
      if (aborted) return whenAborted;
    } else {
      await earlier;
    }
    for (const listener of questionListeners) listener(true);
    try {
      return await ask();
    } finally {
      for (const listener of questionListeners) listener(false);
    }
  } finally {
    done();
  }
}

const questionListeners = new Set<(asking: boolean) => void>();

/**
 * Tells `listener` when a question starts (`true`) and ends (`false`), so what else draws
 * on the terminal (the live progress lines) can stand aside. Returns the unsubscribe.
 */
export function onQuestions(listener: (asking: boolean) => void): () => void {
  questionListeners.add(listener);
  return () => questionListeners.delete(listener);
}

// ---------------------------------------------------------------------------------------
// Reading answers

/** Raw mode off, whatever happened (readline does it on close; this is for every other path). */
function cookedMode(io: CliIO): void {
  if (io.stdin.isTTY === true) io.stdin.setRawMode?.(false);
}

/**
 * A run of visible questions on one readline interface (a whole form), so answers typed
 * ahead or pasted several lines at once are kept for the questions they answer. The
 * first Ctrl-C, Escape, Ctrl-D on an empty line, end of input or abort of `signal` ends
 * the run: that question and every later one get the ending instead of a line.
 */
class LineSession {
  private readonly rl: Interface;
  private readonly typedAhead: string[] = [];
  private waiting: ((answer: Answer) => void) | undefined;
  private ending: Ending | undefined;
  private closed = false;

  constructor(
    private readonly io: CliIO,
    private readonly signal: AbortSignal | undefined,
  ) {
    // No history: answers (tokens among them) must not be offered back with the up arrow.
    this.rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true, historySize: 0 });
    this.rl.on('line', (line) => this.deliver(line));
    // A 'SIGINT' listener makes readline hand Ctrl-C to us instead of closing.
    this.rl.on('SIGINT', () => this.end('interrupt'));
    this.rl.on('close', () => this.end('eof'));
    io.stdin.on('keypress', this.onKeypress);
    signal?.addEventListener('abort', this.onAbort, { once: true });
    if (signal?.aborted === true) this.end('aborted');
  }

  private readonly onKeypress = (_text: string | undefined, key: Key | undefined): void => {
    if (key?.name === 'escape') this.end('escape');
  };

  private readonly onAbort = (): void => this.end('aborted');

  private deliver(line: string): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting !== undefined) waiting({ line });
    else this.typedAhead.push(line);
  }

  private end(ending: Ending): void {
    if (this.ending !== undefined) return;
    this.ending = ending;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ ending });
    this.close();
  }

  /** Shows `query` and waits for the next line. */
  ask(query: string): Promise<Answer> {
    if (this.ending !== undefined) return Promise.resolve({ ending: this.ending });
    const ahead = this.typedAhead.shift();
    if (ahead !== undefined) {
      // readline echoed it where it was typed, before this question showed; repeat it
      // after the question, so the screen still reads as question and answer.
      this.io.stderr.write(`${query}${ahead}\n`);
      return Promise.resolve({ line: ahead });
    }
    return new Promise<Answer>((resolve) => {
      this.waiting = resolve;
      this.rl.setPrompt(query);
      this.rl.prompt();
    });
  }

  /** Ends the run; a question cut short leaves its line, and the cursor goes to a fresh one. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.io.stdin.off('keypress', this.onKeypress);
    this.signal?.removeEventListener('abort', this.onAbort);
    // Cut short: the cursor is still on the question's line.
    if (this.ending !== undefined) this.io.stderr.write('\n');
    else this.ending = 'eof';
    this.rl.close();
    cookedMode(this.io);
  }
}

/** A visible question on its own readline interface. */
async function askLine(io: CliIO, query: string, signal: AbortSignal | undefined): Promise<Answer> {
  const session = new LineSession(io, signal);
  try {
    return await session.ask(query);
  } finally {
    session.close();
  }
}

/**
 * A hidden question: the terminal in raw mode with nothing echoed, the typing collected
 * key by key (Backspace deletes, Ctrl-U clears). readline has no hidden mode of its own,
 * short of muting its output through a private method.
 */
function askHidden(io: CliIO, query: string, signal: AbortSignal | undefined): Promise<Answer> {
  const { stdin, stderr } = io;
  return new Promise<Answer>((resolve, reject) => {
    let typed = '';
    let finished = false;
    const release = (): void => {
      finished = true;
      stdin.off('keypress', onKeypress);
      stdin.off('end', onEnd);
      signal?.removeEventListener('abort', onAbort);
      cookedMode(io);
      stdin.pause();
    };
    const finish = (answer: Answer): void => {
      if (finished) return;
      release();
      stderr.write('\n');
      resolve(answer);
    };
    const onKeypress = (text: string | undefined, key: Key | undefined): void => {
      if (key?.ctrl === true && key.name === 'c') return finish({ ending: 'interrupt' });
      if (key?.ctrl === true && key.name === 'd') {
        if (typed === '') finish({ ending: 'eof' });
        return;
      }
      if (key?.name === 'escape') return finish({ ending: 'escape' });
      if (key?.name === 'return' || key?.name === 'enter') return finish({ line: typed });
      if (key?.name === 'backspace') {
        typed = [...typed].slice(0, -1).join('');
        return;
      }
      if (key?.ctrl === true && key.name === 'u') {
        typed = '';
        return;
      }
      if (text !== undefined && key?.ctrl !== true && key?.meta !== true && !/\p{Cc}/u.test(text)) typed += text;
    };
    const onEnd = (): void => finish({ ending: 'eof' });
    const onAbort = (): void => finish({ ending: 'aborted' });
    if (signal?.aborted === true) return finish({ ending: 'aborted' });
    emitKeypressEvents(stdin);
    try {
      // Echo off before the question shows, so nothing typed in answer to it is echoed.
      stdin.setRawMode?.(true);
      stdin.on('keypress', onKeypress);
      stdin.once('end', onEnd);
      signal?.addEventListener('abort', onAbort, { once: true });
      stderr.write(query);
      stdin.resume();
    } catch (error) {
      release();
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

// ---------------------------------------------------------------------------------------
// Inputs (`${input:id}`)


/**
 * SIGINT for this process, as the terminal raises it for Ctrl-C outside raw mode. With
 * no handler, the default action ends the process here. With one, this waits until the
 * handlers have run: Node delivers a signal on a later turn of its loop, and its signal
 * watchers do not keep the loop alive, so a process with nothing else to do would exit
 * first, the signal unhandled (a timer holds the loop open meanwhile, 1 s at most).
 */
async function raiseInterrupt(): Promise<void> {
  if (process.listenerCount('SIGINT') === 0) {
    process.kill(process.pid, 'SIGINT');
    return;
  }
  await new Promise<void>((resolve) => {
    const handled = (): void => {
      clearTimeout(keepAlive);
      process.off('SIGINT', handled);
      resolve();
    };
    const keepAlive = setTimeout(handled, 1_000);
    // Added last, so it runs after the application's own handlers.
    process.on('SIGINT', handled);
    process.kill(process.pid, 'SIGINT');
  });
}

/** The question for an input, its options listed; `undefined` when unanswered. */
async function askInput(io: CliIO, colors: Colors, request: McpInputRequest): Promise<string | undefined> {
  const input: McpConfigInput = request.input;
  const id = terminalSafe(input.id, { limit: 100 });
  const description = terminalSafe(input.description ?? '');
  const options = (input.options ?? []).filter((option): option is string => typeof option === 'string');
  const fallback = typeof input.default === 'string' ? input.default : undefined;
  const notes = [
    input.password === true ? 'typed hidden' : undefined,
    // A hidden value's default is a secret too: offered, never shown.
    fallback === undefined ? undefined
    : input.password === true ? 'Enter keeps the default'
    : options.includes(fallback) ? undefined // marked in the list
    : `default: ${terminalSafe(fallback)}`,
  ].filter((note) => note !== undefined);
  io.stderr.write(
    `${colors.bold(description === '' ? id : description)} ${colors.dim(`(input ${id} for server ${terminalSafe(request.serverId, { limit: 100 })}${notes.map((note) => `, ${note}`).join('')})`)}\n`,
  );
  options.forEach((option, index) => {
    io.stderr.write(`  ${colors.cyan(`${index + 1})`)} ${terminalSafe(option)}${option === fallback ? colors.dim(' (default)') : ''}\n`);
  });
  const query = `  ${colors.cyan('>')} `;
  for (;;) {
    const answer = input.password === true ? await askHidden(io, query, request.signal) : await askLine(io, query, request.signal);
    if ('ending' in answer) {
      if (answer.ending === 'interrupt' && io.stdin === process.stdin) {
        // Ctrl-C meant "stop", as it does outside a question: raise the SIGINT the
        // terminal would have raised had it not been in raw mode.
        await raiseInterrupt();
      } else if (answer.ending !== 'aborted') {
        io.stderr.write(`  ${colors.dim('(left unanswered)')}\n`);
      }
      return undefined;
    }
    const text = answer.line;
    if (options.length === 0) return text === '' && fallback !== undefined ? fallback : text;
    if (text === '' && fallback !== undefined) return fallback;
    const number = choiceNumber(text.trim(), options.length);
    if (number !== undefined) return options[number - 1];
    if (options.includes(text)) return text;
    io.stderr.write(`  ${colors.red('✗')} not one of the choices: type a number from 1 to ${options.length}\n`);
  }
}

/**
 * Answers `${input:id}` (VS Code inputs) on the terminal: the input's description and id
 * as the question, typed hidden (nothing echoed) when `password` is true, its `default`
 * offered and taken on an empty answer, `options` (a pickString) shown as a numbered list
 * (answered by number or by the option itself); `undefined` when stdin is not a
 * terminal, or when the person presses Ctrl-D / Escape (unanswered). Ctrl-C leaves the
 * input unanswered and raises SIGINT in this process, as it would outside the question.
 * Honours the request's `signal` (closes the prompt). Questions never overlap: a second
 * one waits for the first (and for any elicitation on the same terminal).
 */
export function terminalInputs(io: CliIO, colors: Colors): McpInputHandler | undefined {
  if (io.stdin.isTTY !== true) return undefined;
  return (request) => oneAtATime(io, request.signal, undefined, () => askInput(io, colors, request));
}

// ---------------------------------------------------------------------------------------
// Elicitation

function header(io: CliIO, colors: Colors, serverId: string, message: string): void {
  const text = terminalSafe(message, { multiline: true, limit: 4_000 });
  io.stderr.write(`${colors.yellow('?')} ${colors.bold(`Server ${terminalSafe(serverId, { limit: 100 })} asks:`)}${text.includes('\n') ? '\n  ' : ' '}${text.replaceAll('\n', '\n  ')}\n`);
}

async function askForm(io: CliIO, colors: Colors, request: McpFormElicitation, serverId: string, signal: AbortSignal): Promise<McpElicitationResult> {
  const fields = formFields(request.requestedSchema);
  const session = new LineSession(io, signal);
  const query = `  ${colors.cyan('>')} `;
  const cancelled = (): McpElicitationResult => {
    session.close();
    io.stderr.write(`  ${colors.dim('(cancelled)')}\n`);
    return { action: 'cancel' };
  };
  try {
    header(io, colors, serverId, request.message);
    const content: Record<string, Value> = {};
    for (const field of fields) {
      writeField(io, colors, field);
      for (;;) {
        const answer = await session.ask(query);
        if ('ending' in answer) return cancelled();
        const parsed = parse(field, answer.line);
        if ('problem' in parsed) {
          io.stderr.write(`  ${colors.red('✗')} ${parsed.problem}\n`);
          continue;
        }
        if (parsed.value !== undefined) content[field.name] = parsed.value;
        break;
      }
    }
    for (;;) {
      const answer = await session.ask(`${colors.bold('Send?')} [Y/n] `);
      if ('ending' in answer) return cancelled();
      const send = answer.line.trim() === '' ? true : yesNo(answer.line);
      if (send === true) return { action: 'accept', content };
      if (send === false) return { action: 'decline' };
      io.stderr.write(`  ${colors.red('✗')} type y to send, n to decline\n`);
    }
  } finally {
    session.close();
  }
}

async function askUrl(io: CliIO, colors: Colors, request: McpUrlElicitation, serverId: string, signal: AbortSignal): Promise<McpElicitationResult> {
  const url = terminalSafe(request.url, { limit: 4_000 });
  let host: string | undefined;
  try {
    host = new URL(request.url).host;
  } catch {
    // Not a URL at all: shown as it is, and the person decides.
  }
  const session = new LineSession(io, signal);
  try {
    header(io, colors, serverId, request.message);
    io.stderr.write(`  Open this URL in your browser:\n  ${colors.underline(url)}\n`);
    if (host !== undefined && host !== '') io.stderr.write(`  ${colors.dim(`(it leads to ${terminalSafe(host, { limit: 200 })})`)}\n`);
    for (;;) {
      const answer = await session.ask(`${colors.bold('Opened it?')} [y/N] `);
      if ('ending' in answer) {
        session.close();
        io.stderr.write(`  ${colors.dim('(cancelled)')}\n`);
        return { action: 'cancel' };
      }
      const opened = answer.line.trim() === '' ? false : yesNo(answer.line);
      if (opened === true) return { action: 'accept' };
      if (opened === false) return { action: 'decline' };
      io.stderr.write(`  ${colors.red('✗')} type y if you opened it, n if not\n`);
    }
  } finally {
    session.close();
  }
}

/**
 * Answers elicitations on the terminal when stdin is a terminal; otherwise every request
 * is declined at once.
 *
 * Form mode: the server's message, then each field of `requestedSchema` in order with its
 * title (or name), its type, its default and its choices (`enum`, `oneOf` with
 * `const`/`title`, or an array of enum items for multi-select, answered by numbers or
 * values separated by commas), required ones marked; the person's text is converted to
 * the field's type (number, integer, boolean as y/n/yes/no/true/false) and checked
 * against its bounds and format, re-asked with a one-line reason when it does not fit;
 * an empty answer takes the default (or leaves an optional field out); then `Send? [Y/n]`
 * accepts with the content, `n` declines. Ctrl-C, Escape or Ctrl-D during the form
 * cancels (the terminal is in raw mode, so Ctrl-C does not reach the process as SIGINT).
 *
 * URL mode: the message, the URL and its host, then `Opened it? [y/N]`: accept or
 * decline. The URL is never opened for the person.
 *
 * The context's `signal` aborting closes the form (cancel). One question at a time per
 * terminal, shared with `terminalInputs`. Modes: `['form', 'url']`.
 */
export function terminalElicitation(io: CliIO, colors: Colors): McpElicitationHandler {
  return {
    modes: ['form', 'url'],
    elicit(request, context) {
      if (io.stdin.isTTY !== true) return Promise.resolve({ action: 'decline' });
      return oneAtATime(io, context.signal, { action: 'cancel' }, () =>
        request.mode === 'url' ? askUrl(io, colors, request, context.serverId, context.signal) : askForm(io, colors, request, context.serverId, context.signal),
      );
    },
  };
}
