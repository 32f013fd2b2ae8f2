// A share of failures costs retries, not ids; deadlines hold; a run that gives up exits at once
// (issue 40, items 6, 7, 8 and 11's gateway). The built CLI against loopback servers that record
// what they were sent. The shares are asserted on counts (ids failed, ids deleted); the deadlines
// on bounds measured from outside ("exits within --timeout + 1 s of the deadline"), with margins
// for a loaded 2-core machine: a run that misses them today takes tens of seconds, or never ends.
import path from 'node:path';
import { describe, it, type TestContext } from 'vitest';
import { idRange } from '../helpers/batch-output.js';
import { endsWithin, runPlantstore, startPlantstore } from '../helpers/cli.js';
import { startFailingShareServer } from '../helpers/failing-share-server.js';
import { BAD_GATEWAY_PAGE } from '../helpers/gateway-proxy.js';
import { concurrentLoopbackCases } from '../helpers/loopback-cases.js';
import { closedAfter, ownConfigDir } from '../helpers/per-test.js';

const TOKEN = 'pace-Token-40c6d7e8';
const scratch = concurrentLoopbackCases(TOKEN);
/**
 * A test's own servers, environment and journal (the tests of this file run at once, their waits
 * overlapping); `withRetries` gives the CLI's default retries, which loopbackCases turns off for its one-answer cases.
 */
function casesOf(context: TestContext) {
  const { serve, envFor } = scratch(context);
  return {
    serve,
    withRetries: (baseUrl: string) => ({ ...envFor(baseUrl), PLANTSTORE_RETRIES: '2' }),
    journalFile: () => path.join(ownConfigDir(context), 'job.journal'),
    expect: context.expect,
  };
}
/** Start-up of the CLI on a loaded machine, on top of every bound below. */
const STARTUP_MARGIN_MS = 3000;

/** The summary's counts; `left`: the ids neither deleted nor absent (failed, not sent, or in flight when it stopped). */
function summaryOf(stderr: string) {
  const line = /^\d+ deleted, .* in [\d.]+m?s/m.exec(stderr)?.[0];
  if (line === undefined) throw new Error(`no summary line in:\n${stderr}`);
  const count = (what: string) => Number(new RegExp(`(\\d+) ${what}`).exec(line)?.[1] ?? 0);
  const [deleted, absent, failed, notSent, inFlight] = ['deleted', 'already absent', 'failed', 'not sent', 'in flight'].map(count) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return { deleted, absent, failed, notSent, left: failed + notSent + inFlight };
}

/** Spawns the CLI and waits for it to end (killed after `guardMs`), with the time it took from spawn to exit. */
async function timedRun(args: string[], env: Record<string, string>, guardMs = 60_000) {
  const started = performance.now();
  const result = await endsWithin(startPlantstore(args, { env }), guardMs);
  return { ...result, ms: performance.now() - started };
}

// These two first, one after the other: they keep the CPU busy (2,000 ids each), and the deadlines
// measured below run after them, at once (each test has its own servers and folders), their waits overlapping.
describe('one upstream of several dead: a seeded share of the requests answers 502', () => {
  it.for([
    // At most 1% of 2,000 ids; before, 251 failed (each id had its 3 attempts, and 1 in 8 failed all three).
    { share: 0.5, failedAtMost: 20 },
    // None; before, 35 failed.
    { share: 0.25, failedAtMost: 0 },
  ])(
    '2,000 ids, $share of requests failing: at most $failedAtMost ids fail, and the service is never taken for down',
    { timeout: 120_000 },
    async ({ share, failedAtMost }, context) => {
      const { withRetries, expect } = casesOf(context);
      const server = closedAfter(context, await startFailingShareServer({ share, latencyMs: 10 }));
      const result = await runPlantstore(['delete', '--stdin'], { env: withRetries(server.url), input: idRange(1, 2000).join('\n') });
      const counts = summaryOf(result.stderr);
      // An id that failed every attempt with a 502 is in flight (a gateway's 502 may hide a deletion): not done either way.
      expect(counts.left).toBeLessThanOrEqual(failedAtMost);
      expect(counts.deleted + counts.left).toBe(2000);
      expect(counts.notSent).toBe(0);
      expect(server.deleted.size).toBe(counts.deleted);
      // The share was there: about as many 502s as asked for, each costing a retry and not an id.
      expect(server.failed).toBeGreaterThan(share * 1000);
      expect(result.stderr).not.toMatch(/the service was down/);
      expect(result.code).toBe(counts.left === 0 ? 0 : 6);
    },
  );
});

describe.concurrent('--max-duration holds: no attempt after it, and the process exits within --timeout + 1 s of it', () => {
  it('one id answering 503 Retry-After: 25, --max-duration 3s --timeout 5: exit 10 at the deadline, and the journal goes on', async (context) => {
    const { serve, withRetries, journalFile, expect } = casesOf(context);
    const journal = journalFile();
    let healthy = false;
    const server = await serve((_req, res) => {
      if (healthy) res.writeHead(204).end();
      else res.writeHead(503, { 'retry-after': '25', 'content-type': 'application/json' }).end('{"error":503,"message":"later"}');
    });
    const args = ['delete', '--max-duration', '3s', '--timeout', '5', '--journal', journal, '7'];
    const run = await timedRun(args, withRetries(server.url));
    expect(run.code).toBe(10);
    // Before: it waited the 25 s out, twice, and sent after the deadline (50 s in all).
    expect(run.ms).toBeLessThan(3000 + 5000 + 1000 + STARTUP_MARGIN_MS);
    expect(server.requests).toHaveLength(1);
    expect(run.stderr).toMatch(/^✗ plant 7: .*--max-duration 3s reached, so it was not tried again/m);
    expect(run.stderr).toMatch(
      /stopped at --max-duration 3s: 0 of 1 deleted, 1 in flight, 0 not sent: run the same command again to go on/,
    );

    healthy = true;
    const again = await runPlantstore(args, { env: withRetries(server.url) });
    expect(again.code).toBe(0);
    expect(server.requests).toHaveLength(2);
  }, 90_000);

  it('an outage (every request 502), --max-duration 3s --timeout 5: exit 10 at the deadline, no request after it, and the journal goes on', async (context) => {
    const { serve, withRetries, journalFile, expect } = casesOf(context);
    const journal = journalFile();
    let healthy = false;
    const arrivals: number[] = [];
    const server = await serve((req, res) => {
      req.resume();
      arrivals.push(performance.now());
      if (healthy) res.writeHead(204).end();
      else res.writeHead(502, { 'content-type': 'text/html' }).end(BAD_GATEWAY_PAGE);
    });
    const ids = idRange(1, 50);
    const args = ['delete', '--max-duration', '3s', '--timeout', '5', '--journal', journal, ...ids];
    const run = await timedRun(args, withRetries(server.url));
    expect(run.code).toBe(10);
    // Before: the run waited the outage out, and never stopped (killed at 90 s).
    expect(run.ms).toBeLessThan(3000 + 5000 + 1000 + STARTUP_MARGIN_MS);
    // The deadline counts from the process's start, before its first request: nothing leaves after it.
    const first = arrivals[0] as number;
    expect(Math.max(...arrivals) - first).toBeLessThan(3000 + 1000);
    const counts = summaryOf(run.stderr);
    expect(counts.deleted).toBe(0);
    expect(counts.left).toBe(50);

    healthy = true;
    const again = await runPlantstore(args, { env: withRetries(server.url) });
    expect(again.code).toBe(0);
    expect(summaryOf(again.stderr).deleted).toBe(50);
  }, 90_000);
});

describe.concurrent('a gateway answering 504 to everything: the run gives up at --max-outage, and exits at once', () => {
  it('200 ids, --max-outage 3s --max-retry-wait 10: exit 6 within a probe and a second of it, every id reported, the service said to be down', async (context) => {
    const { serve, withRetries, expect } = casesOf(context);
    const server = await serve((req, res) => {
      req.resume();
      res.writeHead(504, { 'content-type': 'text/html' }).end('<html><body><h1>504 Gateway Time-out</h1></body></html>');
    });
    const run = await timedRun(['delete', '--max-outage', '3s', '--max-retry-wait', '10', ...idRange(1, 200)], withRetries(server.url));
    expect(run.code).toBe(6);
    // The give-up comes with the first probe past 3 s (one a second); the retry waits it will not use
    // (up to 10 s each) are cancelled, not waited out. Before: 127 s at the defaults.
    expect(run.ms).toBeLessThan(3000 + 1000 + 1000 + STARTUP_MARGIN_MS);
    const counts = summaryOf(run.stderr);
    expect(counts.left).toBe(200);
    expect(counts.notSent).toBeGreaterThan(0);
    expect(run.stderr).toMatch(/the service was down once/);
    expect(run.stderr).toMatch(/over 3 s \(504\)/);
    // The ids the give-up left unsent say which limit it reached.
    expect(run.stderr).toMatch(/not sent: the server refused all \d+ requests .*, more than --max-outage 3s/);
  }, 60_000);
});

describe.concurrent('a run stopped by its failure budget sends nothing more, retries included', () => {
  it('--fail-fast: the id waiting out a Retry-After of 20 s is not waited for, but reported with its last answer', async (context) => {
    const { serve, withRetries, expect } = casesOf(context);
    const server = await serve((req, res) => {
      req.resume();
      if (req.url?.endsWith('/1')) res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":3,"message":"protected"}');
      else res.writeHead(503, { 'retry-after': '20', 'content-type': 'application/json' }).end('{"error":503,"message":"later"}');
    });
    const run = await timedRun(['delete', '--fail-fast', '--concurrency', '2', '1', '2'], withRetries(server.url));
    // Plant 1's code (a 400 Error object), as --fail-fast gives.
    expect(run.code).toBe(1);
    // Before: it waited the 20 s out and sent plant 2 again after the run had stopped.
    expect(run.ms).toBeLessThan(20_000 - 5000);
    expect(server.requests.map((request) => request.url)).toEqual(expect.arrayContaining(['/plants/1', '/plants/2']));
    expect(server.requests).toHaveLength(2);
    expect(run.stderr).toMatch(/^✗ plant 2: .*--fail-fast stopped after plant 1 failed, so it was not tried again/m);
  }, 60_000);
});
