/**
 * Newline-delimited framing in linear time with a bound on line length. Chunks are
 * kept as they arrive and joined once per line, so a multi-megabyte line costs one
 * copy (the SDK's reader re-concatenates its buffer on every chunk: quadratic).
 */

export class LineTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`line longer than ${limit} bytes`);
  }
}

export class LineFramer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private failed = false;

  /** `maxLineBytes` bounds one line, its `\n` or `\r\n` excluded. */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
  ) {}

  /** Feeds a chunk; calls `onLine` for every complete line. Throws `LineTooLongError`, then ignores input. */
  push(chunk: Buffer): void {
    if (this.failed) return;
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      const before = newline > start ? chunk[newline - 1] : this.pending.at(-1)?.at(-1);
      this.check(this.pendingBytes + newline - start - (before === 13 ? 1 : 0));
      let line: string;
      if (this.pendingBytes === 0) {
        line = chunk.toString('utf8', start, newline);
      } else {
        this.pending.push(chunk.subarray(start, newline));
        line = Buffer.concat(this.pending, this.pendingBytes + newline - start).toString('utf8');
        this.pending = [];
        this.pendingBytes = 0;
      }
      start = newline + 1;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.length > 0) this.onLine(line);
    }
    if (start < chunk.length) {
      // One byte of slack: the line's last byte may be the `\r` of a `\r\n` still to come.
      this.check(this.pendingBytes + chunk.length - start - 1);
      this.pending.push(start === 0 ? chunk : chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
    }
  }

  private check(bytes: number): void {
    if (bytes > this.maxLineBytes) {
      this.failed = true;
      this.pending = [];
      this.pendingBytes = 0;
      throw new LineTooLongError(this.maxLineBytes);
    }
  }
}
