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

  /** `maxLineBytes` bounds one line, newline excluded. */
  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: string) => void,
  ) {}

  /** Feeds a chunk; calls `onLine` for every complete line. Throws `LineTooLongError`, then ignores input. */
  push(chunk: Buffer): void {
    if (this.failed) return;
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.check(this.pendingBytes + newline - start);
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
      this.check(this.pendingBytes + chunk.length - start);
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
