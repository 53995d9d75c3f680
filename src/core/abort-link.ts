/**
 * Listening to an `AbortSignal` from any number of waiters at once. An `AbortSignal` is
 * an `EventTarget`, and Node.js warns (`MaxListenersExceededWarning`) once eleven
 * listeners are added to one: a refresh of twelve servers under one signal, or a turn's
 * twelve calls under one caller's signal, would print that warning although nothing
 * leaks. Each signal here gets a single listener of its own, which calls every linked
 * waiter in the order they linked, and is removed again when the last one unlinks.
 */

/** What one signal's single listener calls. */
interface Fanout {
  waiters: Set<{ listener: () => void }>;
  fire: () => void;
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/**
 * Calls `listener` once when `signal` aborts, unless the returned unlink runs first.
 * Nothing is linked to a signal that has already aborted: check `signal.aborted` first,
 * as with `addEventListener`. Unlinking twice is harmless.
 */
export function linkAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) return noop;
  let fanout = fanouts.get(signal);
  if (fanout === undefined) {
    const waiters = new Set<{ listener: () => void }>();
    const fire = (): void => {
      fanouts.delete(signal);
      // A waiter unlinked by an earlier one during this loop is skipped, as EventTarget does.
      for (const waiter of waiters) waiter.listener();
      waiters.clear();
    };
    fanout = { waiters, fire };
    fanouts.set(signal, fanout);
    signal.addEventListener('abort', fire, { once: true });
  }
  // A token per link, so one function linked twice is two waiters, each unlinked on its own.
  const token = { listener };
  const linked = fanout;
  linked.waiters.add(token);
  return () => {
    if (!linked.waiters.delete(token) || linked.waiters.size > 0 || fanouts.get(signal) !== linked) return;
    fanouts.delete(signal);
    signal.removeEventListener('abort', linked.fire);
  };
}

function noop(): void {}
