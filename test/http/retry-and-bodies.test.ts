// The retry policy and the reading of error bodies, through the whole CLI in this process: argv,
// flags and their defaults, the run's throttle, the real HTTP client and the line or JSON object
// printed, over a scripted dispatcher (no sockets). Timers are fake: a Retry-After of a minute costs
// nothing, and when each attempt went out is exact. What the wire adds is checked once each in
// test/e2e/hostile (a real timeout, a Retry-After waited out, a gzip body); the client on real
// loopback sockets in test/http/api.
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { inProcess } from '../helpers/in-process.js';
import { type ScriptedRequest, type Step, scriptedDispatcher } from '../helpers/scripted-dispatcher.js';

const TOKEN = 'retry-Token-4c1e9a7b55';
const BASE = 'https://api.example.com';
const { run } = inProcess();

beforeEach(() => {
  // setImmediate stays real: the batch pool and the output streams use it, and no wait is measured in it.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

interface Run {
  exit: number;
  stdout: string;
  stderr: string;
  requests: ScriptedRequest[];
  /** When each request went out, in ms from the start of the run. */
  times: number[];
  /** When the run ended, in ms from its start. */
  ended: number;
}

/**
 * Runs `plantstore ...argv` for plant 42 (or the ids in argv) against the script, the fake clock
 * moving on from timer to timer until the run ends. Backoff jitter is `random` (0.5 unless told).
 */
async function plantstore(argv: string[], steps: Step[], random = 0.5): Promise<Run> {
  const script = scriptedDispatcher(steps);
  const start = performance.now();
  let ended: number | undefined;
  const pending = run(argv, {
    env: { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: BASE },
    // Only the wire is scripted: the context builds the real transport, as a run does.
    http: { dispatcher: script.dispatcher, random: () => random },
  }).finally(() => {
    ended = performance.now() - start;
  });
  // Each step lets what is due now run (microtasks, I/O, setImmediate), then moves the clock to the next timer.
  while (ended === undefined) await vi.advanceTimersToNextTimerAsync();
  const result = await pending;
  for (const request of script.requests) expect(request).toMatchObject({ origin: BASE, method: 'DELETE' });
  return {
    exit: result.exit,
    stdout: result.stdout,
    stderr: result.stderr,
    requests: script.requests,
    times: script.requests.map((request) => request.at - start),
    ended,
  };
}

/** The failure line of plant 42, as the CLI prints it on stderr. */
const failure = (text: string) => `✗ plant 42: ${text}\n`;
/** After a run the server answered 401 or 403: where the token came from, and how to replace it. */
const TOKEN_REFUSED =
  'the server refused the token (401/403); it came from PLANTSTORE_TOKEN: set it to a valid token, or unset it and store one with plantstore auth login\n';
const json = (stdout: string) => JSON.parse(stdout) as Record<string, unknown>;
const notFound: Step = { answer: 404, headers: { 'content-type': 'application/json' }, body: '{"error":404,"message":"no plant 42"}' };
const deleted: Step = { answer: 204 };

describe('retry policy', () => {
  it('waits the Retry-After seconds of a 429, then deletes: exit 0', async () => {
    const result = await plantstore(['delete', '42'], [{ answer: 429, headers: { 'retry-after': '3' } }, deleted]);
    expect(result).toMatchObject({ exit: 0, stdout: 'Deleted plant 42\n', stderr: '' });
    expect(result.times).toEqual([0, 3000]);
  });

  it('waits until the HTTP date of a 429 Retry-After, then deletes: exit 0', async () => {
    vi.setSystemTime(Date.UTC(2031, 4, 6, 7, 8, 9, 400));
    // Two seconds and a bit ahead: HTTP dates have no fractions.
    const retryAt = Date.UTC(2031, 4, 6, 7, 8, 12);
    const result = await plantstore(
      ['delete', '42'],
      [{ answer: 429, headers: { 'retry-after': new Date(retryAt).toUTCString() } }, deleted],
    );
    expect(result).toMatchObject({ exit: 0, stdout: 'Deleted plant 42\n', stderr: '' });
    expect(result.requests.map((request) => request.wallClock)).toEqual([retryAt - 2600, retryAt]);
  });

  it('does not wait out a Retry-After longer than --max-retry-wait (30s by default): exit 6 at once, one request', async () => {
    const busy: Step = { answer: 429, headers: { 'retry-after': '120' } };
    const result = await plantstore(['delete', '42'], [busy]);
    expect(result.exit).toBe(6);
    expect(result.stderr).toBe(
      failure('Too Many Requests; the server asked to retry after 120s, longer than --max-retry-wait 30s (HTTP 429)'),
    );
    expect(result.times).toEqual([0]);
    expect(result.ended).toBe(0);
    const asJson = await plantstore(['--json', 'delete', '42'], [busy]);
    expect(asJson.exit).toBe(6);
    expect(json(asJson.stdout)).toEqual({
      id: 42,
      deleted: false,
      status: 429,
      error: null,
      message: 'Too Many Requests; the server asked to retry after 120s, longer than --max-retry-wait 30s',
      exit: 6,
    });
  });

  it('retries a 503 after a jittered backoff, saying so with --verbose, then deletes: exit 0', async () => {
    const result = await plantstore(['--verbose', 'delete', '42'], [{ answer: 503 }, deleted]);
    expect(result.exit).toBe(0);
    expect(result.stdout).toBe('Deleted plant 42\n');
    expect(result.stderr).toContain('[42] < HTTP 503 Service Unavailable');
    // Full jitter: half of the first step's 250 ms.
    expect(result.stderr).toContain('[42] * retrying in 0.125s: Service Unavailable\n');
    expect(result.times).toEqual([0, 125]);
  });

  it('backs off exponentially, capped by --max-retry-wait', async () => {
    const gateway: Step = { answer: 502 };
    // 250 ms, then 500 ms: the whole step, with jitter at its top.
    expect((await plantstore(['--retries', '2', 'delete', '42'], [gateway], 0.999_999)).times).toEqual([0, 249, 748]);
    expect((await plantstore(['--retries', '3', '--max-retry-wait', '0.3', 'delete', '42'], [gateway], 0.999_999)).times).toEqual([
      0, 249, 548, 847,
    ]);
  });

  it.each([
    { status: 500, exit: 6, text: 'Internal Server Error; the server may or may not have deleted it' },
    { status: 400, exit: 1, text: 'Bad Request' },
    { status: 401, exit: 4, text: 'Unauthorized', after: TOKEN_REFUSED },
    { status: 403, exit: 4, text: 'Forbidden', after: TOKEN_REFUSED },
    {
      status: 404,
      exit: 5,
      text: "Not Found; the answer is not the API's Error object, so the base URL may be wrong (check it with plantstore auth status)",
    },
  ])('never retries a $status: one request, exit $exit', async ({ status, exit, text, after = '' }) => {
    const result = await plantstore(['delete', '42'], [{ answer: status }, deleted]);
    expect(result.exit).toBe(exit);
    expect(result.stderr).toBe(failure(`${text} (HTTP ${status})`) + after);
    expect(result.requests).toHaveLength(1);
  });

  it('does not follow a 302 to another origin: exit 6 naming the Location, nothing sent there', async () => {
    const location = 'http://127.0.0.1:9/steal/42';
    const result = await plantstore(['delete', '42'], [{ answer: 302, headers: { location } }, deleted]);
    expect(result.exit).toBe(6);
    expect(result.stderr).toBe(
      failure(
        `the server redirected to ${location}; redirects are not followed so the token stays with the base URL you chose, so fix the base URL (HTTP 302)`,
      ),
    );
    // One request, to the base URL (plantstore() checks the origin of each).
    expect(result.requests.map((request) => request.path)).toEqual(['/plants/42']);
  });

  it('retries an HTML 502 and reports its <title>: exit 6 after 3 attempts', async () => {
    const page = '<!DOCTYPE html><html><head><title>502 Bad Gateway — upstream down</title></head><body><h1>nginx</h1></body></html>';
    const gateway: Step = { answer: 502, headers: { 'content-type': 'text/html; charset=utf-8' }, body: page };
    const result = await plantstore(['delete', '42'], [gateway]);
    expect(result.exit).toBe(6);
    expect(result.stderr).toBe(
      failure('502 Bad Gateway — upstream down (after 3 attempts); the server may or may not have deleted it (HTTP 502)'),
    );
    expect(result.requests).toHaveLength(3);
    const asJson = await plantstore(['--json', 'delete', '42'], [gateway]);
    expect(json(asJson.stdout)).toEqual({
      id: 42,
      deleted: false,
      status: 502,
      error: null,
      message: '502 Bad Gateway — upstream down (after 3 attempts); the server may or may not have deleted it',
      exit: 6,
      uncertain: true,
    });
  });
});

describe('a lone id gets --retries attempts, refusals included', () => {
  it('against a server that answers every request 429 (no Retry-After): 3 attempts in about 3 s, numbered of 3', async () => {
    const result = await plantstore(['--verbose', 'delete', '42'], [{ answer: 429 }]);
    expect(result.exit).toBe(6);
    expect(result.requests).toHaveLength(3);
    // Two backoffs and the throttle's two pauses of a second: nowhere near the 67 s of eleven attempts.
    expect(result.ended).toBeLessThanOrEqual(4000);
    const numbered = result.stderr.match(/\* attempt \d+ of \d+/g);
    expect(numbered).toEqual(['* attempt 1 of 3', '* attempt 2 of 3', '* attempt 3 of 3']);
  });

  it('PLANTSTORE_RETRIES=1 with 503, 503, 204: fails after 2 attempts, the 204 never asked for', async () => {
    const unavailable: Step = { answer: 503 };
    const result = await plantstore(['--retries', '1', 'delete', '42'], [unavailable, unavailable, deleted]);
    expect(result.exit).toBe(6);
    expect(result.requests).toHaveLength(2);
    expect(result.stderr).toBe(failure('Service Unavailable (after 2 attempts); the server may or may not have deleted it (HTTP 503)'));
  });
});

describe('the summary reports only the pauses a run waited out', () => {
  it('a Retry-After far past --max-retry-wait stops the ids at once: no pause in the summary', async () => {
    const forever: Step = { answer: 429, headers: { 'retry-after': '99999999999999999999' } };
    const result = await plantstore(['--max-retry-wait', '3', 'delete', '41', '42'], [forever]);
    expect(result.exit).toBe(6);
    expect(result.requests).toHaveLength(2);
    expect(result.ended).toBe(0);
    const summary = result.stderr.trimEnd().split('\n').at(-1);
    expect(summary).toBe('0 deleted, 0 already absent, 2 failed, 0 not sent in 0.0s; throttled: the server refused 2 requests (429/503)');
  });
});

describe('answers lost, and what a retry then hears', () => {
  it("gives up on an answer at --timeout, retries, and a later 404 Error object settles it: absent, maybe the first attempt's doing, exit 0", async () => {
    const result = await plantstore(['--timeout', '0.5', '--max-retry-wait', '0', 'delete', '42'], ['silent', notFound]);
    expect(result).toMatchObject({
      exit: 0,
      stdout: "Plant 42 absent (an earlier attempt's answer was lost: it may have deleted it)\n",
      stderr: '',
    });
    // The first attempt was abandoned at its deadline, --timeout after it went out, then the retry went out.
    const [first, second] = result.requests;
    expect((first?.abortedAt ?? Number.NaN) - (first?.at ?? Number.NaN)).toBe(500);
    expect(second?.at).toBe(first?.abortedAt);
  });

  it('retries a 400 whose body trickled past --timeout, then deletes: exit 0', async () => {
    const trickle: Step = { answer: 400, headers: { 'content-type': 'text/plain' }, body: 'plant 42 is', stall: true };
    const result = await plantstore(['--timeout', '0.5', '--max-retry-wait', '0', 'delete', '42'], [trickle, deleted]);
    expect(result).toMatchObject({ exit: 0, stdout: 'Deleted plant 42\n', stderr: '' });
    expect(result.requests).toHaveLength(2);
    expect(result.requests[0]?.abortedAt).toBeGreaterThanOrEqual(500);
  });

  it('counts a 400 reset mid-body as a lost answer: a later 404 Error object settles it as absent, exit 0', async () => {
    const reset: Step = { answer: 400, headers: { 'content-type': 'application/json' }, body: '{"error":1,"mess', cut: 'ECONNRESET' };
    const result = await plantstore(['--json', '--max-retry-wait', '0', 'delete', '42'], [reset, notFound]);
    expect(result.exit).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ id: 42, deleted: false, absent: true, status: 404, earlierAttempt: true });
    expect(result.requests).toHaveLength(2);
  });

  it('after a lost answer, "no such plant" is absent, with or without --ignore-missing, and never "deleted"', async () => {
    const gone: Step = {
      answer: 400,
      headers: { 'content-type': 'application/json' },
      body: '{"error":1,"message":"plant 42 does not exist"}',
    };
    const steps: Step[] = [{ error: 'UND_ERR_SOCKET', message: 'other side closed' }, gone];
    const retry = ['--retries', '1', '--max-retry-wait', '0'];
    const absent = await plantstore([...retry, 'delete', '--ignore-missing', '--missing-error', '1', '42'], steps);
    const line = "Plant 42 absent (an earlier attempt's answer was lost: it may have deleted it)\n";
    expect(absent).toMatchObject({ exit: 0, stdout: line, stderr: '' });
    const settled = await plantstore([...retry, 'delete', '--missing-error', '1', '42'], steps);
    expect(settled).toMatchObject({ exit: 0, stdout: line, stderr: '' });
    expect(settled.requests).toHaveLength(2);
    // A code nobody declared cannot settle it: a failure, which says how to declare it.
    const undeclared = await plantstore([...retry, 'delete', '42'], steps);
    expect(undeclared.exit).toBe(1);
    expect(undeclared.stderr).toMatch(
      /an earlier attempt's answer was lost: if error 1 means "no such plant", run again with --missing-error 1/,
    );
  });

  it.each([
    { flags: ['--retries', '1'], attempts: 2 },
    { flags: [], attempts: 3 },
  ])('retries a connection closed before any answer, then exits 7 ($attempts attempts for $flags)', async ({ flags, attempts }) => {
    const result = await plantstore(
      [...flags, '--max-retry-wait', '0', 'delete', '42'],
      [{ error: 'UND_ERR_SOCKET', message: 'other side closed' }],
    );
    expect(result.exit).toBe(7);
    expect(result.stderr).toBe(
      failure(
        `connection closed before a complete answer (api.example.com) (after ${attempts} attempts); the server may or may not have deleted it`,
      ),
    );
    expect(result.requests).toHaveLength(attempts);
  });
});

describe('bodies in other encodings', () => {
  const errorObject = JSON.stringify({ error: 7, message: 'plant 42 is compressed' });
  const compressed = (encoding: string, body: Buffer): Step => ({
    answer: 400,
    headers: { 'content-type': 'application/json', 'content-encoding': encoding },
    body,
  });

  it.each([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['GZip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('decompresses a %s Error object: exit 1 with its code and message', async (encoding, compress) => {
    const result = await plantstore(
      ['delete', '42'],
      [compress(Buffer.from(errorObject))].map((body) => compressed(encoding, body)),
    );
    expect(result.exit).toBe(1);
    expect(result.stderr).toBe(failure('error 7: plant 42 is compressed (HTTP 400)'));
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('reads the beginning of a %s HTML page cut short in the middle: its <title> is shown', async (encoding, compress) => {
    // Varied text, so that the compressed page is long enough to be cut in the middle.
    const rows = Array.from({ length: 4000 }, (_, i) => `<p>row ${i} of ${(i * 7919) % 10007}</p>`).join('');
    const whole = compress(`<html><head><title>400 Rejected at the Edge</title></head><body>${rows}</body></html>`);
    const step: Step = {
      answer: 400,
      headers: { 'content-type': 'text/html', 'content-encoding': encoding },
      body: whole.subarray(0, Math.floor(whole.length / 2)),
    };
    const result = await plantstore(['delete', '42'], [step]);
    expect(result.stderr).toBe(failure('400 Rejected at the Edge (HTTP 400)'));
  });

  it('reads the beginning of a gzip body cut short', async () => {
    const whole = gzipSync(errorObject);
    const result = await plantstore(['delete', '42'], [compressed('gzip', whole.subarray(0, whole.length - 8))]);
    expect(result.stderr).toBe(failure('error 7: plant 42 is compressed (HTTP 400)'));
  });

  it.each([
    ['a body that is not gzip at all', compressed('gzip', Buffer.from(errorObject))],
    ['an encoding it does not know, left as it is', compressed('zstd', gzipSync(errorObject))],
    // Its first 64 KiB are an Error object cut short: not one, so the status text.
    [
      'a gzip Error object that would inflate past 64 KiB',
      compressed('gzip', gzipSync(`{"error":7,"message":"${'m'.repeat(1024 * 1024)}"}`)),
    ],
  ])('gives the status text for %s: exit 1, no crash', async (_name, step) => {
    const result = await plantstore(['delete', '42'], [step]);
    expect(result.exit).toBe(1);
    expect(result.stderr).toBe(failure('Bad Request (HTTP 400)'));
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('keeps the beginning of a %s HTML page that inflates past 64 KiB: its <title> is shown', async (encoding, compress) => {
    const page = `<html><head><title>400 Request Rejected by the Firewall</title></head><body>${'<p>padding</p>'.repeat(100_000)}</body></html>`;
    const step: Step = {
      answer: 400,
      headers: { 'content-type': 'text/html; charset=utf-8', 'content-encoding': encoding },
      body: compress(page),
    };
    const result = await plantstore(['delete', '42'], [step]);
    expect(result.exit).toBe(1);
    expect(result.stderr).toBe(failure('400 Request Rejected by the Firewall (HTTP 400)'));
  });

  it.each([
    ['iso-8859-1', Buffer.from(JSON.stringify({ error: 4, message: 'Gänseblümchen 42 ist geschützt' }), 'latin1')],
    ['"utf-16le"', Buffer.from(JSON.stringify({ error: 4, message: 'Gänseblümchen 42 ist geschützt' }), 'utf16le')],
  ])('decodes an Error object in the charset it declares (%s)', async (charset, body) => {
    const result = await plantstore(
      ['delete', '42'],
      [{ answer: 400, headers: { 'content-type': `application/json; charset=${charset}` }, body }],
    );
    expect(result.exit).toBe(1);
    expect(result.stderr).toBe(failure('error 4: Gänseblümchen 42 ist geschützt (HTTP 400)'));
  });

  it('reads a charset it does not know as UTF-8', async () => {
    const body = JSON.stringify({ error: 4, message: 'Gänseblümchen' });
    const result = await plantstore(
      ['delete', '42'],
      [{ answer: 400, headers: { 'content-type': 'application/json; charset=klingon' }, body }],
    );
    expect(result.stderr).toBe(failure('error 4: Gänseblümchen (HTTP 400)'));
  });

  it('survives invalid UTF-8 with no charset: one line, no crash', async () => {
    const body = Buffer.concat([Buffer.from('bad '), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x80]), Buffer.from(' bytes\r\nsecond line')]);
    const result = await plantstore(['delete', '42'], [{ answer: 400, headers: { 'content-type': 'text/plain' }, body }]);
    expect(result.exit).toBe(1);
    expect(result.stderr).toBe(failure('bad \uFFFD\uFFFD\uFFFD(\uFFFD bytes (HTTP 400)'));
  });
});
