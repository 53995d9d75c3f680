/** Cooperative slicing: results in order, and the event loop turns between slices. */
import { describe, expect, it } from 'vitest';
import { inSlices } from '../src/core/slices.js';

/** Counts event-loop turns (setImmediate callbacks) until stopped. */
function turnCounter(): { stop: () => number } {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      running = false;
      return turns;
    },
  };
}

describe('inSlices', () => {
  it('returns the results of every slice in order', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const results = await inSlices(items, (slice) => slice.map((n) => n * 2), 64);
    expect(results).toEqual(items.map((n) => n * 2));
  });

  it('lets the event loop turn between slices', async () => {
    const counter = turnCounter();
    const slices: number[] = [];
    await inSlices(Array.from({ length: 1000 }, (_, i) => i), (slice) => {
      slices.push(slice.length);
      return [];
    }, 100);
    expect(slices).toEqual(Array(10).fill(100));
    // Nine pauses between ten slices, each a full turn in which other callbacks run.
    expect(counter.stop()).toBeGreaterThanOrEqual(9);
  });

  it('runs a list that fits one slice at once, without waiting for a turn', async () => {
    const counter = turnCounter();
    await inSlices([1, 2, 3], (slice) => [...slice], 100);
    expect(counter.stop()).toBe(0);
  });
});
