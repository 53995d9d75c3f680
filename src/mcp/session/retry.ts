/** Bounded retries for reads (handshake, listing): never for tool calls. */
import { setTimeout as sleep } from 'node:timers/promises';

/** Delays before the second and third attempt. */
export const RETRY_DELAYS_MS: readonly number[] = [250, 1_000];

/** Runs `operation`, retrying after 250 ms and then 1 s while `isTransient(error)` and `signal` allow. */
export async function retryTransient<T>(
  operation: () => Promise<T>,
  isTransient: (error: unknown) => boolean,
  signal: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      const delay = RETRY_DELAYS_MS[attempt];
      if (delay === undefined || signal.aborted || !isTransient(error)) throw error;
      await sleep(delay, undefined, { signal }).catch(() => {
        throw error;
      });
    }
  }
}
