// Issue 40 item 1, through the built CLI against a loopback Plant Store that counts what it
// deleted: a 750-id --journal job stopped each way (SIGINT, --max-duration, --max-failures,
// kill -9) is read back by `journal status` (human and --json) and `journal left`, and what they
// say is held against what the server actually did. An id never sent has no line of its own: the
// run's end line counts them, `journal left` names them, and a run with no end line (kill -9)
// leaves the count unknown, never 0.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { idRange } from '../helpers/batch-output.js';
import { finished, runPlantstore, startPlantstore, tempConfigDir } from '../helpers/cli.js';
import { type PlantCountingServer, startPlantCountingServer } from './plant-counting-server.js';

const TOKEN = 'left-Token-3c9e1f7a';
/**
 * The job. Each stop is placed by the server that counts (a signal at a fifth of it), by a rate
 * (--max-duration) or by the plants that exist (--max-failures), at the same fractions as 1,500
 * ids were, which only added CPU to the same claims: 750 is still ten times the most requests in
 * flight (64), so a stop leaves ids done, in flight and never sent.
 */
const LIST = idRange(1, 750);
/** Plants 1..PLANTS exist for --max-failures: from PLANTS + 1 on, each id is "no such plant" (a certain failure). */
const PLANTS = LIST.length / 3;
const INPUT = `${LIST.join('\n')}\n`;

let config: ReturnType<typeof tempConfigDir>;
let journal: string;
beforeEach(() => {
  config = tempConfigDir();
  journal = path.join(config.dir, 'job.journal');
});
afterEach(() => config.cleanup());

async function serve(plants = LIST.length): Promise<PlantCountingServer> {
  const server = await startPlantCountingServer({ plants, token: TOKEN });
  onTestFinished(() => server.close());
  return server;
}

const env = (server: PlantCountingServer) => ({
  PLANTSTORE_TOKEN: TOKEN,
  PLANTSTORE_BASE_URL: server.url,
  PLANTSTORE_CONFIG_DIR: config.dir,
});
/** The readers need nothing but the files (and the list). */
const reader = (args: string[], input?: string) =>
  runPlantstore(args, { env: { PLANTSTORE_CONFIG_DIR: path.join(config.dir, 'reader') }, ...(input === undefined ? {} : { input }) });

async function statusJson(...files: string[]): Promise<Record<string, unknown>> {
  const read = await reader(['--json', 'journal', 'status', ...files]);
  expect(read.code, read.stderr).toBe(0);
  return JSON.parse(read.stdout) as Record<string, unknown>;
}

async function left(files: string[], input = INPUT): Promise<string[]> {
  const read = await reader(['journal', 'left', ...files], input);
  expect(read.code, read.stderr).toBe(0);
  return read.stdout === '' ? [] : read.stdout.trimEnd().split('\n');
}

/** The ids the journal records in flight (sent, no decided answer), from `journal failed --json`. */
async function inFlightIds(): Promise<Set<string>> {
  return new Set(
    (await reader(['--json', 'journal', 'failed', journal])).stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { id: number; state: string })
      .filter((entry) => entry.state === 'inFlight')
      .map((entry) => String(entry.id)),
  );
}

/** After a stop the journal knows: every id counted once, the not-sent ones included. Resolves what `journal status` said, as JSON and to a human. */
async function expectWholeTruth(server: PlantCountingServer, ended: string): Promise<{ status: Record<string, unknown>; human: string }> {
  const status = await statusJson(journal);
  expect(status).toMatchObject({ finished: false, ended });
  const { deleted, absent, failed, inFlight, notSent } = status as Record<'deleted' | 'absent' | 'failed' | 'inFlight' | 'notSent', number>;
  // "Deleted" only on the server's proof; a deletion whose answer the stop cut off is in flight
  // (the server may have done it: here it did), never deleted and never failed.
  expect(deleted).toBeLessThanOrEqual(server.deleted.size);
  expect(server.deleted.size).toBeLessThanOrEqual(deleted + inFlight);
  expect(notSent).toBeGreaterThan(0);
  expect(deleted + absent + failed + inFlight + notSent).toBe(LIST.length);
  // What is left is what the server did not delete, in the list's order, and the ids in flight.
  const listed = await left([journal]);
  expect(listed.filter((id) => !server.deleted.has(id))).toEqual(LIST.filter((id) => !server.deleted.has(id)));
  const uncertain = await inFlightIds();
  for (const id of listed.filter((id) => server.deleted.has(id))) expect(uncertain.has(id)).toBe(true);
  const human = await reader(['journal', 'status', journal]);
  expect(human.stdout).toMatch(new RegExp(`^not sent +${notSent}\\b`, 'm'));
  expect(human.stdout).toMatch(/^job +unfinished: plantstore journal left .* < LIST prints the ids left$/m);
  // journal failed cannot name the ids never sent, and says so.
  const failedList = await reader(['journal', 'failed', journal]);
  expect(failedList.stderr).toMatch(/ids were never sent .*; plantstore journal left .* < LIST prints every id of LIST left to do/);
  return { status, human: human.stdout };
}

describe('a 750-id --journal job stopped each way, read back', () => {
  it('SIGINT (Ctrl-C) halfway: status says stopped by SIGINT and how many were not sent; left lists exactly what the server did not delete', async () => {
    const server = await serve();
    const run = startPlantstore(['delete', '--journal', journal, '--rate', '2000/s', '-q', '--stdin'], { env: env(server), input: INPUT });
    const ended = finished(run);
    onTestFinished(() => void run.kill('SIGKILL'));
    await server.receivedAtLeast(LIST.length / 5);
    run.kill('SIGINT');
    expect((await ended).code).toBe(130);
    const { human } = await expectWholeTruth(server, 'SIGINT');
    expect(human).toMatch(new RegExp(`^last run +stopped by SIGINT \\(Ctrl-C\\): \\d+ of its ${LIST.length} ids not sent$`, 'm'));
  });

  it('--max-duration: ended max-duration, exit 10, the rest counted and listed', async () => {
    const server = await serve();
    const run = await runPlantstore(['delete', '--journal', journal, '--rate', '500/s', '--max-duration', '1s', '-q', '--stdin'], {
      env: env(server),
      input: INPUT,
    });
    expect(run.code, run.stderr).toBe(10);
    await expectWholeTruth(server, 'max-duration');
  });

  it('--max-failures: ended max-failures, the ids never sent counted apart from the failures', async () => {
    const server = await serve(PLANTS);
    const run = await runPlantstore(['delete', '--journal', journal, '--max-failures', '10', '-q', '--stdin'], {
      env: env(server),
      input: INPUT,
    });
    expect(run.code, run.stderr).toBe(1);
    const { status } = await expectWholeTruth(server, 'max-failures');
    expect(status['failed']).toBeGreaterThanOrEqual(10);
    expect(server.deleted.size).toBe(PLANTS);
  });

  it('then the same command finishes it: finished, nothing left, and journal failed says nothing more', async () => {
    const server = await serve();
    const stopped = await runPlantstore(['delete', '--journal', journal, '--rate', '500/s', '--max-duration', '1s', '-q', '--stdin'], {
      env: env(server),
      input: INPUT,
    });
    expect(stopped.code).toBe(10);
    const again = await runPlantstore(['delete', '--journal', journal, '-q', '--stdin'], { env: env(server), input: INPUT });
    expect(again.code, again.stderr).toBe(0);
    expect(await statusJson(journal)).toMatchObject({ finished: true, ended: 'finished', deleted: LIST.length, notSent: 0 });
    expect(await left([journal])).toEqual([]);
    expect((await reader(['journal', 'failed', journal])).stderr).toBe('');
    expect((await reader(['journal', 'status', journal])).stdout).toMatch(/^job +finished: the last run went through every id$/m);
  });

  it('a retry of journal failed into the same journal does not make the job look finished; journal left into it does', async () => {
    const server = await serve(PLANTS);
    const stopped = await runPlantstore(['delete', '--journal', journal, '--max-failures', '10', '-q', '--stdin'], {
      env: env(server),
      input: INPUT,
    });
    expect(stopped.code).toBe(1);
    const neverSent = (await statusJson(journal))['unrecorded'] as number;
    expect(neverSent).toBeGreaterThan(PLANTS);
    // The failed ids only (the API's "no such plant" now counts as done): the ids never sent are not in that list.
    const failedIds = (await reader(['journal', 'failed', journal])).stdout;
    const retry = await runPlantstore(['delete', '--journal', journal, '--ignore-missing', '--missing-error', '1', '-q', '--stdin'], {
      env: env(server),
      input: failedIds,
    });
    expect(retry.code, retry.stderr).toBe(0);
    expect(await statusJson(journal)).toMatchObject({ finished: false, ended: 'finished', notSent: neverSent, unrecorded: neverSent });
    expect((await reader(['journal', 'status', journal])).stdout).toMatch(
      new RegExp(
        `^last run +finished: its \\d+ ids read to the end, each decided; ${neverSent} ids an earlier run left unsent were not in its list$`,
        'm',
      ),
    );
    // What is left, piped into the same journal: now the job is done.
    const rest = await left([journal]);
    expect(rest).toHaveLength(neverSent);
    const finish = await runPlantstore(['delete', '--journal', journal, '--ignore-missing', '--missing-error', '1', '-q', '--stdin'], {
      env: env(server),
      input: `${rest.join('\n')}\n`,
    });
    expect(finish.code, finish.stderr).toBe(0);
    expect(await statusJson(journal)).toMatchObject({ finished: true, notSent: 0 });
    expect(await left([journal])).toEqual([]);
  });

  it('kill -9: the run ended without a record, so how many were not sent is unknown (null), never 0; left still holds every id not deleted', async () => {
    const server = await serve();
    const run = startPlantstore(['delete', '--journal', journal, '--rate', '2000/s', '-q', '--stdin'], { env: env(server), input: INPUT });
    const ended = finished(run);
    await server.receivedAtLeast(LIST.length / 5);
    run.kill('SIGKILL');
    await ended;
    const status = await statusJson(journal);
    expect(status).toMatchObject({ finished: false, ended: null, notSent: null, unrecorded: null });
    expect((status['files'] as Array<Record<string, unknown>>)[0]).toMatchObject({
      lastRun: { ended: null, ids: LIST.length, notSent: null },
    });
    const human = await reader(['journal', 'status', journal]);
    expect(human.stdout).toMatch(
      new RegExp(`^last run +ended without a record \\(killed\\?\\): how many of its ${LIST.length} ids it did not send is unknown$`, 'm'),
    );
    expect(human.stdout).toMatch(/^not sent +unknown {2}\(the last run of .* ended without a record\)$/m);
    const listed = await left([journal]);
    const notDeleted = LIST.filter((id) => !server.deleted.has(id));
    expect(listed.filter((id) => !server.deleted.has(id))).toEqual(notDeleted);
    // Listed and yet deleted: only ids whose answer the kill lost (in flight, the journal cannot know).
    const inFlight = await inFlightIds();
    for (const id of listed.filter((id) => server.deleted.has(id))) expect(inFlight.has(id)).toBe(true);
    expect((await reader(['journal', 'failed', journal])).stderr).toMatch(/does not say how many ids its last run left unsent/);
  });
});

describe('a shard set with a shard missing', () => {
  it("status names the missing shard and knows no count of what was not sent; left lists that shard's ids, saying why", async () => {
    const server = await serve(200);
    const list = idRange(1, 200);
    const input = `${list.join('\n')}\n`;
    const files: string[] = [];
    for (const shard of ['0/4', '1/4', '3/4']) {
      const file = path.join(config.dir, `shard-${shard.replace('/', '-')}.journal`);
      files.push(file);
      const run = await runPlantstore(['delete', '--journal', file, '--shard', shard, '-q', '--stdin'], { env: env(server), input });
      expect(run.code, run.stderr).toBe(0);
    }
    const status = await statusJson(...files);
    expect(status).toMatchObject({ missingShards: ['2/4'], finished: false, ended: 'finished', notSent: null });
    const human = await reader(['journal', 'status', ...files]);
    expect(human.stdout).toMatch(/^journal +shard 2\/4: no journal$/m);
    expect(human.stdout).toMatch(/^not sent +unknown {2}\(shards are missing from the set\)$/m);
    const read = await reader(['journal', 'left', ...files], input);
    expect(read.stderr).toBe('plantstore: no journal given for shard 2/4: its ids are listed as left\n');
    expect(read.stdout.trimEnd().split('\n')).toEqual(list.filter((id) => !server.deleted.has(id)));
    expect(server.deleted.size).toBeGreaterThan(100);
  });
});
