// Issue 35 item 5: `journal status` prints a short aligned block (or one --json object with
// numeric counts), `journal failed` the ids still to do, one a line; neither needs a token, a base
// URL or a config file, and a mistyped subcommand gets "did you mean".
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectUsageError, inProcess } from '../../../helpers/in-process.js';
import { HEADER_V2, journalFolder, sent, V2 } from '../../batch/journal/fixtures.js';

// Journals of format 2 (delete's, written before format 3), read as they always were.
const HEADER = HEADER_V2;
const { deleted, notSent } = V2;

const { run } = inProcess();
const folder = journalFolder();

const refused = (id: string): string =>
  `{"id":${id},"deleted":false,"status":400,"error":1,"message":"plant ${id} does not exist","exit":1}`;
const uncertain = (id: string): string =>
  `{"id":${id},"deleted":false,"status":503,"error":null,"message":"Service Unavailable","exit":6,"uncertain":true}`;

function journal(lines: readonly string[]): string {
  writeFileSync(folder.file, `${[HEADER, ...lines].join('\n')}\n`);
  return folder.file;
}

const LINES = [sent('1'), deleted('1'), sent('2'), refused('2'), sent('3'), uncertain('3'), sent('9007199254740993'), notSent('5')];

describe('plantstore journal status', () => {
  it('prints an aligned block: the file, the run, each count, failures by exit and API error code', async () => {
    const file = journal(LINES);
    const result = await run(['journal', 'status', file], { env: { PLANTSTORE_TOKEN: '', PLANTSTORE_BASE_URL: '' } });
    expect(result.exit).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      `journal    ${file}  started 2026-03-01T12:00:00.000Z`,
      'last run   not recorded (plantstore 2.0 did not record how a run ended)',
      'base URL   https://plants.example.com',
      'profile    default',
      'deleted    1',
      'absent     0',
      'failed     1  (exit 1: 1; API error 1: 1)',
      'in flight  2  (sent with no decided answer: the plant may be deleted)',
      `not sent   unknown  (${file} does not record how its runs ended)`,
      `job        unfinished: plantstore journal left ${file} < LIST prints the ids left`,
      '',
    ]);
  });

  it('gives one --json object with numeric counts', async () => {
    const file = journal(LINES);
    const result = await run(['--json', 'journal', 'status', file]);
    expect(JSON.parse(result.stdout)).toEqual({
      files: [
        {
          path: file,
          started: '2026-03-01T12:00:00.000Z',
          running: false,
          tornBytes: 0,
          lastRun: { ended: null, ids: null, notSent: null, unrecorded: null, earlier: null, readAll: null },
        },
      ],
      missingShards: [],
      baseUrl: 'https://plants.example.com',
      profile: 'default',
      // A journal of 2.0 does not say how its last run ended: how many ids it left is unknown, never 0.
      finished: false,
      ended: null,
      deleted: 1,
      absent: 0,
      failed: 1,
      inFlight: 2,
      notSent: null,
      unrecorded: null,
      failedByExit: { 1: 1 },
      failedByError: { 1: 1 },
    });
  });

  it('refuses a file that is not a journal with exit 2 and one line', async () => {
    const file = path.join(folder.dir, 'ids.txt');
    writeFileSync(file, '1\n2\n');
    const result = await run(['journal', 'status', file]);
    expect(result.exit).toBe(2);
    expect(result.error).toMatch(/is not a plantstore journal/);
    expect(result.error).not.toContain('\n');
    expect(result.stdout).toBe('');
  });

  it('says "did you mean" for a mistyped subcommand', async () => {
    expectUsageError(await run(['journal', 'stauts', 'x']), /unknown command 'stauts' \(did you mean status\?\)/);
  });
});

describe('plantstore journal failed', () => {
  it('prints the ids still to do (failed, in flight, not sent), exact, in numeric order, one a line', async () => {
    const result = await run(['journal', 'failed', journal(LINES)]);
    expect(result.exit).toBe(0);
    expect(result.stdout).toBe('2\n3\n5\n9007199254740993\n');
  });

  it('with --json, one object per id with its state and its last failure codes', async () => {
    const result = await run(['--json', 'journal', 'failed', journal(LINES)]);
    expect(result.stdout.trim().split('\n')).toEqual([
      '{"id":2,"state":"failed","exit":1,"error":1}',
      '{"id":3,"state":"inFlight","exit":6}',
      '{"id":5,"state":"notSent"}',
      '{"id":9007199254740993,"state":"inFlight"}',
    ]);
  });

  it('prints nothing and exits 0 when every id is done', async () => {
    const result = await run(['journal', 'failed', journal([sent('1'), deleted('1')])]);
    expect(result).toMatchObject({ exit: 0, stdout: '' });
  });
});

// Issue 40 item 1: what is left of a job is what the list holds and the journal does not record as done.
describe('plantstore journal left', () => {
  const list = ['# the job', '9', '3 1', '9007199254740993', '2', '5', '7', '1', ''].join('\n');

  it("prints, in the list's order, each id not recorded deleted or absent, those no line names included; repeats once", async () => {
    const result = await run(['journal', 'left', journal(LINES)], { stdin: [list] });
    expect(result).toMatchObject({ exit: 0, stdout: '9\n3\n9007199254740993\n2\n5\n7\n' });
  });

  it('with --json, each id with its state; "unrecorded" for one no line names', async () => {
    const result = await run(['--json', 'journal', 'left', journal(LINES)], { stdin: ['9 3 5'] });
    expect(result.stdout.trim().split('\n')).toEqual([
      '{"id":9,"state":"unrecorded"}',
      '{"id":3,"state":"inFlight","exit":6}',
      '{"id":5,"state":"notSent"}',
    ]);
  });

  it('refuses an invalid id in the list (exit 2), naming its line, and prints nothing', async () => {
    const result = await run(['journal', 'left', journal(LINES)], { stdin: ['1\n2x\n'] });
    expect(result.exit).toBe(2);
    expect(result.error).toMatch(/invalid plant id '2x' on line 2 of standard input/);
    expect(result.stdout).toBe('');
  });

  it('no list on stdin (a forgotten < LIST) is a usage error, never "nothing left"', async () => {
    const result = await run(['journal', 'left', journal(LINES)], { stdin: ['# nothing\n'] });
    expect(result.exit).toBe(2);
    expect(result.error).toBe("no plant ids on standard input: give the job's list, as in plantstore journal left FILE < ids.txt");
    expect(result.stdout).toBe('');
  });

  it('nothing left: no output, exit 0', async () => {
    const result = await run(['journal', 'left', journal(LINES)], { stdin: ['1\n'] });
    expect(result).toMatchObject({ exit: 0, stdout: '' });
  });
});

describe('plantstore journal status --watch (issue 41 item 5)', () => {
  const finishedRun = [
    '{"start":"2026-03-01T12:00:01.000Z","ids":2}',
    sent('1'),
    deleted('1'),
    sent('2'),
    refused('2'),
    '{"end":"finished","ids":2,"notSent":0,"unrecorded":0,"readAll":true}',
  ];

  it('over a job finished from the start, says so at once and ends, exit 0 (as gh run watch ends with its run)', async () => {
    const result = await run(['journal', 'status', '-w', journal(finishedRun)]);
    expect(result.exit).toBe(0);
    expect(result.stdout.split('\n')).toEqual([
      `${folder.file} finished: its 2 ids, each decided`,
      'decided 2 of 2 (100%): 1 deleted, 0 absent, 1 failed, 0 in flight, 0 not sent; rate unknown, 0:00 left',
      'job finished: the last run went through every id',
      '',
    ]);
  });

  it('refuses what journal status refuses, before watching: a file that is not a journal is exit 2', async () => {
    const file = path.join(folder.dir, 'ids.txt');
    writeFileSync(file, '1\n2\n');
    const result = await run(['journal', 'status', '--watch', file]);
    expect(result.exit).toBe(2);
    expect(result.error).toMatch(/is not a plantstore journal/);
  });
});
