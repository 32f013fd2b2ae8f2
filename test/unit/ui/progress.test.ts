import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createIO } from '../../../src/ui/io.js';
import { clock, PLAIN_EVERY_MS, type ProgressState, startProgress, statusLine } from '../../../src/ui/progress.js';

// Fake timers stand in for the seconds a long run takes: no test sleeps. The clock the
// progress reads is the fake one too (Date.now is faked).
beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

function terminal(isTTY: boolean) {
  let written = '';
  const io = createIO({ write: () => true }, { write: (text: string) => (written += text), isTTY }, false, { NO_COLOR: '1' });
  return { io, written: () => written };
}

describe('at a terminal', () => {
  it('shows nothing during the first two seconds, then done/total, rate, elapsed, time left, failures, redrawn in place', () => {
    const stderr = terminal(true);
    const state: ProgressState = { done: 100, failed: 0 };
    const progress = startProgress(stderr.io, 1000, () => state);
    vi.advanceTimersByTime(1800);
    expect(stderr.written()).toBe('');
    state.done = 250;
    state.failed = 3;
    vi.advanceTimersByTime(200);
    // 250 in 2 s: 125/s, so the 750 left take 6 s.
    expect(stderr.written()).toBe('\r\x1b[Kdeleting… 250/1000 (25%), 125/s, 0:02 elapsed, 0:06 left, 3 failed');
    progress.stop();
    // Stopping erases the line, so the summary that follows starts clean.
    expect(stderr.written().endsWith('\r\x1b[K')).toBe(true);
  });

  it('names the limit when it adapts', () => {
    const stderr = terminal(true);
    const progress = startProgress(stderr.io, 1000, () => ({ done: 40, failed: 0, limit: 24 }));
    vi.advanceTimersByTime(2000);
    progress.stop();
    expect(stderr.written()).toContain('deleting… 40/1000 (4%), 20/s, 0:02 elapsed, 0:48 left, 0 failed, limit 24');
  });

  it('reads the rate over the last ten seconds, so a run that slowed down gets an honest time left', () => {
    const stderr = terminal(true);
    const state: ProgressState = { done: 0, failed: 0 };
    const progress = startProgress(stderr.io, 100_000, () => state);
    // 1000/s for 20 s, then 10/s for 20 s.
    for (let second = 1; second <= 40; second++) {
      state.done += second <= 20 ? 1000 : 10;
      vi.advanceTimersByTime(1000);
    }
    progress.stop();
    const last = stderr.written().split('\r\x1b[K').filter(Boolean).at(-1);
    expect(last).toBe('deleting… 20200/100000 (20%), 10/s, 0:40 elapsed, 2:13:00 left, 0 failed');
  });
});

describe('outside a terminal', () => {
  it.each([
    ['stderr is not a terminal and no --progress', false, 1000, false],
    ['a single id', true, 1, false],
  ])('stays silent when %s', (_name, isTTY, total, plain) => {
    const stderr = terminal(isTTY);
    const progress = startProgress(stderr.io, total, () => ({ done: 0, failed: 0 }), { plain });
    vi.advanceTimersByTime(10 * PLAIN_EVERY_MS);
    progress.stop();
    expect(stderr.written()).toBe('');
  });

  it('with --progress: one plain line every 30 s, no escape codes, nothing before the first 30 s', () => {
    const stderr = terminal(false);
    const state: ProgressState = { done: 0, failed: 0 };
    const progress = startProgress(stderr.io, 10_000, () => state, { plain: true });
    state.done = 3000;
    vi.advanceTimersByTime(PLAIN_EVERY_MS - 1);
    expect(stderr.written()).toBe('');
    vi.advanceTimersByTime(1);
    state.done = 4500;
    state.failed = 2;
    vi.advanceTimersByTime(PLAIN_EVERY_MS);
    progress.stop();
    expect(stderr.written()).toBe(
      [
        'progress: 3000/10000 (30%), 100/s, 0:30 elapsed, 1:10 left, 0 failed',
        'progress: 4500/10000 (45%), 50/s, 1:00 elapsed, 1:50 left, 2 failed',
        '',
      ].join('\n'),
    );
  });
});

it.each([
  [0, '0:00'],
  [59_400, '0:59'],
  [61_000, '1:01'],
  [3_600_000, '1:00:00'],
  [36_125_000, '10:02:05'],
])('clock(%i) is %s', (ms, text) => {
  expect(clock(ms)).toBe(text);
});

it('says ? while no rate is known', () => {
  expect(statusLine(10, { done: 0, failed: 0 }, 0, undefined)).toBe('0/10 (0%), ?/s, 0:00 elapsed, ? left, 0 failed');
});
