/**
 * Unit tests of the linear, bounded newline framing of the stdio transport.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineFramer, LineTooLongError } from '../src/mcp/transport/lines.js';

function framer(maxLineBytes: number): { framer: LineFramer; lines: string[] } {
  const lines: string[] = [];
  return { framer: new LineFramer(maxLineBytes, (line) => lines.push(line)), lines };
}

function feed(target: LineFramer, ...chunks: (string | Buffer)[]): void {
  for (const chunk of chunks) target.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
}

describe('LineFramer', () => {
  it('emits each complete line of one chunk, in order', () => {
    const { framer: f, lines } = framer(1024);
    feed(f, '{"a":1}\n{"b":2}\n');
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('holds an incomplete line until its newline arrives', () => {
    const { framer: f, lines } = framer(1024);
    feed(f, '{"a":');
    expect(lines).toEqual([]);
    feed(f, '1}\n{"b"');
    expect(lines).toEqual(['{"a":1}']);
    feed(f, ':2}');
    feed(f, '\n');
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('joins a line split over many chunks', () => {
    const { framer: f, lines } = framer(1024);
    feed(f, 'a', 'b', 'c', 'd\ne', 'f', '\n');
    expect(lines).toEqual(['abcd', 'ef']);
  });

  it('reassembles a multi-byte character split between chunks', () => {
    const { framer: f, lines } = framer(1024);
    const bytes = Buffer.from('中文\n', 'utf8');
    feed(f, bytes.subarray(0, 1), bytes.subarray(1, 4), bytes.subarray(4));
    expect(lines).toEqual(['中文']);
  });

  it('strips the carriage return of CRLF line endings', () => {
    const { framer: f, lines } = framer(1024);
    feed(f, 'one\r\ntwo\r', '\nthree\n');
    expect(lines).toEqual(['one', 'two', 'three']);
  });

  it('skips empty lines, including a bare CRLF', () => {
    const { framer: f, lines } = framer(1024);
    feed(f, '\n\nfirst\n\r\n\n', '\nsecond\n');
    expect(lines).toEqual(['first', 'second']);
  });

  it('passes 123\\n123\\n unchanged with a 3-byte limit', () => {
    const { framer: f, lines } = framer(3);
    feed(f, '123\n123\n');
    expect(lines).toEqual(['123', '123']);
  });

  it('does not count the carriage return of a CRLF toward the limit, wherever the chunks split', () => {
    for (const chunks of [['123\r\n'], ['123\r', '\n'], ['123', '\r\n'], ['1', '2', '3', '\r', '\n']]) {
      const { framer: f, lines } = framer(3);
      feed(f, ...chunks);
      expect(lines).toEqual(['123']);
    }
    const { framer: f } = framer(3);
    expect(() => feed(f, '1234\r\n')).toThrow(LineTooLongError);
    const { framer: g } = framer(3);
    expect(() => feed(g, '1234', '\r\n')).toThrow(LineTooLongError);
  });

  it('passes a line of exactly the limit split over chunks', () => {
    const { framer: f, lines } = framer(3);
    feed(f, '1', '23', '\n');
    expect(lines).toEqual(['123']);
  });

  it('throws LineTooLongError at 123\\n1234\\n with a 3-byte limit, after emitting the good line', () => {
    const { framer: f, lines } = framer(3);
    let thrown: unknown;
    try {
      feed(f, '123\n1234\n');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LineTooLongError);
    expect((thrown as LineTooLongError).limit).toBe(3);
    expect((thrown as LineTooLongError).message).toBe('line longer than 3 bytes');
    expect(lines).toEqual(['123']);
  });

  it('ignores every later input once a line was too long', () => {
    const { framer: f, lines } = framer(3);
    expect(() => feed(f, '123\n1234\n')).toThrow(LineTooLongError);
    expect(() => feed(f, 'ok\n', '12\n')).not.toThrow();
    expect(lines).toEqual(['123']);
  });

  it('throws as soon as a pending partial line exceeds the limit, without waiting for its newline', () => {
    const { framer: f, lines } = framer(3);
    feed(f, '12');
    // Four bytes may still be a 3-byte line and the \r of its CRLF; five cannot.
    feed(f, '34');
    expect(() => feed(f, '5')).toThrow(LineTooLongError);
    expect(() => feed(f, '\n1\n')).not.toThrow();
    expect(lines).toEqual([]);
  });

  it('counts bytes, not characters', () => {
    const { framer: ok, lines } = framer(6);
    feed(ok, '中文\n');
    expect(lines).toEqual(['中文']);
    const { framer: tooLong } = framer(5);
    expect(() => feed(tooLong, '中文\n')).toThrow(LineTooLongError);
  });

  it('emits the same lines however the input is split into chunks', () => {
    const line = fc.string({ unit: 'grapheme', maxLength: 20 }).filter((text) => !text.includes('\n') && !text.includes('\r'));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 10 }), fc.array(fc.nat(), { maxLength: 10 }), (input, cuts) => {
        const bytes = Buffer.from(input.map((text) => `${text}\n`).join(''), 'utf8');
        const points = [...new Set(cuts.map((cut) => (bytes.length === 0 ? 0 : cut % bytes.length)))].sort((a, b) => a - b);
        const { framer: f, lines } = framer(1 << 20);
        let start = 0;
        for (const point of [...points, bytes.length]) {
          f.push(bytes.subarray(start, point));
          start = point;
        }
        expect(lines).toEqual(input.filter((text) => text.length > 0));
      }),
      { numRuns: 300 },
    );
  });
});
