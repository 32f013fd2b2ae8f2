// readerCaughtUp: how a stream of many lines (the ids left after a stop) waits for stdout's reader.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestIO, READER_BUDGET_MS, READER_GRACE_MS, readerCaughtUp } from '../../../src/ui/io.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** An IO whose reader is behind until `catchUp()`. */
function behind() {
  let catchUp: () => void = () => {};
  const backlog = new Promise<void>((resolve) => {
    catchUp = resolve;
  });
  return { io: { ...createTestIO(), backlog: () => backlog }, catchUp: () => catchUp() };
}

/** What a promise has settled to so far ('pending' if not yet). */
function track<T>(promise: Promise<T>): { value: T | 'pending' } {
  const state: { value: T | 'pending' } = { value: 'pending' };
  void promise.then((value) => {
    state.value = value;
  });
  return state;
}

describe('readerCaughtUp', () => {
  it('with no reader behind, writing goes on at once', () => {
    expect(readerCaughtUp(createTestIO(), new AbortController().signal)).toBeUndefined();
  });

  it('before a signal, it waits for the reader however long it takes', async () => {
    const { io, catchUp } = behind();
    const state = track(readerCaughtUp(io, new AbortController().signal) as Promise<boolean>);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state.value).toBe('pending');
    catchUp();
    await vi.advanceTimersByTimeAsync(0);
    expect(state.value).toBe(true);
  });

  it('after a signal, a reader that catches up within the grace gets the rest', async () => {
    const { io, catchUp } = behind();
    const interrupt = new AbortController();
    interrupt.abort('SIGTERM');
    const state = track(readerCaughtUp(io, interrupt.signal) as Promise<boolean>);
    await vi.advanceTimersByTimeAsync(READER_GRACE_MS - 1);
    catchUp();
    await vi.advanceTimersByTimeAsync(0);
    expect(state.value).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('after a signal, a reader that keeps up slowly is waited for, within READER_BUDGET_MS in all', async () => {
    const clock = { now: 0 };
    const interrupt = new AbortController();
    interrupt.abort('SIGTERM');
    const waits: Array<boolean | 'pending'> = [];
    // Each wait catches up after 900 ms (within the grace of each), until the budget runs out.
    for (let i = 0; i < 8; i++) {
      const { io, catchUp } = behind();
      const wait = track(readerCaughtUp(io, interrupt.signal, () => clock.now) as Promise<boolean>);
      const step = Math.min(900, READER_BUDGET_MS - clock.now);
      clock.now += step;
      await vi.advanceTimersByTimeAsync(step);
      catchUp();
      await vi.advanceTimersByTimeAsync(0);
      waits.push(wait.value);
      if (wait.value === false) break;
    }
    const caughtUp = Math.floor(READER_BUDGET_MS / 900);
    expect(waits).toEqual([...Array.from({ length: caughtUp }, () => true), false]);
    expect(clock.now).toBe(READER_BUDGET_MS);
  });

  it('after a signal, a reader still behind after the grace gets no more: the run is ending', async () => {
    const { io } = behind();
    const interrupt = new AbortController();
    interrupt.abort('SIGINT');
    const state = track(readerCaughtUp(io, interrupt.signal) as Promise<boolean>);
    await vi.advanceTimersByTimeAsync(READER_GRACE_MS - 1);
    expect(state.value).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(state.value).toBe(false);
  });
});
