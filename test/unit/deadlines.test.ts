import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Deadlines, TIMED_OUT } from '../../src/http/deadlines.js';

// Fake timers (performance.now included) stand in for the clock: nothing waits.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

it('aborts no earlier than the timeout, and at most one bucket later', () => {
  const deadlines = new Deadlines(1000, new AbortController().signal); // buckets of 50 ms
  const signal = deadlines.signal();
  vi.advanceTimersByTime(999);
  expect(signal.reason).toBeUndefined();
  vi.advanceTimersByTime(51);
  expect(signal.reason).toBeDefined();
  expect(signal.reason).toBe(TIMED_OUT);
  deadlines.dispose();
});

it('shares one signal between attempts started within a bucket, and opens a new one after', () => {
  const deadlines = new Deadlines(1000, new AbortController().signal);
  const first = deadlines.signal();
  vi.advanceTimersByTime(49);
  expect(deadlines.signal()).toBe(first);
  vi.advanceTimersByTime(1);
  const second = deadlines.signal();
  expect(second).not.toBe(first);
  // The later attempt still gets its full time after the first bucket fires.
  vi.advanceTimersByTime(1000);
  expect(first.reason).toBe(TIMED_OUT);
  expect(second.reason).toBeUndefined();
  vi.advanceTimersByTime(50);
  expect(second.reason).toBe(TIMED_OUT);
  deadlines.dispose();
});

it('aborts every live signal on interrupt, with the interrupt as the reason', () => {
  const interrupt = new AbortController();
  const deadlines = new Deadlines(30_000, interrupt.signal);
  const first = deadlines.signal();
  vi.advanceTimersByTime(300);
  const second = deadlines.signal();
  interrupt.abort('SIGINT');
  expect([first.reason, second.reason]).toEqual(['SIGINT', 'SIGINT']);
  // And one asked for after the interrupt is born aborted.
  vi.advanceTimersByTime(300);
  expect(deadlines.signal().reason).toBe('SIGINT');
  deadlines.dispose();
});

it('stops its timers on dispose', () => {
  const deadlines = new Deadlines(1000, new AbortController().signal);
  const signal = deadlines.signal();
  deadlines.dispose();
  vi.advanceTimersByTime(10_000);
  expect(signal.reason).toBeUndefined();
  expect(vi.getTimerCount()).toBe(0);
});
