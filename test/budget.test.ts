/**
 * Byte accounting: `utf8Bytes` and `jsonFits` agree with serialising and measuring, for
 * any JSON value and any limit, including the exact boundary.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonFits, utf8Bytes } from '../src/core/budget.js';

const exactBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('byte accounting', () => {
  it('counts UTF-8 bytes of any string', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => utf8Bytes(text) === Buffer.from(text, 'utf8').length));
  });

  it('decides whether any JSON value fits a limit exactly as serialising it would', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat({ max: 4096 }), (value, limit) => {
        expect(jsonFits(value, limit)).toBe(exactBytes(value) <= limit);
      }),
      { numRuns: 500 },
    );
  });

  it('is exact at the boundary, escapes and multi-byte characters included', () => {
    const value = { description: 'quote " backslash \\ newline \n tab \t é ✓ 😀', enum: [1.5, -2e-300, true, null] };
    const bytes = exactBytes(value);
    expect(jsonFits(value, bytes)).toBe(true);
    expect(jsonFits(value, bytes - 1)).toBe(false);
  });

  it('does not fit a value nested too deeply to serialise', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(jsonFits(deep, 16)).toBe(false);
  });
});
