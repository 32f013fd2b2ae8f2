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

function terminal(isTTY: boolean, width?: { columns: number }) {
  let written = '';
  const stderr = {
    write: (text: string) => (written += text),
    isTTY,
    get columns() {
      return width?.columns;
    },
  };
  const io = createIO({ write: () => true }, stderr, false, { NO_COLOR: '1' });
  return { io, written: () => written };
}

/** A state whose ids were all sent by this run (no journal skipped any): `sent` follows `done`. */
function fresh(done: number, failed = 0, more: Partial<ProgressState> = {}): ProgressState {
  return {
    done,
    failed,
    ...more,
    get sent() {
      return this.done;
    },
  };
}

describe('at a terminal', () => {
  it('shows nothing during the first two seconds, then done/total, rate, elapsed, time left, failures, redrawn in place', () => {
    const stderr = terminal(true);
    const state = fresh(100);
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

  it('names the limit, and of which ceiling', () => {
    const stderr = terminal(true);
    const progress = startProgress(stderr.io, 1000, () => fresh(40, 0, { limit: 24, ceiling: 64 }));
    vi.advanceTimersByTime(2000);
    progress.stop();
    expect(stderr.written()).toContain('deleting… 40/1000 (4%), 20/s, 0:02 elapsed, 0:48 left, 0 failed, limit 24 of 64');
  });

  it.each([
    // The whole line is 91 characters: "deleting… 123456/1000000 (12%), 61728/s, 0:02 elapsed, 0:14 left, 7 failed, limit 48 of 256".
    [80, 'deleting… 123456/1000000 (12%), 61728/s, 0:14 left, 7 failed, limit 48 of 256'],
    [60, 'deleting… 123456/1000000 (12%), 0:14 left, 7 failed'],
    // Nothing more may be left out (failures are kept): cut, and said to be cut.
    [40, 'deleting… 123456/1000000 (12%), 7 fail…'],
  ])('at %i columns, every redraw fits one row, one column spare, least telling parts left out first', (columns, line) => {
    const width = { columns };
    const stderr = terminal(true, width);
    const progress = startProgress(stderr.io, 1_000_000, () => fresh(123_456, 7, { limit: 48, ceiling: 256 }));
    vi.advanceTimersByTime(2000);
    // A resize is read at the next redraw.
    width.columns = 30;
    vi.advanceTimersByTime(200);
    progress.stop();
    const drawn = stderr.written().split('\r\x1b[K').filter(Boolean);
    expect(drawn).toHaveLength(2);
    expect(drawn[0]).toBe(line);
    expect(drawn[0]?.length).toBeLessThanOrEqual(columns - 1);
    expect(drawn[1]?.length).toBeLessThanOrEqual(29);
  });

  it('leaves out "0 failed", then the time left, but never a count of failures', () => {
    const width = { columns: 42 };
    const stderr = terminal(true, width);
    const state = fresh(400, 0);
    const progress = startProgress(stderr.io, 1000, () => state);
    vi.advanceTimersByTime(2000);
    state.failed = 3;
    vi.advanceTimersByTime(200);
    progress.stop();
    const drawn = stderr.written().split('\r\x1b[K').filter(Boolean);
    expect(drawn).toEqual(['deleting… 400/1000 (40%), 0:03 left', 'deleting… 400/1000 (40%), 3 failed']);
  });

  it('cleared for a result line, it is put back below it as it was drawn', () => {
    const stderr = terminal(true);
    const progress = startProgress(stderr.io, 1000, () => fresh(500));
    vi.advanceTimersByTime(2000);
    const before = stderr.written();
    progress.clear();
    stderr.io.errText('✗ plant 7: refused\n');
    progress.restore();
    progress.clear();
    stderr.io.errText('✗ plant 8: refused\n');
    progress.restore();
    // Put back once, after every line of the turn.
    vi.advanceTimersByTime(0);
    expect(stderr.written().slice(before.length)).toBe(
      `\r\x1b[K✗ plant 7: refused\n✗ plant 8: refused\n\r\x1b[K${before.split('\r\x1b[K').at(-1)}`,
    );
    progress.stop();
  });

  it('after a resume, the rate and the time left count only the ids this run sent, not those the journal skipped', () => {
    const stderr = terminal(true);
    // 9,000 of 10,000 done by an earlier run, skipped at once; this run sends 100 a second.
    const state: ProgressState = { done: 9000, sent: 0, failed: 0 };
    const progress = startProgress(stderr.io, 10_000, () => state);
    for (let second = 1; second <= 2; second++) {
      state.done += 100;
      state.sent += 100;
      vi.advanceTimersByTime(1000);
    }
    progress.stop();
    const last = stderr.written().split('\r\x1b[K').filter(Boolean).at(-1);
    expect(last).toBe('deleting… 9200/10000 (92%), 100/s, 0:02 elapsed, 0:08 left, 0 failed');
  });

  it('reads the rate over the last ten seconds, so a run that slowed down gets an honest time left', () => {
    const stderr = terminal(true);
    const state = fresh(0);
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
    const progress = startProgress(stderr.io, total, () => fresh(0), { plain });
    vi.advanceTimersByTime(10 * PLAIN_EVERY_MS);
    progress.stop();
    expect(stderr.written()).toBe('');
  });

  it('with --progress: one plain line every 30 s, no escape codes, nothing before the first 30 s', () => {
    const stderr = terminal(false);
    const state = fresh(0);
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
  expect(statusLine(10, fresh(0), 0, undefined)).toBe('0/10 (0%), ?/s, 0:00 elapsed, ? left, 0 failed');
});

describe('while the service is down (issue 40, item 7)', () => {
  it('says so, and for how long, after the count; kept on the narrowest line', () => {
    expect(statusLine(20, fresh(0, 0, { downForMs: 45_000 }), 47_000, 0)).toBe(
      '0/20 (0%), service down for 0:45, 0.0/s, 0:47 elapsed, ? left, 0 failed',
    );
    const stderr = terminal(true, { columns: 50 });
    const progress = startProgress(stderr.io, 20, () => fresh(0, 0, { downForMs: 12_000 }));
    vi.advanceTimersByTime(3000);
    progress.stop();
    expect(stderr.written()).toContain('service down for 0:12');
  });

  it('the --progress heartbeat says it too', () => {
    const stderr = terminal(false);
    const state = fresh(0);
    const progress = startProgress(stderr.io, 20, () => state, { plain: true });
    state.downForMs = 29_000;
    vi.advanceTimersByTime(PLAIN_EVERY_MS);
    progress.stop();
    expect(stderr.written()).toBe('progress: 0/20 (0%), service down for 0:29, 0.0/s, 0:30 elapsed, ? left, 0 failed\n');
  });
});
