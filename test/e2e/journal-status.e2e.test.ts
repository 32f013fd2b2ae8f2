// Issue 35 item 5, through the built CLI: `journal status` reads a journal while a real
// `delete --journal` run holds it (answers held by a loopback server), with no token, base URL or
// config, without taking the lock or changing a byte; after a kill -9 it counts the held ids in
// flight; `journal failed` lists what is left, and piped into `delete --stdin` finishes the job.
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { finished, runPlantstore, startPlantstore, tempConfigDir } from '../helpers/cli.js';
import { startPlantCountingServer } from './plant-counting-server.js';

const TOKEN = 'status-Token-6b1e0d2a';
const DONE = Array.from({ length: 14 }, (_, i) => String(i + 1));
/** A mistyped id, answered at once "no such plant" (400, error 1): a certain failure, exit 1. */
const MISTYPED = '999';
/** Plants whose answers the server holds while the run is under way. */
const HELD = ['15', '16', '17'];

let config: ReturnType<typeof tempConfigDir>;
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

/** `journal status` as an operator runs it: nothing in the environment but PATH and HOME, an empty config folder. */
const status = (...args: string[]) => runPlantstore([...args], { env: { PLANTSTORE_CONFIG_DIR: path.join(config.dir, 'reader') } });

describe('journal status while a run holds the journal, and journal failed after it', () => {
  it('counts what the run recorded so far, says a run holds it, changes nothing; then lists what is left for delete --stdin', async () => {
    let holding = true;
    const server = await startPlantCountingServer({ plants: 20, token: TOKEN, hold: (id) => holding && HELD.includes(id) });
    onTestFinished(() => server.close());
    const journal = path.join(config.dir, 'run.journal');
    const env = { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url, PLANTSTORE_CONFIG_DIR: config.dir };
    const run = startPlantstore(['delete', '--journal', journal, '--concurrency', '8', '--stdin'], {
      env,
      input: `${[...DONE, MISTYPED, ...HELD].join('\n')}\n`,
    });
    const ended = finished(run);
    onTestFinished(() => void run.kill('SIGKILL'));
    await server.holdingAtLeast(HELD.length);

    // Results are written at the end of the run's event-loop turn: read until they are all there
    // (each read is a whole CLI start; the test's timeout is the hang guard).
    let counts: Record<string, unknown> = {};
    while (counts['deleted'] !== DONE.length || counts['failed'] !== 1) {
      const read = await status('--json', 'journal', 'status', journal);
      expect(read.code, read.stderr).toBe(0);
      counts = JSON.parse(read.stdout) as Record<string, unknown>;
    }
    expect(counts).toMatchObject({
      absent: 0,
      inFlight: HELD.length,
      // A run holds it: how many ids it will leave unsent is not known yet, so it is not 0.
      notSent: null,
      finished: false,
      failedByExit: { 1: 1 },
      failedByError: { 1: 1 },
      baseUrl: server.url.replace(/\/$/, ''),
      profile: 'default',
    });
    expect((counts['files'] as Array<Record<string, unknown>>)[0]).toMatchObject({ path: journal, running: true });
    expect(run.exitCode, 'the run is still under way').toBeNull();

    const human = await status('journal', 'status', journal);
    expect(human.stdout).toContain('(a run holds it now: the counts are still changing)');
    expect(human.stdout).toMatch(/^in flight {2}3 {2}\(sent with no decided answer/m);

    run.kill('SIGKILL');
    await ended;
    holding = false;
    // A kill -9 leaves its lock and maybe a torn line: status cuts nothing, takes nothing over.
    appendFileSync(journal, '{"id":18,"se');
    const before = readFileSync(journal);
    const lockBefore = readFileSync(`${journal}.lock`);
    const after = JSON.parse((await status('--json', 'journal', 'status', journal)).stdout) as Record<string, unknown>;
    expect(after).toMatchObject({ deleted: DONE.length, failed: 1, inFlight: HELD.length });
    expect((after['files'] as Array<Record<string, unknown>>)[0]).toMatchObject({ running: false, tornBytes: 12 });
    expect(readFileSync(journal).equals(before)).toBe(true);
    expect(readFileSync(`${journal}.lock`).equals(lockBefore)).toBe(true);

    const left = await status('journal', 'failed', journal);
    expect(left.code).toBe(0);
    // Killed, the run wrote no end line: the ids it never reached may be missing from this list, and it says so.
    expect(left.stderr).toMatch(
      /^plantstore: the journal does not say how many ids its last run left unsent .*; plantstore journal left .* < LIST prints every id of LIST left to do\n$/,
    );
    expect(left.stdout).toBe(`${[...HELD, MISTYPED].join('\n')}\n`);

    // Piped back: the held plants are deleted now, and the mistyped id is absent with --ignore-missing.
    const redo = await runPlantstore(['delete', '--ignore-missing', '--missing-error', '1', '--stdin'], { env, input: left.stdout });
    expect(redo.code, redo.stderr).toBe(0);
    for (const id of HELD) expect(server.deleted.has(id)).toBe(true);
    expect(redo.stderr).toContain('3 deleted, 1 already absent, 0 failed, 0 not sent');
  });

  it('sums shard journals and refuses a file that is not a journal with exit 2 and one line', async () => {
    const header = (started: string) =>
      `{"plantstore":"delete-journal","version":2,"baseUrl":"https://plants.example.com","profile":"default","started":"${started}"}`;
    const a = path.join(config.dir, 'a.journal');
    const b = path.join(config.dir, 'b.journal');
    appendFileSync(a, `${header('2026-03-01T12:00:00.000Z')}\n{"id":1,"deleted":true,"status":204}\n{"id":3,"sent":true}\n`);
    appendFileSync(b, `${header('2026-03-01T12:00:01.000Z')}\n{"id":2,"deleted":true,"status":204}\n`);
    const summed = await status('--json', 'journal', 'status', a, b);
    expect(JSON.parse(summed.stdout)).toMatchObject({ deleted: 2, inFlight: 1, failed: 0 });

    const ids = path.join(config.dir, 'ids.txt');
    appendFileSync(ids, '1\n2\n');
    const refused = await status('journal', 'status', a, ids);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('is not a plantstore journal');
  });
});
