// The exit code of an id a non-repeatable operation does not send again (engine/not-repeated.ts):
// what the earlier run's record says happened to the request, never what happened to that run.
import { describe, expect, it } from 'vitest';
import { notRepeated } from '../../../src/engine/not-repeated.js';
import { RENAME_RESULTS } from '../../helpers/patch-operation.js';

const exitOf = (earlierExit: number | undefined): unknown =>
  (notRepeated(RENAME_RESULTS, '42', 'rename', earlierExit) as { exit?: unknown }).exit;

describe('an id held back as not repeatable: its exit code', () => {
  it.each([
    ['a timeout', 8, 8],
    ['a reset', 7, 7],
    ['a server failure', 6, 6],
  ])('the earlier record says %s: %i', (_what, earlier, exit) => {
    expect(exitOf(earlier)).toBe(exit);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
    ['SIGHUP', 129],
  ])("the earlier run's %s (%i): 7, since this run was not signalled", (_what, earlier) => {
    expect(exitOf(earlier)).toBe(7);
  });

  it('no record (killed: a sent line only), or a code no table names: 7', () => {
    expect(exitOf(undefined)).toBe(7);
    expect(exitOf(42)).toBe(7);
    expect(exitOf(0)).toBe(7);
  });
});
