/**
 * Byte accounting: `utf8Bytes`, `utf8Fits`, `jsonFits` and `scanJson` agree with
 * serialising and measuring, for any JSON value and any limit, including the exact
 * boundary; `scanJson` never misses a watched key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonFits, scanJson, utf8Bytes, utf8Fits } from '../src/core/budget.js';

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
        expect(scan.fits).toBe(exactBytes(value) <= limit);
        // "May have" is allowed to say yes without the key, never no with it.
        if (hasKeyAnywhere(value, watched)) expect(scan.mayHaveKey).toBe(true);
      }),
      { numRuns: 500 },
    );
    // With room to spare the walk is never cut short, and the answer is exact.
    fc.assert(
      fc.property(fc.jsonValue(), key, (value, watched) => scanJson(value, 1e9, watched).mayHaveKey === hasKeyAnywhere(value, watched)),
      { numRuns: 500 },
    );
    const nested = { type: 'object', properties: { a: { anyOf: [{ items: { 'x-mcp-header': 'Deep' } }] } } };
    expect(scanJson(nested, 64 * 1024, 'x-mcp-header')).toEqual({ fits: true, mayHaveKey: true });
    expect(scanJson({ type: 'object', properties: { a: { type: 'string' } } }, 64 * 1024, 'x-mcp-header')).toEqual({ fits: true, mayHaveKey: false });
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
