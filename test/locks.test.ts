/**
 * Unit tests of the coordination primitives: the mutex runs sections one at a time in
 * arrival order, and a waiter whose signal aborts leaves at once without running and
 * without holding up the waiters behind it.
 */
import { describe, expect, it } from 'vitest';
import { Mutex } from '../src/mcp/locks.js';

/** A promise and the function that resolves it: a deterministic gate. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('Mutex', () => {
  it('runs sections one at a time, in arrival order', async () => {
    const mutex = new Mutex();
    const order: string[] = [];
    const first = gate();
    const a = mutex.run(async () => {
      order.push('a start');
      await first.opened;
      order.push('a end');
    });
    const b = mutex.run(() => {
      order.push('b');
      return Promise.resolve();
    });
    const c = mutex.run(() => {
      order.push('c');
      return Promise.resolve();
    }, new AbortController().signal);
    await Promise.resolve();
    expect(order).toEqual(['a start']);
    first.open();
    await Promise.all([a, b, c]);
    expect(order).toEqual(['a start', 'a end', 'b', 'c']);
  });

  it('lets a waiter give up when its signal aborts: it rejects at once, never runs, and the next waiter still gets its turn', async () => {
    const mutex = new Mutex();
    const holder = gate();
    const held = mutex.run(() => holder.opened);
    const controller = new AbortController();
    let ran = false;
    const waiting = mutex.run(() => {
      ran = true;
      return Promise.resolve();
    }, controller.signal);
    const next = mutex.run(() => Promise.resolve('next'));
    controller.abort(new Error('caller gave up'));
    await expect(waiting).rejects.toThrow('caller gave up');
    // Still held: the waiter left without waiting for the holder.
    holder.open();
    await held;
    await expect(next).resolves.toBe('next');
    expect(ran).toBe(false);
  });

  it('rejects at once for an already aborted signal, and keeps the queue moving', async () => {
    const mutex = new Mutex();
    const aborted = AbortSignal.abort(new Error('too late'));
    await expect(mutex.run(() => Promise.resolve('never'), aborted)).rejects.toThrow('too late');
    await expect(mutex.run(() => Promise.resolve('after'))).resolves.toBe('after');
  });

  it('releases the lock when a section throws before its first await', async () => {
    const mutex = new Mutex();
    const signal = new AbortController().signal;
    const failing = (): Promise<string> => {
      throw new Error('sync failure');
    };
    await expect(mutex.run(failing, signal)).rejects.toThrow('sync failure');
    await expect(mutex.run(failing)).rejects.toThrow('sync failure');
    await expect(mutex.run(() => Promise.resolve('free again'), signal)).resolves.toBe('free again');
  });
});
