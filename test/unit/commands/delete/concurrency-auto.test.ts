// `--concurrency auto` as the user sees it: --help, completion, the --verbose line for each
// change of the limit, and the summary naming where the run settled (and today's bytes without auto).
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../../src/cli.js';
import { DELETE_RESULTS } from '../../../../src/commands/delete/operation.js';
import type { DeleteResult } from '../../../../src/commands/delete/result.js';
import { globalOptionsFor } from '../../../../src/commands/help/documented.js';
import { completionTree } from '../../../../src/completion/tree.js';
import { createContext } from '../../../../src/context.js';
import { describeChange, summaryLine } from '../../../../src/engine/summary.js';
import { Tally } from '../../../../src/engine/tally.js';
import type { Stdin } from '../../../../src/platform/stdin.js';
import { createTestIO } from '../../../../src/ui/io.js';
import { inProcess } from '../../../helpers/in-process.js';
import { scriptedDispatcher } from '../../../helpers/scripted-dispatcher.js';
import { CALM } from '../../engine/calm-stats.js';

const calm = CALM;

const READY = { PLANTSTORE_BASE_URL: 'https://api.example.com', PLANTSTORE_TOKEN: 'sandbox-token-0123456789' };
const { run } = inProcess();

function tallyOf(deleted: number): Tally<DeleteResult> {
  const tally = new Tally(DELETE_RESULTS);
  for (let i = 1; i <= deleted; i += 1) tally.add({ id: String(i), deleted: true, status: 204 });
  return tally;
}

describe('the summary line', () => {
  it('with a fixed --concurrency: the same bytes as before auto existed', () => {
    expect(summaryLine(tallyOf(2), 400, calm)).toBe('2 deleted, 0 already absent, 0 failed, 0 not sent in 0.4s');
  });

  it('with auto: names the limit the run settled at', () => {
    expect(summaryLine(tallyOf(2), 400, { ...calm, concurrencyLimit: 48, settledConcurrency: 48 })).toBe(
      '2 deleted, 0 already absent, 0 failed, 0 not sent in 0.4s; concurrency settled at 48',
    );
  });

  it('with auto, settled at the ceiling: says it is the ceiling (more may have been taken)', () => {
    const stats = { ...calm, concurrencyLimit: 64, settledConcurrency: 64 };
    expect(summaryLine(tallyOf(2), 400, stats, false, 64)).toBe(
      '2 deleted, 0 already absent, 0 failed, 0 not sent in 0.4s; concurrency settled at 64 (the ceiling)',
    );
    expect(summaryLine(tallyOf(2), 400, stats, false, 256)).toMatch(/settled at 64$/);
  });

  it('with auto, when nothing was sent (every id not sent, or done by an earlier run): nothing about concurrency', () => {
    const stats = { ...calm, concurrencyLimit: 4, settledConcurrency: 4 };
    const unsent = new Tally(DELETE_RESULTS);
    for (const id of ['1', '2']) {
      unsent.add({ id, deleted: false, status: null, error: null, message: 'not sent: no token', exit: 4, attempted: false });
    }
    expect(summaryLine(unsent, 400, stats)).toBe('0 deleted, 0 already absent, 0 failed, 2 not sent in 0.4s');
    const skipped = new Tally(DELETE_RESULTS);
    skipped.add({ id: '1', deleted: true, status: null, journal: true });
    expect(summaryLine(skipped, 400, stats, true)).toBe('0 deleted, 1 skipped (journal), 0 already absent, 0 failed, 0 not sent in 0.4s');
  });

  it('with auto and 503 cuts: the limit is named once, as where the run settled', () => {
    const stats = { ...calm, refusals: 3, concurrencyCuts: 2, concurrencyLimit: 19, settledConcurrency: 19 };
    expect(summaryLine(tallyOf(2), 400, stats)).toBe(
      '2 deleted, 0 already absent, 0 failed, 0 not sent in 0.4s; throttled: the server refused 3 requests (429/503); concurrency settled at 19',
    );
    // A fixed limit keeps today's words.
    expect(summaryLine(tallyOf(2), 400, { ...calm, refusals: 3, concurrencyCuts: 2, concurrencyLimit: 19 })).toBe(
      '2 deleted, 0 already absent, 0 failed, 0 not sent in 0.4s; throttled: the server refused 3 requests (429/503), 19 in flight',
    );
  });
});

describe('--verbose', () => {
  it('a change of the auto limit is one line: from, to, and why', () => {
    expect(describeChange({ kind: 'limit', from: 24, to: 32, reason: 'latency flat' })).toBe('concurrency 24 → 32: latency flat');
    expect(describeChange({ kind: 'limit', from: 32, to: 25, reason: 'overloaded (503)' })).toBe('concurrency 32 → 25: overloaded (503)');
  });

  it('a run with --concurrency auto prints its first growth once, and the summary names where it settled', async () => {
    const script = scriptedDispatcher([{ answer: 204 }]);
    const ids = Array.from({ length: 40 }, (_, i) => String(i + 1)).join('\n');
    const result = await run(['--verbose', 'delete', '--stdin', '--concurrency', 'auto'], {
      env: READY,
      stdin: [ids],
      http: { dispatcher: script.dispatcher },
    });
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(0);
    expect(script.requests).toHaveLength(40);
    const lines = result.stderr.split('\n');
    // Eight answers at 4 in flight are the base latency; the limit then doubles, whatever the timing after.
    expect(lines.filter((line) => line.startsWith('* concurrency '))[0]).toBe('* concurrency 4 → 8: latency flat');
    expect(lines.filter((line) => line === '* concurrency 4 → 8: latency flat')).toHaveLength(1);
    expect(result.stderr).toMatch(/^40 deleted, 0 already absent, 0 failed, 0 not sent in \d+\.\ds; concurrency settled at \d+$/m);
  });

  it('a run with a fixed --concurrency prints no limit lines, and its summary is as before', async () => {
    const script = scriptedDispatcher([{ answer: 204 }]);
    const ids = Array.from({ length: 40 }, (_, i) => String(i + 1)).join('\n');
    const result = await run(['--verbose', 'delete', '--stdin', '--concurrency', '4'], {
      env: READY,
      stdin: [ids],
      http: { dispatcher: script.dispatcher },
    });
    expect(result.exit).toBe(0);
    expect(result.stderr).not.toContain('* concurrency');
    expect(result.stderr).toMatch(/^40 deleted, 0 already absent, 0 failed, 0 not sent in \d+\.\ds$/m);
  });
});

describe('help and completion know auto', () => {
  const program = buildProgram(
    createContext({ io: createTestIO(), env: {}, stdin: [] as unknown as Stdin, version: '0.0.0', signal: new AbortController().signal }),
    () => {},
  );

  it('completion offers auto, and auto:256 to raise its ceiling, after --concurrency', () => {
    const remove = completionTree(program, globalOptionsFor).commands.find((command) => command.name === 'delete');
    const option = remove?.options.find((o) => o.names.includes('--concurrency'));
    expect(option?.value).toEqual({ kind: 'words', words: ['auto', 'auto:256'] });
  });

  it('delete --help shows the range, auto, its ceiling and the variable; the top-level Environment section lists the variable', async () => {
    const help = await run(['delete', '--help']);
    expect(help.stdout).toContain('--concurrency <n|auto[:max]>');
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(
      "requests in flight: n (1..256), or auto, found from the server's latency up to 64 (auto:N: up to N) (env PLANTSTORE_CONCURRENCY; default auto)",
    );
    const top = await run(['--help']);
    expect(top.stdout.replace(/\s+/g, ' ')).toContain('PLANTSTORE_CONCURRENCY like --concurrency: a number, auto, or auto:max');
  });
});
