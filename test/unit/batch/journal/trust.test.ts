// A journal no one else wrote (issue 34): a journal file, its lock or its folder that others could
// have written is refused, by openJournal and by the --dry-run read alike, exit 2, leaving
// everything as it was; and a journal resumed with other credentials than it was written with
// is refused unless the run says it is the same account. "Another user" is uid 65534 (these
// tests chown, so those cases run as root, as the sandbox's tests do).
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunCredentials } from '../../../../src/batch/journal/credentials.js';
import { JournalRefusedError, openJournal, readJournalForPlan } from '../../../../src/batch/journal/index.js';
import { Exit } from '../../../../src/errors.js';
import { DONE, deleted, fingerprint, HEADER, journalFolder, RUN } from './fixtures.js';

const at = journalFolder();
/** The journal's path: at.file, or one in another folder a test made. */
let file = '';
beforeEach(() => {
  file = at.file;
});
const posix = process.platform !== 'win32';
const asRoot = posix && process.getuid?.() === 0;
const OTHER = 65534;
const modes = (...list: number[]) => list.map((mode) => ({ mode, octal: mode.toString(8) }));

const TOKEN: RunCredentials = { kind: 'token', token: 'account-A-token-0123456789' };
const OTHER_TOKEN: RunCredentials = { kind: 'token', token: 'account-B-token-9876543210' };
const COMMAND: RunCredentials = { kind: 'token-command', command: 'pass show plants/account-a' };

async function refusal(work: () => Promise<unknown>): Promise<JournalRefusedError> {
  const error = await work().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JournalRefusedError);
  expect((error as JournalRefusedError).exit).toBe(Exit.usage);
  expect((error as Error).message).not.toMatch(/\n/);
  return error as JournalRefusedError;
}

/** Both ways of opening refuse for `reason`, and the file and its folder are left as they were. */
async function refusedBoth(reason: string, run: Parameters<typeof openJournal>[1] = { ...RUN, credentials: TOKEN }): Promise<string> {
  const before = fingerprint(file);
  const folder = readdirSync(path.dirname(file)).sort();
  const opened = await refusal(() => openJournal(file, run));
  const planned = await refusal(() => readJournalForPlan(file, run));
  expect([opened.reason, planned.reason]).toEqual([reason, reason]);
  expect(planned.message).toBe(opened.message);
  expect(fingerprint(file)).toBe(before);
  expect(readdirSync(path.dirname(file)).sort()).toEqual(folder);
  return opened.message;
}

/** A journal of account A that says plants 42 and 43 are deleted. */
async function journalOfA(): Promise<void> {
  const journal = await openJournal(file, { ...RUN, credentials: TOKEN });
  journal.record('42', DONE);
  journal.record('43', DONE);
  journal.close();
}

describe.runIf(posix)('a journal others could have written is refused before anything is sent (exit 2)', () => {
  it.each(modes(0o666, 0o646, 0o620, 0o622))("the issue's case: mode $octal, with planted deleted lines", async ({ mode }) => {
    writeFileSync(file, `${HEADER}\n${deleted('42')}\n${deleted('43')}\n`, { mode });
    chmodSync(file, mode);
    const message = await refusedBoth('unsafe-file', RUN);
    expect(message).toBe(
      `cannot use ${file} as a journal: it is writable by others (mode ${mode.toString(8)}), so anyone could have added lines to it, and a plant it records as deleted is never sent; check that every line is yours, then run chmod 600 ${file}`,
    );
  });

  it.each(modes(0o600, 0o644, 0o640))('mode $octal (only you can write it) is read', async ({ mode }) => {
    writeFileSync(file, `${HEADER}\n${deleted('42')}\n`, { mode });
    chmodSync(file, mode);
    expect((await readJournalForPlan(file, RUN)).isDone('42')).toBe(true);
  });

  it.each(modes(0o777, 0o770, 0o730))(
    'a folder of mode $octal without the sticky bit: refused, a new journal not created',
    async ({ mode }) => {
      const folder = path.join(at.dir, 'shared');
      mkdirSync(folder);
      chmodSync(folder, mode);
      file = path.join(folder, 'delete.journal');
      const message = await refusedBoth('unsafe-file');
      expect(message).toBe(
        `cannot use ${file} as a journal: its folder ${folder} is writable by others (mode ${mode.toString(8)}), so anyone could replace it; run chmod go-w ${folder}, or give --journal a path in a folder only you can write`,
      );
      expect(readdirSync(folder)).toEqual([]);
    },
  );

  it('a sticky folder others can write (as /tmp) is fine', async () => {
    const folder = path.join(at.dir, 'sticky');
    mkdirSync(folder);
    chmodSync(folder, 0o1777);
    file = path.join(folder, 'delete.journal');
    (await openJournal(file, { ...RUN, credentials: TOKEN })).close();
    expect(readdirSync(folder)).toEqual(['delete.journal']);
  });

  it.runIf(asRoot)("a folder another user owns is refused; root's is not", async () => {
    const folder = path.join(at.dir, 'theirs');
    mkdirSync(folder, { mode: 0o755 });
    chownSync(folder, OTHER, OTHER);
    file = path.join(folder, 'delete.journal');
    const message = await refusedBoth('unsafe-file');
    expect(message).toContain(`its folder ${folder} belongs to another user (uid ${OTHER}), who could replace it or add lines to it`);
    chownSync(folder, 0, 0);
    (await openJournal(file, { ...RUN, credentials: TOKEN })).close();
  });

  it('a lock of ours that others can write is refused (the journal is left as it was)', async () => {
    await journalOfA();
    writeFileSync(`${file}.lock`, '', { mode: 0o666 });
    chmodSync(`${file}.lock`, 0o666);
    const message = await refusedBoth('unsafe-file');
    expect(message).toBe(
      `cannot use ${file} as a journal: its lock ${file}.lock is writable by others (mode 666), so anyone could hold or forge it; if no plantstore is running on this journal, remove it (rm ${file}.lock)`,
    );
  });
});

describe('a journal records the credentials it was written with, never the token', () => {
  it('a new journal: a salted print of the token in its header, not the token, different salt each time', async () => {
    await journalOfA();
    const first = JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string);
    expect(first.credentials).toEqual({ kind: 'token', kdf: 'scrypt-16384-8-1', salt: expect.any(String), hash: expect.any(String) });
    expect(readFileSync(file, 'utf8')).not.toContain(TOKEN.token);
    const other = path.join(at.dir, 'second.journal');
    (await openJournal(other, { ...RUN, credentials: TOKEN })).close();
    const second = JSON.parse(readFileSync(other, 'utf8').split('\n')[0] as string);
    expect(second.credentials.salt).not.toBe(first.credentials.salt);
    expect(second.credentials.hash).not.toBe(first.credentials.hash);
  });

  it('resumed with the same token: read, no note', async () => {
    await journalOfA();
    const journal = await openJournal(file, { ...RUN, credentials: TOKEN });
    expect(journal.isDone('42')).toBe(true);
    expect(journal.note).toBeUndefined();
    journal.close();
  });

  it.each([
    ['another token', OTHER_TOKEN, 'a token; this run uses another token'],
    ['a token command', COMMAND, 'a token; this run uses a token command'],
  ])('resumed with %s: refused (exit 2), both ways, file untouched', async (_, credentials, words) => {
    await journalOfA();
    const message = await refusedBoth('other-credentials', { ...RUN, credentials });
    expect(message).toBe(
      `journal ${file} was written with other credentials (${words}): resuming would skip the plants it records as deleted, which another account may still have; if both are the same account (a renewed token), add --journal-same-account, else give --journal another file`,
    );
  });

  it('resumed with other credentials as the same account (--journal-same-account): read, with a note', async () => {
    await journalOfA();
    const journal = await openJournal(file, { ...RUN, credentials: OTHER_TOKEN, sameAccount: true });
    expect(journal.isDone('42')).toBe(true);
    expect(journal.note).toBe(
      `journal ${file} was written with other credentials (a token; this run uses another token): resumed as one account, as --journal-same-account says`,
    );
    journal.close();
    expect((await readJournalForPlan(file, { ...RUN, credentials: OTHER_TOKEN, sameAccount: true })).isDone('43')).toBe(true);
  });

  it('a token command is recognised by its text, the command never run', async () => {
    (await openJournal(file, { ...RUN, credentials: COMMAND })).close();
    expect(readFileSync(file, 'utf8')).not.toContain('account-a');
    (await openJournal(file, { ...RUN, credentials: COMMAND })).close();
    await refusedBoth('other-credentials', { ...RUN, credentials: { kind: 'token-command', command: 'pass show plants/account-b' } });
  });

  it('a journal written by plantstore 2.0 (no print) is resumed, with a note saying the credentials were not checked', async () => {
    writeFileSync(file, `${HEADER}\n${deleted('42')}\n`, { mode: 0o600 });
    const note = `journal ${file} was started by a plantstore that did not record the credentials it was written with: it is resumed without checking them`;
    const plan = await readJournalForPlan(file, { ...RUN, credentials: TOKEN });
    expect([plan.isDone('42'), plan.note]).toEqual([true, note]);
    const journal = await openJournal(file, { ...RUN, credentials: TOKEN });
    expect([journal.isDone('42'), journal.note]).toEqual([true, note]);
    journal.close();
  });

  it.each([
    ['not an object', 'x', /its credentials field is not an object/],
    [
      'an unknown kdf',
      { kind: 'token', kdf: 'md5', salt: 'AAAA', hash: 'AAAA' },
      /recorded with "md5", which this plantstore cannot check/,
    ],
    ['a short hash', { kind: 'token', kdf: 'scrypt-16384-8-1', salt: 'AAAAAAAAAAAAAAAAAAAAAA==', hash: 'AAAA' }, /not in the form/],
  ])('a print that is %s: not a journal this plantstore can check (exit 2)', async (_, credentials, why) => {
    writeFileSync(file, `${JSON.stringify({ ...JSON.parse(HEADER), credentials })}\n`, { mode: 0o600 });
    expect(await refusedBoth('not-journal')).toMatch(why);
  });
});
