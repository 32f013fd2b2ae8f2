// The budgets' arithmetic: what --max-failures and --max-duration accept, and when a share of
// failures is spent. The runs that stop on them are in test/e2e/budgets.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { FailureBudget, MIN_DECIDED_FOR_SHARE, maxFailures, outageLimitMs, startDeadline } from '../../../src/engine/budgets.js';
import { Exit } from '../../../src/errors.js';
import { duration } from '../../../src/flags/kinds.js';
import { describeDuration } from '../../../src/ui/duration.js';
import { thrown } from '../../helpers/thrown.js';

const typed = { source: '--max-failures', onCommandLine: true };
const fromEnv = { source: 'PLANTSTORE_MAX_DURATION', onCommandLine: false };

describe('--max-failures', () => {
  it('takes a number of ids or a share', () => {
    expect(maxFailures('10', typed)).toEqual({ count: 10 });
    expect(maxFailures('5%', typed)).toEqual({ percent: 5 });
    expect(maxFailures('0.5%', typed)).toEqual({ percent: 0.5 });
  });

  it.each(['0', '-1', '1.5', '0%', '101%', 'ten', '', '5 %'])('refuses %j with what to give', (raw) => {
    const error = thrown(() => maxFailures(raw, typed));
    expect(error).toMatchObject({ exit: Exit.usage });
    expect((error as Error).message).toContain('such as 5%');
  });

  it('a count is spent at that many failures, whatever succeeded', () => {
    const budget = new FailureBudget({ count: 3 });
    expect([true, false, true, false].map((failed) => budget.add(failed))).toEqual([false, false, false, false]);
    expect(budget.add(true)).toBe(true);
    expect(budget.why('--max-failures 3')).toBe('not sent: --max-failures 3 stopped after 3 of 5 ids failed');
  });

  it(`a share is judged only from ${MIN_DECIDED_FOR_SHARE} decided ids on`, () => {
    const budget = new FailureBudget({ percent: 10 });
    // Every one of the first 99 fails: far over 10%, but too few to judge a list by.
    for (let i = 1; i < MIN_DECIDED_FOR_SHARE; i++) expect(budget.add(true)).toBe(false);
    expect(budget.add(true)).toBe(true);
  });

  it('a share is spent when failures reach it, not before', () => {
    const budget = new FailureBudget({ percent: 10 });
    // 9 failures in 100: under 10%.
    for (let i = 0; i < 91; i++) budget.add(false);
    for (let i = 0; i < 8; i++) budget.add(true);
    expect(budget.add(true)).toBe(false);
    // The 10th failure, in 101: 9.9%, still under.
    expect(budget.add(true)).toBe(false);
    // 11 in 102: 10.8%.
    expect(budget.add(true)).toBe(true);
  });
});

describe('--max-duration', () => {
  it('takes a number with its unit, or a bare number of seconds (one grammar for every time)', () => {
    expect(duration('90', fromEnv)).toBe(90_000);
    expect(duration('1.5h', fromEnv)).toBe(90 * 60_000);
    expect(duration('1500ms', fromEnv)).toBe(1500);
    expect(duration('90s', fromEnv)).toBe(90_000);
    expect(duration('45m', fromEnv)).toBe(45 * 60_000);
    expect(duration('5h', fromEnv)).toBe(5 * 3_600_000);
  });

  it.each(['0s', '999ms', '5d', 'h', '', '1000h', '5 s'])('refuses %j (from the environment: a configuration error)', (raw) => {
    const error = thrown(() => duration(raw, fromEnv));
    expect(error).toMatchObject({ exit: Exit.config });
    expect((error as Error).message).toContain('such as 500ms, 30s, 2m or 1h (a bare number is seconds)');
  });

  it('is written back as it would be typed', () => {
    expect([90_000, 45 * 60_000, 5 * 3_600_000, 120_000].map(describeDuration)).toEqual(['90s', '45m', '5h', '2m']);
  });

  it('reaches its deadline on the clock it is given, once, and not after being cancelled', () => {
    const timers: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
    const clock = (fn: () => void, ms: number) => {
      const timer = { fn, ms, cancelled: false };
      timers.push(timer);
      return () => {
        timer.cancelled = true;
      };
    };
    let reached = 0;
    startDeadline(5000, () => reached++, clock);
    const cancel = startDeadline(7000, () => reached++, clock);
    cancel();
    expect(timers.map((t) => [t.ms, t.cancelled])).toEqual([
      [5000, false],
      [7000, true],
    ]);
    timers[0]?.fn();
    expect(reached).toBe(1);
  });
});

describe('--max-outage', () => {
  it('is how long a run waits out a service failing every request; by default 4 × --max-retry-wait (2 minutes at its 30 s), at least 1 s', () => {
    expect(outageLimitMs(undefined, 30_000)).toBe(120_000);
    expect(outageLimitMs(undefined, 10_000)).toBe(40_000);
    expect(outageLimitMs(undefined, 0)).toBe(1000);
    expect(outageLimitMs(3000, 30_000)).toBe(3000);
  });
});
