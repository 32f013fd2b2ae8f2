// Issue 40 item 10: `journal status`, `journal failed` and `journal left` trust a journal only as
// a run does (batch/journal/file-trust.ts): a journal others can write, another user's, or one
// reached through a folder another user controls (a symbolic link of theirs, a folder on the path
// others can write) is refused, exit 2, in the very words the run refuses it with. Lines another
// user appended would otherwise drop ids from `journal failed`, the list piped into delete --stdin.
import { chmodSync, chownSync, lchownSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { runPlantstore, tempConfigDir } from '../helpers/cli.js';
import { startPlantCountingServer } from './plant-counting-server.js';

const TOKEN = 'trust-Token-8d2a6b1e';
const asRoot = process.getuid?.() === 0;

let config: ReturnType<typeof tempConfigDir>;
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

/** A real journal, written by a run that deleted plants 1 and 2 of a job of 1..4. */
async function writtenJournal(file: string): Promise<{ env: Record<string, string> }> {
  const server = await startPlantCountingServer({ plants: 10, token: TOKEN });
  onTestFinished(() => server.close());
  const env = { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url, PLANTSTORE_CONFIG_DIR: config.dir };
  const run = await runPlantstore(['delete', '--journal', file, '1', '2'], { env });
  expect(run.code, run.stderr).toBe(0);
  return { env };
}

const READERS = [
  ['journal', 'status'],
  ['journal', 'failed'],
  ['journal', 'left'],
] as const;

/** Each reader refuses `file` with exit 2, nothing on stdout, and the run's own line. */
async function expectRefusedAsARunDoes(file: string, env: Record<string, string>, words: RegExp): Promise<void> {
  const run = await runPlantstore(['delete', '--journal', file, '1', '2', '3', '4'], { env });
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(words);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  for (const reader of READERS) {
    const read = await runPlantstore([...reader, file], {
      env: { PLANTSTORE_CONFIG_DIR: path.join(config.dir, 'reader') },
      input: '1\n2\n3\n4\n',
    });
    expect({ reader: reader.join(' '), code: read.code, stdout: read.stdout, stderr: read.stderr }).toEqual({
      reader: reader.join(' '),
      code: 2,
      stdout: '',
      stderr: run.stderr,
    });
  }
}

describe('the journal readers trust as a run does', () => {
  it("a 0666 journal: each reader refuses it in the run's words (exit 2), and reads it once it is 0600 again", async () => {
    const file = path.join(config.dir, 'job.journal');
    const { env } = await writtenJournal(file);
    chmodSync(file, 0o666);
    await expectRefusedAsARunDoes(file, env, /cannot use .*job\.journal as a journal: it is writable by others \(mode 666\)/);
    chmodSync(file, 0o600);
    const left = await runPlantstore(['journal', 'left', file], { input: '1\n2\n3\n4\n' });
    expect(left).toMatchObject({ code: 0, stdout: '3\n4\n' });
  });

  it('a journal in a folder others can write, on its path: refused by the run and each reader alike', async () => {
    const open = path.join(config.dir, 'open');
    const file = path.join(open, 'inner', 'job.journal');
    mkdirSync(path.dirname(file), { recursive: true });
    const { env } = await writtenJournal(file);
    chmodSync(open, 0o777);
    await expectRefusedAsARunDoes(
      file,
      env,
      /the folder .*open on its path is writable by others \(mode 777\), so anyone could replace it; run chmod go-w/,
    );
  });

  it.skipIf(!asRoot)("another user's journal (needs root, to give it away): refused by each reader as by the run", async () => {
    const file = path.join(config.dir, 'job.journal');
    const { env } = await writtenJournal(file);
    chownSync(file, 65534, 65534);
    await expectRefusedAsARunDoes(file, env, /it belongs to another user \(uid 65534, you are 0\), who may have planted it/);
  });

  it.skipIf(!asRoot)(
    "a journal folder reached through another user's symbolic link (needs root): refused by each reader as by the run",
    async () => {
      const real = path.join(config.dir, 'real');
      mkdirSync(real);
      const link = path.join(config.dir, 'link');
      symlinkSync(real, link);
      const file = path.join(link, 'job.journal');
      const { env } = await writtenJournal(file);
      // Its owner can point it at a folder of theirs, with a journal of their making, at any time.
      lchownSync(link, 65534, 65534);
      await expectRefusedAsARunDoes(
        file,
        env,
        /cannot use .*link\/job\.journal as a journal: the symbolic link .*link on its path belongs to another user \(uid 65534\), who can point it anywhere; give --journal a path that does not go through it/,
      );
    },
  );
});
