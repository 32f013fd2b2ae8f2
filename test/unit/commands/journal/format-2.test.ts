// Issue 42 item 2: a journal of format 2, written by the release before format 3 (delete's --json
// lines as records, no operation in its header), is read, reported and resumed exactly as before.
// format-2.journal is such a file, byte for byte, made by that release against a scripted server:
// ids 1 and 5 deleted, 2 absent, 3 refused (403), 4 uncertain (503), then a --fail-fast run, then a
// run killed with -9 with 6 deleted and 8 in flight. The expected outputs are that release's own.
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inProcess } from '../../../helpers/in-process.js';
import { journalFolder, sent, V2 } from '../../batch/journal/fixtures.js';

const FIXTURE = path.join(import.meta.dirname, 'format-2.journal');
const { run } = inProcess();
const folder = journalFolder();

/** The fixture at a path of the test's, and what the release before printed for it there (its path was "FILE"). */
function fixture(): { file: string; said: (text: string) => string } {
  const file = path.join(folder.dir, 'f2.journal');
  copyFileSync(FIXTURE, file);
  return { file, said: (text) => text.replaceAll('FILE', file) };
}

const STATUS = `journal    FILE  started 2026-11-28T07:34:34.023Z
last run   ended without a record (killed?): how many of its 3 ids it did not send is unknown
base URL   http://127.0.0.1:41289
profile    default
deleted    3
absent     1
failed     1  (exit 4: 1; API error 7: 1)
in flight  2  (sent with no decided answer: the plant may be deleted)
not sent   unknown  (the last run of FILE ended without a record)
job        unfinished: plantstore journal left FILE < LIST prints the ids left
`;
const STATUS_JSON = `{"files":[{"path":"FILE","started":"2026-11-28T07:34:34.023Z","running":false,"tornBytes":0,"lastRun":{"ended":null,"ids":3,"notSent":null,"unrecorded":null,"earlier":null,"readAll":null}}],"missingShards":[],"baseUrl":"http://127.0.0.1:41289","profile":"default","finished":false,"ended":null,"deleted":3,"absent":1,"failed":1,"inFlight":2,"notSent":null,"unrecorded":null,"failedByExit":{"4":1},"failedByError":{"7":1}}
`;
const FAILED_JSON = `{"id":3,"state":"failed","exit":4,"error":7}
{"id":4,"state":"inFlight","exit":6,"error":3}
{"id":8,"state":"inFlight"}
`;
const LEFT_JSON = `{"id":3,"state":"failed","exit":4,"error":7}
{"id":4,"state":"inFlight","exit":6,"error":3}
{"id":7,"state":"unrecorded"}
{"id":8,"state":"inFlight"}
{"id":9,"state":"unrecorded"}
{"id":10,"state":"unrecorded"}
`;
const TEN = ['1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n'];

describe('a journal of format 2, as the release before format 3 wrote it', () => {
  it('journal status, failed and left print what that release printed, byte for byte', async () => {
    const { file, said } = fixture();
    expect((await run(['journal', 'status', file])).stdout).toBe(said(STATUS));
    expect((await run(['--json', 'journal', 'status', file])).stdout).toBe(said(STATUS_JSON));
    const failed = await run(['journal', 'failed', file]);
    expect(failed.stdout).toBe('3\n4\n8\n');
    expect(failed.stderr).toBe(
      said(
        'plantstore: the journal does not say how many ids its last run left unsent (it ended without a record, or is still running), so this list may lack some; plantstore journal left FILE < LIST prints every id of LIST left to do\n',
      ),
    );
    expect((await run(['--json', 'journal', 'failed', file])).stdout).toBe(FAILED_JSON);
    expect((await run(['journal', 'left', file], { stdin: TEN })).stdout).toBe('3\n4\n7\n8\n9\n10\n');
    expect((await run(['--json', 'journal', 'left', file], { stdin: TEN })).stdout).toBe(LEFT_JSON);
    expect(readFileSync(file)).toEqual(readFileSync(FIXTURE));
  });

  it('is resumed by delete: its bytes kept, the ids it finished skipped, and it goes on in format 2', async () => {
    const { file } = fixture();
    const resumed = await run(
      ['delete', '--journal', file, '--ignore-missing', '--concurrency', '1', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
      {
        env: { PLANTSTORE_BASE_URL: 'http://127.0.0.1:41289', PLANTSTORE_TOKEN: 'fixture-token-1' },
      },
    );
    expect(resumed.exit).toBe(0);
    expect(resumed.sent).toEqual(['3', '4', '7', '8', '9']);
    const before = readFileSync(FIXTURE, 'utf8');
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith(before)).toBe(true);
    const idLines = text
      .slice(before.length)
      .split('\n')
      .filter((line) => line.startsWith('{"id":'));
    // A sent line before each id's request, its result once decided (the fake service answers at once: results come in batches).
    expect(idLines.filter((line) => line.endsWith('"sent":true}'))).toEqual(['3', '4', '7', '8', '9'].map(sent));
    expect(idLines.filter((line) => !line.endsWith('"sent":true}'))).toEqual(['3', '4', '7', '8', '9'].map(V2.deleted));
    const status = (await run(['journal', 'status', file])).stdout.split('\n');
    expect(status.slice(4, 9)).toEqual(['deleted    8', 'absent     1', 'failed     0', 'in flight  0', 'not sent   0']);
  });
});
