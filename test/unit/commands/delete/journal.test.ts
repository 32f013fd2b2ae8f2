// delete --journal in-process: what is skipped, re-sent and recorded, the shapes a skipped id
// takes, the dry run that writes nothing, and the refusals that leave the file as it was. The
// journal's own format, lock and durability are tested in test/unit/batch/journal/; kills,
// signals and full disks through the built CLI in test/e2e/journal*.e2e.test.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { printCredentials } from '../../../../src/batch/journal/credentials.js';
import { headerLine } from '../../../../src/batch/journal/format.js';
import { type Answer, deleted, inProcess, refused } from '../../../helpers/in-process.js';
import { normalize } from '../normalize.js';

const TOKEN = 'journal-Token-7c1d9e2b';
const BASE = 'https://api.example.com';
const READY = { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: BASE };

const { run, dir } = inProcess();
const journal = () => path.join(dir(), 'run.journal');
const lines = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n');
const missing = (id: string): Answer => refused(id, { status: 400, error: 1, message: `plant ${id} does not exist` });

describe('delete --journal', () => {
  it('records every result after a header, and a re-run sends only what is not done', async () => {
    const first = await run(['delete', '--journal', journal(), '1', '2', '3'], {
      env: READY,
      answer: (id) => (id === '2' ? refused(id, { status: 503, error: null, message: 'Service Unavailable' }) : deleted(id)),
    });
    expect(first.exit).toBe(6);
    const [header, ...written] = lines(journal());
    expect(JSON.parse(header as string)).toMatchObject({
      plantstore: 'delete-journal',
      version: 3,
      operation: 'delete',
      baseUrl: BASE,
      profile: 'default',
    });
    // Each id's sent line comes before its result.
    for (const id of [1, 2, 3]) {
      const sentAt = written.indexOf(`{"id":${id},"sent":true}`);
      expect(sentAt).toBeGreaterThanOrEqual(0);
      expect(written.findIndex((line) => line.startsWith(`{"id":${id},"state"`))).toBeGreaterThan(sentAt);
    }
    // The run's own lines open and close what it wrote (batch/journal/run-record.ts).
    expect(JSON.parse(written[0] as string)).toMatchObject({ ids: 3 });
    expect(JSON.parse(written.at(-1) as string)).toEqual({ end: 'finished', ids: 3, notSent: 0, unrecorded: 0, readAll: true });
    const results = written.slice(1, -1).filter((line) => !line.endsWith('"sent":true}'));
    // In the journal's words (batch/journal/records.ts), not --json's.
    expect(results.map((line) => JSON.parse(line) as { id: number }).sort((a, b) => a.id - b.id)).toEqual([
      { id: 1, state: 'done', status: 204 },
      {
        id: 2,
        state: 'in-flight',
        status: 503,
        error: null,
        message: 'Service Unavailable; the server may or may not have deleted it',
        exit: 6,
      },
      { id: 3, state: 'done', status: 204 },
    ]);

    const second = await run(['delete', '--journal', journal(), '1', '2', '3', '4'], { env: READY });
    expect(second.sent).toEqual(['2', '4']);
    expect(second.exit).toBe(0);
    expect({ stdout: second.stdout, stderr: normalize(second.stderr) }).toMatchInlineSnapshot(`
      {
        "stderr": "2 deleted, 2 skipped (journal), 0 already absent, 0 failed, 0 not sent in <t>s
      ",
        "stdout": "Plant 1 already deleted (journal)
      Deleted plant 2
      Plant 3 already deleted (journal)
      Deleted plant 4
      ",
      }
    `);
    // A third run finds everything the first two finished.
    const third = await run(['delete', '--journal', journal(), '1', '2', '3', '4'], { env: READY });
    expect(third.sent).toEqual([]);
    expect(third.exit).toBe(0);
  });

  it('prints a skipped id in --json as its usual object with journal:true, and no status from this run', async () => {
    await run(['delete', '--journal', journal(), '7'], { env: READY });
    const again = await run(['--json', 'delete', '--journal', journal(), '7', '8'], { env: READY });
    expect(
      again.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { id: 7, deleted: true, status: null, journal: true },
      { id: 8, deleted: true, status: 204 },
    ]);
  });

  it('an id recorded absent stays absent: skipped with or without --ignore-missing, and never reported as deleted', async () => {
    await run(['delete', '--journal', journal(), '--ignore-missing', '--missing-error', '1', '5'], { env: READY, answer: missing });
    for (const [flags, other] of [
      [['--ignore-missing', '--missing-error', '1'], '6'],
      [[], '7'],
    ] as const) {
      const again = await run(['delete', '--journal', journal(), ...flags, '5', other], { env: READY });
      expect(again.sent).toEqual([other]);
      expect(again.exit).toBe(0);
      expect(again.stdout).toBe(`Plant 5 already absent (journal)\nDeleted plant ${other}\n`);
    }
    const json = await run(['--json', 'delete', '--journal', journal(), '5'], { env: READY });
    expect(JSON.parse(json.stdout)).toEqual({ id: 5, deleted: false, absent: true, status: null, journal: true });
  });

  it('writes an id to the journal before its request leaves', async () => {
    const seenInJournal: boolean[] = [];
    await run(['delete', '--journal', journal(), '1', '2', '3'], {
      env: READY,
      answer(id) {
        seenInJournal.push(lines(journal()).includes(`{"id":${id},"sent":true}`));
        return deleted(id);
      },
    });
    expect(seenInJournal).toEqual([true, true, true]);
  });

  describe('an id the earlier run left in flight (its sent line, no result)', () => {
    // The header this plantstore writes for READY's token (a 2.0 header, without the print, would add a note).
    let header = '';
    // The same of format 2, as the release before wrote it: the cases that plant its lines.
    let header2 = '';
    beforeAll(async () => {
      const print = await printCredentials({ kind: 'token', token: TOKEN });
      header = `${headerLine({ baseUrl: BASE, profile: 'default' }, new Date('2026-01-01T00:00:00.000Z'), print)}\n`;
      header2 = header.replace('"version":3,"operation":"delete"', '"version":2');
    });
    const inFlight = (...ids: string[]) =>
      writeFileSync(journal(), `${header}${ids.map((id) => `{"id":${id},"sent":true}\n`).join('')}`, { mode: 0o600 });

    it.each<[string, string[], Answer, string, Record<string, unknown>]>([
      [
        'the API says no such plant (a code declared with --missing-error): absent, and the earlier run may have deleted it; without --ignore-missing',
        ['--missing-error', '1'],
        refused('42', { status: 400, error: 1, message: 'plant 42 does not exist' }),
        'Plant 42 absent (in flight when the earlier run stopped: it may have deleted it)\n',
        { id: 42, deleted: false, absent: true, status: 400, earlierRun: true },
      ],
      [
        'a 404 Error object: absent, never deleted (the plant may never have existed)',
        [],
        refused('42', { status: 404, error: 404, message: 'no such plant' }),
        'Plant 42 absent (in flight when the earlier run stopped: it may have deleted it)\n',
        { id: 42, deleted: false, absent: true, status: 404, earlierRun: true },
      ],
      [
        'a 204: the earlier request never landed, and this run deleted it',
        [],
        deleted('42'),
        'Deleted plant 42\n',
        { id: 42, deleted: true, status: 204 },
      ],
    ])('%s', async (_, flags, answer, line, json) => {
      inFlight('42');
      const human = await run(['delete', '--journal', journal(), ...flags, '42'], { env: READY, answer: () => answer });
      expect(human.exit).toBe(0);
      expect(human.stdout).toBe(line);
      inFlight('42');
      const machine = await run(['--json', 'delete', '--journal', journal(), ...flags, '42'], { env: READY, answer: () => answer });
      expect(JSON.parse(machine.stdout)).toEqual(json);
      // Recorded as done, as what it is: the next run skips it, and says deleted only for a 204.
      const next = await run(['delete', '--journal', journal(), '42'], { env: READY });
      expect(next.sent).toEqual([]);
      expect(next.stdout).toBe(json['deleted'] === true ? 'Plant 42 already deleted (journal)\n' : 'Plant 42 already absent (journal)\n');
    });

    it('an id a signal interrupted while waiting (recorded in flight) is settled by the next run\'s "no such plant"', async () => {
      const interrupted = `{"id":42,"state":"in-flight","status":null,"error":null,"message":"interrupted while waiting for the answer; the server may or may not have deleted it","exit":143}\n`;
      writeFileSync(journal(), `${header}{"id":42,"sent":true}\n${interrupted}`, { mode: 0o600 });
      const again = await run(['--json', 'delete', '--journal', journal(), '--missing-error', '1', '42'], { env: READY, answer: missing });
      expect(again.exit).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ id: 42, deleted: false, absent: true, status: 400, earlierRun: true });
      expect(lines(journal()).at(-2)).toBe('{"id":42,"state":"absent","status":400}');
    });

    it('format 2: an id a signal interrupted while waiting (recorded uncertain) is settled alike, and recorded in format 2', async () => {
      const interrupted = `{"id":42,"deleted":false,"status":null,"error":null,"message":"interrupted while waiting for the answer; the server may or may not have deleted it","exit":143,"uncertain":true}\n`;
      writeFileSync(journal(), `${header2}{"id":42,"sent":true}\n${interrupted}`, { mode: 0o600 });
      const again = await run(['--json', 'delete', '--journal', journal(), '--missing-error', '1', '42'], { env: READY, answer: missing });
      expect(again.exit).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ id: 42, deleted: false, absent: true, status: 400, earlierRun: true });
      expect(lines(journal()).at(-2)).toBe('{"id":42,"deleted":false,"absent":true,"status":400}');
    });

    it('journals written by 2.0: an interrupted failure without "uncertain" is settled too, and its "deleted by the earlier run" reads as absent', async () => {
      const interrupted = `{"id":42,"deleted":false,"status":null,"error":null,"message":"interrupted while waiting for the answer; the server may or may not have deleted it","exit":130}\n`;
      const claimed = `{"id":43,"sent":true}\n{"id":43,"deleted":true,"status":400,"earlierRun":true}\n`;
      writeFileSync(journal(), `${header2}{"id":42,"sent":true}\n${interrupted}${claimed}`, { mode: 0o600 });
      const again = await run(['delete', '--journal', journal(), '--missing-error', '1', '42', '43'], { env: READY, answer: missing });
      expect(again.exit).toBe(0);
      expect(again.stdout).toBe(
        'Plant 42 absent (in flight when the earlier run stopped: it may have deleted it)\nPlant 43 already absent (journal)\n',
      );
    });

    it('a certain "no such plant" in the earlier run stays a failure: the plant never existed, or someone else deleted it', async () => {
      const certain = `{"id":42,"deleted":false,"status":400,"error":1,"message":"plant 42 does not exist","exit":1}\n`;
      writeFileSync(journal(), `${header2}{"id":42,"sent":true}\n${certain}`, { mode: 0o600 });
      const again = await run(['delete', '--journal', journal(), '--missing-error', '1', '42'], { env: READY, answer: missing });
      expect(again.exit).toBe(1);
      expect(again.stdout).toBe('');
    });

    it('a 400 Error whose code is not declared stays a failure, and its line says how to declare it', async () => {
      inFlight('42');
      const result = await run(['delete', '--journal', journal(), '42'], {
        env: READY,
        answer: () => refused('42', { status: 400, error: 7, message: 'plant 42 does not exist' }),
      });
      expect(result.exit).toBe(1);
      expect(result.stderr).toBe(
        '✗ plant 42: error 7: plant 42 does not exist; its request was in flight when the earlier run stopped: if error 7 means "no such plant", run again with --missing-error 7 (HTTP 400)\n',
      );
    });

    it('the summary counts them apart', async () => {
      inFlight('1', '2');
      const result = await run(['delete', '--journal', journal(), '--missing-error', '1', '1', '2', '3'], {
        env: READY,
        answer: (id) => (id === '3' ? deleted(id) : missing(id)),
      });
      expect(result.exit).toBe(0);
      expect(normalize(result.stderr)).toBe(
        '1 deleted, 0 skipped (journal), 2 already absent (2 after a request whose answer was lost: it may have deleted them), 0 failed, 0 not sent in <t>s\n',
      );
    });
  });

  it('--dry-run lists what would be skipped and what would be sent, and writes nothing', async () => {
    await run(['delete', '--journal', journal(), '1'], { env: READY });
    const before = readFileSync(journal());
    const dry = await run(['delete', '--dry-run', '--journal', journal(), '1', '2'], { env: READY });
    expect(dry.sent).toEqual([]);
    expect(dry.built).toEqual([]);
    expect({ stdout: dry.stdout, stderr: dry.stderr }).toMatchInlineSnapshot(`
      {
        "stderr": "dry run: 1 request not sent, 1 skipped (journal) (profile 'default')
      ",
        "stdout": "skip 1: already done (journal)
      DELETE https://api.example.com/plants/2  (Authorization: Bearer ***)
      ",
      }
    `);
    const json = await run(['--json', 'delete', '--dry-run', '--journal', journal(), '1', '2'], { env: READY });
    expect(
      json.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { id: 1, dryRun: true, skip: true, journal: true },
      { id: 2, dryRun: true, method: 'DELETE', url: 'https://api.example.com/plants/2' },
    ]);
    expect(readFileSync(journal()).equals(before)).toBe(true);
    expect(existsSync(`${journal()}.lock`)).toBe(false);
  });

  it('--dry-run with a journal that does not exist yet creates nothing', async () => {
    const dry = await run(['delete', '--dry-run', '--journal', journal(), '1'], { env: READY });
    expect(dry.exit).toBe(0);
    expect(existsSync(journal())).toBe(false);
  });

  it.each<[string, () => void, RegExp]>([
    [
      'written for another base URL',
      () =>
        writeFileSync(
          journal(),
          `${JSON.stringify({ plantstore: 'delete-journal', version: 1, baseUrl: 'https://other.example.com', profile: 'default', started: '2026-01-01T00:00:00.000Z' })}\n{"id":1,"deleted":true,"status":204}\n`,
          { mode: 0o600 },
        ),
      /journal .* was written for https:\/\/other\.example\.com .* and this run uses https:\/\/api\.example\.com/,
    ],
    ['not a journal', () => writeFileSync(journal(), 'id,status\n1,204\n', { mode: 0o600 }), /is not a plantstore journal/],
  ])('a file %s is refused (exit 2): nothing sent, the file byte-for-byte as it was', async (_name, plant, message) => {
    plant();
    const before = readFileSync(journal());
    const refusedRun = await run(['delete', '--journal', journal(), '1', '2'], { env: READY });
    expect(refusedRun.exit).toBe(2);
    expect(refusedRun.error).toMatch(message);
    expect(refusedRun.error).not.toContain(TOKEN);
    expect(refusedRun.sent).toEqual([]);
    expect(readFileSync(journal()).equals(before)).toBe(true);
  });

  it('never writes the token into the journal, even when the server echoes it', async () => {
    await run(['delete', '--journal', journal(), '1'], {
      env: READY,
      answer: (id) => refused(id, { status: 400, error: 9, message: `bad token ${TOKEN}` }),
    });
    const text = readFileSync(journal(), 'utf8');
    expect(text).not.toContain(TOKEN);
    expect(text).toContain('bad token ***');
  });
});
