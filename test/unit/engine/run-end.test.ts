// Issue 40 item 1: how a batch ended, in the journal's word, from what sendAll knows at its end.
import { describe, expect, it } from 'vitest';
import { runEnding } from '../../../src/engine/run-end.js';

const timeUp = { message: 'not sent: --max-duration 1s reached', exit: 10 };
const budget = { message: 'not sent: --max-failures 5 stopped after 5 of 20 ids failed', exit: 1 };
const quiet = new AbortController().signal;
const seen = (over: Partial<Parameters<typeof runEnding>[0]>) =>
  runEnding({ signal: quiet, stopReason: undefined, timeUp, gaveUp: false, failFast: false, ...over });

describe('runEnding', () => {
  it('names each stop', () => {
    expect(seen({})).toBe('finished');
    expect(seen({ stopReason: timeUp })).toBe('max-duration');
    expect(seen({ stopReason: budget })).toBe('max-failures');
    expect(seen({ stopReason: budget, failFast: true })).toBe('fail-fast');
    expect(seen({ stopReason: { message: 'gave up', exit: 6 }, gaveUp: true })).toBe('gave-up');
  });

  it('a signal outranks every other stop, and says which', () => {
    for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
      const interrupt = new AbortController();
      interrupt.abort(name);
      expect(seen({ signal: interrupt.signal, stopReason: timeUp })).toBe(name);
    }
    const other = new AbortController();
    other.abort(new Error('test'));
    expect(seen({ signal: other.signal })).toBe('interrupted');
  });
});
