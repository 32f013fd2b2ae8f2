// The transport against nock and against servers on loopback, as the data it hands back:
// the request it sends, what each answer and each failure of the lower layers becomes, the
// exit code the table gives it (classify.ts verdictOf), and that what reaches an outcome or
// a trace event is masked and clean. The delete command's words for these are tested with
// the command (test/unit/commands/delete/outcomes.test.ts).
import dns from 'node:dns';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { userAgent } from '../../src/context.js';
import { Exit } from '../../src/errors.js';
import { verdictOf } from '../../src/http/classify.js';
import type { FailedAttempt, Outcome, TransportEvent } from '../../src/http/outcome.js';
import { createTransport, type Transport, type TransportOptions } from '../../src/http/transport.js';
import { createOtherHost, type OtherHost, type RemoteServer, type SeenByRemote } from '../helpers/netns.js';
import { DELETE, get } from '../helpers/requests.js';

const BASE = 'https://api.example.com';
const HOST = 'api.example.com';
const TOKEN = 'test-token-0123456789abcdef';
const VERSION = '1.2.3';
const UA = userAgent(VERSION);

let transports: Transport[] = [];

/** Sends `DELETE /plants/{id}` and hands back the outcome, as the delete command would before wording it. */
interface Client {
  deletePlant(id: string, signal: AbortSignal): Promise<Outcome>;
  /** `GET /plants/{id}`, its 2xx body read whole (up to 64 KiB). */
  getPlant(id: string, signal: AbortSignal): Promise<Outcome>;
}

function client(options: Omit<TransportOptions, 'endpoint' | 'userAgent' | 'env' | 'maxRetryWaitMs'> & { baseUrl: string }): Client {
  const { baseUrl, ...rest } = options;
  const transport = createTransport({ endpoint: { baseUrl, token: TOKEN }, userAgent: UA, maxRetryWaitMs: 0, env: {}, ...rest });
  transports.push(transport);
  return {
    deletePlant: (id, signal) => transport.send({ ...DELETE, path: `/plants/${id}`, label: id }, signal),
    getPlant: (id, signal) => transport.send({ ...get(64 * 1024), path: `/plants/${id}`, label: id }, signal),
  };
}

function api(baseUrl = BASE, timeoutMs = 5000, retries = 0): Client {
  return client({ baseUrl, timeoutMs, retries });
}

const live = (): AbortSignal => new AbortController().signal;

/** What a socket throws: nock needs an Error instance (a plain object leaves undici waiting forever). */
const socketError = (code: string): Error => Object.assign(new Error(`${code} (simulated)`), { code });

// An answer held back by a stub; released after each test so no promise is left pending.
let release: () => void = () => {};
let held: Promise<void> = Promise.resolve();

type Failed = Extract<Outcome, { kind: 'failed' }>;

function failure(outcome: Outcome): Failed {
  expect(outcome.kind).toBe('failed');
  return outcome as Failed;
}

/** The exit code the table gives the last attempt's failure. */
const exitOf = (outcome: Outcome): number => verdictOf(failure(outcome).last).exit;

/** One attempt, failed as `last`: the whole outcome, nothing more in it. */
const once = (last: FailedAttempt): Failed => ({ kind: 'failed', last, attempts: 1, earlierAnswerLost: false });

const ok = (status: number, body = ''): Outcome => ({ kind: 'ok', status, body });

/** Every string in a value, however deep. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(strings);
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
  await Promise.all(transports.map((transport) => transport.close()));
  transports = [];
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
    expect(await api().deletePlant('42', live())).toStrictEqual(ok(204));
  });

  it('keeps the path prefix of the base URL', async () => {
    nock(BASE).delete('/v1/plants/42').reply(204);
    expect(await api(`${BASE}/v1`).deletePlant('42', live())).toStrictEqual(ok(204));
  });

  it('sends int64 ids with exact digits', async () => {
    nock(BASE).delete('/plants/9223372036854775807').reply(204);
    nock(BASE).delete('/plants/-9223372036854775808').reply(204);
    const plants = api();
    expect(await plants.deletePlant('9223372036854775807', live())).toStrictEqual(ok(204));
    expect(await plants.deletePlant('-9223372036854775808', live())).toStrictEqual(ok(204));
  });
});

describe('answers', () => {
  it.each([204, 200, 202])('%i is ok, with its body', async (status) => {
    nock(BASE)
      .delete('/plants/7')
      .reply(status, status === 204 ? undefined : '{"ignored":true}');
    expect(await api().deletePlant('7', live())).toStrictEqual(ok(status, status === 204 ? '' : '{"ignored":true}'));
  });

  it.each<[string, number, Record<string, string>, string, { code: number | null; message: string; exit: number }]>([
    [
      '400 Error object',
      400,
      { 'content-type': 'application/json' },
      '{"error":13,"message":"plant 13 is protected"}',
      { code: 13, message: 'plant 13 is protected', exit: Exit.apiRefused },
    ],
    [
      '400 non-JSON',
      400,
      { 'content-type': 'text/plain' },
      'Bad things happened\nmore detail',
      { code: null, message: 'Bad things happened', exit: Exit.apiRefused },
    ],
    [
      '401',
      401,
      { 'content-type': 'application/json' },
      '{"error":401,"message":"invalid token"}',
      { code: 401, message: 'invalid token', exit: Exit.auth },
    ],
    ['403 empty', 403, {}, '', { code: null, message: 'Forbidden', exit: Exit.auth }],
    [
      '404',
      404,
      { 'content-type': 'application/json' },
      '{"error":5,"message":"no plant 13"}',
      { code: 5, message: 'no plant 13', exit: Exit.notFound },
    ],
    ['409', 409, {}, '', { code: null, message: 'Conflict', exit: Exit.apiRefused }],
    ['429', 429, { 'retry-after': '5' }, '', { code: null, message: 'Too Many Requests', exit: Exit.server }],
    [
      '500 HTML',
      500,
      { 'content-type': 'text/html' },
      '<html><head><title>Internal Oops</title></head><body>stack</body></html>',
      { code: null, message: 'Internal Oops', exit: Exit.server },
    ],
    [
      '503 truncated JSON',
      503,
      { 'content-type': 'application/json' },
      '{"error":1,"mess',
      { code: null, message: 'Service Unavailable', exit: Exit.server },
    ],
  ])('%s', async (_name, status, headers, body, { code, message, exit }) => {
    nock(BASE).delete('/plants/13').reply(status, body, headers);
    const outcome = await api().deletePlant('13', live());
    expect(outcome).toStrictEqual(once({ kind: 'api-error', status, code, message }));
    expect(exitOf(outcome)).toBe(exit);
  });

  it('does not follow a redirect: exit 6, the outcome keeps the Location', async () => {
    // No interceptor for evil.example.net: with net connect disabled, a request there would fail the test.
    nock(BASE).delete('/plants/1').reply(302, '', { location: 'https://evil.example.net/steal' });
    const outcome = await api().deletePlant('1', live());
    expect(outcome).toStrictEqual(once({ kind: 'redirect', status: 302, location: 'https://evil.example.net/steal' }));
    expect(exitOf(outcome)).toBe(Exit.server);
  });

  it.each([304, 301, 300, 399])('a %i without Location is a redirect with none: exit 6', async (status) => {
    nock(BASE).delete('/plants/1').reply(status);
    const outcome = await api().deletePlant('1', live());
    expect(outcome).toStrictEqual(once({ kind: 'redirect', status }));
    expect(exitOf(outcome)).toBe(Exit.server);
  });

  it('an empty Location counts as none', async () => {
    nock(BASE).delete('/plants/1').reply(307, '', { location: '  ' });
    expect(await api().deletePlant('1', live())).toStrictEqual(once({ kind: 'redirect', status: 307 }));
  });
});

describe('oversized bodies', () => {
  const BIG = 200 * 1024;
  const CAP = 64 * 1024; // written out, not imported: the test must fail if the cap grows

  it('reads at most 64 KiB: a title past the cut is never seen', async () => {
    const body = `<html>${'x'.repeat(CAP)}<title>Past The Cut</title>${'y'.repeat(BIG)}</html>`;
    nock(BASE).delete('/plants/1').reply(500, body, { 'content-type': 'text/html' });
    const outcome = await api().deletePlant('1', live());
    expect(outcome).toStrictEqual(once({ kind: 'api-error', status: 500, code: null, message: 'Internal Server Error' }));
    expect(exitOf(outcome)).toBe(Exit.server);
  });

  it('a title within the first 64 KiB of a 200 KiB page is kept', async () => {
    const body = `<html><title>Early Title</title>${'z'.repeat(BIG)}</html>`;
    nock(BASE).delete('/plants/1').reply(502, body, { 'content-type': 'text/html' });
    expect(await api().deletePlant('1', live())).toStrictEqual(
      once({ kind: 'api-error', status: 502, code: null, message: 'Early Title' }),
    );
  });

  it.each([
    ['JSON-ish', 'application/json', `{"error":1,"message":"${'m'.repeat(BIG)}"}`],
    ['plain text', 'text/plain', 'w'.repeat(BIG)],
  ])('a 200 KiB %s body yields a short one-line message', async (_name, contentType, body) => {
    nock(BASE).delete('/plants/1').reply(400, body, { 'content-type': contentType });
    const outcome = await api().deletePlant('1', live());
    const { last } = failure(outcome);
    expect(last).toMatchObject({ kind: 'api-error', status: 400 });
    expect(exitOf(outcome)).toBe(Exit.apiRefused);
    const { message } = last as Extract<FailedAttempt, { kind: 'api-error' }>;
    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThanOrEqual(301);
    expect(message.length).toBeGreaterThan(0);
  });
});

describe('transport failures', () => {
  it.each([
    ['ECONNREFUSED', 'refused'],
    ['ECONNRESET', 'reset'],
    ['ENOTFOUND', 'host-not-found'],
  ] as const)('%s -> exit 7, no status', async (code, what) => {
    nock(BASE).delete('/plants/1').replyWithError(socketError(code));
    const outcome = await api().deletePlant('1', live());
    expect(outcome).toStrictEqual(once({ kind: 'network', host: HOST, what }));
    expect(exitOf(outcome)).toBe(Exit.network);
  });

  it.each(['UND_ERR_HEADERS_OVERFLOW', 'HPE_HEADER_OVERFLOW'])('%s is a malformed answer: exit 6', async (code) => {
    nock(BASE).delete('/plants/1').replyWithError(socketError(code));
    const outcome = await api().deletePlant('1', live());
    expect(outcome).toStrictEqual(once({ kind: 'malformed', host: HOST, headersTooLarge: true }));
    expect(exitOf(outcome)).toBe(Exit.server);
  });

  it('ETIMEDOUT from the socket -> exit 8', async () => {
    nock(BASE).delete('/plants/1').replyWithError(socketError('ETIMEDOUT'));
    const outcome = await api().deletePlant('1', live());
    expect(failure(outcome).last).toMatchObject({ kind: 'timeout', host: HOST });
    expect(exitOf(outcome)).toBe(Exit.timeout);
  });

  it('scrubs the token from an error message of a lower layer', async () => {
    nock(BASE).delete('/plants/1').replyWithError(`proxy said: bad header "Authorization: Bearer ${TOKEN}"`);
    const outcome = await api().deletePlant('1', live());
    expect(exitOf(outcome)).toBe(Exit.network);
    const { last } = failure(outcome);
    expect(last).toMatchObject({ kind: 'failed', host: HOST });
    const { reason } = last as Extract<FailedAttempt, { kind: 'failed' }>;
    expect(reason).not.toContain(TOKEN);
    expect(reason).toContain('***');
    expect(JSON.stringify(outcome)).not.toContain(TOKEN);
  });

  it.each([
    [
      'a TLS error quoting the certificate',
      'ERR_TLS_CERT_ALTNAME_INVALID',
      "Hostname/IP does not match certificate's altnames: DNS:evil\u001b[2J\u0007.example",
      'tls',
    ],
    ['an unknown error', 'EWHATEVER', 'odd failure \u001b]0;pwned\u0007 \u009b31m here', 'failed'],
  ])('strips control characters from %s of a lower layer', async (_name, code, text, kind) => {
    nock(BASE)
      .delete('/plants/1')
      .replyWithError(Object.assign(new Error(text), { code }));
    const outcome = await api().deletePlant('1', live());
    expect(exitOf(outcome)).toBe(Exit.network);
    const { last } = failure(outcome);
    expect(last).toMatchObject({ kind, host: HOST, reason: expect.any(String) });
    for (const value of strings(last)) expect(value).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
  });

  it('an already-aborted signal is not sent, and sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await api().deletePlant('1', controller.signal)).toStrictEqual({ kind: 'not-sent', reason: { kind: 'interrupted' } });
  });

  it('no answer within the timeout is exit 8', async () => {
    // nock 15 applies .delay() to the body only (a 204 has none), so hold the whole answer back
    // with a promise the test releases afterwards: the transport's own 50 ms timeout must end the wait.
    nock(BASE)
      .delete('/plants/1')
      .reply(async () => {
        await held;
        return [204, ''];
      });
    const outcome = await api(BASE, 50).deletePlant('1', live());
    expect(outcome).toStrictEqual(once({ kind: 'timeout', host: HOST, ms: 50, phase: 'answer' }));
    expect(exitOf(outcome)).toBe(Exit.timeout);
  });

  it('an interrupt while waiting is exit 130, not a timeout, with no answer begun', async () => {
    const controller = new AbortController();
    nock(BASE)
      .delete('/plants/1')
      .reply(async () => {
        controller.abort(); // Ctrl-C arrives once the request is on the wire
        await held;
        return [204, ''];
      });
    const outcome = await api().deletePlant('1', controller.signal);
    expect(outcome).toStrictEqual(once({ kind: 'interrupted', host: HOST }));
    expect(exitOf(outcome)).toBe(Exit.interrupted);
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
        const path = /^(?:DELETE|GET) (\S+)/.exec(data.toString('latin1'))?.[1] ?? '';
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

  /** What a connection broken while the server sent shows as: a reset or a close, by Node version and timing. */
  const brokenMidway = expect.stringMatching(/^(reset|closed)$/);

  it.each<[string, string, number, (host: string) => FailedAttempt]>([
    ['stalls until the timeout', 'stall', Exit.timeout, (host) => ({ kind: 'timeout', host, status: 400, ms: 200, phase: 'body' })],
    ['is closed by the server', 'close', Exit.network, (host) => ({ kind: 'body-cut', host, status: 400, what: brokenMidway })],
    ['is reset by the server', 'reset', Exit.network, (host) => ({ kind: 'body-cut', host, status: 400, what: brokenMidway })],
  ])('a 400 whose body %s keeps its status, with no Error object', async (_name, id, exit, last) => {
    const outcome = await api(base, 200).deletePlant(id, live());
    expect(outcome).toStrictEqual(once(last(host)));
    expect(exitOf(outcome)).toBe(exit);
  });

  it.each(['stall', 'reset'])('retries a 400 whose body is cut short (%s)', async (id) => {
    const plants = api(base, 200, 1);
    const outcome = failure(await plants.deletePlant(id, live()));
    expect(outcome).toMatchObject({ attempts: 2, last: { status: 400 } });
    expect(seen.get(`/plants/${id}`)).toBe(2);
  });

  it('retries a connection closed before any answer: exit 7, the answer may be lost', async () => {
    const outcome = await api(base, 5000, 1).deletePlant('drop', live());
    // A close on plain http carries the mark that the port may speak TLS (what a TLS server does).
    const { last } = failure(outcome);
    const reset = last.kind === 'network' && last.what === 'reset';
    expect(outcome).toStrictEqual({
      kind: 'failed',
      last: reset ? { kind: 'network', host, what: 'reset' } : { kind: 'network', host, what: 'closed', plainHttp: true },
      attempts: 2,
      earlierAnswerLost: true,
    });
    expect(exitOf(outcome)).toBe(Exit.network);
    expect(seen.get('/plants/drop')).toBe(2);
  });

  it('is ok on the retry after a 400 whose body was reset', async () => {
    const plants = api(base, 5000, 1);
    expect(await plants.deletePlant('reset-then-204', live())).toStrictEqual(ok(204));
  });

  it('a 2xx whose plain-text body is reset cannot be checked: the connection failed, as for any body cut short', async () => {
    const outcome = await api(base).deletePlant('reset-200', live());
    expect(outcome).toMatchObject({ kind: 'failed', last: { kind: 'body-cut', status: 200, what: brokenMidway } });
  });

  it('a 2xx whose body is reset, for a request that reads it, is a failure retried like a reset', async () => {
    const outcome = await api(base, 5000, 1).getPlant('reset-200', live());
    expect(outcome).toMatchObject({ kind: 'failed', last: { kind: 'body-cut', status: 200, what: brokenMidway }, attempts: 2 });
    expect(seen.get('/plants/reset-200')).toBe(2);
  });

  it('headers past the parser limit are a malformed answer, not retried: exit 6', async () => {
    const plants = api(base, 5000, 2);
    const outcome = await plants.deletePlant('huge-headers', live());
    expect(outcome).toStrictEqual(once({ kind: 'malformed', host, headersTooLarge: true }));
    expect(exitOf(outcome)).toBe(Exit.server);
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
    const events: TransportEvent[] = [];
    const plants = client({ baseUrl: base, timeoutMs: 5000, retries: 0, onEvent: (event) => events.push(event) });
    const outcome = await plants.deletePlant('42', live());
    expect(failure(outcome).last).toMatchObject({ kind: 'api-error', message: 'no gnp.exe here' });
    const answers = events.filter((event) => event.kind === 'answer');
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatchObject({ label: '42', status: 400 });
    expect(answers[0]?.headers).toContainEqual(['x-screen', 'a 2Jb 0m']);
    expect(answers[0]?.headers).toContainEqual(['x-echo', 'next=***']);
    // What is left is the base64 of "Bearer", none of the token.
    expect(answers[0]?.headers).toContainEqual(['x-echo-b64', 'QmVhcmVy***']);
    for (const value of strings([events, outcome])) expect(value).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
  });
});

describe('http://localhost, pinned to this machine', () => {
  // Another host: a plain http server in a network namespace of its own.
  let other: OtherHost;
  let remote: RemoteServer<SeenByRemote>;
  let port: number;

  beforeAll(async () => {
    other = createOtherHost();
    remote = await other.http();
    port = remote.port;
  });

  afterAll(async () => {
    await other?.remove();
  });

  beforeEach(() => {
    nock.enableNetConnect('localhost');
  });

  afterEach(() => {
    vi.restoreAllMocks();
    nock.disableNetConnect();
  });

  it('refuses (exit 3) when localhost resolves to another host, which receives nothing', async () => {
    // A hosts file or resolver that sends "localhost" to another machine.
    vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _options: unknown, callback: (e: null, a: unknown) => void) =>
      callback(null, [{ address: other.address, family: 4 }])) as never);
    const outcome = await api(`http://localhost:${port}`).deletePlant('42', live());
    expect(outcome).toStrictEqual(
      once({ kind: 'not-loopback', host: `localhost:${port}`, reason: `localhost resolved to ${other.address}, not to this machine` }),
    );
    expect(exitOf(outcome)).toBe(Exit.config);
    expect(await remote.requests()).toHaveLength(0);
  });
});
