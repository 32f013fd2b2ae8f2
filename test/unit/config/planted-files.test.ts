// What stands at the config file's path, when it is not our own file: a symlink (to another
// file, or to /dev/zero), a FIFO, a file another user planted, a huge file. The config code
// is used directly on a temporary folder; the same cases through the built CLI, with
// signals and a full disk, are in test/e2e/config-hazards.e2e.test.ts.
import { execFileSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openConfig } from '../../../src/config/file.js';
import { MAX_CONFIG_BYTES } from '../../../src/config/own-file.js';
import { ConfigError } from '../../../src/errors.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-planted-'));
  file = path.join(dir, 'config.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const config = () => openConfig({ PLANTSTORE_CONFIG_DIR: dir }, () => {});
const store = (token: string) => config().updateProfile('default', (p) => ({ ...p, token }));
const OURS = `${JSON.stringify({ profiles: { default: { token: 'ours-Token-1234abcd' } } })}\n`;

function refusal(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

async function asyncRefusal(work: () => Promise<unknown>): Promise<string> {
  const error = await work().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

describe('a symlink at config.json is never followed', () => {
  it('to another file: reading is refused naming the link, and a login leaves the target untouched', async () => {
    const elsewhere = path.join(dir, 'elsewhere.json');
    writeFileSync(elsewhere, OURS);
    symlinkSync(elsewhere, file);
    expect(refusal(() => config().profile('default'))).toBe(
      `config file ${file} is a symbolic link: plantstore never follows one there, since anyone who can write the folder could point it elsewhere; put the file itself there, or set PLANTSTORE_CONFIG_DIR`,
    );
    await asyncRefusal(() => store('new-Token-5678efgh'));
    expect(readFileSync(elsewhere, 'utf8')).toBe(OURS);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
  });

  it('to /dev/zero: refused at once, nothing read', () => {
    symlinkSync('/dev/zero', file);
    expect(refusal(() => config().profileNames())).toMatch(/is a symbolic link/);
  });
});

describe('only a regular file is read', () => {
  it.skipIf(process.platform === 'win32')('a FIFO is refused at once, without waiting for a writer', () => {
    execFileSync('mkfifo', [file]);
    expect(refusal(() => config().profile('default'))).toBe(
      `config file ${file} is not a regular file (a FIFO): move it away, or set PLANTSTORE_CONFIG_DIR`,
    );
  });

  it('a directory is refused', () => {
    execFileSync('mkdir', [file]);
    expect(refusal(() => config().profile('default'))).toMatch(/is not a regular file \(a directory\)/);
  });

  it('a file past the size bound is refused, naming the bound', () => {
    writeFileSync(file, ' '.repeat(MAX_CONFIG_BYTES + 1));
    expect(refusal(() => config().profile('default'))).toBe(
      `config file ${file} is larger than 1 MiB: it is not a plantstore config; move it away`,
    );
  });
});

const root = process.getuid?.() === 0;
describe.skipIf(!root)('a file owned by another user (needs root, to play that user with chown)', () => {
  const NOBODY = 65534;

  it('is refused for reading and for writing; it keeps its content and its owner', async () => {
    writeFileSync(file, OURS, { mode: 0o644 });
    chownSync(file, NOBODY, NOBODY);
    expect(refusal(() => config().profile('default'))).toBe(
      `config file ${file} belongs to another user (uid ${NOBODY}, you are 0): plantstore does not use a file someone else may have planted; remove it, or set PLANTSTORE_CONFIG_DIR to a folder only you can write`,
    );
    await asyncRefusal(() => store('root-Token-5678efgh'));
    expect(readFileSync(file, 'utf8')).toBe(OURS);
    expect(statSync(file).uid).toBe(NOBODY);
  });
});

describe('every write is a new file renamed into place', () => {
  it('with SNAP set too: the file is replaced (a new inode), mode 0600, owned by us, no temporary file left', async () => {
    await store('first-Token-1234abcd');
    const before = statSync(file).ino;
    vi.stubEnv('SNAP', '/snap/code/1');
    // Two writes: a freed inode number may come back once, but not the one still in use.
    await store('second-Token-5678efgh');
    expect(statSync(file).ino).not.toBe(before);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: { default: { token: 'second-Token-5678efgh' } } });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(file).uid).toBe(process.getuid?.());
    expect(readdirSync(dir)).toEqual(['config.json']);
  });

  it('a temporary file left by a killed write does not stop the next one', async () => {
    writeFileSync(`${file}.4242.abcdefgh.tmp`, '{"half":');
    await store('next-Token-1234abcd');
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.token).toBe('next-Token-1234abcd');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});
