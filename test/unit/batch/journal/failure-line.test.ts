// A failure line of the writer's shape is read without JSON.parse (failure-line.ts), and must give
// exactly the fields JSON.parse gives its readers (format.ts kindOf, the status's exit and error
// codes); anything it is not sure of (not valid JSON, another shape) is left to JSON.parse.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failureFields } from '../../../../src/batch/journal/failure-line.js';
import { parseResultLine, Recorded } from '../../../../src/batch/journal/format.js';
import { resultJson } from '../../../../src/commands/delete/report.js';
import { notSent } from '../../../../src/commands/delete/result.js';

/** What the readers take from a parsed line. */
function picked(text: string): Record<string, unknown> | undefined {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const fields: Record<string, unknown> = {
    deleted: value['deleted'],
    status: value['status'],
    error: value['error'],
    exit: value['exit'],
  };
  if ('attempted' in value) fields['attempted'] = value['attempted'];
  if ('uncertain' in value) fields['uncertain'] = value['uncertain'];
  return fields;
}

const failureLine = fc
  .record({
    id: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
    status: fc.constantFrom(400, 401, 403, 404, 429, 500, 502, 503, null),
    error: fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { nil: null }),
    message: fc.string({ unit: 'binary', maxLength: 40 }),
    exit: fc.constantFrom(1, 4, 5, 6, 7, 8, 129, 130, 143),
    tail: fc.constantFrom('none', 'attempted', 'uncertain'),
  })
  .map(({ id, status, error, message, exit, tail }) =>
    resultJson(
      tail === 'attempted'
        ? notSent(String(id), message, exit as never)
        : {
            id: String(id),
            deleted: false,
            status,
            error,
            message,
            exit: exit as never,
            attempted: true,
            ...(tail === 'uncertain' ? { uncertain: true as const } : {}),
          },
    ),
  );

describe('failureFields', () => {
  it('reads every failure line the writer writes, as JSON.parse does', () => {
    fc.assert(
      fc.property(failureLine, (line) => {
        expect(failureFields(line)).toBeDefined();
        expect(failureFields(line)).toEqual(picked(line));
      }),
      { numRuns: 2000 },
    );
  });

  it('never disagrees with JSON.parse on a line changed anywhere: it reads it the same, or leaves it to JSON.parse', () => {
    const changed = fc
      .tuple(failureLine, fc.nat(), fc.constantFrom('0', '\\', '\u0001', '"', 'x', '\\x', '\\u12', '-', ' ', '}'))
      .map(([line, at, insert]) => {
        const where = at % (line.length + 1);
        return `${line.slice(0, where)}${insert}${line.slice(where)}`;
      });
    fc.assert(
      fc.property(changed, (line) => {
        const fast = failureFields(line);
        if (fast !== undefined) expect(fast).toEqual(picked(line));
      }),
      { numRuns: 5000 },
    );
  });

  it('leaves invalid JSON to JSON.parse: a leading zero, an unknown escape, a raw control character', () => {
    for (const line of [
      '{"id":2,"deleted":false,"status":400,"error":01,"message":"m","exit":1}',
      '{"id":2,"deleted":false,"status":400,"error":1,"message":"bad \\x","exit":1}',
      '{"id":2,"deleted":false,"status":400,"error":1,"message":"a\u0001b","exit":1}',
    ]) {
      expect(failureFields(line)).toBeUndefined();
      expect(parseResultLine(line)).toBeUndefined();
    }
  });

  it('gives parseResultLine the same kinds: failed, uncertain, not sent, and a 2.0 unanswered failure as uncertain', () => {
    expect(parseResultLine('{"id":2,"deleted":false,"status":400,"error":1,"message":"m","exit":1}')).toEqual({
      id: 2n,
      kind: Recorded.failed,
      fields: { deleted: false, status: 400, error: 1, exit: 1 },
    });
    expect(parseResultLine('{"id":2,"deleted":false,"status":503,"error":null,"message":"m","exit":6,"uncertain":true}')).toEqual({
      id: 2n,
      kind: Recorded.failed,
      uncertain: true,
      fields: { deleted: false, status: 503, error: null, exit: 6, uncertain: true },
    });
    expect(parseResultLine('{"id":2,"deleted":false,"status":null,"error":null,"message":"m","exit":8}')).toEqual({
      id: 2n,
      kind: Recorded.failed,
      uncertain: true,
      fields: { deleted: false, status: null, error: null, exit: 8 },
    });
    expect(parseResultLine('{"id":2,"deleted":false,"status":null,"error":null,"message":"m","exit":130,"attempted":false}')).toEqual({
      id: 2n,
      kind: Recorded.notSent,
    });
  });

  it('gives a failure line of another shape (edited by hand) its fields from JSON.parse: journal status parses it once', () => {
    const line = '{ "id": 2, "deleted": false, "status": 403, "error": 7, "message": "m", "exit": 4, "note": "by hand" }';
    expect(failureFields(line)).toBeUndefined();
    expect(parseResultLine(line)).toEqual({ id: 2n, kind: Recorded.failed, fields: JSON.parse(line) });
  });
});
