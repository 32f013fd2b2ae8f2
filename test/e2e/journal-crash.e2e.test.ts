// kill -9 a `delete --journal` batch of 20,000 ids at seeded moments, and resume it each time
// until it exits 0, as the README's CI job does. The server counts every DELETE per id as it
// arrives (plant-counting-server.ts: the sandbox's answers, 400 error 1 for "no such plant"), so
// the test knows what was really sent and really deleted, whatever the killed runs printed.
//
// The kill moments are relative to progress, not to a clock: run k is killed when the server has
// received a seeded fraction of the ids that run has to send. Requests flow continuously while the
// journal is flushed once a second, so the kills land anywhere in the flush cycle.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { assertNoTokenLeak, finished, type RunResult, startPlantstore, tempConfigDir } from '../helpers/cli.js';
import { seeded } from '../helpers/seeded.js';
import { startPlantCountingServer } from './plant-counting-server.js';

const TOKEN = 'crash-Token-5d2f8b4e';
const IDS = 20_000;
const KILLS = 4;
/** One schedule per seed; a failing schedule replays from its seed. */
const SEEDS = [20250517, 7];

let config: ReturnType<typeof tempConfigDir>;
beforeEach(() => {
  config = tempConfigDir();
});
afterEach(() => config.cleanup());

/** The complete lines of NDJSON `text`, parsed; a line cut by the kill (no newline after it) is left out. */
function completeLines(text: string): Array<Record<string, unknown>> {
  const lines = text.split('\n');
  lines.pop();
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The ids a run resuming `file` must not send: recorded deleted, or absent (the runs ignore missing plants), by their last line. */
function doneIn(file: string): Set<string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return new Set();
  }
  const [header, ...results] = completeLines(text);
  if (header !== undefined) expect(header).toMatchObject({ plantstore: 'delete-journal' });
  const last = new Map(results.map((line) => [String(line['id']), line['deleted'] === true || line['absent'] === true]));
  return new Set([...last].filter(([, done]) => done).map(([id]) => id));
}

describe('kill -9 at seeded moments, resumed until it exits 0', () => {
  it.each(SEEDS)('seed %i: every plant deleted once, nothing reported that was not, done ids never sent again', async (seed) => {
    const random = seeded(seed);
    const server = await startPlantCountingServer({ plants: IDS, token: TOKEN });
    onTestFinished(() => server.close());
    const journal = path.join(config.dir, 'dead-plants.journal');
    const ids = Array.from({ length: IDS }, (_, i) => String(i + 1));
    const input = `${ids.join('\n')}\n`;
    const args = ['--json', 'delete', '--journal', journal, '--ignore-missing', '--missing-error', '1', '--stdin'];
    const options = { env: { PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url }, input };

    /** For each id, how many runs started without it done in the journal: the most it may be sent. */
    const sendable = new Map<string, number>();
    const runs: RunResult[] = [];
    let kills = 0;
    for (;;) {
      // A hang guard on the loop: each planned kill, then one run to the end.
      expect(runs.length).toBeLessThanOrEqual(KILLS);
      const done = doneIn(journal);
      for (const id of ids) if (!done.has(id)) sendable.set(id, (sendable.get(id) ?? 0) + 1);
      const child = startPlantstore(args, options);
      onTestFinished(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      const ended = finished(child);
      if (kills < KILLS) {
        // This run sends each id not done once (each answer is final: 204 or 400 error 1).
        const toSend = IDS - done.size;
        const at = server.total() + Math.max(1, Math.floor(toSend * (0.1 + 0.6 * random())));
        void server.receivedAtLeast(at).then(() => child.kill('SIGKILL'));
      }
      const result = await ended;
      assertNoTokenLeak(args, options, result);
      runs.push(result);
      if (result.signal === 'SIGKILL') {
        kills++;
        continue;
      }
      expect(result.stderr).not.toMatch(/plantstore: /);
      expect(result.code).toBe(0);
      break;
    }
    expect(kills).toBe(KILLS);

    // Every plant is deleted on the server, and the last run says each one is done.
    expect(server.deleted.size).toBe(IDS);
    const last = completeLines(runs.at(-1)?.stdout ?? '');
    expect(last.map((line) => String(line['id']))).toEqual(ids);
    for (const line of last) expect(line['deleted'] === true || line['absent'] === true).toBe(true);
    const done = doneIn(journal);
    expect(ids.filter((id) => !done.has(id))).toEqual([]);

    // No id is reported deleted (a 204 this run) that the server did not delete, nor twice: the
    // server deletes a plant once. Likewise for the journal's lines. An id reported absent got a
    // "no such plant" from the server, which had deleted it in an earlier, killed run.
    const journalLines = completeLines(readFileSync(journal, 'utf8')).slice(1);
    for (const lines of [runs.flatMap((run) => completeLines(run.stdout)), journalLines]) {
      const reportedDeleted = new Set<string>();
      for (const line of lines) {
        const id = String(line['id']);
        if (line['deleted'] === true && line['status'] === 204) {
          expect(server.deleted.has(id) && !reportedDeleted.has(id)).toBe(true);
          reportedDeleted.add(id);
        }
        if (line['absent'] === true) expect(server.refused.has(id) && server.deleted.has(id)).toBe(true);
      }
    }

    // The server saw each id at most once per kill plus once, and only in runs that started with it not done.
    const overSent = ids.filter((id) => server.received(id) > (sendable.get(id) ?? 0));
    expect(overSent).toEqual([]);
    expect(Math.max(...ids.map((id) => server.received(id)))).toBeLessThanOrEqual(KILLS + 1);
    // Only what was in flight or not yet flushed at a kill is sent again: the runs together sent far
    // fewer requests than (runs × list), which sending the whole list again each time would cost.
    const resent = server.total() - IDS;
    expect(server.total()).toBeLessThan((runs.length * IDS) / 2);
    console.info(
      `seed ${seed}: ${runs.length} runs, ${kills} kills; ${server.total()} DELETEs for ${IDS} ids (${resent} sent again); ` +
        `torn last lines noted: ${runs.filter((run) => /its last line was torn/.test(run.stderr)).length}`,
    );
  });
});
