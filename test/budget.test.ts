/**
 * Byte accounting: `utf8Bytes`, `utf8Fits` and `scanJson` agree with
 * serialising and measuring, for any JSON value and any limit, including the exact
 * boundary; `scanJson` never misses a watched key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanJson, utf8Bytes, utf8Fits } from '../src/core/budget.js';

/** Whether `value` fits `limit` bytes (and the default depth), as the catalog checks it. */
const jsonFits = (value: unknown, limit: number): boolean => scanJson(value, limit, '').fits;

const exactBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** Whether `key` is an own key of any object anywhere in `value`. */
function hasKeyAnywhere(value: unknown, key: string): boolean {
  if (Array.isArray(value)) return value.some((item) => hasKeyAnywhere(item, key));
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([name, child]) => name === key || hasKeyAnywhere(child, key));
}

describe('byte accounting', () => {
  it('counts UTF-8 bytes of any string', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => utf8Bytes(text) === Buffer.from(text, 'utf8').length));
  });

  it('decides whether a string fits a UTF-8 limit exactly as measuring it would', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.nat({ max: 64 }), (text, limit) => utf8Fits(text, limit) === utf8Bytes(text) <= limit),
      { numRuns: 500 },
    );
  });

  it('finds a watched key wherever it is, in the same walk that measures the value', () => {
    const key = fc.constantFrom('x-mcp-header', 'type', 'a');
    fc.assert(
      fc.property(fc.jsonValue(), key, fc.nat({ max: 4096 }), (value, watched, limit) => {
        const scan = scanJson(value, limit, watched);
        expect(scan).toEqual({ fits: exactBytes(value) <= limit, tooDeep: false, mayHaveKey: hasKeyAnywhere(value, watched) });
      }),
      { numRuns: 500 },
    );
    const nested = { type: 'object', properties: { a: { anyOf: [{ items: { 'x-mcp-header': 'Deep' } }] } } };
    expect(scanJson(nested, 64 * 1024, 'x-mcp-header')).toEqual({ fits: true, tooDeep: false, mayHaveKey: true });
    expect(scanJson({ type: 'object', properties: { a: { type: 'string' } } }, 64 * 1024, 'x-mcp-header')).toEqual({
      fits: true,
      tooDeep: false,
      mayHaveKey: false,
    });
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

  it('does not fit a small value nested deeper than allowed, though it is far under the byte limit', () => {
    const nest = (levels: number): unknown => {
      let value: unknown = {};
      for (let i = 1; i < levels; i++) value = [value];
      return value;
    };
    // 10,000 levels is about 20 KB, yet JSON.stringify cannot serialise it.
    expect(jsonFits(nest(10_000), 64 * 1024)).toBe(false);
    expect(scanJson(nest(10_000), 64 * 1024, '')).toMatchObject({ fits: false, tooDeep: true });
    expect(scanJson(nest(8), 1024, '', 8)).toMatchObject({ fits: true, tooDeep: false });
    expect(scanJson(nest(9), 1024, '', 8)).toMatchObject({ fits: false, tooDeep: true });
  });

  it('bounds the longest number text JSON can hold', () => {
    // Fixed notation down to 1e-6 keeps 17 significant digits after "-0.00000": 25 characters.
    const numbers = Array.from({ length: 1000 }, () => -0.0000012345678901234567);
    const bytes = exactBytes(numbers);
    expect(jsonFits(numbers, bytes)).toBe(true);
    expect(jsonFits(numbers, bytes - 1)).toBe(false);
  });
});
