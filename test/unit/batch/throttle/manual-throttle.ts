// A throttle on a clock the test moves by hand, for the tests of `--concurrency auto` through the
// throttle (auto-concurrency.test.ts, overdue.test.ts): its timers run only when the test moves
// the clock with advanceTo, as the event loop would run them.
import { type Concurrency, Throttle, type ThrottleChange } from '../../../../src/batch/throttle/throttle.js';
import type { Permit } from '../../../../src/http/gate.js';

export function manualThrottle(ceiling: Concurrency | 'auto') {
  const clock = { now: 0 };
  const changes: ThrottleChange[] = [];
  const timers = new Set<{ at: number; callback: () => void }>();
  const throttle = new Throttle({
    ceiling,
    now: () => clock.now,
    setTimer: (callback, delayMs) => {
      const timer = { at: clock.now + delayMs, callback };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    onChange: (change) => changes.push(change),
  });
  const signal = new AbortController().signal;
  /** Every permit the throttle grants at once, until hold() says a new start would wait. */
  const fill = async (): Promise<Permit[]> => {
    const permits: Permit[] = [];
    while (!throttle.hold(() => {})) {
      const permit = await throttle.acquire('first', signal);
      if (permit === undefined) throw new Error('hold said go, acquire said no');
      permits.push(permit);
    }
    return permits;
  };
  /** Moves the clock to `at` and runs the timers due by then, in order. */
  const advanceTo = (at: number): void => {
    clock.now = at;
    for (const timer of [...timers].sort((a, b) => a.at - b.at)) {
      if (timer.at > at || !timers.has(timer)) continue;
      timers.delete(timer);
      timer.callback();
    }
  };
  const limits = () => changes.filter((c): c is Extract<ThrottleChange, { kind: 'limit' }> => c.kind === 'limit');
  return { clock, changes, timers, throttle, fill, advanceTo, limits };
}
