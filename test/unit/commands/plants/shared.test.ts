// Issue 42 item 5: what every verb on a plant shares (src/commands/plants/shared/): the path, the
// per-id failure shape with its line and --json fields, int64-exact ids, the API's "no such plant".
import { describe, expect, it } from 'vitest';
import { failureJson, failureLine, notSentFor, plantFailure } from '../../../../src/commands/plants/shared/failure.js';
import { idLine } from '../../../../src/commands/plants/shared/json.js';
import { saidMissing } from '../../../../src/commands/plants/shared/missing.js';
import { plantPath } from '../../../../src/commands/plants/shared/path.js';
import { createTestIO } from '../../../../src/ui/io.js';

const ID = '9223372036854775807';
const keep = (text: string) => text;

describe('plants/shared', () => {
  it('the path and an id line keep every digit of an int64, past 2^53', () => {
    expect(plantPath(ID)).toBe(`/plants/${ID}`);
    expect(idLine(ID, '"read":true')).toBe(`{"id":${ID},"read":true}`);
    expect(idLine(ID, '')).toBe(`{"id":${ID}}`);
  });

  it("a failure from the API's Error object: its status, code and message, in the line and in --json (masked)", () => {
    const outcome = {
      kind: 'failed',
      last: { kind: 'api-error', status: 400, code: 13, message: 'protected' },
      attempts: 1,
      earlierAnswerLost: false,
    } as const;
    const failure = plantFailure(ID, outcome, 'protected by secret-1');
    expect(failure).toEqual({ id: ID, status: 400, error: 13, message: 'protected by secret-1', exit: 1, attempted: true });
    expect(failureLine(createTestIO(), failure)).toBe(`✗ plant ${ID}: error 13: protected by secret-1 (HTTP 400)`);
    const json = idLine(
      ID,
      failureJson(failure, (text) => text.replace('secret-1', '***')),
    );
    expect(json).toBe(`{"id":${ID},"status":400,"error":13,"message":"protected by ***","exit":1}`);
  });

  it('an id never sent: no status, why, and "attempted": false', () => {
    const notSent = notSentFor('7', { kind: 'interrupted' });
    expect(notSent).toMatchObject({ id: '7', status: null, error: null, exit: 130, attempted: false });
    expect(JSON.parse(idLine('7', failureJson(notSent, keep)))).toEqual({
      id: 7,
      status: null,
      error: null,
      message: notSent.message,
      exit: 130,
      attempted: false,
    });
  });

  it('"no such plant": a 404 Error object, or a 400 with a declared code; never a 404 page', () => {
    const apiError = (status: number, code: number | null) => ({ kind: 'api-error', status, code, message: 'm' }) as const;
    expect(saidMissing(apiError(404, 1), [])).toBe(true);
    expect(saidMissing(apiError(400, 1), [1])).toBe(true);
    expect(saidMissing(apiError(400, 1), [])).toBe(false);
    expect(saidMissing(apiError(404, null), [])).toBe(false);
  });
});
