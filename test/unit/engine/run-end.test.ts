// Issue 40 item 1: how a batch ended, in the journal's word: the first stop, with the kind it was recorded with.
import { describe, expect, it } from 'vitest';
import { RunStop, type StopKind } from '../../../src/engine/run-end.js';

const timeUp = { message: 'not sent: --max-duration 1s reached', exit: 10 as const };
const budget = { message: 'not sent: --max-failures 5 stopped after 5 of 20 ids failed', exit: 1 as const };
const quiet = new AbortController().signal;

describe('RunStop', () => {
  it('a run that never stopped finished', () => {
    expect(new RunStop().ending(quiet)).toBe('finished');
  });

  it.each<StopKind>(['max-duration', 'max-failures', 'fail-fast', 'gave-up', 'not-the-api', 'error'])('names a %s stop', (kind) => {
    const stop = new RunStop();
    stop.set(budget, kind);
    expect(stop.ending(quiet)).toBe(kind);
    expect(stop.reason).toBe(budget);
  });

  it('the first stop wins: a budget stop that then stops the throttle is not a give-up', () => {
    const stop = new RunStop();
    stop.set(budget, 'fail-fast');
    stop.set({ message: 'gave up', exit: 6 }, 'gave-up');
    stop.set(timeUp, 'max-duration');
    expect(stop.ending(quiet)).toBe('fail-fast');
    expect(stop.reason).toBe(budget);
  });

  it('no reason, no stop', () => {
    const stop = new RunStop();
    stop.set(undefined, 'error');
    expect(stop.reason).toBeUndefined();
    expect(stop.ending(quiet)).toBe('finished');
  });

  it('a signal outranks every other stop, and says which', () => {
    for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
      const interrupt = new AbortController();
      interrupt.abort(name);
      const stop = new RunStop();
      stop.set(timeUp, 'max-duration');
      expect(stop.ending(interrupt.signal)).toBe(name);
    }
    const other = new AbortController();
    other.abort(new Error('test'));
    expect(new RunStop().ending(other.signal)).toBe('interrupted');
  });
});
