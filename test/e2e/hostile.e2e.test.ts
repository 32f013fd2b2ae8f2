// The built CLI against a loopback server that misbehaves on purpose: silence, bodies
// that trickle, never end or claim a gigabyte, resets, empty replies, throttling,
// redirects, odd encodings, and the user pressing Ctrl-C or closing the pipe.
// Every run is timed: a hang fails the test instead of stalling the suite. What test/http/api.test
// already shows of the HTTP client on a loopback socket (a body stalled past the timeout or reset,
// keeping its status; a 2xx reset mid-body; headers past the parser limit; a 304) is not repeated.
import { spawn } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, cleanEnv, finished, startPlantstore, tempConfigDir } from '../helpers/cli.js';
import {
  answer,
  closeOnAccept,
  type Exchange,
  type HostileOptions,
  type HostileServer,
  modes,
  type Script,
  startHostileServer,
} from '../helpers/hostile-server.js';
import { GNU_TIME, runTimed, runWithPeakRss } from '../helpers/timed.js';

const TOKEN = 'hostile-Token-5e0c1a9b77';
/** Slack on top of the deadlines a run may legitimately spend: process start, scheduling on a busy CI machine. */
const MiB = 1024 * 1024;

let config: ReturnType<typeof tempConfigDir>;
beforeAll(() => {
  config = tempConfigDir();
});
afterAll(() => config.cleanup());

const envFor = (server: HostileServer) => ({ PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url });

async function serve(script: Script, options?: HostileOptions): Promise<HostileServer> {
  const server = await startHostileServer(script, options);
  onTestFinished(() => server.close());
  return server;
}

/** The failure line of plant 42, as the CLI prints it on stderr. */
const failure = (text: string) => `✗ plant 42: ${text}\n`;

describe('deadlines and bodies', () => {
  it('gives up on a server that never sends headers: exit 8 at --timeout', async () => {
    const server = await serve(modes.silent());
    const run = await runTimed(['--timeout', '0.5', '--retries', '0', 'delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(8);
    expect(run.stderr).toBe(failure(`no complete answer from 127.0.0.1:${server.port} within 0.5s (timeout; raise it with --timeout)`));
    expect(server.exchanges).toHaveLength(1);
  });

  // An answer whose head arrived but whose body did not is no answer: a timeout like any other, retried.
  it('retries a 400 whose body trickled past --timeout, then succeeds: exit 0', async () => {
    const server = await serve(modes.sequence(modes.slowBody(400), modes.reply(204)));
    const run = await runTimed(['--timeout', '0.5', '--max-retry-wait', '0', 'delete', '42'], { env: envFor(server) });
    expect(run).toMatchObject({ code: 0, stdout: 'Deleted plant 42\n', stderr: '' });
    expect(server.exchanges).toHaveLength(2);
  });

  // The timeout is long on purpose: ending well before it shows the 64 KiB cap stopped the read.
  it.each([
    { status: 400, exit: 1 },
    { status: 500, exit: 6 },
  ])('stops reading an endless $status body at the cap and closes the connection: exit $exit', async ({ status, exit }) => {
    const server = await serve(modes.endlessBody(status));
    const run = await runTimed(['--timeout', '20', '--retries', '0', 'delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(exit);
    expect(run.stderr).toMatch(new RegExp(`^✗ plant 42: endless ${status} x{280,}… \\(HTTP ${status}\\)\\n$`));
    const [connection] = server.connections;
    await connection!.closed;
    // What left the server: the 64 KiB read plus whatever loopback socket buffers held, not an endless stream.
    expect(connection!.bytesWritten).toBeLessThan(32 * MiB);
    expect(server.exchanges).toHaveLength(1);
  });

  it.skipIf(!GNU_TIME)('stays small when a 502 announces a 1 GB body with Content-Length (peak RSS < 150 MB)', async () => {
    const server = await serve(modes.hugeBody(502, 1_000_000_000));
    const run = await runWithPeakRss(['--max-retry-wait', '0', 'delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(6);
    expect(run.stderr).toBe(failure('Huge gateway page (after 3 attempts) (HTTP 502)'));
    expect(run.peakRssKiB).toBeGreaterThan(0);
    expect(run.peakRssKiB * 1024).toBeLessThan(150 * 1e6);
    expect(server.exchanges).toHaveLength(3);
    for (const connection of server.connections) expect((await connection.closed).bytesWritten).toBeLessThan(64 * MiB);
  });

  it("counts a 400 reset mid-body as a lost answer: a later 404 may be that attempt's doing, exit 5", async () => {
    const notFound = modes.reply(404, { 'content-type': 'application/json' }, '{"error":404,"message":"no plant 42"}');
    const server = await serve(modes.sequence(modes.resetMidBody(400), notFound));
    const run = await runTimed(['--max-retry-wait', '0', 'delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('it may already have been deleted by an earlier attempt whose answer was lost');
    expect(server.exchanges).toHaveLength(2);
  });

  it.each([
    { flags: ['--retries', '1'], connections: 2 },
    { flags: [], connections: 3 },
  ])('retries an empty reply, then exits 7 ($connections connections for $flags)', async ({ flags, connections }) => {
    const server = await serve(modes.silent(), { onConnection: closeOnAccept });
    const run = await runTimed([...flags, '--max-retry-wait', '0', 'delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(7);
    expect(run.stderr).toMatch(
      new RegExp(
        `^✗ plant 42: connection (closed|reset) [^\\n]*\\(127\\.0\\.0\\.1:${server.port}\\) \\(after ${connections} attempts\\)\\n$`,
      ),
    );
    expect(server.connections).toHaveLength(connections);
  });
});

describe('retry policy', () => {
  it('waits the Retry-After seconds of a 429, then succeeds: exit 0', async () => {
    const server = await serve(modes.sequence(modes.reply(429, { 'retry-after': '1' }), modes.reply(204)));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run).toMatchObject({ code: 0, stdout: 'Deleted plant 42\n', stderr: '' });
    expect(server.exchanges).toHaveLength(2);
    const [first, second] = server.exchanges;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
  });

  it('waits until the HTTP date of a 429 Retry-After, then succeeds: exit 0', async () => {
    let retryAt = 0;
    const throttle: Script = (exchange) => {
      // A whole second (HTTP dates have no fractions) 1 to 2 s ahead.
      retryAt = Math.ceil((Date.now() + 1000) / 1000) * 1000;
      answer(exchange, 429, { 'retry-after': new Date(retryAt).toUTCString() });
    };
    const server = await serve(modes.sequence(throttle, modes.reply(204)));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run).toMatchObject({ code: 0, stdout: 'Deleted plant 42\n', stderr: '' });
    expect(server.exchanges).toHaveLength(2);
    expect(server.exchanges[1]!.wallClock).toBeGreaterThanOrEqual(retryAt - 50);
  });

  it('does not wait out a Retry-After longer than --max-retry-wait: exit 6 at once, one request', async () => {
    const server = await serve(modes.reply(429, { 'retry-after': '120' }));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(6);
    expect(run.stderr).toBe(
      failure('Too Many Requests; the server asked to retry after 120s, longer than --max-retry-wait 30s (HTTP 429)'),
    );
    expect(server.exchanges).toHaveLength(1);
  });

  it('retries a 503, saying so with --verbose, then succeeds: exit 0', async () => {
    const server = await serve(modes.sequence(modes.reply(503), modes.reply(204)));
    const run = await runTimed(['--verbose', 'delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Deleted plant 42\n');
    expect(run.stderr).toContain('[42] * retrying in ');
    expect(run.stderr).toContain('< HTTP 503 Service Unavailable');
    expect(server.exchanges).toHaveLength(2);
  });

  it.each([
    { status: 500, exit: 6, text: 'Internal Server Error' },
    { status: 400, exit: 1, text: 'Bad Request' },
    { status: 401, exit: 4, text: 'Unauthorized' },
    { status: 403, exit: 4, text: 'Forbidden' },
    {
      status: 404,
      exit: 5,
      text: "Not Found; the answer is not the API's Error object, so the base URL may be wrong (check it with plantstore auth status)",
    },
  ])('never retries a $status: one request, exit $exit', async ({ status, exit, text }) => {
    const server = await serve(modes.reply(status));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(exit);
    expect(run.stderr).toBe(failure(`${text} (HTTP ${status})`));
    expect(server.exchanges).toHaveLength(1);
  });

  it('does not follow a 302 to another origin: it receives nothing, exit 6 naming the Location', async () => {
    const other = await serve(modes.reply(204));
    const location = `${other.url}/steal/42`;
    const server = await serve(modes.reply(302, { location }));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(`redirected to ${location}`);
    expect(run.stderr).toContain('(HTTP 302)');
    expect(server.exchanges).toHaveLength(1);
    expect(other.connections).toHaveLength(0);
  });

  it('retries an HTML 502 and reports its <title>: exit 6 after 3 attempts', async () => {
    const page = '<!DOCTYPE html><html><head><title>502 Bad Gateway — upstream down</title></head><body><h1>nginx</h1></body></html>';
    const server = await serve(modes.reply(502, { 'content-type': 'text/html; charset=utf-8' }, page));
    const run = await runTimed(['--max-retry-wait', '0', 'delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(6);
    expect(run.stderr).toBe(failure('502 Bad Gateway — upstream down (after 3 attempts) (HTTP 502)'));
    expect(server.exchanges).toHaveLength(3);
  });

  it("gives up after a timeout and says a later 404 may be the first attempt's doing: exit 5", async () => {
    const notFound = modes.reply(404, { 'content-type': 'application/json' }, '{"error":404,"message":"no plant 42"}');
    const server = await serve(modes.sequence(modes.silent(), notFound));
    const run = await runTimed(['--timeout', '0.5', '--max-retry-wait', '0', 'delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(5);
    expect(run.stderr).toBe(
      failure(
        'error 404: no plant 42 (after 2 attempts); it may already have been deleted by an earlier attempt whose answer was lost (HTTP 404)',
      ),
    );
    expect(server.exchanges).toHaveLength(2);
    // The first request was abandoned (its connection closed by the CLI's timeout) before the retry came.
    const firstClosed = await server.exchanges[0]!.connection.closed;
    expect(firstClosed.closedAt).toBeLessThanOrEqual(server.exchanges[1]!.at);
    expect(firstClosed.closedAt! - server.exchanges[0]!.at).toBeGreaterThanOrEqual(250);
  });
});

describe('bodies in other encodings', () => {
  it('decompresses a gzip-encoded Error object: exit 1 with its code and message', async () => {
    const body = gzipSync(JSON.stringify({ error: 7, message: 'plant 42 is compressed' }));
    const server = await serve(modes.reply(400, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(failure('error 7: plant 42 is compressed (HTTP 400)'));
  });

  it('decodes an Error object in the charset it declares (iso-8859-1)', async () => {
    const body = Buffer.from(JSON.stringify({ error: 4, message: 'Gänseblümchen 42 ist geschützt' }), 'latin1');
    const server = await serve(modes.reply(400, { 'content-type': 'application/json; charset=iso-8859-1' }, body));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(failure('error 4: Gänseblümchen 42 ist geschützt (HTTP 400)'));
  });

  it('survives invalid UTF-8 with no charset: one line, no crash', async () => {
    const body = Buffer.concat([Buffer.from('bad '), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x80]), Buffer.from(' bytes\r\nsecond line')]);
    const server = await serve(modes.reply(400, { 'content-type': 'text/plain' }, body));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^✗ plant 42: bad \uFFFD+\(?\uFFFD* bytes \(HTTP 400\)\n$/);
  });
});

describe('signals', () => {
  // One request at a time, as the scenario goes: 1 answered, 2 in flight, 3 still waiting its turn.
  it.each([
    { signal: 'SIGINT' as const, exit: 130 },
    { signal: 'SIGTERM' as const, exit: 143 },
  ])('on $signal mid-run: exit $exit, saying what was and was not deleted', async ({ signal, exit }) => {
    const server = await serve((exchange) => {
      if (exchange.url === '/plants/1') answer(exchange, 204); // plant 2 hangs until the signal: only the signal can end the run
    });
    const child = startPlantstore(['delete', '--concurrency', '1', '1', '2', '3'], { env: envFor(server) });
    const done = finished(child);
    await requestFor(server, '/plants/2');
    child.kill(signal);
    const result = await done;
    expect(result.code).toBe(exit);
    expect(result.stdout).toBe('Deleted plant 1\n');
    expect(result.stderr).toContain('✗ plant 2: interrupted while waiting for the answer; the server may or may not have deleted it\n');
    expect(result.stderr).toContain('✗ plant 3: not sent: interrupted before its turn\n');
    expect(result.stderr).toContain('1 deleted, 0 already absent, 1 failed, 1 not attempted');
    expect(result.stderr).toContain('interrupted: 1 of 3 deleted before the interrupt');
    expect(server.exchanges.map((e) => e.url)).toEqual(['/plants/1', '/plants/2']);
  });
});

describe('a reader that goes away', () => {
  const noStackTrace = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at |EPIPE|Error:/);
  // Twenty ids are more than run at once, so the reader is gone while work remains.
  const twenty = Array.from({ length: 20 }, (_, i) => String(i + 1));

  it.each([
    { name: '1 2 3', ids: ['1', '2', '3'] },
    { name: '1 to 20', ids: twenty },
  ])('delete $name | head -c 0: plantstore exits 0, no stack trace, every plant deleted', async ({ ids }) => {
    const server = await serve(modes.reply(204));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash script, expanded by bash
    const script = 'set -o pipefail; "$@" | head -c 0; echo "status=${PIPESTATUS[0]}"';
    const child = spawn('bash', ['-c', script, 'bash', process.execPath, BIN, 'delete', ...ids], {
      env: cleanEnv(envFor(server)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result = await finished(child);
    expect(result.stdout).toBe('status=0\n');
    noStackTrace(result.stderr);
    // Exit 0 promises every plant was deleted, so every one must have been sent.
    expect(sentIds(server)).toEqual([...ids].sort());
  });

  it('exits 0 without a stack trace when its stdout is closed at once, every plant deleted', async () => {
    const server = await serve(modes.reply(204));
    const child = startPlantstore(['delete', ...twenty], { env: envFor(server) });
    child.stdout!.destroy();
    const result = await finished(child);
    expect(result.code).toBe(0);
    noStackTrace(result.stderr);
    expect(sentIds(server)).toEqual([...twenty].sort());
  });

  const sentIds = (server: HostileServer) => server.exchanges.map((e) => e.url.replace('/plants/', '')).sort();
});

/** Resolves when the server sees a request for `url` (or already has). */
async function requestFor(server: HostileServer, url: string): Promise<Exchange> {
  for (;;) {
    const seen = server.exchanges.find((e) => e.url === url);
    if (seen) return seen;
    await server.nextExchange();
  }
}
