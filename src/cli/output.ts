/**
 * What the command writes, and where: results on stdout (a table on a terminal, plain
 * tab-separated lines when piped, JSON with `--json`), everything else on stderr. Colour
 * only on a terminal, and never with `NO_COLOR`, `--no-color` or `TERM=dumb`
 * (`FORCE_COLOR` turns it on anyway), decided per stream.
 */
import type { Readable, Writable } from 'node:stream';
import { createColors } from 'picocolors';

/** The streams and environment a run of the command uses (the process's, or a test's). */
export interface CliIO {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  stdin: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

export type Colors = ReturnType<typeof createColors>;

/** Whether to colour a stream. */
export function colorFor(stream: { isTTY?: boolean }, env: CliIO['env'], noColor: boolean): boolean {
  if (noColor || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** Display width of a string without its colour codes. */
function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '').length;
}

export class Output {
  /** Colours for stdout and for stderr. */
  readonly out: Colors;
  readonly err: Colors;

  constructor(
    readonly io: CliIO,
    readonly options: { json: boolean; noColor: boolean; debug: boolean },
  ) {
    this.out = createColors(colorFor(io.stdout, io.env, options.noColor));
    this.err = createColors(colorFor(io.stderr, io.env, options.noColor));
  }

  get json(): boolean {
    return this.options.json;
  }

  /** Whether stdout is a person's terminal (tables and colour) rather than a pipe. */
  get interactive(): boolean {
    return this.io.stdout.isTTY === true;
  }

  /** One line (or block) of the result, on stdout. */
  print(text = ''): void {
    this.io.stdout.write(`${text}\n`);
  }

  /** One line of the result, cut to the terminal's width on a terminal (so it never wraps), whole when piped. */
  printLine(text: string): void {
    this.print(this.interactive && this.io.stdout.columns ? cutVisible(text, this.io.stdout.columns - 1) : text);
  }

  /** The result as JSON, on stdout. */
  printJson(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** A note for the person (which file is used, where an image went), on stderr. */
  note(text: string): void {
    this.io.stderr.write(`${this.err.dim(text)}\n`);
  }

  /** What went wrong, in one line, on stderr. */
  error(text: string): void {
    this.io.stderr.write(`${this.err.red('error')} ${text}\n`);
  }

  /**
   * Rows as a table: on a terminal, a bold header and aligned columns (empty ones left
   * out), the widest ones cut (with an ellipsis) until a row fits the terminal's width, so
   * none wraps; piped, every column's cells in full, tab-separated, and no header, for
   * `cut` and `awk`.
   */
  table(header: string[], rows: string[][]): void {
    if (!this.interactive) {
      for (const row of rows) this.print(row.join('\t'));
      return;
    }
    // On a terminal a column with nothing in it only takes room (piped, columns stay put for `cut`).
    const kept = header.map((_, i) => i).filter((i) => i === 0 || rows.some((row) => (row[i] ?? '') !== ''));
    if (kept.length < header.length) {
      header = kept.map((i) => header[i]!);
      rows = rows.map((row) => kept.map((i) => row[i] ?? ''));
    }
    const widths = header.map((cell, i) => Math.max(visibleLength(cell), ...rows.map((row) => visibleLength(row[i] ?? ''))));
    const budget = (this.io.stdout.columns || Number.POSITIVE_INFINITY) - 1;
    const total = () => widths.reduce((sum, width) => sum + width, 0) + 2 * (widths.length - 1);
    // The widest column gives way first, no narrower than the next widest, then both, and
    // so on, each down to a readable minimum.
    for (let excess = total() - budget; excess > 0; excess = total() - budget) {
      const widest = Math.max(...widths);
      if (widest <= MIN_COLUMN) break;
      const next = Math.max(MIN_COLUMN, ...widths.filter((width) => width < widest));
      const index = widths.indexOf(widest);
      widths[index] = Math.max(next, widest - excess, MIN_COLUMN);
      if (widths[index] === widest) widths[index] = widest - 1;
    }
    const line = (cells: string[]) =>
      cells
        .map((cell, i) => {
          const fitted = cutVisible(cell, widths[i]!);
          return i === cells.length - 1 ? fitted : fitted + ' '.repeat(widths[i]! - visibleLength(fitted));
        })
        .join('  ');
    this.print(this.out.bold(line(header)));
    for (const row of rows) this.print(line(row));
  }
}

/** The narrowest a column is cut to. */
const MIN_COLUMN = 8;

/** A cell cut to `width` visible characters with an ellipsis (a cut cell loses its colour). */
function cutVisible(text: string, width: number): string {
  // eslint-disable-next-line no-control-regex
  return visibleLength(text) <= width ? text : `${text.replace(/\x1b\[[0-9;]*m/g, '').slice(0, width - 1)}…`;
}
