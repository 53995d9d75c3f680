/** Waiting on work that may outlive its caller's patience. */
import { linkAbort } from './abort-link.js';

/**
 * `work`, unless `signal` aborts first (then it rejects with the signal's reason) or
 * `timeoutMs` passes first (then with `timeoutError()`). Only the wait ends early: the
 * work itself goes on, and is expected to heed the signal it was given.
 */
export function waitBounded<T>(work: Promise<T>, bounds: { signal?: AbortSignal; timeoutMs?: number; timeoutError?: () => Error }): Promise<T> {
  const { signal, timeoutMs } = bounds;
  if (signal === undefined && timeoutMs === undefined) return work;
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const unlink = signal === undefined ? undefined : linkAbort(signal, () => reject(signal.reason as Error));
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => reject(bounds.timeoutError?.() ?? new Error(`did not finish within ${timeoutMs} ms`)), timeoutMs);
    work.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      unlink?.();
    });
  });
}
