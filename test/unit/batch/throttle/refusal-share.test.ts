// Which 503s say the server is past its capacity (refusal-share.ts): too little known, more than
// a tenth of the recent first attempts, or a load no admitted one of late left at.
import { describe, expect, it } from 'vitest';
import { RefusalShare } from '../../../../src/batch/throttle/refusal-share.js';

function shareAfter(admitted: number, load: number): RefusalShare {
  const share = new RefusalShare();
  for (let i = 0; i < admitted; i++) share.admitted(load);
  return share;
}

describe('RefusalShare', () => {
  it('with fewer than 20 answers known, any 503 is overload, as it always was', () => {
    expect(shareAfter(18, 32).refused(8)).toBe(true);
  });

  it('one 503 among 60 good answers, at a load the server took, is not; past that load, it is', () => {
    expect(shareAfter(60, 32).refused(32)).toBe(false);
    expect(shareAfter(60, 32).refused(12)).toBe(false);
    expect(shareAfter(60, 32).refused(33)).toBe(true);
  });

  it('503s past a tenth of the last 64 first attempts are overload, whatever the load', () => {
    const share = shareAfter(57, 32);
    const verdicts = Array.from({ length: 7 }, () => share.refused(16));
    // 6 of 63 is under a tenth; the seventh makes 7 of 64.
    expect(verdicts).toEqual([false, false, false, false, false, false, true]);
  });

  it('reads the last 64 only: old refusals leave the window', () => {
    const share = shareAfter(0, 0);
    for (let i = 0; i < 20; i++) share.refused(1);
    for (let i = 0; i < 64; i++) share.admitted(32);
    expect(share.refused(32)).toBe(false);
  });
});
