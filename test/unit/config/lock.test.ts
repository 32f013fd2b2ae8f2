// The config lock's steps, driven one by one so that the interleavings that lost a login
// under 40 concurrent logins happen every time: a stale lock broken by two processes.

import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lutimesSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { breakStaleLock, LOCK_STALE_MS, releaseLock, staleLock, tryLock, withLock } from '../../../src/config/lock.js';

let dir: string;
let file: string;
let lock: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-lock-'));
  file = path.join(dir, 'config.json');
  lock = `${file}.lock`;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A lock left by a process that died long ago. */
function plantStaleLock(): void {
  writeFileSync(lock, '99999');
  const old = new Date(Date.now() - 2 * LOCK_STALE_MS);
  utimesSync(lock, old, old);
}

describe('breaking a stale lock', () => {
  it("two processes judged the same lock stale: the second does not remove the first one's fresh lock", () => {
    plantStaleLock();
    // Both A and B look at the lock and find it stale.
    const judgedByA = staleLock(lock);
    const judgedByB = staleLock(lock);
    expect(judgedByA).toBeDefined();
    expect(judgedByB).toEqual(judgedByA);
    // A breaks it and takes its own.
    breakStaleLock(lock, judgedByA!);
    const heldByA = tryLock(lock, file);
    expect(heldByA).toBeDefined();
    const fresh = statSync(lock);
    // B now acts on its earlier judgement: A's lock must survive it, the same file.
    breakStaleLock(lock, judgedByB!);
    expect(existsSync(lock)).toBe(true);
    expect(statSync(lock).ino).toBe(fresh.ino);
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid} ${hostname()}`);
    // So B cannot take the lock while A holds it.
    expect(tryLock(lock, file)).toBeUndefined();
    releaseLock(lock, heldByA!);
    expect(existsSync(lock)).toBe(false);
  });

  it('leaves no file of its own behind', () => {
    plantStaleLock();
    breakStaleLock(lock, staleLock(lock)!);
    expect(existsSync(lock)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a fresh lock is not stale while its owner runs, or when it says nothing of one', () => {
    writeFileSync(lock, `${process.pid} ${hostname()}`);
    expect(staleLock(lock)).toBeUndefined();
    writeFileSync(lock, '');
    expect(staleLock(lock)).toBeUndefined();
  });

  it('a fresh lock whose owner on this machine is gone (killed with -9) is stale at once; on another machine it is not', () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(lock, `${gone} ${hostname()}`);
    expect(staleLock(lock)).toBeDefined();
    writeFileSync(lock, `${gone} another-host`);
    expect(staleLock(lock)).toBeUndefined();
  });
});

describe('releasing', () => {
  it('removes only our own lock: one that replaced it stays', () => {
    const held = tryLock(lock, file)!;
    rmSync(lock);
    writeFileSync(lock, 'someone else');
    releaseLock(lock, held);
    expect(readFileSync(lock, 'utf8')).toBe('someone else');
  });
});

describe('withLock', () => {
  it('waits out nothing for a stale lock: it is broken, the work runs, and no lock is left', () => {
    plantStaleLock();
    expect(withLock(file, () => 'done')).toBe('done');
    expect(existsSync(lock)).toBe(false);
  });

  it('never follows a symlink planted as the lock: its target is never created or written', () => {
    const target = path.join(dir, 'elsewhere');
    symlinkSync(target, lock);
    expect(tryLock(lock, file)).toBeUndefined();
    expect(existsSync(target)).toBe(false);
    // Once old, the link is broken like any stale lock: the link itself goes, not its target.
    const old = new Date(Date.now() - 2 * LOCK_STALE_MS);
    lutimesSync(lock, old, old);
    expect(withLock(file, () => 'done')).toBe('done');
    expect(existsSync(target)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});
