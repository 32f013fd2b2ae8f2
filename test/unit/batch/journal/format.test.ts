// The journal's two readers of a line agree: parseCommonLine (bytes, the sent and deleted
// lines only) reads each line it accepts exactly as parseResultLine (the string, every line
// shape) does, and leaves every other line to it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommonLine, parseResultLine, Recorded, sentLine } from '../../../../src/batch/journal/format.js';
import { absent, deleted, failed, notSent } from './fixtures.js';

const common = (line: string) => {
  const bytes = Buffer.from(`xx${line}yy`);
  return parseCommonLine(bytes, 2, bytes.length - 2);
};

describe('parseCommonLine', () => {
  it.each([
    [sentLine('42'), { id: 42n, kind: Recorded.sent }],
    [sentLine('-7'), { id: -7n, kind: Recorded.sent }],
    [sentLine('0'), { id: 0n, kind: Recorded.sent }],
    [deleted('1000000000000'), { id: 1000000000000n, kind: Recorded.deleted }],
    [deleted('999999999999999'), { id: 999999999999999n, kind: Recorded.deleted }],
  ])('%s', (line, read) => {
    expect(common(line)).toEqual(read);
    expect(parseResultLine(line)).toEqual(read);
  });

  it.each([
    // Past 15 digits a number is not exact: the string reader takes them.
    sentLine('9223372036854775807'),
    deleted('1234567890123456'),
    // Not the writer's shapes.
    sentLine('042'),
    sentLine('-0'),
    '{"id":42,"sent":true} ',
    '{"id":42,"sent":false}',
    '{"id":42,"deleted":true,"status":2040}',
    '{"id":42,"deleted":true,"status":20x}',
    '{"id":42,"deleted":true,"status":204]',
    '{"id":,"sent":true}',
    absent('42'),
    failed('42'),
    notSent('42'),
    '',
  ])('leaves %j to parseResultLine', (line) => {
    expect(common(line)).toBeUndefined();
  });

  it('agrees with parseResultLine on every line it accepts (property)', () => {
    const id = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }));
    const line = fc.oneof(
      id.map((n) => sentLine(String(n))),
      id.map((n) => deleted(String(n))),
      fc.string(),
      fc.tuple(id, fc.string({ maxLength: 3 })).map(([n, junk]) => `{"id":${n}${junk},"sent":true}`),
    );
    fc.assert(
      fc.property(line, (text) => {
        const fast = common(text);
        if (fast !== undefined) expect(parseResultLine(text)).toEqual(fast);
      }),
    );
  });
});
