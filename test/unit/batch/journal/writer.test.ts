import fs, { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type JournalIo, JournalWriteError, openJournal, readJournalForPlan } from '../../../../src/batch/journal/index.js';
import { LOCK_STALE_MS, staleLock } from '../../../../src/config/lock.js';
import { Exit } from '../../../../src/errors.js';
import { smallDisk } from '../../../helpers/small-disk.js';
import { DONE, deleted, HEADER, journalFolder, RUN, STARTED } from './fixtures.js';

const at = journalFolder();
afterEach(() => vi.useRealTimers());
const lines = (file = at.file): string[] => readFileSync(file, 'utf8').split('\n');

describe('the one-second flush', () => {
  it('writes results at the end of their turn of the event loop, and fsyncs each second, by a timer that never keeps the process alive', async () => {
    vi.useFakeTimers();
    const io = { ...realSyscalls(), fsyncs: 0 };
    io.fsync = (fd) => {
      io.fsyncs++;
      fs.fsyncSync(fd);
    };
    const journal = await openJournal(at.file, { ...RUN, started: STARTED, io });
    journal.record('1', DONE);
    expect(lines()).toEqual([HEADER, '']);
    vi.advanceTimersByTime(0);
    expect(lines()).toEqual([HEADER, deleted('1'), '']);
    vi.advanceTimersByTime(998);
    expect(io.fsyncs).toBe(0);
    vi.advanceTimersByTime(2);
    expect(io.fsyncs).toBe(1);
    // Nothing new written: nothing to sync.
    vi.advanceTimersByTime(1000);
    expect(io.fsyncs).toBe(1);
    journal.recordSent('2');
    vi.advanceTimersByTime(1000);
    expect(io.fsyncs).toBe(2);
    journal.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('renews the lock each second: a run going for longer than LOCK_STALE_MS is never judged stale', async () => {
    vi.useFakeTimers();
    const journal = await openJournal(at.file, RUN);
    vi.setSystemTime(Date.now() + 2 * LOCK_STALE_MS);
    expect(staleLock(`${at.file}.lock`)).toBeDefined();
    vi.advanceTimersByTime(1000);
    expect(staleLock(`${at.file}.lock`)).toBeUndefined();
    expect(journal.failure).toBeUndefined();
    journal.close();
  });
});

function realSyscalls(): JournalIo {
  return {
    write: (fd, data, offset, length) => fs.writeSync(fd, data, offset, length),
    fsync: (fd) => fs.fsyncSync(fd),
    ftruncate: (fd, length) => fs.ftruncateSync(fd, length),
  };
}

/** The real system calls, except the `nth` call of `which`, which fails with `code` (after writing `partial` bytes, for a write). */
function failingIo(which: 'write' | 'fsync', code: string, partial = 0): JournalIo & { calls: number } {
  const io = {
    calls: 0,
    write(fd: number, data: Buffer, offset: number, length: number): number {
      if (which === 'write' && ++io.calls === 1) {
        if (partial > 0) return fs.writeSync(fd, data, offset, partial);
        throw Object.assign(new Error(code), { code });
      }
      if (which === 'write' && io.calls === 2 && partial > 0) throw Object.assign(new Error(code), { code });
      return fs.writeSync(fd, data, offset, length);
    },
    fsync(fd: number): void {
      if (which === 'fsync' && ++io.calls === 1) throw Object.assign(new Error(code), { code });
      fs.fsyncSync(fd);
    },
    ftruncate: (fd: number, length: number) => fs.ftruncateSync(fd, length),
  };
  return io;
}

describe('a failed write is never silent', () => {
  it.each([
    [
      'ENOSPC on the write',
      failingIo('write', 'ENOSPC'),
      /: no space left on the device, so the results from here on are not recorded; free some space/,
    ],
    ['ENOSPC after half a line was written', failingIo('write', 'ENOSPC', 30), /: no space left on the device, so/],
    ['EIO from fsync', failingIo('fsync', 'EIO'), /: input\/output error, so the results from here on are not recorded; check the disk/],
  ])('%s: flush throws, onFailure is told once, every later call throws, and the file reads back whole', async (_, io, said) => {
    const failures: JournalWriteError[] = [];
    const journal = await openJournal(at.file, { ...RUN, started: STARTED, io, onFailure: (error) => failures.push(error) });
    journal.record('1', DONE);
    journal.record('2', DONE);
    const error = (() => {
      try {
        journal.flush();
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(JournalWriteError);
    expect((error as JournalWriteError).exit).toBe(Exit.internal);
    expect((error as JournalWriteError).message).toMatch(said);
    expect(failures).toEqual([error]);
    expect(journal.failure).toBe(error);
    expect(() => journal.record('3', DONE)).toThrow(error as Error);
    expect(() => journal.flush()).toThrow(error as Error);
    expect(() => journal.close()).toThrow(error as Error);
    // Closed all the same: the lock is gone, and the next run reads every line that is there.
    const plan = await readJournalForPlan(at.file, RUN);
    expect(plan.note).toBeUndefined();
    expect(lines()[0]).toBe(HEADER);
    expect(lines().at(-1)).toBe('');
    const next = await openJournal(at.file, RUN);
    next.close();
  });

  it('a sent line that cannot be written: recordSent throws, so its request never leaves, and the file keeps whole lines', async () => {
    const failures: JournalWriteError[] = [];
    const journal = await openJournal(at.file, {
      ...RUN,
      started: STARTED,
      io: failingIo('write', 'ENOSPC', 10),
      onFailure: (e) => failures.push(e),
    });
    journal.record('1', DONE);
    expect(() => journal.recordSent('2')).toThrow(/^cannot write journal .*: no space left on the device, so /);
    expect(failures.map((error) => error.code)).toEqual(['ENOSPC']);
    expect(() => journal.recordSent('3')).toThrow(JournalWriteError);
    expect(() => journal.close()).toThrow(JournalWriteError);
    expect(lines()).toEqual([HEADER, '']);
  });

  it('a failure on the timer: onFailure is told, and the next record throws', async () => {
    vi.useFakeTimers();
    const failures: JournalWriteError[] = [];
    const io = failingIo('write', 'EIO');
    const journal = await openJournal(at.file, { ...RUN, io, onFailure: (error) => failures.push(error) });
    journal.record('1', DONE);
    vi.advanceTimersByTime(1000);
    expect(failures.map((error) => error.code)).toEqual(['EIO']);
    expect(() => journal.record('2', DONE)).toThrow(JournalWriteError);
    expect(() => journal.close()).toThrow(JournalWriteError);
  });

  it('the lock taken over by another plantstore (this run stopped for 30 s): the run is told, and stops writing', async () => {
    vi.useFakeTimers();
    const failures: JournalWriteError[] = [];
    const journal = await openJournal(at.file, { ...RUN, started: STARTED, onFailure: (error) => failures.push(error) });
    journal.record('1', DONE);
    vi.advanceTimersByTime(1000);
    // Another run judged the lock stale, broke it and took its own.
    renameSync(`${at.file}.lock`, `${at.file}.broken`);
    writeFileSync(`${at.file}.lock`, '4242 elsewhere');
    journal.record('2', DONE);
    vi.advanceTimersByTime(1000);
    expect(failures.map((error) => error.code)).toEqual(['lock-lost']);
    expect(failures[0]?.message).toMatch(
      /^another plantstore took over journal .* results from here on are not recorded in it; once that run has ended, run the same command again to resume$/,
    );
    // Told at the next renewal: what was decided before it is written, nothing after.
    expect(() => journal.recordSent('3')).toThrow(JournalWriteError);
    expect(() => journal.close()).toThrow(JournalWriteError);
    expect(lines()).toEqual([HEADER, deleted('1'), deleted('2'), '']);
    // Its lock is left to its new holder.
    expect(readFileSync(`${at.file}.lock`, 'utf8')).toBe('4242 elsewhere');
  });
});

describe('a full disk', () => {
  it('the write that does not fit fails with ENOSPC, what was flushed before stays, and the file reads back whole', async (context) => {
    const disk = smallDisk(at.dir, '64k');
    if (disk === undefined) {
      context.skip('cannot mount a tmpfs here (needs root on Linux)');
      return;
    }
    try {
      const file = path.join(disk.dir, 'delete.journal');
      const journal = await openJournal(file, { ...RUN, started: STARTED });
      journal.record('1', DONE);
      journal.flush();
      // Fill the disk to its last byte: the journal's page still has room for a part of the next write.
      disk.fill();
      for (let id = 2; id < 2000; id++) journal.record(String(id), DONE);
      expect(() => journal.flush()).toThrow(/^cannot write journal .*: no space left on the device, so /);
      expect(() => journal.close()).toThrow(JournalWriteError);
      expect(lines(file)).toEqual([HEADER, deleted('1'), '']);
      const plan = await readJournalForPlan(file, RUN);
      expect(plan.counts().done).toBe(1);
      // A new journal on the full disk (filled again: the closed journal's lock freed a page): refused, no file left behind.
      disk.fill();
      await expect(openJournal(path.join(disk.dir, 'other.journal'), RUN)).rejects.toThrow(
        /^cannot create journal lock .*: no space left on the device; free some space, or give --journal another path$/,
      );
      expect(fs.readdirSync(disk.dir).sort()).toEqual(['delete.journal', 'filler']);
    } finally {
      disk.unmount();
    }
  });
});
