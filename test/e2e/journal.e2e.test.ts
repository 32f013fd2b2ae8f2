// `delete --journal FILE` through the built CLI, against a loopback server that counts every
// DELETE per id (plant-counting-server.ts): a re-run skips what the journal records as done,
// a journal of another server is refused untouched, a signal leaves every reported result in
// the journal, and a full disk stops the run. The kill -9 schedule is journal-crash.e2e.test.ts.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { idRange, jsonLines } from '../helpers/batch-output.js';
import { assertNoTokenLeak, endsWithin, finished, type RunResult, runPlantstore, startPlantstore, tempConfigDir } from '../helpers/cli.js';
import { assertNoTokenLeak as assertNoTokenLeakInProcess } from '../helpers/in-process.js';
import { type SmallDisk, smallDisk } from '../helpers/small-disk.js';
import { type PlantCountingServer, startPlantCountingServer } from './plant-counting-server.js';

const TOKEN = 'journal-Token-7c3e9a1f';
let config: ReturnType<typeof tempConfigDir>;
let server: PlantCountingServer;
let journal: string;

beforeEach(async () => {
  config = tempConfigDir();
  journal = path.join(config.dir, 'run.journal');
});
afterEach(() => config.cleanup());

/** The test's server, closed when the test ends. */
async function serve(options: Parameters<typeof startPlantCountingServer>[0]): Promise<PlantCountingServer> {
  const started = await startPlantCountingServer(options);
  onTestFinished(() => started.close());
  return started;
}

const env = (url: string) => ({ PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: url });

/** What the journal's result lines (all but the header) last say of each id. */
function journalRecords(): Map<string, Record<string, unknown>> {
  const [header, ...lines] = readFileSync(journal, 'utf8').split('\n');
  expect(JSON.parse(header ?? '')).toMatchObject({ plantstore: 'delete-journal' });
  return new Map(jsonLines(lines.join('\n')).map((line) => [String(line['id']), line]));
}

function start(args: string[], input: string): ChildProcess {
  const child = startPlantstore(args, { env: env(server.url), input });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

/** Resolves once the child has written `count` lines to stdout (read by this listener, kept in `into.text`). */
function stdoutLines(child: ChildProcess, count: number, into: { text: string }): Promise<void> {
  return new Promise((resolve) => {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      into.text += chunk;
      if (into.text.split('\n').length - 1 >= count) resolve();
    });
  });
}

describe('a re-run with the same journal', () => {
  it('skips the ids recorded as done (the server sees none of them again), reports them as done earlier, and sends the rest', async () => {
    server = await serve({ plants: 20, token: TOKEN });
    // 999 is no plant: without --ignore-missing a failure, which a re-run sends again.
    const first = await runPlantstore(['delete', '--journal', journal, ...idRange(1, 10), '999'], { env: env(server.url) });
    expect(first.code).not.toBe(0);
    expect(server.total()).toBe(11);

    const second = await runPlantstore(['--json', 'delete', '--journal', journal, ...idRange(1, 15), '999'], { env: env(server.url) });
    expect(second.code).toBe(first.code);
    for (const id of idRange(1, 10)) expect(server.received(id)).toBe(1);
    for (const id of idRange(11, 15)) expect(server.received(id)).toBe(1);
    expect(server.received('999')).toBe(2);
    const lines = second.stdout.split('\n');
    expect(lines.slice(0, 10)).toEqual(idRange(1, 10).map((id) => `{"id":${id},"deleted":true,"status":null,"journal":true}`));
    expect(lines.slice(10, 15)).toEqual(idRange(11, 15).map((id) => `{"id":${id},"deleted":true,"status":204}`));
    expect(second.stderr).toContain('5 deleted, 10 skipped (journal)');

    // A third run finds everything but 999 done: it sends 999 alone, and with --ignore-missing
    // and the server's "no such plant" code that counts as absent: exit 0.
    const third = await runPlantstore(
      ['delete', '--journal', journal, '--ignore-missing', '--missing-error', '1', ...idRange(1, 15), '999'],
      {
        env: env(server.url),
      },
    );
    expect(third.code).toBe(0);
    expect(server.total()).toBe(11 + 6 + 1);
    expect(journalRecords().get('999')).toEqual({ id: 999, state: 'absent', status: 400 });
  });
});

describe('a journal written for another server', () => {
  it('is refused with exit 2 naming both URLs; nothing is sent and the file is byte for byte as it was', async () => {
    server = await serve({ plants: 5, token: TOKEN });
    const first = await runPlantstore(['delete', '--journal', journal, '1', '2'], { env: env(server.url) });
    expect(first.code).toBe(0);
    const before = readFileSync(journal);
    const other = await serve({ plants: 5, token: TOKEN });

    const refused = await runPlantstore(['delete', '--journal', journal, '1', '2', '3'], { env: env(other.url) });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(server.url);
    expect(refused.stderr).toContain(other.url);
    expect(other.total()).toBe(0);
    expect(readFileSync(journal).equals(before)).toBe(true);
  });
});

describe('SIGTERM mid-run', () => {
  // Plants 1..300 are answered; the requests after them are held, so the run is mid-batch, with
  // exactly ids 1..300 reported, when the signal comes: no race with the end of the run.
  const HELD_FROM = 301;
  const ids = `${idRange(1, 2000).join('\n')}\n`;

  it('exit 143, and every id reported deleted, before the signal and after it, is recorded deleted in the journal', async () => {
    server = await serve({ plants: 2000, token: TOKEN, hold: (id) => Number(id) >= HELD_FROM });
    const args = ['--json', 'delete', '--journal', journal, '--stdin'];
    const child = start(args, ids);
    const out = { text: '' };
    await stdoutLines(child, HELD_FROM - 1, out);
    await server.receivedAtLeast(HELD_FROM);
    const reportedBefore = jsonLines(out.text).filter((line) => line['deleted'] === true);
    expect(reportedBefore.map((line) => String(line['id']))).toEqual(idRange(1, HELD_FROM - 1));
    child.kill('SIGTERM');
    const result = await endsWithin(child, 20_000);
    assertNoTokenLeak(args, { env: env(server.url), input: ids }, { ...result, stdout: out.text + result.stdout });
    expect(result.code).toBe(143);
    // The next step is the journal's: the same command resumes.
    // The last line before the JSON summary (--json's, for scripts), which agrees with it.
    const closing = result.stderr.trimEnd().split('\n');
    expect(JSON.parse(closing.at(-1) ?? '')).toMatchObject({ summary: { ended: 'SIGTERM' } });
    expect(closing.at(-2)).toMatch(
      /^interrupted: \d+ of 2000 deleted before the interrupt; the rest were not, or may not have been: run the same command again to resume$/,
    );
    const recorded = journalRecords();
    const reported = jsonLines(out.text + result.stdout).filter((line) => line['deleted'] === true);
    expect(reported.length).toBeGreaterThanOrEqual(HELD_FROM - 1);
    for (const line of reported) expect(recorded.get(String(line['id']))).toEqual({ id: line['id'], state: 'done', status: 204 });
  });

  it('kill -9 as soon as SIGTERM has aborted the requests: the ids reported before it are in the journal (flushed on the signal, not at the end)', async () => {
    server = await serve({ plants: 2000, token: TOKEN, hold: (id) => Number(id) >= HELD_FROM });
    const child = start(['--json', 'delete', '--journal', journal, '--stdin'], ids);
    const out = { text: '' };
    await stdoutLines(child, HELD_FROM - 1, out);
    await server.receivedAtLeast(HELD_FROM);
    child.kill('SIGTERM');
    // The journal's flush listens on the same signal as the requests and was added before any of
    // them, and it is synchronous: once the server sees them aborted, it has run. The kill then
    // most likely lands before the end-of-run flush (if the run ended first, it exited 143).
    await server.heldClosed();
    child.kill('SIGKILL');
    const result = await finished(child);
    expect(result.signal === 'SIGKILL' || result.code === 143).toBe(true);
    const recorded = journalRecords();
    for (const id of idRange(1, HELD_FROM - 1)) expect(recorded.get(id)).toEqual({ id: Number(id), state: 'done', status: 204 });
  });
});

describe('a journal on a full disk', () => {
  // The page left for the journal holds some 80 ids' lines before the run stops (measured: 73-79 sent
  // of 30,000 or of 2,000): 1,000 leaves most never sent, at a thirtieth of 30,000's CPU for the ids.
  const total = 1000;
  const ids = `${idRange(1, total).join('\n')}\n`;

  /** A journal with its header on a tmpfs, which is then filled to its last byte (less `room` bytes); undefined where none can be mounted. */
  async function journalOnFullDisk(room: number): Promise<SmallDisk | undefined> {
    const disk = smallDisk(config.dir, '256k');
    if (disk === undefined) {
      console.warn('skipped: cannot mount a tmpfs here (needs root on Linux)');
      return undefined;
    }
    journal = path.join(disk.dir, 'run.journal');
    expect((await runPlantstore(['delete', '--journal', journal, String(total + 1)], { env: env(server.url) })).code).toBe(0);
    disk.fill();
    if (room > 0) spawnSync('truncate', ['-s', `-${room}`, path.join(disk.dir, 'filler')]);
    return disk;
  }

  it('with room for the lock only: the run stops with exit 70; the server received only ids reported with an answer, none of those reported not sent', async () => {
    server = await serve({ plants: total + 1, token: TOKEN });
    // One page: the lock file takes it; the journal's next write that needs a page of its own fails.
    const disk = await journalOnFullDisk(4096);
    if (disk === undefined) return;
    try {
      const sentBefore = server.total();
      const run = await runPlantstore(['--json', 'delete', '--journal', journal, '--stdin'], { env: env(server.url), input: ids });
      expect(run.code).toBe(70);
      expect(run.stderr).toMatch(
        /journal .* could not be written: no space left on the device; results after that are not recorded in it; free some space, then run the same command again to resume \(exit 70\)/,
      );
      const results = jsonLines(run.stdout);
      expect(results).toHaveLength(total);
      const answered = results.filter((line) => line['attempted'] !== false);
      const notSent = results.filter((line) => line['attempted'] === false);
      // The run stopped: ids were left unsent, and the server never saw them.
      expect(notSent.length).toBeGreaterThan(0);
      for (const line of notSent) expect(server.received(String(line['id']))).toBe(0);
      for (const line of answered) expect(server.received(String(line['id']))).toBe(1);
      expect(server.total() - sentBefore).toBe(answered.length);
      // Cut back to whole lines: the next run reads it (a dry run: the full tmpfs has no room for the rest of the journal)
      // and skips exactly the ids it kept, each of them deleted on the server.
      const kept = [...journalRecords().values()].filter((line) => line['state'] === 'done' && line['id'] !== total + 1);
      for (const line of kept) expect(server.deleted.has(String(line['id']))).toBe(true);
      const plan = await runPlantstore(['delete', '--dry-run', '--journal', journal, '--stdin'], { env: env(server.url), input: ids });
      expect(plan.code).toBe(0);
      expect(plan.stderr).toContain(`dry run: ${total - kept.length} requests not sent, ${kept.length} skipped (journal)`);
    } finally {
      disk.unmount();
    }
  });

  it('with no room for the lock: refused with exit 2 before anything is sent, the journal byte for byte as it was', async () => {
    server = await serve({ plants: total + 1, token: TOKEN });
    const disk = await journalOnFullDisk(0);
    if (disk === undefined) return;
    try {
      const before = readFileSync(journal);
      const sentBefore = server.total();
      const run = await runPlantstore(['delete', '--journal', journal, '--stdin'], { env: env(server.url), input: ids });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/cannot create journal lock .*: no space left on the device; free some space/);
      expect(server.total()).toBe(sentBefore);
      expect(readFileSync(journal).equals(before)).toBe(true);
    } finally {
      disk.unmount();
    }
  });
});

describe('the token-leak sweep reads the journals', () => {
  const crafted = (withToken: boolean): string => {
    const file = path.join(config.dir, 'crafted.journal');
    const header =
      '{"plantstore":"delete-journal","version":1,"baseUrl":"http://127.0.0.1:9","profile":"default","started":"2025-01-01T00:00:00.000Z"}';
    writeFileSync(
      file,
      `${header}\n{"id":1,"deleted":false,"status":401,"error":401,"message":"bad token ${withToken ? TOKEN : 'xxx'}","exit":4}\n`,
    );
    return file;
  };
  const quiet = { code: 0, signal: null, stdout: '', stderr: '' } satisfies RunResult;

  it('of a spawned run (test/helpers/cli.ts): a token in the --journal file fails the run', () => {
    const file = crafted(true);
    const options = { env: { PLANTSTORE_TOKEN: TOKEN } };
    expect(() => assertNoTokenLeak(['delete', '--journal', file, '1'], options, quiet)).toThrow(/wrote the token it was given into/);
    expect(() => assertNoTokenLeak(['delete', `--journal=${file}`, '1'], options, quiet)).toThrow(/wrote the token/);
    expect(() => assertNoTokenLeak(['delete', '--journal', crafted(false), '1'], options, quiet)).not.toThrow();
  });

  it('of an in-process run (test/helpers/in-process.ts): a token in the --journal file fails the run', () => {
    const file = crafted(true);
    const run = { stdout: '', stderr: '', error: undefined };
    expect(() => assertNoTokenLeakInProcess(['delete', '--journal', file, '1'], { PLANTSTORE_TOKEN: TOKEN }, undefined, run)).toThrow(
      /wrote the token it was given into/,
    );
    expect(() =>
      assertNoTokenLeakInProcess(['delete', '--journal', crafted(false), '1'], { PLANTSTORE_TOKEN: TOKEN }, undefined, run),
    ).not.toThrow();
  });
});

// Issue 34: a journal says which plants not to send, so it must be one no one else wrote.
describe('a journal no one else wrote', () => {
  it("the issue's case: a 0666 journal with planted deleted lines is refused (exit 2, one line, the chmod), nothing sent, dry run alike", async () => {
    server = await serve({ plants: 50, token: TOKEN });
    expect((await runPlantstore(['delete', '--journal', journal, '1'], { env: env(server.url) })).code).toBe(0);
    const planted = `${readFileSync(journal, 'utf8')}{"id":42,"state":"done","status":204}\n{"id":43,"state":"done","status":204}\n`;
    writeFileSync(journal, planted);
    chmodSync(journal, 0o666);
    const sentBefore = server.total();
    for (const args of [['delete'], ['delete', '--dry-run']]) {
      const refused = await runPlantstore([...args, '--journal', journal, '42', '43', '44'], { env: env(server.url) });
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.trim().split('\n')).toEqual([
        `plantstore: cannot use ${journal} as a journal: it is writable by others (mode 666), so anyone could have added lines to it, and a plant it records as deleted is never sent; check that every line is yours, then run chmod 600 ${journal}`,
      ]);
    }
    expect(server.total()).toBe(sentBefore);
    expect(readFileSync(journal, 'utf8')).toBe(planted);
  });

  it('resumed with another token: refused (exit 2), nothing sent; --journal-same-account resumes it', async () => {
    server = await serve({ plants: 10, token: TOKEN });
    expect((await runPlantstore(['delete', '--journal', journal, '1', '2'], { env: env(server.url) })).code).toBe(0);
    expect(readFileSync(journal, 'utf8')).not.toContain(TOKEN);
    const before = readFileSync(journal);
    const renewed = { ...env(server.url), PLANTSTORE_TOKEN: 'renewed-Token-5b8d2c4e' };
    for (const args of [['delete'], ['delete', '--dry-run']]) {
      const refused = await runPlantstore([...args, '--journal', journal, '1', '2', '3'], { env: renewed });
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim().split('\n')).toEqual([
        `plantstore: journal ${journal} was written with other credentials (a token; this run uses another token): resuming would skip the plants it records as deleted, which another account may still have; if both are the same account (a renewed token), add --journal-same-account, else give --journal another file`,
      ]);
    }
    expect(server.total()).toBe(2);
    expect(readFileSync(journal).equals(before)).toBe(true);
    const same = await runPlantstore(['delete', '--journal', journal, '--journal-same-account', '1', '2', '3'], { env: renewed });
    expect(same.stderr).toContain('resumed as one account, as --journal-same-account says');
    // 1 and 2 are skipped, as the journal says (the server takes only TOKEN: 3 is refused, exit 4).
    expect(same.stdout).toContain('Plant 1 already deleted (journal)\nPlant 2 already deleted (journal)\n');
    expect([server.received('1'), server.received('2')]).toEqual([1, 1]);
    expect(same.code).toBe(4);
  });
});

describe('the seams of a resumed run', () => {
  it('a finished job stays finished: every id done, nothing sent, and a token command that now fails is not run', async () => {
    server = await serve({ plants: 10, token: TOKEN });
    expect((await runPlantstore(['delete', '--journal', journal, '1', '2', '3'], { env: env(server.url) })).code).toBe(0);
    const ran = path.join(config.dir, 'token-command-ran');
    const script = path.join(config.dir, 'failing-token.mjs');
    writeFileSync(script, `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(ran)}, 'ran'); process.exit(1);\n`);
    const failing = {
      PLANTSTORE_CONFIG_DIR: config.dir,
      PLANTSTORE_BASE_URL: server.url,
      PLANTSTORE_TOKEN_COMMAND: `${process.execPath} ${script}`,
    };
    const sentBefore = server.total();
    // Written with a token, resumed with a token command: the same account, as the run says.
    const again = await runPlantstore(['delete', '--journal', journal, '--journal-same-account', '1', '2', '3'], { env: failing });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('Plant 1 already deleted (journal)\nPlant 2 already deleted (journal)\nPlant 3 already deleted (journal)\n');
    expect(server.total()).toBe(sentBefore);
    expect(() => statSync(ran)).toThrow();
    // One id left to send: the command runs, fails, and the run says so (exit 4).
    const more = await runPlantstore(['delete', '--journal', journal, '--journal-same-account', '1', '4'], { env: failing });
    expect(more.code).toBe(4);
    expect(statSync(ran).isFile()).toBe(true);
  });

  it.skipIf(process.platform !== 'linux').each([
    ['a plant deleted', '1', 'Deleted plant 1\n', true],
    ['a plant that failed (exit 1): the lost result outranks it', '99', '', false],
  ])('the last write of the journal fails (ulimit -f), %s: exit 70, and the message says so', async (_, id, stdout, deletes) => {
    server = await serve({ plants: 10, token: TOKEN });
    // A journal that leaves room, under a 1024-byte (two 512-byte blocks) file-size limit, for the id's sent line but not for its result.
    expect((await runPlantstore(['delete', '--journal', journal, '2'], { env: env(server.url) })).code).toBe(0);
    // The run's start line goes out with its first sent line (batch/journal/run-record.ts): room for both.
    const sentLine = '{"start":"2026-01-01T00:00:00.000Z","ids":1}\n'.length + `{"id":${id},"sent":true}\n`.length;
    const filler = '{"id":3,"state":"done","status":204}\n';
    writeFileSync(
      journal,
      `${readFileSync(journal, 'utf8')}${filler.repeat(Math.floor((1024 - statSync(journal).size - sentLine) / filler.length))}`,
    );
    const room = 1024 - statSync(journal).size;
    expect(room).toBeGreaterThanOrEqual(sentLine);
    expect(room).toBeLessThan(sentLine + filler.length);
    // Not spawnSync: the server answers from this process's event loop.
    const limited = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const args = [process.execPath, path.resolve('bin/plantstore.js'), 'delete', '--journal', journal, id];
      const child = spawn('sh', ['-c', 'ulimit -f 2 && exec "$@"', 'sh', ...args], { env: env(server.url) });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
      child.on('close', (status) => resolve({ status, stdout: out, stderr: err }));
    });
    expect(server.received(id)).toBe(1);
    expect(server.deleted.has(id)).toBe(deletes);
    expect(limited.stdout).toBe(stdout);
    expect(limited.stderr).toMatch(
      /journal .* could not be written: the file is larger than this system allows; results after that are not recorded in it; raise the file size limit \(ulimit -f\), then run the same command again to resume \(exit 70\)/,
    );
    expect(limited.status).toBe(70);
    // A journal that could not be written gets no end line: how that run ended is unknown to a reader, never "finished".
    const status = await runPlantstore(['--json', 'journal', 'status', journal], { env: env(server.url) });
    expect(JSON.parse(status.stdout)).toMatchObject({ finished: false, ended: null, notSent: null });
  });

  it.each([[''], ['-']])('--journal %j is a usage error (exit 2), nothing sent', async (file) => {
    server = await serve({ plants: 10, token: TOKEN });
    const run = await runPlantstore(['delete', '--journal', file, '1'], { env: env(server.url) });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`plantstore: invalid --journal '${file}': give the path of a file, such as dead-plants.journal\n`);
    expect(server.total()).toBe(0);
  });

  it.skipIf(process.getuid?.() !== 0)(
    'a lock another user owns, in a sticky shared folder: said so, not a promised takeover (needs root, to run as another user)',
    async (context) => {
      // That user must be able to run this Node: one installed under a folder only root may enter (CI's other Nodes) cannot.
      if (spawnSync(process.execPath, ['-e', '0'], { uid: 65534, gid: 65534 }).status !== 0) {
        console.warn(`skipped: uid 65534 cannot run ${process.execPath}`);
        context.skip();
      }
      server = await serve({ plants: 10, token: TOKEN });
      const shared = path.join(config.dir, 'shared');
      mkdirSync(shared);
      chmodSync(shared, 0o1777);
      chmodSync(config.dir, 0o755);
      const file = path.join(shared, 'run.journal');
      // Left by another user's run that was killed (its pid is gone): only they may remove it here.
      writeFileSync(`${file}.lock`, '999999999 elsewhere');
      chownSync(`${file}.lock`, 65533, 65533);
      const old = new Date(Date.now() - 120_000);
      const { utimesSync } = await import('node:fs');
      utimesSync(`${file}.lock`, old, old);
      const run = spawnSync(process.execPath, [path.resolve('bin/plantstore.js'), 'delete', '--journal', file, '1'], {
        env: { ...env(server.url), PLANTSTORE_CONFIG_DIR: shared, HOME: shared },
        encoding: 'utf8',
        uid: 65534,
        gid: 65534,
      });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(
        /is locked by .*run\.journal\.lock, which belongs to another user \(uid 65533\); plantstore cannot take over another user's lock/,
      );
      expect(run.stderr).not.toMatch(/taken over .* 30 s/);
      expect(server.total()).toBe(0);
    },
  );
});
