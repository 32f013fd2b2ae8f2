// Each way a journal is refused, by openJournal and by the --dry-run read alike: a
// JournalRefusedError (exit 2) with its reason, and what stands at the path left exactly
// as it was (kind, mode, owner, size, mtime, sha-256 of its bytes).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalRefusedError, openJournal, readJournalForPlan } from '../../../../src/batch/journal/index.js';
import { LOCK_STALE_MS } from '../../../../src/config/lock.js';
import { Exit } from '../../../../src/errors.js';
import { deleted, fingerprint, HEADER, HEADER_V2, journalFolder, RUN, V2 } from './fixtures.js';

const at = journalFolder();

async function refusal(work: () => Promise<unknown>): Promise<JournalRefusedError> {
  const error = await work().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(JournalRefusedError);
  expect((error as JournalRefusedError).exit).toBe(Exit.usage);
  return error as JournalRefusedError;
}

/** Both ways of opening refuse `file` for `reason`, and leave it, and the folder, as they were. */
async function refusedBoth(reason: string, run: { baseUrl: string; profile: string; operation?: string } = RUN): Promise<string> {
  const before = fingerprint(at.file);
  const folder = readdirSync(at.dir).sort();
  const opened = await refusal(() => openJournal(at.file, run));
  const planned = await refusal(() => readJournalForPlan(at.file, run));
  expect([opened.reason, planned.reason]).toEqual([reason, reason]);
  expect(fingerprint(at.file)).toBe(before);
  expect(readdirSync(at.dir).sort()).toEqual(folder);
  expect(opened.message).not.toMatch(/\n/);
  return opened.message;
}

const plant = (text: string | Buffer) => writeFileSync(at.file, text, { mode: 0o600 });
const header = (fields: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(HEADER), ...fields });

describe('a file that is not a plantstore journal', () => {
  it.each([
    ['no header', `${deleted('1')}\n${deleted('2')}\n`, /its first line does not say "plantstore":"delete-journal"/],
    ['another format', `${header({ plantstore: 'upload-journal' })}\n`, /does not say "plantstore":"delete-journal"/],
    ['another version', `${header({ version: 4 })}\n`, /it is in journal format 4, and this plantstore reads formats 1, 2 and 3/],
    ['format 3 without its operation', `${header({ operation: undefined })}\n`, /its header does not name the operation that wrote it/],
    [
      'a version written as a string',
      `${header({ version: '1' })}\n`,
      /it is in journal format "1", and this plantstore reads formats 1, 2 and 3/,
    ],
    ['a header without its run', `${header({ baseUrl: undefined })}\n`, /lacks the base URL/],
    ['garbage text', 'hello world\nsecond line\n', /its first line is not a JSON object/],
    ['a JSON array', '[1,2,3]\n', /its first line is not a JSON object/],
    ['a torn header and nothing else', HEADER.slice(0, 40), /it has no complete first line/],
    ['binary, no newline for a long way', Buffer.alloc(200_000, 0xab), /its first line is not a journal header/],
  ])('%s', async (_, text, why) => {
    plant(text);
    const message = await refusedBoth('not-journal');
    expect(message).toMatch(why);
    expect(message).toMatch(new RegExp(`^${at.file} is not a plantstore journal \\(`));
  });
});

describe('a damaged journal', () => {
  it('an invalid line before the last: refused, since which plants were finished is no longer known', async () => {
    plant([HEADER, deleted('1'), '{"id":2,"del', deleted('3'), ''].join('\n'));
    expect(await refusedBoth('corrupt')).toBe(
      `journal ${at.file} is damaged: line 3 is not a journal line, and good lines follow it; plantstore does not guess which plants it finished. Start a new journal, or repair that line`,
    );
  });

  it('a line longer than any plantstore writes, with a good line after it', async () => {
    plant([HEADER, deleted('1'), 'x'.repeat(100 * 1024), deleted('3'), ''].join('\n'));
    expect(await refusedBoth('corrupt')).toMatch(/line 3 is not a journal line, and good lines follow it/);
  });

  it('an id out of the int64 range is not a result line', async () => {
    plant([HEADER, deleted('9223372036854775808'), deleted('1'), ''].join('\n'));
    await refusedBoth('corrupt');
  });
});

describe('a journal of another operation', () => {
  it("another operation's journal: refused, naming the one that wrote it and this run's", async () => {
    plant(`${header({ operation: 'get' })}\n{"id":1,"sent":true}\n{"id":1,"state":"done","status":200}\n`);
    expect(await refusedBoth('other-operation')).toBe(
      `journal ${at.file} was written by plantstore get, and this run is plantstore delete: a journal resumes only the operation that wrote it; give --journal another file`,
    );
  });

  it("a format-2 journal is delete's: resumed by delete, refused to another operation", async () => {
    plant(`${HEADER_V2}\n${V2.deleted('1')}\n`);
    expect((await readJournalForPlan(at.file, { ...RUN, operation: 'delete' })).isDone('1')).toBe(true);
    expect(await refusedBoth('other-operation', { ...RUN, operation: 'get' })).toBe(
      `journal ${at.file} was written by plantstore delete, and this run is plantstore get: a journal resumes only the operation that wrote it; give --journal another file`,
    );
  });
});

describe('a journal of another run', () => {
  it('another base URL: both URLs named', async () => {
    plant(`${header({ baseUrl: 'https://staging.example.com/v2' })}\n${deleted('1')}\n{"id":2`);
    expect(await refusedBoth('other-run')).toBe(
      `journal ${at.file} was written for https://staging.example.com/v2 (profile default), and this run uses https://plants.example.com (profile default): resuming would skip plants never deleted there; give --journal another file`,
    );
  });

  it('another profile: the one URL named once', async () => {
    plant(`${header({ profile: 'ci' })}\n`);
    expect(await refusedBoth('other-run')).toBe(
      `journal ${at.file} was written for profile ci, and this run uses profile default (both at https://plants.example.com): resuming would skip plants never deleted there; give --journal another file`,
    );
  });

  it('another spelling of the same URL (a trailing slash, upper-case host) is the same run', async () => {
    plant(`${header({ baseUrl: 'https://PLANTS.example.com/' })}\n${deleted('1')}\n`);
    const journal = await openJournal(at.file, RUN);
    expect(journal.isDone('1')).toBe(true);
    journal.close();
  });

  it('two URLs that print alike (they differ in a password) are not named twice', async () => {
    plant(`${header({ baseUrl: 'https://plants.example.com?x=1' })}\n`);
    const message = await refusedBoth('other-run', { ...RUN, baseUrl: 'https://plants.example.com?x=2' });
    expect(message).toMatch(
      /written for another base URL that also prints as https:\/\/plants\.example\.com\?x=\*\*\* \(they differ in a part not shown/,
    );
    expect(message.match(/plants\.example\.com/g)).toHaveLength(1);
  });

  it("a header URL with a password or a query: neither is printed, nor the header's control characters", async () => {
    plant(`${header({ baseUrl: 'https://ci:hunter2-Secret@plants.example.com/?token=abc123', profile: 'x\u001b[31m' })}\n`);
    const message = await refusedBoth('other-run');
    expect(message).toContain('written for https://***@plants.example.com?token=*** (profile x\\x1b[31m)');
    expect(message).not.toMatch(/hunter2|abc123|\u001b/);
  });
});

describe('what stands at the path', () => {
  it('a symlink (to a real journal) is never followed', async () => {
    const real = path.join(at.dir, 'real.journal');
    writeFileSync(real, `${HEADER}\n`, { mode: 0o600 });
    symlinkSync(real, at.file);
    const before = fingerprint(real);
    expect(await refusedBoth('unsafe-file')).toMatch(/it is a symbolic link/);
    expect(fingerprint(real)).toBe(before);
  });

  it('a dangling symlink: nothing is created at its target', async () => {
    symlinkSync(path.join(at.dir, 'target'), at.file);
    await refusedBoth('unsafe-file');
    expect(readdirSync(at.dir)).toEqual(['delete.journal']);
  });

  it('a directory', async () => {
    mkdirSync(at.file);
    expect(await refusedBoth('unsafe-file')).toBe(`cannot use ${at.file} as a journal: it is a directory; give --journal another path`);
  });

  it.skipIf(process.platform === 'win32')('a FIFO, refused at once without waiting for a writer', async () => {
    execFileSync('mkfifo', [at.file]);
    expect(await refusedBoth('unsafe-file')).toMatch(/it is not a regular file \(a FIFO\)/);
  });

  it.skipIf(process.getuid?.() !== 0)('a journal another user owns (needs root, to plant it with chown)', async () => {
    plant(`${HEADER}\n${deleted('1')}\n`);
    chownSync(at.file, 65534, 65534);
    expect(await refusedBoth('unsafe-file')).toMatch(/it belongs to another user \(uid 65534, you are 0\), who may have planted it/);
  });

  it('a folder that does not exist: the lock cannot be made', async () => {
    const missing = path.join(at.dir, 'no-such-folder', 'j');
    const error = await refusal(() => openJournal(missing, RUN));
    expect(error.reason).toBe('unopenable');
    expect(error.message).toMatch(/cannot create journal lock .*: its folder does not exist; create the folder/);
    expect(error.detail).toBe('ENOENT');
  });
});

describe('a journal in use', () => {
  it('by another journal open in a running plantstore: refused at once, saying so', async () => {
    plant(`${HEADER}\n${deleted('1')}\n`);
    const running = await openJournal(at.file, RUN);
    const before = fingerprint(at.file);
    const error = await refusal(() => openJournal(at.file, RUN));
    expect(error.reason).toBe('in-use');
    expect(error.message).toMatch(new RegExp(`^journal ${at.file} is in use by another running plantstore \\(lock ${at.file}\\.lock\\)`));
    expect(fingerprint(at.file)).toBe(before);
    running.close();
  });

  it('by a live process on this machine, however old its lock: refused only while it is renewed', async () => {
    plant(`${HEADER}\n`);
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      writeFileSync(`${at.file}.lock`, `${live.pid} ${hostname()}`);
      expect((await refusal(() => openJournal(at.file, RUN))).reason).toBe('in-use');
      // Not renewed for longer than LOCK_STALE_MS: its holder stopped (suspended, or hung), and the journal is taken over.
      const old = new Date(Date.now() - 2 * LOCK_STALE_MS);
      utimesSync(`${at.file}.lock`, old, old);
      const journal = await openJournal(at.file, RUN);
      journal.close();
    } finally {
      live.kill('SIGKILL');
    }
  });

  it('left by a run killed with -9 on this machine: taken over at once', async () => {
    plant(`${HEADER}\n${deleted('1')}\n`);
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(`${at.file}.lock`, `${gone} ${hostname()}`);
    const journal = await openJournal(at.file, RUN);
    expect(journal.isDone('1')).toBe(true);
    journal.close();
    expect(readdirSync(at.dir)).toEqual(['delete.journal']);
  });

  it.skipIf(process.platform !== 'linux')(
    'left by a zombie (killed, not yet reaped by its parent): taken over at once',
    async () => {
      plant(`${HEADER}\n${deleted('1')}\n`);
      // sh starts a child, then becomes a process that never reaps it (exec sleep); the child is
      // killed only once the exec is done (the parent's name is sleep): a child that ended while its
      // parent was still sh would be reaped by sh, and no zombie left.
      const parent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
      try {
        const pid = await new Promise<number>((resolve) =>
          parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
        );
        await expect.poll(() => readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim(), { timeout: 10_000 }).toBe('sleep');
        process.kill(pid, 'SIGKILL');
        // The child's state, as the kernel reports it: Z once it has ended, unreaped.
        const state = () => {
          const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
          return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
        };
        await expect.poll(state, { timeout: 10_000 }).toBe('Z');
        expect(() => process.kill(pid, 0)).not.toThrow();
        writeFileSync(`${at.file}.lock`, `${pid} ${hostname()}`);
        const journal = await openJournal(at.file, RUN);
        expect(journal.isDone('1')).toBe(true);
        journal.close();
      } finally {
        parent.kill('SIGKILL');
      }
      // A hang guard above the polls' 10 s each, not a speed limit.
    },
    30_000,
  );

  it('left by a run on another machine: refused while fresh, taken over once not renewed for 30 s', async () => {
    plant(`${HEADER}\n`);
    writeFileSync(`${at.file}.lock`, '4242 build-runner-7');
    expect((await refusal(() => openJournal(at.file, RUN))).reason).toBe('in-use');
    const old = new Date(Date.now() - LOCK_STALE_MS - 1000);
    utimesSync(`${at.file}.lock`, old, old);
    (await openJournal(at.file, RUN)).close();
  });
});
