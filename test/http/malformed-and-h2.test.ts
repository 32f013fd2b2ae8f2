// Answers no well-behaved server gives, over real loopback sockets, as the outcome data the
// transport hands back and the exit code the table gives it: HTTP/2 streams refused or reset
// and connections closed with GOAWAY errors (retried), a 101 or a 100 Continue to a DELETE that
// asked for neither and two different Content-Lengths (malformed: exit 6), a TLS server that
// wants a client certificate (its reason named), and a 2xx web page (not the API: exit 6).

import { mkdtempSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Exit } from '../../src/errors.js';
import { verdictOf } from '../../src/http/classify.js';
import type { AttemptGate } from '../../src/http/gate.js';
import type { FailedAttempt, Outcome } from '../../src/http/outcome.js';
import { createTransport } from '../../src/http/transport.js';
import { createCa, type Issued, issue, OPENSSL } from '../helpers/certificates.js';
import { DELETE } from '../helpers/requests.js';

const TOKEN = 'h2-Token-0123456789abcdef';
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let dir: string;
let ca: Issued;
let issued: Issued;
beforeAll(() => {
  if (!OPENSSL) return;
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-malformed-'));
  ca = createCa(dir);
  issued = issue(ca, dir, 'server', ['IP:127.0.0.1']);
});
afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

async function listening(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return (server.address() as AddressInfo).port;
}

/** The outcome of `DELETE /plants/42`, as the transport hands it to the delete command. */
/** `final`: as a run whose base URL has never answered as the API asks, an answer that is not the API's is not retried. */
async function deleteOne(baseUrl: string, retries = 2, gate?: AttemptGate, final = false): Promise<Outcome> {
  const transport = createTransport({
    endpoint: { baseUrl, token: TOKEN },
    userAgent: 'test',
    timeoutMs: 5000,
    retries,
    maxRetryWaitMs: 0,
    env: {},
    ...(OPENSSL && baseUrl.startsWith('https') ? { caPem: ca.cert } : {}),
    ...(gate ? { gate } : {}),
  });
  cleanups.push(() => transport.close());
  const request = { ...DELETE, path: '/plants/42', label: '42', ...(final ? { notApiIsFinal: () => true } : {}) };
  return transport.send(request, new AbortController().signal);
}

/** The exit code the table gives the last attempt's failure. */
function exitOf(outcome: Outcome): number {
  expect(outcome.kind).toBe('failed');
  return verdictOf((outcome as Extract<Outcome, { kind: 'failed' }>).last).exit;
}

/** One attempt, failed as `last`: the whole outcome, nothing more in it. */
const once = (last: FailedAttempt): Outcome => ({ kind: 'failed', last, attempts: 1, earlierAnswerLost: false });

const deleted = (status: number, body = ''): Outcome => ({ kind: 'ok', status, body });

/** An h2 server that answers the n-th stream (from 1) as `answer` says. */
async function h2Server(answer: (stream: http2.ServerHttp2Stream, n: number) => void): Promise<{ url: string; streams: () => number }> {
  const server = http2.createSecureServer({ cert: issued.cert, key: issued.key });
  const sessions = new Set<http2.ServerHttp2Session>();
  let streams = 0;
  server.on('session', (session) => sessions.add(session));
  server.on('sessionError', () => {});
  server.on('stream', (stream) => {
    stream.on('error', () => {});
    answer(stream, ++streams);
  });
  const port = await listening(server);
  cleanups.push(() => {
    for (const session of sessions) session.destroy();
  });
  return { url: `https://127.0.0.1:${port}`, streams: () => streams };
}

const ok = (stream: http2.ServerHttp2Stream) => stream.respond({ ':status': 204 }, { endStream: true });

describe.skipIf(!OPENSSL)('HTTP/2 failures are retried per the retry rules', () => {
  it.each([
    ['RST_STREAM REFUSED_STREAM', (s: http2.ServerHttp2Stream) => s.close(http2.constants.NGHTTP2_REFUSED_STREAM)],
    ['RST_STREAM INTERNAL_ERROR', (s: http2.ServerHttp2Stream) => s.close(http2.constants.NGHTTP2_INTERNAL_ERROR)],
    ['GOAWAY INTERNAL_ERROR', (s: http2.ServerHttp2Stream) => s.session?.goaway(http2.constants.NGHTTP2_INTERNAL_ERROR, 0)],
  ])('%s, then 204: ok', async (_name, fail) => {
    // undici retries a REFUSED_STREAM once on its own; ours come after that.
    const server = await h2Server((stream, n) => (n <= 2 ? fail(stream) : ok(stream)));
    expect(await deleteOne(server.url)).toStrictEqual(deleted(204));
  });

  it.each([
    // REFUSED_STREAM guarantees the server did not process it: no answer was lost.
    ['RST_STREAM REFUSED_STREAM', (s: http2.ServerHttp2Stream) => s.close(http2.constants.NGHTTP2_REFUSED_STREAM), 'stream-refused', false],
    ['RST_STREAM INTERNAL_ERROR', (s: http2.ServerHttp2Stream) => s.close(http2.constants.NGHTTP2_INTERNAL_ERROR), 'stream-reset', true],
  ] as const)('%s every time: exit 7 after --retries, naming what the server did', async (_name, fail, what, lost) => {
    const server = await h2Server((stream) => fail(stream));
    const outcome = await deleteOne(server.url, 1);
    expect(outcome).toStrictEqual({
      kind: 'failed',
      last: { kind: 'network', host: `127.0.0.1:${new URL(server.url).port}`, what },
      attempts: 2,
      earlierAnswerLost: lost,
    });
    expect(exitOf(outcome)).toBe(Exit.network);
  });

  it("a resend undici makes on its own is counted against --rate (the gate's resent)", async () => {
    const server = await h2Server((stream, n) => (n === 1 ? stream.close(http2.constants.NGHTTP2_REFUSED_STREAM) : ok(stream)));
    let resent = 0;
    const gate: AttemptGate = {
      acquire: async () => ({ startedAt: 0, release: () => {} }),
      gaveUp: () => undefined,
      admitting: () => false,
      resent: () => resent++,
    };
    expect(await deleteOne(server.url, 0, gate)).toStrictEqual(deleted(204));
    expect(server.streams()).toBe(2);
    expect(resent).toBe(1);
  });
});

// A request refused for its size is refused again: said so, exit 1 (the 4xx row), never retried.
const NGINX_400 = '<html><head><title>400 Request Header Or Cookie Too Large</title></head></html>\r\n';
describe('a request the server refuses for its size', () => {
  it.skipIf(!OPENSSL).each([
    // As nginx does with a header larger than large_client_header_buffers: a GOAWAY naming the stream as the last it saw.
    ['GOAWAY ENHANCE_YOUR_CALM', (s: http2.ServerHttp2Stream) => s.session?.goaway(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM, s.id)],
    ['RST_STREAM ENHANCE_YOUR_CALM', (s: http2.ServerHttp2Stream) => s.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM)],
  ])('over HTTP/2, %s: request-too-large, exit 1, sent once under --retries 2', async (_name, refuse) => {
    const server = await h2Server((stream) => refuse(stream));
    const outcome = await deleteOne(server.url, 2);
    expect(outcome).toMatchObject({ kind: 'failed', attempts: 1, last: { kind: 'request-too-large' } });
    expect(exitOf(outcome)).toBe(Exit.apiRefused);
    expect(server.streams()).toBe(1);
  });

  it.each([
    [
      '431 with no body',
      'HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\n\r\n',
      "the server refused the request's headers as too large (Request Header Fields Too Large): the token is most likely longer than it accepts",
    ],
    [
      '413 with a plain-text body',
      'HTTP/1.1 413 Payload Too Large\r\nContent-Type: text/plain\r\nContent-Length: 15\r\n\r\nEntity too big\n',
      'the server refused the request as too large (Entity too big)',
    ],
    [
      "nginx's 400 for a header too large",
      `HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\nContent-Length: ${NGINX_400.length}\r\n\r\n${NGINX_400}`,
      '400 Request Header Or Cookie Too Large',
    ],
  ])('over HTTP/1.1, %s: says so, exit 1, sent once under --retries 2', async (_name, answer, message) => {
    let requests = 0;
    const base = await rawServer((socket) => {
      requests += 1;
      socket.write(answer);
    });
    const outcome = await deleteOne(base, 2);
    expect(outcome).toMatchObject({ kind: 'failed', attempts: 1, last: { kind: 'api-error', code: null, message } });
    expect(exitOf(outcome)).toBe(Exit.apiRefused);
    expect(requests).toBe(1);
  });
});

/** A plain TCP server that answers the request with these bytes (or lets `reply` do as it likes). */
async function rawServer(reply: string | ((socket: net.Socket) => void)): Promise<string> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () => (typeof reply === 'string' ? socket.write(reply) : reply(socket)));
  });
  const port = await listening(server);
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
  });
  return `http://127.0.0.1:${port}`;
}

describe('malformed answers: exit 6, not retried', () => {
  it.each([
    ['a 101 Switching Protocols to a DELETE', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'],
    ['a 100 Continue nobody asked for', 'HTTP/1.1 100 Continue\r\n\r\n'],
    ['an endless stream of 100 Continue', 'HTTP/1.1 100 Continue\r\n\r\n'.repeat(10_000)],
    ['two different Content-Lengths on a 200', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab'],
    [
      'two different Content-Lengths on a 400',
      'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 30\r\n\r\n{}',
    ],
  ])('%s', async (_name, answer) => {
    const base = await rawServer(answer);
    const outcome = await deleteOne(base);
    expect(outcome).toStrictEqual(once({ kind: 'malformed', host: `127.0.0.1:${new URL(base).port}`, headersTooLarge: false }));
    expect(exitOf(outcome)).toBe(Exit.server);
  });
});

describe('a 2xx that is a web page is not a deletion', () => {
  it('a 200 HTML page: exit 6, naming the page', async () => {
    const page = '<!doctype html><html><head><title>Plant Shop &amp; Garden</title></head><body>Welcome</body></html>';
    const base = await rawServer(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${page.length}\r\n\r\n${page}`);
    const outcome = await deleteOne(base, 2, undefined, true);
    expect(outcome).toStrictEqual(once({ kind: 'web-page', status: 200, title: 'Plant Shop & Garden', final: true }));
    expect(exitOf(outcome)).toBe(Exit.server);
  });

  it('an HTML page without a content type is recognised by its start', async () => {
    const page = '\n<html><body>hi</body></html>';
    const base = await rawServer(`HTTP/1.1 200 OK\r\nContent-Length: ${page.length}\r\n\r\n${page}`);
    const outcome = await deleteOne(base, 2, undefined, true);
    expect(outcome).toStrictEqual(once({ kind: 'web-page', status: 200, title: '', final: true }));
    expect(exitOf(outcome)).toBe(Exit.server);
  });

  it.each([
    [
      'a 200 with a JSON body',
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{"deleted":true}',
      200,
      '{"deleted":true}',
    ],
    ['a 202 Accepted', 'HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n', 202, ''],
    ['a 200 with no body', 'HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', 200, ''],
  ])('%s is ok, with its status and body', async (_name, answer, status, body) => {
    const base = await rawServer(answer);
    expect(await deleteOne(base)).toStrictEqual(deleted(status, body));
  });
});

describe.skipIf(!OPENSSL)('a 2xx over HTTP/2 is proof by the same rule', () => {
  const answering = (headers: http2.OutgoingHttpHeaders, body: string | Buffer) => (stream: http2.ServerHttp2Stream) => {
    stream.respond({ ':status': 200, ...headers });
    stream.end(body);
  };

  it.each<[string, http2.OutgoingHttpHeaders, string | Buffer, FailedAttempt]>([
    ['a page after a PHP notice', {}, '<b>Notice</b>: x\n<title>Shop</title>', { kind: 'web-page', status: 200, title: 'Shop' }],
    [
      'SVG',
      { 'content-type': 'image/svg+xml' },
      '<svg/>',
      { kind: 'not-api', status: 200, body: { kind: 'media-type', mediaType: 'image/svg+xml', bytes: 6, more: false } },
    ],
    [
      'content-encoding: gzip, gzip',
      { 'content-encoding': 'gzip, gzip' },
      gzipSync(gzipSync('<html>')),
      { kind: 'web-page', status: 200, title: '' },
    ],
  ])('%s: not a deletion, exit 6', async (_name, headers, body, last) => {
    const server = await h2Server(answering(headers, body));
    const outcome = await deleteOne(server.url, 2, undefined, true);
    expect(outcome).toStrictEqual(once({ ...last, final: true } as FailedAttempt));
    expect(exitOf(outcome)).toBe(Exit.server);
  });

  it('JSON whose media type has html in it: a deletion', async () => {
    const server = await h2Server(answering({ 'content-type': 'application/vnd.html-report+json' }, '{"deleted":true}'));
    expect(await deleteOne(server.url)).toStrictEqual(deleted(200, '{"deleted":true}'));
  });
});

describe.skipIf(!OPENSSL)('a TLS server that asks for a client certificate', () => {
  it('exit 7, with the reason instead of "connection closed"', async () => {
    const server = tls.createServer(
      { cert: issued.cert, key: issued.key, requestCert: true, rejectUnauthorized: true, ca: [ca.cert] },
      (socket) => socket.end(),
    );
    server.on('tlsClientError', () => {});
    const port = await listening(server);
    const outcome = await deleteOne(`https://127.0.0.1:${port}`);
    expect(outcome).toStrictEqual(
      once({
        kind: 'tls',
        problem: 'other',
        host: `127.0.0.1:${port}`,
        reason: 'the server requires a client certificate, which plantstore does not send',
      }),
    );
    expect(exitOf(outcome)).toBe(Exit.network);
  });
});
