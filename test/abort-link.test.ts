/**
 * Many waiters on one abort signal: a refresh of a big fleet, or a turn's calls under one
 * caller's signal. Each primitive that waits links through one listener per signal, so
 * Node.js never warns of a listener leak, every waiter still leaves when the signal
 * aborts, and a waiter that stopped waiting leaves nothing on the signal.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { linkAbort } from '../src/core/abort-link.js';
import { waitBounded } from '../src/core/wait.js';
import { OperationSignal } from '../src/mcp/deadline.js';
import { CallGate, Mutex } from '../src/mcp/locks.js';

/** As many waiters as a fleet of 100 servers puts on one refresh signal. */
const WAITERS = 100;

const warnings: string[] = [];
const onWarning = (warning: Error): void => void warnings.push(warning.name);
process.on('warning', onWarning);
afterEach(() => {
  warnings.length = 0;
});

/** Lets process warnings, emitted on a later tick, arrive. */
const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const never = new Promise<never>(() => {});

describe('linkAbort', () => {
  it('calls every linked waiter once, in the order they linked, through a single listener on the signal', () => {
    const controller = new AbortController();
    const calls: number[] = [];
    for (let n = 0; n < WAITERS; n++) linkAbort(controller.signal, () => calls.push(n));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    controller.abort();
    expect(calls).toEqual(Array.from({ length: WAITERS }, (_, n) => n));
  });

  it('skips a waiter that unlinked, and takes its listener off the signal when the last one unlinks', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    const listener = (): void => void calls.push('same');
    const first = linkAbort(controller.signal, listener);
    const second = linkAbort(controller.signal, listener);
    first();
    first();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    second();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    linkAbort(controller.signal, () => calls.push('later'));
    controller.abort();
    expect(calls).toEqual(['later']);
  });

  it('skips a waiter that an earlier one unlinks while the signal aborts', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    let unlinkSecond = (): void => {};
    linkAbort(controller.signal, () => {
      calls.push('first');
      unlinkSecond();
    });
    unlinkSecond = linkAbort(controller.signal, () => calls.push('second'));
    controller.abort();
    expect(calls).toEqual(['first']);
  });

  it('links nothing to a signal that has already aborted', () => {
    const signal = AbortSignal.abort();
    let called = false;
    linkAbort(signal, () => (called = true))();
    expect(called).toBe(false);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

describe(`${WAITERS} waiters on one signal`, () => {
  it('wait for a mutex without a listener-leak warning, and all leave when the signal aborts', async () => {
    const mutex = new Mutex();
    const controller = new AbortController();
    void mutex.run(() => never);
    const waiting = Array.from({ length: WAITERS }, () => mutex.run(() => Promise.resolve('ran'), controller.signal));
    await nextTick();
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    controller.abort(new Error('gave up'));
    const outcomes = await Promise.allSettled(waiting);
    expect(outcomes.every((outcome) => outcome.status === 'rejected' && (outcome.reason as Error).message === 'gave up')).toBe(true);
  });

  it('leave nothing on the signal once each has had its turn of a mutex', async () => {
    const mutex = new Mutex();
    const controller = new AbortController();
    const results = await Promise.all(Array.from({ length: WAITERS }, (_, n) => mutex.run(() => Promise.resolve(n), controller.signal)));
    expect(results).toHaveLength(WAITERS);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('wait for the call gate without a listener-leak warning, and all leave when the signal aborts', async () => {
    const gate = new CallGate();
    const controller = new AbortController();
    const release = gate.tryAcquire(false)!;
    const waiting = Array.from({ length: WAITERS }, () => gate.acquire(true, controller.signal));
    await nextTick();
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    controller.abort(new Error('gave up'));
    expect((await Promise.allSettled(waiting)).every((outcome) => outcome.status === 'rejected')).toBe(true);
    release();
    expect(gate.tryAcquire(false)).toBeTypeOf('function');
  });

  it('link operation deadlines without a listener-leak warning, each aborted with the parent', async () => {
    const controller = new AbortController();
    const operations = Array.from({ length: WAITERS }, () => new OperationSignal([controller.signal], 60_000));
    await nextTick();
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    controller.abort(new Error('gave up'));
    expect(operations.every((operation) => operation.signal.aborted && (operation.signal.reason as Error).message === 'gave up')).toBe(true);
    for (const operation of operations) operation.dispose();
  });

  it('wait bounded without a listener-leak warning, and all stop waiting when the signal aborts', async () => {
    const controller = new AbortController();
    const waiting = Array.from({ length: WAITERS }, () => waitBounded(never, { signal: controller.signal }));
    await nextTick();
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    controller.abort(new Error('gave up'));
    expect((await Promise.allSettled(waiting)).every((outcome) => outcome.status === 'rejected')).toBe(true);
  });
});
