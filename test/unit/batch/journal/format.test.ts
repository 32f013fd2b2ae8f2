// The journal's two readers of a line agree: parseCommonLine (bytes, the sent and done lines, and
// format 3's absent line, only) reads each line it accepts exactly as parseResultLine (the string,
// every line shape) does, and leaves every other line to it, in each vocabulary.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommonLine, parseResultLine, Recorded, sentLine } from '../../../../src/batch/journal/format.js';
import { absent, deleted, failed, notSent, V2 } from './fixtures.js';

const common = (line: string, vocabulary: '2' | '3') => {
  const bytes = Buffer.from(`xx${line}yy`);
  return parseCommonLine(bytes, 2, bytes.length - 2, vocabulary);
};

describe('parseCommonLine', () => {
  it.each([
    [sentLine('42'), '3', { id: 42n, kind: Recorded.sent }],
    [sentLine('-7'), '2', { id: -7n, kind: Recorded.sent }],
    [sentLine('0'), '3', { id: 0n, kind: Recorded.sent }],
    [deleted('1000000000000'), '3', { id: 1000000000000n, kind: Recorded.done }],
    [deleted('999999999999999'), '3', { id: 999999999999999n, kind: Recorded.done }],
    [absent('42'), '3', { id: 42n, kind: Recorded.absent }],
    [V2.deleted('1000000000000'), '2', { id: 1000000000000n, kind: Recorded.done }],
    [V2.deleted('999999999999999'), '2', { id: 999999999999999n, kind: Recorded.done }],
  ] as const)('%s (format %s)', (line, vocabulary, read) => {
    expect(common(line, vocabulary)).toEqual(read);
    expect(parseResultLine(line, vocabulary)).toEqual(read);
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
    '{"id":42,"state":"done","status":2040}',
    '{"id":42,"state":"done","status":20x}',
    '{"id":42,"state":"done","status":204]',
    '{"id":,"sent":true}',
    // Another format's line: format 2's in a journal of format 3.
    V2.deleted('42'),
    failed('42'),
    notSent('42'),
    '',
  ])('leaves %j to parseResultLine', (line) => {
    expect(common(line, '3')).toBeUndefined();
  });

  it('each vocabulary reads only its own lines: a line of format 3 is not a line of format 2, nor the reverse', () => {
    for (const line of [deleted('42'), absent('42'), failed('42'), notSent('42')]) expect(parseResultLine(line, '2')).toBeUndefined();
    for (const line of [V2.deleted('42'), V2.absent('42'), V2.failed('42'), V2.notSent('42')]) {
      expect(parseResultLine(line, '3')).toBeUndefined();
    }
    expect(common(absent('42'), '2')).toBeUndefined();
  });

  it('agrees with parseResultLine on every line it accepts (property)', () => {
    const id = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }));
    const line = fc.oneof(
      id.map((n) => sentLine(String(n))),
      id.map((n) => deleted(String(n))),
      id.map((n) => absent(String(n))),
      id.map((n) => V2.deleted(String(n))),
      fc.string(),
      fc.tuple(id, fc.string({ maxLength: 3 })).map(([n, junk]) => `{"id":${n}${junk},"sent":true}`),
    );
    fc.assert(
      fc.property(line, fc.constantFrom('2' as const, '3' as const), (text, vocabulary) => {
        const fast = common(text, vocabulary);
        if (fast !== undefined) expect(parseResultLine(text, vocabulary)).toEqual(fast);
      }),
    );
  });
});
