// A stop in a large batch (issue 34, item 9): the ids left are reported as a stream, each once,
// and never written to the journal (an id never sent needs no record). How fast and how small
// the stop is at a million ids is measured by `npm run bench` (test/bench/stop.ts), not here.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { endsWithin, finished, runPlantstore, startPlantstore } from '../helpers/cli.js';
import { answerCounter, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'stop-at-scale-Token-0a1b2c3d';
const HELD = '5';
let server: ScriptedServer;
let answers = answerCounter();
/** What the server does with plant HELD: never answer (in flight at a kill), or say it does not exist. */
let held: 'hold' | 'missing' = 'hold';
beforeEach(async () => {
  answers = answerCounter();
  held = 'hold';
  server = await startScriptedServer((req, res) => {
    if (req.url === `/plants/${HELD}`) {
      if (held === 'missing')
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":404,"message":"plant does not exist"}');
      return;
    }
    res.writeHead(204).end();
    answers.answer();
  });
});
afterEach(() => server.close());

const answeredAtLeast = (count: number) => answers.atLeast(count);

function tempJournal(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-stop-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'run.journal');
}

const env = () => ({ PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url });

/** Starts `delete --json --journal FILE --stdin` on `ids`, and signals it once `after` plants were answered. */
async function stopMidBatch(journal: string, ids: string[], signal: NodeJS.Signals, after: number) {
  const child = startPlantstore(['delete', '--json', '--journal', journal, '--stdin'], { env: env(), input: `${ids.join('\n')}\n` });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const ended = endsWithin(child, 60_000);
  await answeredAtLeast(after);
  child.kill(signal);
  return ended;
}

describe('SIGTERM in a batch of 200,000 ids, with --json and a journal', () => {
  it('exits 143 with every id reported exactly once, each not-sent id carrying exit 143, and no not-sent line in the journal', async () => {
    const journal = tempJournal();
    const ids = Array.from({ length: 200_000 }, (_, i) => String(1000 + i));
    const result = await stopMidBatch(journal, ids, 'SIGTERM', 2_000);
    expect(result.code).toBe(143);
    const lines = result.stdout.trimEnd().split('\n');
    // One line per id, in input order: the deleted, those in flight at the signal, and each one not sent.
    expect(lines).toHaveLength(ids.length);
    expect(lines.map((line) => /^\{"id":(\d+),/.exec(line)?.[1])).toEqual(ids);
    const notSent = lines.filter((line) => line.includes('"attempted":false'));
    expect(notSent.length).toBeGreaterThan(100_000);
    expect(notSent.every((line) => line.endsWith('"exit":143,"attempted":false}'))).toBe(true);
    // Folded on stderr: ten lines, then how many more.
    expect(result.stderr).toMatch(new RegExp(`… and ${notSent.length - 10} more plants not sent`));
    // The journal has each deleted id's lines, and nothing for the ids never sent. (An id whose sent
    // line was written, and which the signal then kept from leaving, has its not-sent result after it.)
    const journalLines = readFileSync(journal, 'utf8').trimEnd().split('\n');
    const idsWith = (text: string) =>
      new Set(journalLines.filter((line) => line.includes(text)).map((line) => /^\{"id":(\d+),/.exec(line)?.[1]));
    const sent = idsWith('"sent":true');
    const notSentInJournal = idsWith('"state":"not-sent"');
    expect([...notSentInJournal].filter((id) => !sent.has(id))).toEqual([]);
    expect(idsWith('"state":"done"').size).toBe(lines.filter((line) => line.includes('"deleted":true')).length);
  });
});

describe('an id an earlier run left in flight, then not reached by a run stopped by a signal', () => {
  it('is still in flight for the run after: its "no such plant" is settled as the earlier request', async () => {
    const journal = tempJournal();
    // Run 1: plant 5 is sent and never answered; the run is killed while it waits.
    const first = startPlantstore(['delete', '--json', '--journal', journal, HELD], { env: env() });
    onTestFinished(() => {
      if (first.exitCode === null && first.signalCode === null) first.kill('SIGKILL');
    });
    const arrived = server.nextRequest();
    const killed = finished(first);
    await arrived;
    first.kill('SIGKILL');
    await killed;
    // Run 2: plant 5 comes last, after 50,000 others; SIGTERM stops the run long before it.
    const ids = [...Array.from({ length: 50_000 }, (_, i) => String(1000 + i)), HELD];
    const second = await stopMidBatch(journal, ids, 'SIGTERM', 500);
    expect(second.code).toBe(143);
    expect(second.stdout.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`^\\{"id":${HELD},.*"attempted":false\\}$`));
    // Run 3: the server says plant 5 does not exist; the journal still says run 1's request was in flight.
    held = 'missing';
    const third = await runPlantstore(['delete', '--json', '--journal', journal, HELD], { env: env() });
    expect(third.stdout).toContain('"earlierRun":true');
    expect(third.code).toBe(0);
  });
});
