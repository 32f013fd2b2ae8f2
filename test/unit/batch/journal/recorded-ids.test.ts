// RecordedIds (an IdTable of one byte an id) against a model of what a journal's lines say of each
// id: the kind of its last line, and whether a request for it may have deleted it unrecorded (a
// sent line with no result, a sent line again, an uncertain failure, kept through later failures
// until deleted or absent). Many ids, so that the table grows; few, so that lines repeat ids.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RECORDED_KINDS, Recorded, type RecordedCode } from '../../../../src/batch/journal/format.js';
import { RecordedIds } from '../../../../src/batch/journal/recorded-ids.js';

interface Said {
  kind: RecordedCode;
  inFlight: boolean;
}

function model(lines: readonly { id: bigint; kind: RecordedCode; uncertain: boolean }[]): Map<bigint, Said> {
  const said = new Map<bigint, Said & { flagged: boolean }>();
  for (const { id, kind, uncertain } of lines) {
    const before = said.get(id);
    const settled = kind === Recorded.done || kind === Recorded.absent;
    const unanswered = before?.kind === Recorded.sent && (kind === Recorded.sent || kind === Recorded.notSent);
    // In flight at a stop, or uncertain: kept through later lines until one settles the id.
    const flagged = uncertain || (before !== undefined && !settled && (unanswered || before.flagged));
    said.set(id, { kind, inFlight: kind === Recorded.sent || flagged, flagged });
  }
  return new Map([...said].map(([id, { kind, inFlight }]) => [id, { kind, inFlight }]));
}

const line = (ids: fc.Arbitrary<bigint>) =>
  fc.record({
    id: ids,
    kind: fc.constantFrom<RecordedCode>(Recorded.done, Recorded.absent, Recorded.failed, Recorded.notSent, Recorded.sent),
    uncertain: fc.boolean(),
  });

describe('RecordedIds', () => {
  it("keeps an id sent and never answered in flight through a later run's not-sent line (2.0 wrote one, and the next run called the plant it had deleted a failure)", () => {
    const recorded = new RecordedIds();
    recorded.set(7n, Recorded.sent);
    recorded.set(7n, Recorded.notSent);
    recorded.set(8n, Recorded.sent);
    recorded.set(8n, Recorded.failed);
    expect([recorded.get(7n), recorded.wasInFlight(7n)]).toEqual([Recorded.notSent, true]);
    // A certain failure answers the request: nothing is left in flight.
    expect([recorded.get(8n), recorded.wasInFlight(8n)]).toEqual([Recorded.failed, false]);
  });

  it.each([
    ['a few ids, each said many times', fc.bigInt({ min: -3n, max: 12n }), 0, 300, 100],
    [
      'thousands of ids, some said again, across the int64 range (the table grows twice)',
      fc.oneof(fc.bigInt({ min: 0n, max: 1500n }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
      2500,
      4000,
      10,
    ],
  ] as const)('says what the model says of every id: %s', (_name, ids, minLength, maxLength, numRuns) => {
    fc.assert(
      fc.property(fc.array(line(ids), { minLength, maxLength }), (lines) => {
        const recorded = new RecordedIds();
        for (const { id, kind, uncertain } of lines) {
          // Only a failure is ever recorded uncertain (format.ts parseResultLine).
          recorded.set(id, kind, uncertain && kind === Recorded.failed);
        }
        const said = model(lines.map((l) => ({ ...l, uncertain: l.uncertain && l.kind === Recorded.failed })));
        expect(recorded.size).toBe(said.size);
        const seen = new Map<bigint, Said>();
        recorded.forEach((id, kind, inFlight) => {
          seen.set(id, { kind, inFlight });
        });
        expect(seen).toEqual(said);
        for (const [id, { kind, inFlight }] of said) {
          expect(recorded.get(id)).toBe(kind);
          expect(recorded.wasInFlight(id)).toBe(inFlight);
        }
        expect(recorded.get(99n)).toBe(said.get(99n)?.kind ?? 0);
        const counts = RECORDED_KINDS.map((_kind, index) => [...said.values()].filter(({ kind }) => kind === index + 1).length);
        expect(recorded.counts()).toEqual(Object.fromEntries(RECORDED_KINDS.map((kind, index) => [kind, counts[index]])));
      }),
      { numRuns },
    );
  });
});
