// kill -9 a `delete --journal` batch at seeded moments and run the README's own one-line command
// again, as a user who followed the quick start would: a profile set up by the quick start's
// lines (the token, the base URL, and the sandbox's "no such plant" code), no --ignore-missing.
// The first run after the last kill must exit 0. The server counts every DELETE per id as it
// arrives (plant-counting-server.ts: the sandbox's answers, 400 error 1 for "no such plant"), so
// the test knows what was really sent and really deleted, whatever the killed runs printed.
//
// The kill moments are relative to progress, not to a clock: a run is killed when the server has
// received a seeded fraction of the ids that run has to send.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';
import { assertNoTokenLeak, finished, type RunResult, runPlantstore, startPlantstore } from '../helpers/cli.js';
import { ownConfigDir } from '../helpers/per-test.js';
import { quickStart } from '../helpers/quick-start.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';
import { seeded } from '../helpers/seeded.js';
import { startPlantCountingServer } from './plant-counting-server.js';

const TOKEN = 'crash-Token-5d2f8b4e';
/**
 * Each seeded kill lands mid-run whatever the count: it is placed by the server's count, and the
 * server that counts is the one answering, in this process, so the run cannot go past the kill's
 * point before it. Four hundred is six times the most requests in flight (64, where a run's
 * concurrency settles long before most kills), so a kill finds ids done, in flight and not yet sent;
 * more only adds CPU.
 */
const IDS = 400;
/** A hang guard, not a speed limit: up to four runs of the CLI, on two busy cores. */
const CASE_TIMEOUT_MS = 120_000;
/** [seed, kills, token]: eight single kills at seeded points, two runs killed again and again, and the token from a command. */
const CASES: Array<[number, number, 'profile' | 'token command']> = [
  [1, 1, 'profile'],
  [2, 1, 'profile'],
  [3, 1, 'profile'],
  [4, 1, 'profile'],
  [5, 1, 'profile'],
  [6, 1, 'profile'],
  [7, 1, 'profile'],
  [8, 1, 'profile'],
  [20250517, 3, 'profile'],
  [61, 3, 'profile'],
  [9, 2, 'token command'],
];

/** The complete lines of `text`; a line cut by the kill (no newline after it) is left out. */
function completeLines(text: string): string[] {
  const lines = text.split('\n');
  lines.pop();
  return lines;
}

/** The quick start's profile: its two lines run once for the file, the config file they write given to each case with its server's URL. */
const profile = quickStart(TOKEN);

// Each case has its own server and config folder, from its context; they run one after the other:
// the runs keep the CPU busy (no wait to overlap), and at once they would only crowd the other files' tests.

describe('kill -9 at seeded moments, then the README one-line command again: the first run after the last kill exits 0', () => {
  it.for(CASES)(
    'seed %i, %i kill(s), token from the %s: every plant deleted, nothing reported that the server did not do, no id sent more than once a run',
    { timeout: CASE_TIMEOUT_MS },
    async ([seed, kills, token], { expect, onTestFinished }) => {
      const config = { dir: ownConfigDir({ onTestFinished }) };
      const random = seeded(seed);
      const server = await startPlantCountingServer({ plants: IDS, token: TOKEN });
      onTestFinished(() => server.close());
      await profile(config.dir, server.url);
      const journal = path.join(config.dir, 'dead-plants.journal');
      const ids = Array.from({ length: IDS }, (_, i) => String(i + 1));
      // plantstore delete --journal dead-plants.journal --stdin < dead-plants.txt
      const args = ['delete', '--journal', journal, '--stdin'];
      const tokenCommand = path.join(config.dir, 'token.mjs');
      const tokenRuns = path.join(config.dir, 'token-runs');
      writeFileSync(
        tokenCommand,
        `import fs from 'node:fs'; fs.appendFileSync(${JSON.stringify(tokenRuns)}, 'x'); console.log(${JSON.stringify(TOKEN)});\n`,
      );
      const env: Record<string, string> = { PLANTSTORE_CONFIG_DIR: config.dir };
      if (token === 'token command') env['PLANTSTORE_TOKEN_COMMAND'] = `${process.execPath} ${tokenCommand}`;
      const options = { env, input: `${ids.join('\n')}\n` };

      const runs: RunResult[] = [];
      for (let run = 0; run <= kills; run++) {
        const child = startPlantstore(args, options);
        onTestFinished(() => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        });
        const ended = finished(child);
        if (run < kills) {
          const left = IDS - server.deleted.size;
          // Between 5% and 80% of what is left: the kill lands before the run ends (see IDS), with the last fifth still to send.
          const at = server.total() + Math.max(1, Math.floor(left * (0.05 + 0.75 * random())));
          void server.receivedAtLeast(at).then(() => child.kill('SIGKILL'));
        }
        const result = await ended;
        assertNoTokenLeak(args, options, result);
        runs.push(result);
        if (run < kills) expect(result.signal).toBe('SIGKILL');
      }
      const last = runs.at(-1) as RunResult;
      expect(last.stderr).not.toMatch(/✗|plantstore: /);
      expect(last.code).toBe(0);

      // Every plant is deleted on the server, and the last run says each one is done.
      expect(server.deleted.size).toBe(IDS);
      const lastLines = completeLines(last.stdout);
      expect(lastLines).toHaveLength(IDS);
      for (const line of lastLines)
        expect(line).toMatch(
          /^(Deleted plant \d+|Plant \d+ (already (deleted|absent) \(journal\)|absent \(in flight when the earlier run stopped: it may have deleted it\)))$/,
        );

      // Nothing reported that the server did not do: a "Deleted plant" is a 204 the server gave, once;
      // a plant "absent" after the earlier run was asked for again and the server said there is none.
      const reportedDeleted = new Set<string>();
      for (const line of runs.flatMap((run) => completeLines(run.stdout))) {
        const fresh = /^Deleted plant (\d+)$/.exec(line)?.[1];
        if (fresh !== undefined) {
          expect(server.deleted.has(fresh) && !reportedDeleted.has(fresh)).toBe(true);
          reportedDeleted.add(fresh);
        }
        const absent = /^Plant (\d+) absent \(in flight/.exec(line)?.[1];
        if (absent !== undefined) expect(server.refused.has(absent) && server.received(absent) >= 2).toBe(true);
      }
      // The journal agrees: deleted only where this server's 204 said so, absent only where it said "no such plant".
      const results = completeLines(readFileSync(journal, 'utf8'))
        .slice(1)
        // The id lines; a run's own start and end lines are not results.
        .filter((line) => line.startsWith('{"id":') && !line.endsWith('"sent":true}'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const result of results) {
        // (A killed run may have journaled a 204 whose line, held for input order, never reached stdout.)
        if (result['state'] === 'done') expect(server.deleted.has(String(result['id']))).toBe(true);
        else expect(result).toMatchObject({ state: 'absent' });
        if (result['state'] === 'absent') expect(server.refused.has(String(result['id']))).toBe(true);
      }

      // The token came from where the case says: one command run per run of plantstore.
      if (token === 'token command') expect(readFileSync(tokenRuns, 'utf8')).toBe('x'.repeat(kills + 1));
      // No id sent more than once a run: twice at most after one kill.
      expect(Math.max(...ids.map((id) => server.received(id)))).toBeLessThanOrEqual(kills + 1);
      const inFlight = lastLines.filter((line) => line.includes('in flight when the earlier run stopped')).length;
      console.info(
        `seed ${seed}: ${kills} kill(s); ${server.total()} DELETEs for ${IDS} ids; ${inFlight} resolved as in flight at the last kill`,
      );
    },
  );
});

/**
 * The sandbox is another process: the kill, once it has logged a third of the answers, comes a
 * little later than that, while the run goes on: two thirds of 1,500 is room enough (3,000 only
 * added CPU to the same claim).
 */
const SANDBOX_IDS = 1500;

describe('the quick start, with the real sandbox', () => {
  it(
    'the journal example killed with kill -9 and run again: the second run exits 0',
    async ({ expect, onTestFinished }) => {
      const config = { dir: ownConfigDir({ onTestFinished }) };
      const sandbox = await startSandboxProcess(['--plants', String(SANDBOX_IDS)]);
      onTestFinished(() => void sandbox.stop());
      // The lines the quick start and the sandbox's own banner give.
      await quickStart('sandbox-token')(config.dir, sandbox.url);
      const journal = path.join(config.dir, 'dead-plants.journal');
      const input = `${Array.from({ length: SANDBOX_IDS }, (_, i) => String(i + 1)).join('\n')}\n`;
      const args = ['delete', '--journal', journal, '--stdin'];
      const options = { env: { PLANTSTORE_CONFIG_DIR: config.dir }, input };
      const child = startPlantstore(args, options);
      const ended = finished(child);
      // Killed once the sandbox has answered a third of them (it logs each answer; read as it writes them, not polled).
      await Promise.race([sandbox.logged(SANDBOX_IDS / 3), ended]);
      child.kill('SIGKILL');
      expect((await ended).signal).toBe('SIGKILL');
      const again = await runPlantstore(args, options);
      expect(again.stderr).not.toMatch(/✗/);
      expect(again.code).toBe(0);
      expect(again.stderr).toMatch(/^\d+ deleted, \d+ skipped \(journal\), \d+ already absent.*, 0 failed, 0 not sent in /m);
    },
    CASE_TIMEOUT_MS,
  );
});
