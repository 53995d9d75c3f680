/**
 * Unit tests of the abort plumbing every operation shares: `OperationSignal` (one signal
 * per operation, linked to its parents and its own deadline) and `RemovalSignal` (the
 * registration's removal, without an EventTarget).
 */
import { describe, expect, it, vi } from 'vitest';
import { OperationSignal, RemovalSignal } from '../src/mcp/deadline.js';

describe('OperationSignal', () => {
  it("aborts with its parent's reason when a parent aborts", () => {
    const parent = new AbortController();
    const operation = new OperationSignal([undefined, parent.signal], Number.POSITIVE_INFINITY);
    const reason = new Error('caller gave up');
    parent.abort(reason);
    expect(operation.signal.aborted).toBe(true);
    expect(operation.signal.reason).toBe(reason);
    expect(operation.timedOut).toBe(false);
  });

  it('starts aborted when a parent already is', () => {
    const parent = new AbortController();
    parent.abort('gone');
    const operation = new OperationSignal([parent.signal], 5);
    expect(operation.signal.reason).toBe('gone');
    operation.dispose();
  });

  it('aborts with a TimeoutError and says so once its own deadline passes', async () => {
    const operation = new OperationSignal([new AbortController().signal], 5);
    await new Promise((resolve) => operation.signal.addEventListener('abort', resolve, { once: true }));
    expect(operation.timedOut).toBe(true);
    expect((operation.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('does not count as timed out when a parent aborted first and the deadline passes later', () => {
    vi.useFakeTimers();
    try {
      const parent = new AbortController();
      const operation = new OperationSignal([parent.signal], 5);
      parent.abort('removed');
      // The deadline's timer runs, as it would if the operation had not been disposed yet.
      vi.advanceTimersByTime(10);
      expect(operation.timedOut).toBe(false);
      expect(operation.signal.reason).toBe('removed');
    } finally {
      vi.useRealTimers();
    }
  });

  it('follows its parents no longer once disposed, and leaves no listener on them', () => {
    const parent = new RemovalSignal();
    const operation = new OperationSignal([parent], Number.POSITIVE_INFINITY);
    operation.dispose();
    let listeners = 0;
    parent.addEventListener('abort', () => listeners++);
    parent.abort(() => 'removed');
    expect(listeners).toBe(1);
    expect(operation.signal.aborted).toBe(false);
  });
});

describe('RemovalSignal', () => {
  it('builds its reason only when it is first read, and only once', () => {
    const removal = new RemovalSignal();
    let built = 0;
    removal.abort(() => new Error(`removed ${++built}`));
    expect(built).toBe(0);
    const first = removal.reason;
    expect(removal.reason).toBe(first);
    expect(built).toBe(1);
    removal.abort(() => new Error('again'));
    expect(removal.reason).toBe(first);
  });

  it('calls every linked listener once, and none that was unlinked or came after the abort', () => {
    const removal = new RemovalSignal();
    const calls: string[] = [];
    const unlinked = (): void => void calls.push('unlinked');
    for (const name of ['a', 'b', 'c']) removal.addEventListener('abort', () => void calls.push(name));
    removal.addEventListener('abort', unlinked);
    removal.removeEventListener('abort', unlinked);
    removal.abort(() => 'removed');
    removal.addEventListener('abort', () => void calls.push('late'));
    removal.abort(() => 'again');
    expect(calls).toEqual(['a', 'b', 'c']);
    expect(removal.aborted).toBe(true);
  });
});
