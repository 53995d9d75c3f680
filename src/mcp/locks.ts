/**
 * Small coordination primitives: a mutex that runs critical sections one at a time,
 * and a reader-writer gate for the per-server call concurrency policy. Both are FIFO,
 * and a waiter gives up its place when its signal aborts.
 */
import { linkAbort } from '../core/abort-link.js';

/** Runs async critical sections one at a time, in arrival order. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /**
   * Runs `section` once every earlier one has finished. When `signal` aborts before the
   * section's turn, the returned promise rejects with its reason at once and the section
   * never runs; the turn passes to the next waiter. A running section is not interrupted.
   */
  run<T>(section: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.tail;
    let finish!: () => void;
    this.tail = new Promise<void>((resolve) => (finish = resolve));
    if (signal === undefined) return previous.then(section).finally(finish);
    return new Promise<T>((resolve, reject) => {
      if (signal.aborted) reject(signal.reason as Error);
      // Linked through one listener per signal: a refresh of many servers waits on one signal.
      const unlink = linkAbort(signal, () => reject(signal.reason as Error));
      void previous.then(() => {
        unlink();
        if (signal.aborted) {
          finish();
          return;
        }
        // `then` turns a section that throws before its first await into a rejection too.
        Promise.resolve().then(section).then(resolve, reject).finally(finish);
      });
    });
  }
}

interface Waiter {
  shared: boolean;
  grant: () => void;
}

/**
 * A FIFO reader-writer gate: any number of shared holders, or one exclusive holder.
 * A waiting exclusive request blocks later shared ones, so writers are not starved.
 */
export class CallGate {
  private sharedHolders = 0;
  private exclusiveHeld = false;
  private readonly queue: Waiter[] = [];

  /** Enters at once if the gate is free and nobody waits; returns the release function, else `undefined`. */
  tryAcquire(shared: boolean): (() => void) | undefined {
    return this.queue.length === 0 && this.canEnter(shared) ? this.enter(shared) : undefined;
  }

  /** Waits for the gate; resolves with the release function. Rejects with the signal's reason on abort. */
  acquire(shared: boolean, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (this.queue.length === 0 && this.canEnter(shared)) return Promise.resolve(this.enter(shared));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        shared,
        grant: () => {
          unlink();
          resolve(this.enter(shared));
        },
      };
      const unlink =
        signal === undefined
          ? noop
          : linkAbort(signal, () => {
              const at = this.queue.indexOf(waiter);
              if (at !== -1) this.queue.splice(at, 1);
              this.drain();
              reject(signal.reason as Error);
            });
      this.queue.push(waiter);
    });
  }

  private canEnter(shared: boolean): boolean {
    return shared ? !this.exclusiveHeld : !this.exclusiveHeld && this.sharedHolders === 0;
  }

  private enter(shared: boolean): () => void {
    if (shared) this.sharedHolders++;
    else this.exclusiveHeld = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (shared) this.sharedHolders--;
      else this.exclusiveHeld = false;
      this.drain();
    };
  }

  private drain(): void {
    while (this.queue.length > 0 && this.canEnter(this.queue[0]!.shared)) this.queue.shift()!.grant();
  }
}

function noop(): void {}
