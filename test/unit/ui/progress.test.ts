import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { createIO } from '../../../src/ui/io.js';
import { startProgress } from '../../../src/ui/progress.js';

// Fake timers stand in for the two seconds a long run takes: no test sleeps.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function terminal(isTTY: boolean) {
  let written = '';
  const io = createIO({ write: () => true }, { write: (text: string) => (written += text), isTTY }, false, { NO_COLOR: '1' });
  return { io, written: () => written };
}

it('shows nothing during the first two seconds, then a counter redrawn in place', () => {
  const stderr = terminal(true);
  let done = 0;
  const progress = startProgress(stderr.io, 1000, () => done);
  done = 100;
  vi.advanceTimersByTime(1900);
  expect(stderr.written()).toBe('');
  done = 250;
  vi.advanceTimersByTime(200);
  expect(stderr.written()).toBe('\r\x1b[Kdeleting… 250/1000 (25%)');
  progress.stop();
  // Stopping erases the line, so the summary that follows starts clean.
  expect(stderr.written().endsWith('\r\x1b[K')).toBe(true);
});

it.each([
  ['stderr is not a terminal', false, 1000],
  ['a single id', true, 1],
])('stays silent when %s', (_name, isTTY, total) => {
  const stderr = terminal(isTTY);
  const progress = startProgress(stderr.io, total, () => 0);
  vi.advanceTimersByTime(10_000);
  progress.stop();
  expect(stderr.written()).toBe('');
});
