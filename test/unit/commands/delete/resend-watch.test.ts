import { describe, expect, it } from 'vitest';
import type { PlantOutcome } from '../../../../src/commands/delete/request.js';
import { RESENT_AFTER, ResendWatch, SLOW_MISSING_MS } from '../../../../src/commands/delete/resend-watch.js';
import type { DeleteResult } from '../../../../src/commands/delete/result.js';

const missing = (id: string, attempts = 1, earlierAnswerLost = false): PlantOutcome => ({
  id,
  kind: 'failed',
  last: { kind: 'api-error', status: 404, code: 404, message: 'Plant not found' },
  attempts,
  earlierAnswerLost,
});
const failed = (id: string): DeleteResult => ({
  id,
  deleted: false,
  status: 404,
  error: 404,
  message: 'Plant not found',
  exit: 5,
  attempted: true,
});
const timedOut: PlantOutcome = {
  id: '9',
  kind: 'failed',
  last: { kind: 'timeout', host: 'h', ms: 1000, phase: 'answer' },
  attempts: 3,
  earlierAnswerLost: true,
};

describe('ResendWatch: first-attempt "no such plant" that a proxy sending the DELETE again explains', () => {
  it(`says it once, at the ${RESENT_AFTER}rd slow one`, () => {
    const watch = new ResendWatch({ codes: [], ignore: false });
    const said = ['1', '2', '3', '4'].map((id) => watch.note(missing(id), failed(id), SLOW_MISSING_MS));
    expect(said.map((line) => line !== undefined)).toEqual([false, false, true, false]);
    expect(said[2]).toContain('--ignore-missing');
  });

  it('counts fast ones only after a timeout in the run', () => {
    const watch = new ResendWatch({ codes: [], ignore: false });
    for (const id of ['1', '2', '3']) expect(watch.note(missing(id), failed(id), 5)).toBeUndefined();
    watch.note(timedOut, failed('9'), 3000);
    const said = ['4', '5', '6'].map((id) => watch.note(missing(id), failed(id), 5));
    expect(said[2]).toMatch(/^3 plants so far answered "no such plant" at their first attempt/);
  });

  it('leaves alone what is not a first attempt, and what was counted absent', () => {
    const watch = new ResendWatch({ codes: [], ignore: true });
    const absent: DeleteResult = { id: '1', deleted: false, absent: true, status: 404 };
    for (let i = 0; i < 5; i++) expect(watch.note(missing(String(i)), absent, SLOW_MISSING_MS)).toBeUndefined();
    for (let i = 0; i < 5; i++) expect(watch.note(missing(String(i), 2, true), failed(String(i)), SLOW_MISSING_MS)).toBeUndefined();
  });
});
