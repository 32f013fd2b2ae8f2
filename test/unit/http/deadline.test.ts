import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { attemptDeadline, TIMED_OUT } from '../../../src/http/deadline.js';

// Fake timers stand in for the clock: nothing waits.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

it('aborts an attempt when it has run exactly the timeout, not a moment before', () => {
  const deadline = attemptDeadline(1000, new AbortController().signal);
  vi.advanceTimersByTime(999);
  expect(deadline.signal.aborted).toBe(false);
  vi.advanceTimersByTime(1);
  expect(deadline.signal.reason).toBe(TIMED_OUT);
  deadline.end();
});

it('gives each attempt its full time, whenever it starts', () => {
  const first = attemptDeadline(1000, new AbortController().signal);
  vi.advanceTimersByTime(400);
  const second = attemptDeadline(1000, new AbortController().signal);
  vi.advanceTimersByTime(600);
  expect([first.signal.reason, second.signal.aborted]).toEqual([TIMED_OUT, false]);
  vi.advanceTimersByTime(400);
  expect(second.signal.reason).toBe(TIMED_OUT);
});

it('aborts at once on interrupt, with the interrupt as the reason, and is born aborted after one', () => {
  const interrupt = new AbortController();
  const deadline = attemptDeadline(30_000, interrupt.signal);
  interrupt.abort('SIGINT');
  expect(deadline.signal.reason).toBe('SIGINT');
  expect(attemptDeadline(30_000, interrupt.signal).signal.reason).toBe('SIGINT');
});

it('once the attempt ends, neither its timer nor an interrupt reaches it', () => {
  const interrupt = new AbortController();
  const deadline = attemptDeadline(1000, interrupt.signal);
  deadline.end();
  expect(vi.getTimerCount()).toBe(0);
  vi.advanceTimersByTime(10_000);
  interrupt.abort('SIGINT');
  expect(deadline.signal.aborted).toBe(false);
});
