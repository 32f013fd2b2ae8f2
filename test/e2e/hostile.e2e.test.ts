// The built CLI against a loopback server that misbehaves on purpose: silence, bodies that never
// end or claim a gigabyte, throttling, a compressed body, and the user pressing Ctrl-C or closing
// the pipe. Every run is timed: a hang fails the test instead of stalling the suite.
// Only what needs a real process or a real wire is here, each once. The retry policy (which answers
// are retried, how long between attempts, Retry-After as a date, answers lost before a retry) and
// the decoding of error bodies (encodings, charsets, bad bytes) run in-process with fake timers in
// test/http/retry-and-bodies; what test/http/api shows of the client on a loopback socket (a body
// stalled past the timeout or reset, keeping its status; a connection closed before any answer; a
// 2xx reset mid-body; headers past the parser limit; a redirect not followed) is not repeated.
import { spawn } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, cleanEnv, finished, startPlantstore, tempConfigDir } from '../helpers/cli.js';
import {
  answer,
  type Exchange,
  type HostileOptions,
  type HostileServer,
  modes,
  type Script,
  startHostileServer,
} from '../helpers/hostile-server.js';
import { GNU_TIME, runTimed, runWithPeakRss } from '../helpers/timed.js';

const TOKEN = 'hostile-Token-5e0c1a9b77';
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
  // The one timeout on a real wire: the abandoned attempt's connection is closed, and the retry goes out on another.
  it('gives up on a server that never sends headers at --timeout, closing the connection before retrying: exit 8', async () => {
    const server = await serve(modes.silent());
    const run = await runTimed(['--timeout', '0.5', '--retries', '1', '--max-retry-wait', '0', 'delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(8);
    expect(run.stderr).toBe(
      failure(
        `no complete answer from 127.0.0.1:${server.port} within 0.5s (timeout; raise it with --timeout) (after 2 attempts); the server may or may not have deleted it`,
      ),
    );
    expect(server.exchanges).toHaveLength(2);
    const [first, second] = server.exchanges;
    expect(second!.connection).not.toBe(first!.connection);
    const firstClosed = await first!.connection.closed;
    expect(firstClosed.closedAt).toBeLessThanOrEqual(second!.at);
    // Not closed at once: kept open toward the 0.5 s deadline. The server's clock starts when its
    // event loop sees the request, which on a loaded machine is a few hundred ms after the
    // client's started, so only a close that came far sooner than the deadline is caught here.
    expect(firstClosed.closedAt! - first!.at).toBeGreaterThanOrEqual(100);
  });

  // The timeout is long on purpose: ending well before it shows the 64 KiB cap stopped the read.
  it.each([
    { status: 400, exit: 1 },
    { status: 500, exit: 6 },
  ])('stops reading an endless $status body at the cap and closes the connection: exit $exit', async ({ status, exit }) => {
    const server = await serve(modes.endlessBody(status));
    const run = await runTimed(['--timeout', '20', '--retries', '0', 'delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(exit);
    // A 5xx leaves the request uncertain, and says so.
    const uncertain = status >= 500 ? '; the server may or may not have deleted it' : '';
    expect(run.stderr).toMatch(new RegExp(`^✗ plant 42: endless ${status} x{280,}…${uncertain} \\(HTTP ${status}\\)\\n$`));
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
    expect(run.stderr).toBe(failure('Huge gateway page (after 3 attempts); the server may or may not have deleted it (HTTP 502)'));
    expect(run.peakRssKiB).toBeGreaterThan(0);
    expect(run.peakRssKiB * 1024).toBeLessThan(150 * 1e6);
    expect(server.exchanges).toHaveLength(3);
    for (const connection of server.connections) expect((await connection.closed).bytesWritten).toBeLessThan(64 * MiB);
  });
});

// The whole path once: the header read, the throttle and the client's wait, in a real process.
describe('a Retry-After, end to end', () => {
  it('waits the Retry-After seconds of a 429, then succeeds: exit 0', async () => {
    const server = await serve(modes.sequence(modes.reply(429, { 'retry-after': '1' }), modes.reply(204)));
    const run = await runTimed(['--verbose', 'delete', '42'], { env: envFor(server) });
    expect(run).toMatchObject({ code: 0, stdout: 'Deleted plant 42\n' });
    // Said by the client that read the header: the throttle alone pauses a second for a 429 without one.
    expect(run.stderr).toContain('[42] * retrying in 1s (Retry-After): Too Many Requests\n');
    expect(server.exchanges).toHaveLength(2);
    const [first, second] = server.exchanges;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
  });
});

describe('a compressed body, end to end', () => {
  it('decompresses a gzip-encoded Error object: exit 1 with its code and message', async () => {
    const body = gzipSync(JSON.stringify({ error: 7, message: 'plant 42 is compressed' }));
    const server = await serve(modes.reply(400, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(failure('error 7: plant 42 is compressed (HTTP 400)'));
  });
});

// A base URL that leads to a web front end, a bucket or a portal: its 2xx is proof only when its
// body is what an API sends (the rule, and every shape, is test/unit/http/api-answer.test.ts;
// these are a representative few through a real process and a real wire).
describe('a 2xx that is not proof, end to end', () => {
  const checkBaseUrl =
    'not the API; nothing says the plant was deleted: the base URL may lead elsewhere (check it with plantstore auth status) (HTTP 200)';
  const PAGE = '<!DOCTYPE html><html><head><title>Plant Shop</title></head></html>';
  it.each<[string, Record<string, string>, Buffer | string, string]>([
    ['a PHP notice before the page', {}, `<b>Notice</b>: Undefined index: id\n${PAGE}`, 'a web page ("Plant Shop")'],
    ['<meta refresh>, as text/plain', { 'content-type': 'text/plain' }, '<meta http-equiv="refresh" content="0;url=/login">', 'a web page'],
    ['a frameset', {}, '<frameset><frame src="/app"></frameset>', 'a web page'],
    ['UTF-16 without a byte-order mark', {}, Buffer.from(PAGE, 'utf16le'), 'a body that is not an API answer (not UTF-8 text)'],
    ['an unterminated comment', {}, `<!-- ${PAGE}`, 'a web page ("Plant Shop")'],
    [
      '70,000 spaces before the page',
      {},
      `${' '.repeat(70_000)}${PAGE}`,
      'a body that is not an API answer (more than 64 KiB of text not declared JSON, which cannot be checked)',
    ],
    ['content-encoding: gzip, gzip', { 'content-encoding': 'gzip, gzip' }, gzipSync(gzipSync(PAGE)), 'a web page ("Plant Shop")'],
    ['content-encoding: identity, gzip', { 'content-encoding': 'identity, gzip' }, gzipSync(PAGE), 'a web page ("Plant Shop")'],
    ['an SVG image', { 'content-type': 'image/svg+xml' }, '<svg xmlns="http://www.w3.org/2000/svg"/>', '41 bytes of image/svg+xml'],
    [
      'an S3-style XML <Error>',
      { 'content-type': 'application/xml' },
      '<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>',
      '61 bytes of application/xml',
    ],
    [
      'a page served as application/xhtml+xml, after a BOM, without a title',
      { 'content-type': 'application/xhtml+xml' },
      '\uFEFF<div>Plant Shop</div>',
      '24 bytes of application/xhtml+xml',
    ],
  ])('%s: exit 6, not "Deleted", saying what came back and to check the base URL', async (_name, headers, body, what) => {
    const server = await serve(modes.reply(200, headers, body));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(6);
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toContain('Deleted');
    expect(run.stderr).toBe(failure(`the server answered 200 with ${what}, ${checkBaseUrl}`));
    expect(server.exchanges).toHaveLength(1);
  });

  it('with --json: "deleted":false, exit 6', async () => {
    const server = await serve(modes.reply(200, { 'content-type': 'text/html' }, PAGE));
    const run = await runTimed(['delete', '--json', '42'], { env: envFor(server) });
    expect(run.code).toBe(6);
    expect(JSON.parse(run.stdout)).toMatchObject({ id: 42, deleted: false, status: 200, exit: 6 });
  });

  // Bodies an API could send: worth confirming, and a catch-all answers the DELETE sent again the
  // same (issue 40; the shapes it met, and real APIs that confirm, are test/e2e/proof.e2e.test.ts).
  it.each<[string, number, Record<string, string>, string]>([
    ['JSON whose media type has html in it', 200, { 'content-type': 'application/vnd.html-report+json' }, '{"report":"deleted"}'],
    ['OK', 200, { 'content-type': 'text/plain' }, 'OK'],
    ['{"deleted":true}', 200, { 'content-type': 'application/json' }, '{"deleted":true}'],
  ])('%s, to both DELETEs: not proof, exit 6', async (_name, status, headers, body) => {
    const server = await serve(modes.reply(status, headers, body));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain(`the server answered ${status} twice to the same DELETE`);
    expect(server.exchanges).toHaveLength(2);
  });

  it('a 204: proof, "Deleted", exit 0, nothing sent again', async () => {
    const server = await serve(modes.reply(204));
    const run = await runTimed(['delete', '42'], { env: envFor(server) });
    expect(run).toMatchObject({ code: 0, stdout: 'Deleted plant 42\n' });
    expect(server.exchanges).toHaveLength(1);
  });
});

// nginx with `keepalive_timeout 1s` closes an idle connection as a request goes out on it: the
// request is sent once more on a new connection, as curl does, even under --retries 0 (the
// rules, and what is not sent again, are test/http/idle-close.test.ts).
describe('a keep-alive connection closed as a request goes out on it', () => {
  it('--retries 0: the request is sent once more on a new connection, exit 0, both plants deleted', async () => {
    const server = await serve((exchange) => {
      const onConnection = server.exchanges.filter((earlier) => earlier.connection === exchange.connection).length;
      // The second request on a connection: closed as it arrives, unanswered, as the server's idle timer fires.
      if (onConnection === 2) exchange.connection.socket.destroy();
      else answer(exchange, 204);
    });
    const run = await runTimed(['delete', '--concurrency', '1', '--retries', '0', '1', '2'], { env: envFor(server) });
    expect(run).toMatchObject({ code: 0, stdout: 'Deleted plant 1\nDeleted plant 2\n' });
    expect(server.exchanges.map((e) => [e.url, e.connection.number])).toEqual([
      ['/plants/1', 1],
      ['/plants/2', 1],
      ['/plants/2', 2],
    ]);
  });
});

// A token longer than a proxy accepts: the request is refused for its size, and would be again.
describe('a request refused for its size, end to end', () => {
  it('431: exit 1, said so, not retried under --retries 2', async () => {
    const server = await serve(modes.reply(431));
    const run = await runTimed(['delete', '--retries', '2', '42'], { env: envFor(server) });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      failure(
        "the server refused the request's headers as too large (Request Header Fields Too Large): the token is most likely longer than it accepts (HTTP 431)",
      ),
    );
    expect(server.exchanges).toHaveLength(1);
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
    expect(result.stderr).toContain(
      '1 deleted, 0 already absent, 0 failed, 1 in flight (sent with no decided answer: they may be deleted), 1 not sent',
    );
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
