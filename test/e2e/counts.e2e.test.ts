// Every count the run prints is the job's: a shard nobody typed (a variable left from an
// earlier step) is said aloud and its skipped ids counted, and an id interrupted in flight is
// counted "in flight" by the summary exactly as the journal and `journal status` count it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { partOf } from '../../src/engine/shard.js';
import { idRange, jsonLines } from '../helpers/batch-output.js';
import { finished, runPlantstore, startPlantstore } from '../helpers/cli.js';
import { loopbackCases } from '../helpers/loopback-cases.js';
import { answerCounter } from '../helpers/scripted-server.js';

const TOKEN = 'counts-Token-6b1f0c2a';
const { serve, envFor } = loopbackCases(TOKEN);

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'plantstore-counts-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

describe('a shard from the environment narrows the job aloud', () => {
  const ids = idRange(1, 12);
  const mine = ids.filter((id) => partOf(id, 4) === 1);
  const left = ids.length - mine.length;

  it('PLANTSTORE_SHARD=1/4 left over: one note on stderr names it, and the summary counts the ids left to other shards', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const result = await runPlantstore(['delete', ...ids], { env: { ...envFor(server.url), PLANTSTORE_SHARD: '1/4' } });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(mine.length);
    const notes = result.stderr.split('\n').filter((line) => line.includes('PLANTSTORE_SHARD'));
    expect(notes).toEqual([
      `note: shard 1/4 from PLANTSTORE_SHARD: this run takes ${mine.length} of the 12 ids given and leaves ${left} to other shards; to send them all, unset PLANTSTORE_SHARD`,
    ]);
    expect(result.stderr).toContain(
      `${mine.length} deleted, 0 already absent, 0 failed, 0 not sent, ${left} left to other shards (shard 1/4) in `,
    );
  });

  it('the same with --json: the note and the summary on stderr, stdout only the ids of this shard', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const result = await runPlantstore(['--json', 'delete', ...ids], { env: { ...envFor(server.url), PLANTSTORE_SHARD: '1/4' } });
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout).map((line) => String(line['id']))).toEqual(mine);
    expect(result.stderr).toContain('note: shard 1/4 from PLANTSTORE_SHARD');
    expect(result.stderr).toContain(`, ${left} left to other shards (shard 1/4) in `);
    // The JSON summary, stderr's last line: the same counts, for a script.
    expect(lastJsonSummary(result.stderr)).toMatchObject({
      deleted: mine.length,
      failed: 0,
      inFlight: 0,
      notSent: 0,
      otherShards: left,
      shard: '1/4',
      ended: 'finished',
    });
  });

  it('--shard typed on the command line: no note, and the summary still counts them', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const result = await runPlantstore(['delete', '--shard', '1/4', ...ids], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('note: shard');
    expect(result.stderr).toContain(`, ${left} left to other shards (shard 1/4) in `);
  });

  it('a variable whose shard holds none of the ids names where the shard came from', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const none = ids.find((id) => partOf(id, 4) !== 1) as string;
    const result = await runPlantstore(['delete', none], { env: { ...envFor(server.url), PLANTSTORE_SHARD: '1/4' } });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(result.stderr.trim()).toBe(
      'no plant ids in shard 1/4 of the 1 given (the shard comes from PLANTSTORE_SHARD): nothing to delete',
    );
  });

  it('a run without a shard prints no shard count', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const result = await runPlantstore(['delete', ...ids], { env: envFor(server.url) });
    expect(result.stderr).toContain('12 deleted, 0 already absent, 0 failed, 0 not sent in ');
    expect(result.stderr).not.toContain('shard');
  });
});

describe('one vocabulary: an id in flight at Ctrl-C is "in flight" in the summary, its --json line and the journal alike', () => {
  it('SIGINT with 60 requests held by the server: 60 in flight, 0 failed, and journal status says the same', async () => {
    const held = answerCounter();
    const server = await serve((req) => {
      // Held: the answer never comes, so each request is in flight when the signal arrives.
      req.resume();
      held.answer();
    });
    const journal = path.join(scratch, 'job.journal');
    const ids = idRange(1, 200);
    const child = startPlantstore(['--json', 'delete', '--concurrency', '60', '--journal', journal, '--stdin'], {
      env: envFor(server.url),
      input: ids.join('\n'),
    });
    await held.atLeast(60);
    child.kill('SIGINT');
    const result = await finished(child);
    expect(result.code).toBe(130);
    const lines = jsonLines(result.stdout);
    const inFlight = lines.filter((line) => line['uncertain'] === true);
    expect(inFlight).toHaveLength(60);
    expect(result.stderr).toMatch(
      /0 deleted, 0 skipped \(journal\), 0 already absent, 0 failed, 60 in flight \(sent with no decided answer: they may be deleted\), 140 not sent in /,
    );

    expect(lastJsonSummary(result.stderr)).toMatchObject({ deleted: 0, failed: 0, inFlight: 60, notSent: 140, ended: 'SIGINT' });

    const status = await runPlantstore(['--json', 'journal', 'status', journal], { env: envFor(server.url) });
    expect(status.code).toBe(0);
    const counts = JSON.parse(status.stdout) as Record<string, unknown>;
    expect({ failed: counts['failed'], inFlight: counts['inFlight'], notSent: counts['notSent'] }).toEqual({
      failed: 0,
      inFlight: 60,
      notSent: 140,
    });
  });
});

/** The --json summary: the last line of stderr, one object under `summary`. */
function lastJsonSummary(stderr: string): Record<string, unknown> {
  const last = stderr.trimEnd().split('\n').at(-1) ?? '';
  return (JSON.parse(last) as { summary: Record<string, unknown> }).summary;
}

describe('an id an earlier run left in flight, refused now, stays in flight', () => {
  it('the resume counts it "in flight", as journal status does, and exits 1 as before', async () => {
    const held = answerCounter();
    let hold = true;
    const server = await serve((req, res) => {
      req.resume();
      if (hold) {
        held.answer();
        return;
      }
      // The API's word on this plant: protected (400 Error object). It says nothing of what the earlier request did.
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":13,"message":"plant is protected"}');
    });
    const journal = path.join(scratch, 'resume.journal');
    const ids = idRange(1, 5);
    const first = startPlantstore(['delete', '--journal', journal, ...ids], { env: envFor(server.url) });
    await held.atLeast(5);
    first.kill('SIGINT');
    expect((await finished(first)).code).toBe(130);

    hold = false;
    const again = await runPlantstore(['delete', '--journal', journal, ...ids], { env: envFor(server.url) });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      '0 deleted, 0 skipped (journal), 0 already absent, 0 failed, 5 in flight (sent with no decided answer: they may be deleted), 0 not sent in ',
    );
    const status = await runPlantstore(['--json', 'journal', 'status', journal], { env: envFor(server.url) });
    const counts = JSON.parse(status.stdout) as Record<string, unknown>;
    expect({ failed: counts['failed'], inFlight: counts['inFlight'] }).toEqual({ failed: 0, inFlight: 5 });
  });
});

describe("a second signal keeps the first one's code", () => {
  it('SIGTERM, then Ctrl-C while the report waits for a stalled reader: exit 143, as the --json lines say', async () => {
    const answered = answerCounter();
    const server = await serve((_req, res) => {
      res.writeHead(204).end();
      answered.answer();
    });
    const child = startPlantstore(['--json', 'delete', '--stdin'], { env: envFor(server.url), input: idRange(1, 20_000).join('\n') });
    // stdout never read: after the report, the process waits (up to a second) for the reader to take the rest.
    child.stdout?.pause();
    let stderr = '';
    const reported = new Promise<void>((resolve) => {
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        if (/^interrupted: /m.test(stderr)) resolve();
      });
    });
    const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await answered.atLeast(1);
    child.kill('SIGTERM');
    await reported;
    child.kill('SIGINT');
    expect(await ended).toBe(143);
  });
});
