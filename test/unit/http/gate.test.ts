import { describe, expect, it } from 'vitest';
import { feedbackFor, feedbackOf } from '../../../src/http/gate.js';

describe('feedbackFor: what an answer says about load', () => {
  it.each([
    [204, 'ok'],
    // Proves nothing until confirmed, so says nothing of load: a catch-all's 200 between failures is no good answer.
    [200, 'neutral'],
    [301, 'ok'],
    [400, 'ok'],
    [401, 'ok'],
    [404, 'ok'],
    [429, 'refused'],
    [503, 'refused'],
    [500, 'neutral'],
    // A gateway's: the service behind it failing (its row in classify.ts says so).
    [502, 'failing'],
    [504, 'failing'],
    [null, 'neutral'],
  ] as const)('%s: %s', (status, kind) => {
    expect(feedbackFor(status, 1000).kind).toBe(kind);
  });

  it('keeps the kind of load, the status and Retry-After of a refusal', () => {
    expect(feedbackFor(503, 1500)).toEqual({ kind: 'refused', load: 'overloaded', status: 503, retryAfterMs: 1500 });
    expect(feedbackFor(429)).toEqual({ kind: 'refused', load: 'rate-limited', status: 429, retryAfterMs: undefined });
  });

  it("keeps a failing answer's status; a failed connection has none", () => {
    expect(feedbackFor(502)).toEqual({ kind: 'failing', status: 502 });
    expect(feedbackOf('failing', undefined)).toEqual({ kind: 'failing', status: undefined });
  });
});
