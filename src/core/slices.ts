/**
 * Cooperative slicing of long synchronous work. Node runs the host on one thread: a
 * refresh that checks, names and publishes a 2,048-tool catalog in one go holds every
 * tool call's response behind it. Work done slice by slice, with a turn of the event
 * loop between slices, lets calls through.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Items per slice: small enough that a slice of catalog work stays well under a millisecond. */
export const SLICE_ITEMS = 64;

/**
 * `work` applied to `items` a slice at a time, results concatenated in order, with a
 * turn of the event loop between slices. A catalog that fits one slice runs at once.
 */
export async function inSlices<T, R>(items: readonly T[], work: (slice: readonly T[]) => R[], sliceItems = SLICE_ITEMS): Promise<R[]> {
  if (items.length <= sliceItems) return work(items);
  const results: R[] = [];
  for (let start = 0; start < items.length; start += sliceItems) {
    if (start > 0) await nextTurn();
    for (const result of work(items.slice(start, start + sliceItems))) results.push(result);
  }
  return results;
}
