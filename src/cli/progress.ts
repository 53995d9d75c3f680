/**
 * While servers connect, a live line per server on stderr: a spinner, then `ready` or
 * `failed` with the time it took. Only on a terminal; piped, nothing is drawn (the
 * result and its errors say what happened). The lines are redrawn in place with ANSI
 * cursor movement and left on the screen when done.
 */
import type { Colors, CliIO } from './output.js';
import { onQuestions } from './prompt.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 80;

interface Line {
  id: string;
  started: number;
  done?: { ok: boolean; ms: number; detail: string };
}

export class Progress {
  private readonly lines: Line[];
  private timer: NodeJS.Timeout | undefined;
  private frame = 0;
  private drawn = 0;
  private stopped = false;
  private readonly unsubscribe: () => void;

  private constructor(
    private readonly stream: CliIO['stderr'],
    private readonly colors: Colors,
    ids: readonly string[],
  ) {
    const now = performance.now();
    this.lines = ids.map((id) => ({ id, started: now }));
    // A question on the terminal (an input, a form) takes the screen: the lines stand aside
    // and are drawn afresh below it once it is answered.
    this.unsubscribe = onQuestions((asking) => (asking ? this.pause() : this.resume()));
    this.resume();
  }

  private pause(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.drawn = 0;
  }

  private resume(): void {
    if (this.stopped || this.timer !== undefined) return;
    this.draw();
    this.timer = setInterval(() => this.draw(), FRAME_MS);
    this.timer.unref();
  }

  /** Progress lines for `ids` on a terminal's stderr; `undefined` when stderr is not a terminal or there is nothing to show. */
  static start(io: CliIO, colors: Colors, ids: readonly string[]): Progress | undefined {
    // A dumb terminal cannot move the cursor back up to redraw.
    return io.stderr.isTTY === true && io.env.TERM !== 'dumb' && ids.length > 0 ? new Progress(io.stderr, colors, ids) : undefined;
  }

  /** Marks a server ready or failed (`detail`: its tool count, or why it failed). */
  finish(id: string, ok: boolean, detail: string): void {
    const line = this.lines.find((candidate) => candidate.id === id);
    if (line === undefined || line.done !== undefined) return;
    line.done = { ok, ms: performance.now() - line.started, detail };
    if (this.timer !== undefined) this.draw();
  }

  /** Draws the final state and stops. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.unsubscribe();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.draw();
  }

  private draw(): void {
    const c = this.colors;
    const width = Math.max(...this.lines.map((line) => line.id.length));
    const columns = this.stream.columns || 100;
    this.frame = (this.frame + 1) % FRAMES.length;
    // Back to the start of the first line (whatever was typed on the current one, such as
    // an echoed ^C), then each line cleared and written again.
    let text = this.drawn > 0 ? `\r\x1b[${this.drawn}A` : '\r';
    for (const line of this.lines) {
      const name = line.id.padEnd(width);
      let body: string;
      if (line.done === undefined) {
        body = `${c.cyan(FRAMES[this.frame])} ${name}  ${c.dim(`connecting ${seconds(performance.now() - line.started)}`)}`;
      } else {
        const mark = line.done.ok ? c.green('✔') : c.red('✖');
        const state = line.done.ok ? c.green('ready') : c.red('failed');
        body = `${mark} ${name}  ${state} ${c.dim(seconds(line.done.ms))}  ${line.done.detail}`;
      }
      text += `\x1b[2K${fit(body, columns - 1)}\n`;
    }
    this.drawn = this.lines.length;
    this.stream.write(text);
  }
}

function seconds(ms: number): string {
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(1)} s`;
}

/** A line cut to the terminal's width, so it never wraps (a wrapped line would break the redraw). */
function fit(text: string, columns: number): string {
  let visible = 0;
  let result = '';
  // eslint-disable-next-line no-control-regex
  for (const part of text.split(/(\x1b\[[0-9;]*m)/)) {
    if (part.startsWith('\x1b[')) {
      result += part;
      continue;
    }
    const room = columns - visible;
    if (room <= 0) continue;
    result += part.length > room ? `${part.slice(0, Math.max(0, room - 1))}…` : part;
    visible += Math.min(part.length, room);
  }
  return result.includes('\x1b[') ? `${result}\x1b[0m` : result;
}
