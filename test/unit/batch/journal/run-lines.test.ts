// Issue 40 items 1 and 11: a run's start and end lines say how its last run ended and how many ids
// it never sent (batch/journal/run-record.ts); a run with no end line is unknown, never "0 not
// sent"; a journal line written by hand with spaces (any JSON whitespace) is read, as the docs say.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { missingShardsOf } from '../../../../src/batch/journal/job-state.js';
import { summarizeJournals } from '../../../../src/batch/journal/summary.js';
import { deleted, HEADER, journalFolder, notSent, sent } from './fixtures.js';

const at = journalFolder();

function journal(lines: readonly string[]): string {
  writeFileSync(at.file, `${[HEADER, ...lines].join('\n')}\n`, { mode: 0o600 });
  return at.file;
}

const START = '{"start":"2026-03-01T12:00:01.000Z","ids":5}';
const end = (ending: string, notSentCount: number, unrecorded: number): string =>
  JSON.stringify({ end: ending, ids: 5, notSent: notSentCount, unrecorded, readAll: true });

describe("a run's end line", () => {
  it('a stop: the ids never sent count as not sent, with those a line names, and the job is unfinished', async () => {
    // 5 ids: 1 and 2 deleted, 3 given a sent line then kept from leaving (a not-sent line), 4 and 5 never sent (no line).
    const summary = await summarizeJournals([
      journal([START, sent('1'), deleted('1'), sent('2'), deleted('2'), sent('3'), notSent('3'), end('SIGTERM', 3, 2)]),
    ]);
    // 3's sent line then its not-sent line reads as in flight (recorded-ids.ts): the not-sent count is the 2 with no line.
    expect(summary.counts).toMatchObject({ done: 2, inFlight: 1, notSent: 0 });
    expect(summary.job).toEqual({ finished: false, ended: 'SIGTERM', notSent: 2, unrecorded: 2, missingShards: [] });
    expect(summary.files[0]?.run).toMatchObject({ ended: 'SIGTERM', ids: 5, notSent: 3, finished: false });
  });

  it('a finished run: finished, nothing unsent', async () => {
    const lines = ['1', '2', '3', '4', '5'].flatMap((id) => [sent(id), deleted(id)]);
    const summary = await summarizeJournals([journal([START, ...lines, end('finished', 0, 0)])]);
    expect(summary.job).toMatchObject({ finished: true, ended: 'finished', notSent: 0 });
  });

  it.each([
    ['a start line and no end (kill -9)', [START, sent('1'), deleted('1')]],
    ['id lines after the last end line', [START, end('finished', 0, 0), sent('9'), deleted('9')]],
    ['no run lines at all (written by 2.0)', [sent('1'), deleted('1')]],
  ])('%s: the end is unknown, and so is how many were not sent (never 0)', async (_, lines) => {
    const summary = await summarizeJournals([journal(lines)]);
    expect(summary.job).toMatchObject({ finished: false, ended: undefined, notSent: undefined, unrecorded: undefined });
  });

  it("a later run's start line replaces the earlier end: its own end decides", async () => {
    const summary = await summarizeJournals([journal([START, end('max-duration', 5, 5), START, sent('1'), deleted('1')])]);
    expect(summary.job.notSent).toBeUndefined();
  });

  it("ids an earlier stop left that the last run's list did not hold: still not sent, and the job unfinished", async () => {
    const carried = '{"end":"finished","ids":1,"notSent":0,"unrecorded":0,"earlier":4,"sum":"0a0b0c0d","readAll":true}';
    const summary = await summarizeJournals([journal([START, sent('1'), deleted('1'), carried])]);
    expect(summary.job).toMatchObject({ finished: false, ended: 'finished', notSent: 4, unrecorded: 4 });
    const unknown = '{"end":"finished","ids":1,"notSent":0,"unrecorded":0,"earlier":null,"readAll":true}';
    const unsure = await summarizeJournals([journal([START, sent('1'), deleted('1'), unknown])]);
    expect(unsure.job).toMatchObject({ finished: false, notSent: undefined, unrecorded: undefined });
  });

  it.each([
    ['a fingerprint that is not one', '{"end":"SIGINT","ids":5,"notSent":1,"unrecorded":1,"sum":"xyz","readAll":true}'],
    ['counts that do not add up', '{"end":"SIGINT","ids":5,"notSent":6,"unrecorded":0,"readAll":true}'],
    ['a count that is not a whole number', '{"end":"SIGINT","ids":5,"notSent":-1,"unrecorded":0,"readAll":true}'],
    ['an end that is not a word', '{"end":"stopped\\u001b[2J","ids":5,"notSent":0,"unrecorded":0,"readAll":true}'],
  ])('an end line with %s is refused as damaged, as any foreign JSON line is', async (_, line) => {
    await expect(summarizeJournals([journal([START, line])])).rejects.toThrow(/line 3 is a whole JSON line that is not a journal line/);
  });
});

describe('a line written by hand, as docs/journal.md promises', () => {
  it("spaces inside, spaces or tabs around, an editor's CR at the end: each is read as the line it is", async () => {
    const summary = await summarizeJournals([
      journal([
        '{"id": 1, "sent": true}',
        '  {"id":2,"state":"done","status":204}\t',
        '{ "id": 3, "sent": true }\r',
        '{"id":4,"sent":true} ',
      ]),
    ]);
    expect(summary.counts).toMatchObject({ done: 1, inFlight: 3 });
  });
});

describe('missing shards', () => {
  it('names the shards of one split that no file was given for', () => {
    expect(missingShardsOf(['0/4', '1/4', '3/4'])).toEqual(['2/4']);
    expect(missingShardsOf(['1/3'])).toEqual(['0/3', '2/3']);
    expect(missingShardsOf(['0/2', '1/2'])).toEqual([]);
  });

  it('says nothing when the files are not the shards of one split', () => {
    expect(missingShardsOf(['0/4', undefined])).toEqual([]);
    expect(missingShardsOf(['0/4', '1/8'])).toEqual([]);
    expect(missingShardsOf([])).toEqual([]);
  });
});
