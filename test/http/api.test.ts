import dns from 'node:dns';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeleteResult, NotDeleted } from '../../src/batch/result.js';
import { describeAttempt, describeOutcome } from '../../src/commands/delete/outcomes.js';
import { userAgent } from '../../src/context.js';
import { Exit } from '../../src/errors.js';
import { createPlantApi, type PlantApi } from '../../src/http/client.js';
import { REMOTE_ADDRESS } from '../helpers/remote-address.js';

const BASE = 'https://api.example.com';
const TOKEN = 'test-token-0123456789abcdef';
const VERSION = '1.2.3';
const UA = userAgent(VERSION);

let apis: PlantApi[] = [];

/** The client as the delete command reads it: outcomes in its words, before --missing-error and --ignore-missing. */
interface WordedApi {
  deletePlant(id: string, signal: AbortSignal): Promise<DeleteResult>;
}

function worded(client: PlantApi): WordedApi {
  apis.push(client);
  return { deletePlant: async (id, signal) => describeOutcome(await client.deletePlant(id, signal)) };
}

function api(baseUrl = BASE, timeoutMs = 5000, retries = 0): WordedApi {
  return worded(
    createPlantApi({
      target: { profile: 'default', baseUrl, token: TOKEN },
      userAgent: UA,
      timeoutMs,
      retries,
      maxRetryWaitMs: 0,
      env: {},
    }),
  );
}

const live = (): AbortSignal => new AbortController().signal;

/** What a socket throws: nock needs an Error instance (a plain object leaves undici waiting forever). */
const socketError = (code: string): Error => Object.assign(new Error(`${code} (simulated)`), { code });

// An answer held back by a stub; released after each test so no promise is left pending.
let release: () => void = () => {};
let held: Promise<void> = Promise.resolve();

function failure(result: DeleteResult): NotDeleted {
  expect(result.deleted).toBe(false);
  return result as NotDeleted;
}

// Requests nock saw but no stub answered (wrong path, a followed redirect, a request that should not exist).
let unmatched: string[] = [];
const onNoMatch = (request: Request): void => {
  // The loopback tests below talk to a real server on purpose.
  if (!['127.0.0.1', 'localhost'].includes(new URL(request.url).hostname)) unmatched.push(`${request.method} ${request.url}`);
};

beforeAll(() => {
  nock.disableNetConnect();
  nock.emitter.on('no match', onNoMatch);
});

beforeEach(() => {
  held = new Promise<void>((resolve) => {
    release = resolve;
  });
});

afterEach(async () => {
  release();
  await Promise.all(apis.map((a) => a.close()));
  apis = [];
  // Every stub must have been used; report which were not before cleaning up.
  const done = nock.isDone();
  const pending = nock.pendingMocks();
  const strays = unmatched;
  unmatched = [];
  nock.cleanAll();
  expect(pending).toEqual([]);
  expect(done).toBe(true);
  expect(strays).toEqual([]);
});

afterAll(() => {
  nock.emitter.removeListener('no match', onNoMatch);
  nock.enableNetConnect();
});

describe('request shape', () => {
  it('sends DELETE with the bearer token, user agent and accept header', async () => {
    nock(BASE)
      .matchHeader('authorization', `Bearer ${TOKEN}`)
      .matchHeader('user-agent', /^plantstore\/1\.2\.3 node\/\d+\.\d+\.\d+$/)
      .matchHeader('accept', 'application/json')
      .delete('/plants/42')
      .reply(204);
    expect(UA).toBe(`plantstore/${VERSION} node/${process.versions.node}`);
    expect(await api().deletePlant('42', live())).toEqual({ id: '42', deleted: true, status: 204 });
  });

  it('keeps the path prefix of the base URL', async () => {
    nock(BASE).delete('/v1/plants/42').reply(204);
    expect((await api(`${BASE}/v1`).deletePlant('42', live())).deleted).toBe(true);
  });

  it('sends int64 ids with exact digits', async () => {
    nock(BASE).delete('/plants/9223372036854775807').reply(204);
    nock(BASE).delete('/plants/-9223372036854775808').reply(204);
    const client = api();
    expect(await client.deletePlant('9223372036854775807', live())).toMatchObject({ id: '9223372036854775807', deleted: true });
    expect(await client.deletePlant('-9223372036854775808', live())).toMatchObject({ id: '-9223372036854775808', deleted: true });
  });
});

describe('answers', () => {
  it.each([204, 200, 202])('%i is deleted', async (status) => {
    nock(BASE)
      .delete('/plants/7')
      .reply(status, status === 204 ? undefined : '{"ignored":true}');
    expect(await api().deletePlant('7', live())).toEqual({ id: '7', deleted: true, status });
  });

  it.each<[string, number, Record<string, string>, string, Omit<NotDeleted, 'id' | 'deleted' | 'attempted'>]>([
    [
      '400 Error object',
      400,
      { 'content-type': 'application/json' },
      '{"error":13,"message":"plant 13 is protected"}',
      { status: 400, error: 13, message: 'plant 13 is protected', exit: Exit.apiRefused },
    ],
    [
      '400 non-JSON',
      400,
      { 'content-type': 'text/plain' },
      'Bad things happened\nmore detail',
      { status: 400, error: null, message: 'Bad things happened', exit: Exit.apiRefused },
    ],
    [
      '401',
      401,
      { 'content-type': 'application/json' },
      '{"error":401,"message":"invalid token"}',
      { status: 401, error: 401, message: 'invalid token', exit: Exit.auth },
    ],
    ['403 empty', 403, {}, '', { status: 403, error: null, message: 'Forbidden', exit: Exit.auth }],
    [
      '404',
      404,
      { 'content-type': 'application/json' },
      '{"error":5,"message":"no plant 13"}',
      { status: 404, error: 5, message: 'no plant 13', exit: Exit.notFound },
    ],
    ['409', 409, {}, '', { status: 409, error: null, message: 'Conflict', exit: Exit.apiRefused }],
    ['429', 429, { 'retry-after': '5' }, '', { status: 429, error: null, message: 'Too Many Requests', exit: Exit.server }],
    [
      '500 HTML',
      500,
      { 'content-type': 'text/html' },
      '<html><head><title>Internal Oops</title></head><body>stack</body></html>',
      { status: 500, error: null, message: 'Internal Oops', exit: Exit.server },
    ],
    [
      '503 truncated JSON',
      503,
      { 'content-type': 'application/json' },
      '{"error":1,"mess',
      { status: 503, error: null, message: 'Service Unavailable', exit: Exit.server },
    ],
  ])('%s', async (_name, status, headers, body, expected) => {
    nock(BASE).delete('/plants/13').reply(status, body, headers);
    expect(await api().deletePlant('13', live())).toEqual({ id: '13', deleted: false, attempted: true, ...expected });
  });

  it('does not follow a redirect: exit 6, the message names the Location', async () => {
    // No interceptor for evil.example.net: with net connect disabled, a request there would fail the test.
    nock(BASE).delete('/plants/1').reply(302, '', { location: 'https://evil.example.net/steal' });
    const result = failure(await api().deletePlant('1', live()));
    expect(result).toMatchObject({ status: 302, error: null, exit: Exit.server, attempted: true });
    expect(result.message).toContain('https://evil.example.net/steal');
    expect(result.message).toMatch(/redirects are not followed/);
  });

  it.each([
    [304, 'the server answered 304 Not Modified, which makes no sense for a DELETE'],
    [301, 'the server answered 301 Moved Permanently without a Location'],
    [300, 'the server answered 300 Multiple Choices without a Location'],
    [399, 'the server answered HTTP 399 without a Location'],
  ])('a %i without Location says what it is: exit 6', async (status, message) => {
    nock(BASE).delete('/plants/1').reply(status);
    const result = failure(await api().deletePlant('1', live()));
    expect(result).toEqual({ id: '1', deleted: false, status, error: null, message, exit: Exit.server, attempted: true });
  });

  it('an empty Location counts as none', async () => {
    nock(BASE).delete('/plants/1').reply(307, '', { location: '  ' });
    expect(failure(await api().deletePlant('1', live())).message).toBe('the server answered 307 Temporary Redirect without a Location');
  });
});

describe('oversized bodies', () => {
  const BIG = 200 * 1024;
  const CAP = 64 * 1024; // written out, not imported: the test must fail if the cap grows

  it('reads at most 64 KiB: a title past the cut is never seen', async () => {
    const body = `<html>${'x'.repeat(CAP)}<title>Past The Cut</title>${'y'.repeat(BIG)}</html>`;
    nock(BASE).delete('/plants/1').reply(500, body, { 'content-type': 'text/html' });
    const result = failure(await api().deletePlant('1', live()));
    expect(result).toMatchObject({ status: 500, exit: Exit.server, message: 'Internal Server Error' });
  });

  it('a title within the first 64 KiB of a 200 KiB page is kept', async () => {
    const body = `<html><title>Early Title</title>${'z'.repeat(BIG)}</html>`;
    nock(BASE).delete('/plants/1').reply(502, body, { 'content-type': 'text/html' });
    expect(failure(await api().deletePlant('1', live())).message).toBe('Early Title');
  });

  it.each([
    ['JSON-ish', 'application/json', `{"error":1,"message":"${'m'.repeat(BIG)}"}`],
    ['plain text', 'text/plain', 'w'.repeat(BIG)],
  ])('a 200 KiB %s body yields a short one-line message', async (_name, contentType, body) => {
    nock(BASE).delete('/plants/1').reply(400, body, { 'content-type': contentType });
    const result = failure(await api().deletePlant('1', live()));
    expect(result).toMatchObject({ status: 400, exit: Exit.apiRefused });
    expect(result.message).not.toContain('\n');
    expect(result.message.length).toBeLessThanOrEqual(301);
    expect(result.message.length).toBeGreaterThan(0);
  });
});

describe('transport failures', () => {
  it.each([
    ['ECONNREFUSED', /^connection refused \(api\.example\.com\)$/],
    ['ECONNRESET', /^connection reset before a complete answer \(api\.example\.com\)$/],
    ['ENOTFOUND', /^host not found \(DNS\) \(api\.example\.com\)$/],
  ])('%s -> exit 7, no status', async (code, message) => {
    nock(BASE).delete('/plants/1').replyWithError(socketError(code));
    const result = failure(await api().deletePlant('1', live()));
    expect(result).toMatchObject({ status: null, error: null, exit: Exit.network, attempted: true });
    expect(result.message).toMatch(message);
  });

  it.each(['UND_ERR_HEADERS_OVERFLOW', 'HPE_HEADER_OVERFLOW'])('%s is a malformed answer: exit 6', async (code) => {
    nock(BASE).delete('/plants/1').replyWithError(socketError(code));
    const result = failure(await api().deletePlant('1', live()));
    expect(result).toMatchObject({
      status: null,
      error: null,
      exit: Exit.server,
      message: 'malformed HTTP answer from api.example.com: headers too large',
    });
  });

  it('ETIMEDOUT from the socket -> exit 8', async () => {
    nock(BASE).delete('/plants/1').replyWithError(socketError('ETIMEDOUT'));
    expect(failure(await api().deletePlant('1', live())).exit).toBe(Exit.timeout);
  });

  it('scrubs the token from an error message of a lower layer', async () => {
    nock(BASE).delete('/plants/1').replyWithError(`proxy said: bad header "Authorization: Bearer ${TOKEN}"`);
    const result = failure(await api().deletePlant('1', live()));
    expect(result.exit).toBe(Exit.network);
    expect(result.message).not.toContain(TOKEN);
    expect(result.message).toContain('***');
    expect(result.message).toMatch(/^request to api\.example\.com failed: /);
  });

  it.each([
    [
      'a TLS error quoting the certificate',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      "Hostname/IP does not match certificate's altnames: DNS:evil\u001b[2J\u0007.example",
    ],
    ['an unknown error', 'EWHATEVER', 'odd failure \u001b]0;pwned\u0007 \u009b31m here'],
  ])('strips control characters from %s of a lower layer', async (_name, code, text) => {
    nock(BASE)
      .delete('/plants/1')
      .replyWithError(Object.assign(new Error(text), { code }));
    const result = failure(await api().deletePlant('1', live()));
    expect(result.exit).toBe(Exit.network);
    expect(result.message).toContain('api.example.com');
    expect(result.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('an already-aborted signal is exit 130 and sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = failure(await api().deletePlant('1', controller.signal));
    expect(result).toMatchObject({ status: null, exit: Exit.interrupted });
    expect(result.message).toMatch(/interrupted/);
  });

  it('no answer within the timeout is exit 8', async () => {
    // nock 15 applies .delay() to the body only (a 204 has none), so hold the whole answer back
    // with a promise the test releases afterwards: the client's own 50 ms timeout must end the wait.
    nock(BASE)
      .delete('/plants/1')
      .reply(async () => {
        await held;
        return [204, ''];
      });
    const result = failure(await api(BASE, 50).deletePlant('1', live()));
    expect(result).toMatchObject({ status: null, error: null, exit: Exit.timeout, attempted: true });
    expect(result.message).toBe('no complete answer from api.example.com within 0.05s (timeout; raise it with --timeout)');
  });

  it('an interrupt while waiting is exit 130, not a timeout', async () => {
    const controller = new AbortController();
    nock(BASE)
      .delete('/plants/1')
      .reply(async () => {
        controller.abort(); // Ctrl-C arrives once the request is on the wire
        await held;
        return [204, ''];
      });
    const result = failure(await api().deletePlant('1', controller.signal));
    expect(result).toMatchObject({ status: null, exit: Exit.interrupted, attempted: true });
    expect(result.message).toMatch(/may or may not have deleted it/);
  });
});

// nock cannot stall or cut a body mid-way (its mock socket never ends once aborted), so these
// cases use a real server on loopback. An answer whose head arrived but whose body did not is
// a network failure (or a timeout) like any other: retried, its status kept, since one began.
describe('an answer cut short, on loopback', () => {
  let server: net.Server;
  let base: string;
  let host: string;
  /** Requests seen per path. */
  let seen: Map<string, number>;
  // Destroyed after each test: the client's pool is closed only later, by the outer afterEach.
  let sockets: Set<net.Socket>;

  const head = (status: number, headers: string[] = []): string =>
    `${[`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`, ...headers].join('\r\n')}\r\n\r\n`;
  // Headers promise 1000 bytes; a few arrive.
  const partial = (status: number): string => `${head(status, ['content-type: text/plain', 'content-length: 1000'])}plant is protected\n`;

  beforeEach(async () => {
    nock.enableNetConnect('127.0.0.1');
    seen = new Map();
    sockets = new Set();
    server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('data', (data) => {
        const path = /^DELETE (\S+)/.exec(data.toString('latin1'))?.[1] ?? '';
        const count = (seen.get(path) ?? 0) + 1;
        seen.set(path, count);
        const reset = (status: number) => socket.write(partial(status), () => socket.resetAndDestroy());
        switch (path) {
          case '/plants/stall':
            socket.write(partial(400)); // then silence: the timeout ends the read
            break;
          case '/plants/close':
            socket.write(partial(400), () => socket.destroy());
            break;
          case '/plants/drop':
            socket.destroy(); // no answer at all: the empty reply of a crashed upstream
            break;
          case '/plants/reset':
            reset(400);
            break;
          case '/plants/reset-200':
            reset(200);
            break;
          case '/plants/reset-then-204':
            if (count === 1) reset(400);
            else socket.write(head(204));
            break;
          case '/plants/huge-headers':
            socket.write(head(400, [`x-padding: ${'p'.repeat(128 * 1024)}`, 'content-length: 0']));
            break;
          default:
            socket.write(head(500, ['content-length: 0']));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    base = `http://${host}`;
  });

  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    nock.disableNetConnect();
  });

  it.each([
    [
      'stalls until the timeout',
      'stall',
      Exit.timeout,
      'the 400 answer from HOST was not complete within 0.2s (timeout; raise it with --timeout)',
    ],
    ['is closed by the server', 'close', Exit.network, 'connection reset or closed while the server was sending a 400 answer (HOST)'],
    ['is reset by the server', 'reset', Exit.network, 'connection reset or closed while the server was sending a 400 answer (HOST)'],
  ])('a 400 whose body %s keeps its status, with no Error object', async (_name, id, exit, message) => {
    const result = failure(await api(base, 200).deletePlant(id, live()));
    expect(result).toEqual({ id, deleted: false, status: 400, error: null, message: message.replace('HOST', host), exit, attempted: true });
  });

  it.each(['stall', 'reset'])('retries a 400 whose body is cut short (%s)', async (id) => {
    const client = api(base, 200, 1);
    const result = failure(await client.deletePlant(id, live()));
    expect(result.message).toMatch(/ \(after 2 attempts\)$/);
    expect(seen.get(`/plants/${id}`)).toBe(2);
  });

  it('retries a connection closed before any answer: exit 7, the answer may be lost', async () => {
    const result = failure(await api(base, 5000, 1).deletePlant('drop', live()));
    expect(result).toMatchObject({ status: null, error: null, exit: Exit.network, attempted: true });
    expect(result.message).toMatch(new RegExp(`^connection (closed|reset) before a complete answer \\(${host}\\) \\(after 2 attempts\\)$`));
    expect(seen.get('/plants/drop')).toBe(2);
  });

  it('deletes on the retry after a 400 whose body was reset', async () => {
    const client = api(base, 5000, 1);
    expect(await client.deletePlant('reset-then-204', live())).toEqual({ id: 'reset-then-204', deleted: true, status: 204 });
  });

  it('a 2xx whose body is reset is still deleted: the status says so', async () => {
    expect(await api(base).deletePlant('reset-200', live())).toEqual({ id: 'reset-200', deleted: true, status: 200 });
  });

  it('headers past the parser limit are a malformed answer, not retried: exit 6', async () => {
    const client = api(base, 5000, 2);
    const result = failure(await client.deletePlant('huge-headers', live()));
    expect(result).toEqual({
      id: 'huge-headers',
      deleted: false,
      status: null,
      error: null,
      message: `malformed HTTP answer from ${host}: headers too large`,
      exit: Exit.server,
      attempted: true,
    });
    expect(seen.get('/plants/huge-headers')).toBe(1);
  });
});

describe('what --verbose shows of an answer', () => {
  let server: net.Server;
  let base: string;
  const encoded = Array.from(TOKEN, (c) => `%${c.charCodeAt(0).toString(16)}`).join('');

  beforeEach(async () => {
    nock.enableNetConnect('127.0.0.1');
    // Raw bytes: Node's own HTTP server refuses to send such header values.
    server = net.createServer((socket) => {
      socket.once('data', () => {
        const body = Buffer.from('{"error":3,"message":"no \u202egnp.exe\u202c here"}');
        const head = [
          'HTTP/1.1 400 Bad Request',
          'content-type: application/json',
          `content-length: ${body.length}`,
          // C1 CSI: as good as ESC [ to a terminal, and legal in a header value (obs-text).
          'x-screen: a\u009b2Jb\u009b0m',
          `x-echo: next=${encoded}`,
          `x-echo-b64: ${Buffer.from(`Bearer ${TOKEN}`).toString('base64')}`,
        ].join('\r\n');
        socket.end(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), body]));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    nock.disableNetConnect();
  });

  it('cleans header values and messages of control and bidi characters, and masks the token in any encoding', async () => {
    const lines: string[] = [];
    const client = worded(
      createPlantApi({
        target: { profile: 'default', baseUrl: base, token: TOKEN },
        userAgent: UA,
        timeoutMs: 5000,
        retries: 0,
        maxRetryWaitMs: 0,
        env: {},
        trace: (line) => lines.push(line),
        describe: describeAttempt,
      }),
    );
    expect(failure(await client.deletePlant('42', live())).message).toBe('no gnp.exe here');
    const traced = lines.join('\n');
    expect(traced).toContain('[42] < x-screen: a 2Jb 0m');
    expect(traced).toContain('[42] < x-echo: next=***');
    // What is left is the base64 of "Bearer", none of the token.
    expect(traced).toMatch(/\[42\] < x-echo-b64: QmVhcmVy\*\*\*$/m);
    expect(traced).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });
});

describe.skipIf(REMOTE_ADDRESS === undefined)('http://localhost, pinned to this machine', () => {
  let remote: http.Server;
  let port: number;
  let reached = 0;

  beforeEach(async () => {
    nock.enableNetConnect('localhost');
    remote = http.createServer((_request, response) => {
      reached += 1;
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => remote.listen(0, REMOTE_ADDRESS, resolve));
    port = (remote.address() as AddressInfo).port;
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    remote.closeAllConnections();
    await new Promise<void>((resolve) => remote.close(() => resolve()));
    nock.disableNetConnect();
  });

  it('refuses (exit 3) when localhost resolves to another host, which receives nothing', async () => {
    // A hosts file or resolver that sends "localhost" to another machine.
    vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _options: unknown, callback: (e: null, a: unknown) => void) =>
      callback(null, [{ address: REMOTE_ADDRESS, family: 4 }])) as never);
    const result = failure(await api(`http://localhost:${port}`).deletePlant('42', live()));
    expect(result).toMatchObject({
      exit: Exit.config,
      status: null,
      message: `refusing to send the token over plain http: localhost resolved to ${REMOTE_ADDRESS}, not to this machine`,
    });
    expect(reached).toBe(0);
  });
});
