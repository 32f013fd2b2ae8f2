import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Exit } from '../../../src/errors.js';
import {
  classifyFailure,
  classifyStatus,
  H2_SESSION_CLOSED,
  H2_STREAM_REFUSED,
  H2_STREAM_RESET,
  isLoadRefusal,
  LOAD_REFUSAL_STATUSES,
  type Load,
  NOT_LOOPBACK,
  RETRIED_STATUSES,
  type StatusKind,
  type TransportFailure,
  UNRETRIED_STATUSES,
  verdictOf,
} from '../../../src/http/classify.js';
import { feedbackFor } from '../../../src/http/gate.js';
import type { FailedAttempt } from '../../../src/http/outcome.js';
import { failedRequest } from '../../../src/http/request-errors.js';
import { ROOT } from '../../helpers/cli.js';

/** Every three-digit number and below: what a server could send as a status. */
const ALL_STATUSES = Array.from({ length: 1000 }, (_, status) => status);

describe('classifyStatus: every status class', () => {
  it.each<[number, StatusKind, number, boolean, Load]>([
    // A final 1xx cannot be an answer to a DELETE, nor can a number outside HTTP's range.
    [100, 'malformed', Exit.server, false, 'neutral'],
    [101, 'malformed', Exit.server, false, 'neutral'],
    [199, 'malformed', Exit.server, false, 'neutral'],
    [0, 'malformed', Exit.server, false, 'neutral'],
    [600, 'malformed', Exit.server, false, 'neutral'],
    [999, 'malformed', Exit.server, false, 'neutral'],
    // Only the spec's 204 says the service processed it: any other 2xx proves nothing until confirmed.
    [200, 'success', Exit.ok, false, 'neutral'],
    [204, 'success', Exit.ok, false, 'ok'],
    [299, 'success', Exit.ok, false, 'neutral'],
    [300, 'redirect', Exit.server, false, 'ok'],
    [301, 'redirect', Exit.server, false, 'ok'],
    [302, 'redirect', Exit.server, false, 'ok'],
    [304, 'redirect', Exit.server, false, 'ok'],
    [307, 'redirect', Exit.server, false, 'ok'],
    [399, 'redirect', Exit.server, false, 'ok'],
    [400, 'rejected', Exit.apiRefused, false, 'ok'],
    [401, 'auth', Exit.auth, false, 'ok'],
    [403, 'auth', Exit.auth, false, 'ok'],
    [404, 'not-found', Exit.notFound, false, 'ok'],
    [409, 'rejected', Exit.apiRefused, false, 'ok'],
    [422, 'rejected', Exit.apiRefused, false, 'ok'],
    [429, 'refusal', Exit.server, true, 'rate-limited'],
    [499, 'rejected', Exit.apiRefused, false, 'ok'],
    [500, 'server', Exit.server, false, 'neutral'],
    [501, 'server', Exit.server, false, 'neutral'],
    [502, 'server', Exit.server, true, 'failing'],
    [503, 'refusal', Exit.server, true, 'overloaded'],
    [504, 'server', Exit.server, true, 'failing'],
    [599, 'server', Exit.server, false, 'neutral'],
  ])('%i: %s, exit %i, retryable %s, load %s', (status, kind, exit, retryable, load) => {
    expect(classifyStatus(status)).toEqual({ kind, exit, retryable, answerLost: status >= 500 && status <= 599, load });
  });

  it('a 5xx leaves the request uncertain (it may have been carried out), and no other status does', () => {
    // A gateway answers 502 or 504 for a request its upstream carried out and never answered.
    expect(ALL_STATUSES.filter((status) => classifyStatus(status).answerLost)).toEqual(ALL_STATUSES.filter((s) => s >= 500 && s <= 599));
  });

  it('uses the published exit numbers', () => {
    expect([400, 401, 404, 500].map((status) => classifyStatus(status).exit)).toEqual([1, 4, 5, 6]);
  });

  const ALL = ALL_STATUSES;

  it('retries the statuses RETRIED_STATUSES names, and no other', () => {
    expect(ALL.filter((status) => classifyStatus(status).retryable)).toEqual(RETRIED_STATUSES);
    expect(UNRETRIED_STATUSES.filter((status) => classifyStatus(status).retryable)).toEqual([]);
  });

  it('names the refusals for load LOAD_REFUSAL_STATUSES, and the table agrees', () => {
    expect(ALL.filter((status) => isLoadRefusal(classifyStatus(status).load))).toEqual(LOAD_REFUSAL_STATUSES);
    expect(ALL.filter((status) => isLoadRefusal(classifyStatus(status).load))).toEqual(LOAD_REFUSAL_STATUSES);
  });

  it('feeds the throttle what the table says, and nothing about load when no answer came', () => {
    for (const status of ALL) {
      const load = classifyStatus(status).load;
      const fed = isLoadRefusal(load)
        ? { kind: 'refused', load, status, retryAfterMs: 700 }
        : load === 'failing'
          ? { kind: load, status }
          : { kind: load };
      expect(feedbackFor(status, 700)).toEqual(fed);
    }
    expect(feedbackFor(null)).toEqual({ kind: 'neutral' });
  });
});

const failure = (overrides: Partial<TransportFailure>): TransportFailure => ({
  code: '',
  aborted: undefined,
  answerBegun: undefined,
  viaProxy: false,
  proxyStatus: undefined,
  parserError: false,
  ...overrides,
});

/** A thrown error with `code`, through the transport's reading of it, to its verdict. */
function judge(code: string, options: { begun?: number; proxy?: boolean; aborted?: 'interrupted' | 'timeout'; message?: string } = {}) {
  const error = Object.assign(new Error(options.message ?? 'lower layer words'), { code });
  const attempt: FailedAttempt = failedRequest(error, {
    aborted: options.aborted,
    timeoutMs: 1500,
    route: {
      host: 'api.example.com',
      ...(options.proxy ? { via: 'http://proxy.corp:3128' } : {}),
      ...(options.begun === undefined ? {} : { status: options.begun }),
    },
  });
  const { exit, retryable, answerLost, load } = verdictOf(attempt);
  return { kind: attempt.kind, exit, retryable, answerLost, load };
}

describe('transport failures: every code the table knows, sent direct', () => {
  it.each<[string, string, boolean, boolean, Load]>([
    // code, what, retryable, answer lost (the request may have reached the server), load: the
    // service (or the gateway before it) not taking requests is 'failing'
    ['ECONNREFUSED', 'refused', true, false, 'failing'],
    ['ECONNRESET', 'reset', true, true, 'failing'],
    ['EPIPE', 'closed-while-sending', true, true, 'failing'],
    ['ENOTFOUND', 'host-not-found', false, false, 'neutral'],
    ['EAI_AGAIN', 'lookup-failed', false, false, 'neutral'],
    ['EHOSTUNREACH', 'host-unreachable', false, false, 'neutral'],
    ['ENETUNREACH', 'network-unreachable', false, false, 'neutral'],
    ['UND_ERR_SOCKET', 'closed', true, true, 'failing'],
    ['UND_ERR_CLOSED', 'closed', true, true, 'failing'],
    ['UND_ERR_PRX_CONN', 'proxy-closed', false, true, 'neutral'],
    [H2_STREAM_REFUSED, 'stream-refused', true, false, 'neutral'],
    [H2_STREAM_RESET, 'stream-reset', true, true, 'neutral'],
    [H2_SESSION_CLOSED, 'session-closed', true, true, 'neutral'],
  ])('%s: a network failure (%s), exit 7, retryable %s, answer lost %s, load %s', (code, what, retryable, answerLost, load) => {
    expect(classifyFailure(failure({ code }))).toEqual({ kind: 'network', what });
    expect(judge(code)).toEqual({ kind: 'network', exit: Exit.network, retryable, answerLost, load });
  });

  // Node and undici say these only in words; request-errors.ts reads them.
  it.each<[string, string, string, boolean, boolean]>([
    ['ERR_HTTP2_STREAM_ERROR', 'Stream closed with error code NGHTTP2_REFUSED_STREAM', 'stream-refused', true, false],
    ['ERR_HTTP2_STREAM_ERROR', 'Stream closed with error code NGHTTP2_INTERNAL_ERROR', 'stream-reset', true, true],
    ['ERR_HTTP2_SESSION_ERROR', 'Session closed with error code 2', 'session-closed', true, true],
    ['UND_ERR_INFO', 'HTTP/2: "GOAWAY" frame received with code 0', 'stream-refused', true, false],
    ['UND_ERR_INFO', 'HTTP/2: "stream error" received - code 7', 'stream-refused', true, false],
    ['UND_ERR_INFO', 'HTTP/2: stream closed before response headers', 'stream-reset', true, true],
    ['UND_ERR_INFO', 'HTTP/2: "frameError" received - type 1, code 6', 'stream-reset', true, true],
    ['UND_ERR_SOCKET', 'HTTP/2: "GOAWAY" frame received with code 2', 'session-closed', true, true],
  ])('%s "%s": %s, retryable %s, answer lost %s', (code, message, what, retryable, answerLost) => {
    expect(judge(code, { message })).toEqual({ kind: 'network', exit: Exit.network, retryable, answerLost, load: 'neutral' });
    expect(
      failedRequest(Object.assign(new Error(message), { code }), { aborted: undefined, timeoutMs: 1, route: { host: 'h' } }),
    ).toMatchObject({ what });
  });

  // nginx refuses a header larger than large_client_header_buffers over HTTP/2 so (a GOAWAY); the
  // same request is refused again, as a 431 is: exit 1, not retried, whoever words the code.
  it.each<[string, string]>([
    ['ERR_HTTP2_SESSION_ERROR', 'Session closed with error code 11'],
    ['ERR_HTTP2_STREAM_ERROR', 'Stream closed with error code NGHTTP2_ENHANCE_YOUR_CALM'],
    ['UND_ERR_SOCKET', 'HTTP/2: "GOAWAY" frame received with code 11'],
    ['UND_ERR_INFO', 'HTTP/2: "stream error" received - code 11'],
  ])('%s "%s": ENHANCE_YOUR_CALM, the request refused for its size: exit 1, not retried', (code, message) => {
    const attempt = failedRequest(Object.assign(new Error(message), { code }), { aborted: undefined, timeoutMs: 1, route: { host: 'h' } });
    expect(attempt).toStrictEqual({ host: 'h', kind: 'request-too-large' });
    expect(verdictOf(attempt)).toEqual({ exit: Exit.apiRefused, retryable: false, answerLost: true, load: 'neutral' });
  });

  it('UND_ERR_RES_CONTENT_LENGTH_MISMATCH: a body shorter than announced once an answer began (exit 7); before, a parser error in disguise (exit 6)', () => {
    expect(classifyFailure(failure({ code: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' }))).toEqual({ kind: 'network', what: 'short-body' });
    expect(judge('UND_ERR_RES_CONTENT_LENGTH_MISMATCH', { begun: 200 })).toEqual({
      kind: 'network',
      exit: Exit.network,
      retryable: false,
      answerLost: true,
      load: 'neutral',
    });
    expect(judge('UND_ERR_RES_CONTENT_LENGTH_MISMATCH')).toEqual({
      kind: 'malformed',
      exit: Exit.server,
      retryable: false,
      answerLost: true,
      load: 'neutral',
    });
  });

  it.each(['bad response', 'bad upgrade'])(
    'UND_ERR_SOCKET "%s" (a 100 or a 101 nobody asked for): malformed, exit 6, not retried',
    (message) => {
      expect(judge('UND_ERR_SOCKET', { message })).toEqual({
        kind: 'malformed',
        exit: Exit.server,
        retryable: false,
        answerLost: true,
        load: 'neutral',
      });
    },
  );

  it.each<[string, string, number, boolean, boolean]>([
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout', Exit.timeout, true, false],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout', Exit.timeout, true, true],
    ['UND_ERR_BODY_TIMEOUT', 'timeout', Exit.timeout, true, true],
    ['ETIMEDOUT', 'timeout', Exit.timeout, true, true],
    ['UND_ERR_HEADERS_OVERFLOW', 'malformed', Exit.server, false, true],
    ['HPE_HEADER_OVERFLOW', 'malformed', Exit.server, false, true],
    ['HPE_INVALID_CONSTANT', 'malformed', Exit.server, false, true],
    [NOT_LOOPBACK, 'not-loopback', Exit.config, false, false],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls', Exit.network, false, false],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls', Exit.network, false, false],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'tls', Exit.network, false, false],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls', Exit.network, false, false],
    ['CERT_HAS_EXPIRED', 'tls', Exit.network, false, false],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls', Exit.network, false, false],
    ['HOSTNAME_MISMATCH', 'tls', Exit.network, false, false],
    ['EWHATEVER', 'failed', Exit.network, false, true],
    ['', 'failed', Exit.network, false, true],
  ])('%s: %s, exit %i, retryable %s, answer lost %s', (code, kind, exit, retryable, answerLost) => {
    expect(judge(code)).toEqual({ kind, exit, retryable, answerLost, load: 'neutral' });
  });

  it('finds the code on a cause when undici wraps the socket error', () => {
    const error = Object.assign(new Error('fetch failed'), {
      code: 'UND_ERR',
      cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
    });
    expect(failedRequest(error, { aborted: undefined, timeoutMs: 1, route: { host: 'h' } })).toEqual({
      kind: 'network',
      what: 'refused',
      host: 'h',
    });
  });

  it('names a connect timeout apart from a timeout waiting for the answer', () => {
    expect(classifyFailure(failure({ code: 'UND_ERR_CONNECT_TIMEOUT' }))).toEqual({ kind: 'timeout', phase: 'connect' });
    expect(classifyFailure(failure({ code: 'UND_ERR_HEADERS_TIMEOUT' }))).toEqual({ kind: 'timeout', phase: 'answer' });
    expect(classifyFailure(failure({ aborted: 'timeout', code: 'UND_ERR_ABORTED' }))).toEqual({ kind: 'timeout', phase: 'answer' });
  });

  it('tells a parse failure from headers too large', () => {
    expect(classifyFailure(failure({ code: 'HPE_HEADER_OVERFLOW' }))).toEqual({ kind: 'malformed', headersTooLarge: true });
    expect(classifyFailure(failure({ code: 'HPE_INVALID_CONSTANT' }))).toEqual({ kind: 'malformed', headersTooLarge: false });
    expect(classifyFailure(failure({ parserError: true }))).toEqual({ kind: 'malformed', headersTooLarge: false });
  });
});

describe('transport failures: our own signals, proxies, answers cut short', () => {
  it('Ctrl-C wins over whatever the lower layer said: exit 130, not retried, the answer may be lost', () => {
    for (const code of ['', 'UND_ERR_ABORTED', 'ECONNRESET', 'UND_ERR_HEADERS_TIMEOUT']) {
      expect(judge(code, { aborted: 'interrupted' })).toEqual({
        kind: 'interrupted',
        exit: Exit.interrupted,
        retryable: false,
        answerLost: true,
        load: 'neutral',
      });
    }
  });

  it('our own deadline is a timeout whatever the code, retried, the answer lost', () => {
    expect(judge('UND_ERR_ABORTED', { aborted: 'timeout' })).toEqual({
      kind: 'timeout',
      exit: Exit.timeout,
      retryable: true,
      answerLost: true,
      load: 'neutral',
    });
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])(
    'through a proxy, %s before anything was sent is the proxy being unreachable',
    (code) => {
      expect(classifyFailure(failure({ code, viaProxy: true })).kind).toBe('proxy-unreachable');
      expect(judge(code, { proxy: true })).toMatchObject({ kind: 'proxy-unreachable', exit: Exit.network, answerLost: false });
    },
  );

  it.each(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_PRX_CONN'])(
    'through a proxy, %s after sending stays a network failure',
    (code) => {
      expect(judge(code, { proxy: true }).kind).toBe('network');
    },
  );

  it('a proxy refusing CONNECT is the proxy refusing, not retried; without a proxy the same words are just a failure', () => {
    const message = 'Proxy response (407) !== 200 when HTTP Tunneling';
    expect(judge('', { proxy: true, message })).toEqual({
      kind: 'proxy-refused',
      exit: Exit.network,
      retryable: false,
      answerLost: false,
      load: 'neutral',
    });
    expect(classifyFailure(failure({ viaProxy: true, proxyStatus: 407 }))).toEqual({ kind: 'proxy-refused', connectStatus: 407 });
    expect(judge('', { message }).kind).toBe('failed');
  });

  it.each(['ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'])('%s once an answer had begun cuts its body: retried, status kept', (code) => {
    expect(classifyFailure(failure({ code, answerBegun: 400 }))).toMatchObject({ kind: 'body-cut', status: 400 });
    expect(judge(code, { begun: 400 })).toEqual({ kind: 'body-cut', exit: Exit.network, retryable: true, answerLost: true, load: 'ok' });
  });

  it('EPIPE after an answer began is not a cut body: writing failed, not reading', () => {
    expect(judge('EPIPE', { begun: 400 }).kind).toBe('network');
  });

  it('a timeout once an answer had begun struck in its body', () => {
    expect(classifyFailure(failure({ aborted: 'timeout', answerBegun: 404 }))).toEqual({ kind: 'timeout', phase: 'body' });
    expect(classifyFailure(failure({ code: 'UND_ERR_BODY_TIMEOUT', answerBegun: 404 }))).toEqual({ kind: 'timeout', phase: 'body' });
  });

  it('headers too large win over a begun answer and over a proxy', () => {
    expect(judge('UND_ERR_HEADERS_OVERFLOW', { begun: 400, proxy: true }).kind).toBe('malformed');
  });

  it('a 429 or 503 cut short still refused for load; other answers cut short say what their status says', () => {
    expect(judge('ECONNRESET', { begun: 503 }).load).toBe('overloaded');
    expect(judge('ECONNRESET', { begun: 429 }).load).toBe('rate-limited');
    expect(judge('', { begun: 503, aborted: 'timeout' }).load).toBe('overloaded');
    expect(judge('ECONNRESET', { begun: 502 }).load).toBe('failing');
    // A failed write after the head of an answer: the answer, not the connection, says what load it was.
    expect(judge('EPIPE', { begun: 503 }).load).toBe('overloaded');
    expect(judge('ECONNRESET', { begun: 404 }).load).toBe('ok');
  });
});

describe('verdictOf an answer with a failure status', () => {
  it('is the status row, for an API error and for a redirect', () => {
    expect(verdictOf({ kind: 'api-error', status: 404, code: 1, message: 'gone' })).toEqual({
      kind: 'not-found',
      exit: Exit.notFound,
      retryable: false,
      answerLost: false,
      load: 'ok',
    });
    expect(verdictOf({ kind: 'api-error', status: 503, code: null, message: 'busy' })).toMatchObject({
      retryable: true,
      load: 'overloaded',
    });
    expect(verdictOf({ kind: 'redirect', status: 304 })).toMatchObject({ exit: Exit.server, retryable: false });
  });

  it('a 2xx whose body, read by the request, was too large: exit 6, not retried, the answer not lost', () => {
    expect(verdictOf({ kind: 'too-large', host: 'h', status: 200, limitBytes: 1024 })).toEqual({
      exit: Exit.server,
      retryable: false,
      answerLost: false,
      load: 'ok',
    });
  });
});

describe("the reference's lists of retried statuses are the table's", () => {
  /** A bullet of docs/reference.md (`- **Retries.**`...), its line breaks and indents read as single spaces. */
  const bullet = (title: string): string => {
    const readme = readFileSync(`${ROOT}/docs/reference.md`, 'utf8');
    const start = readme.indexOf(`- **${title}.**`);
    expect(start).toBeGreaterThan(-1);
    const end = readme.indexOf('\n- **', start + 1);
    return readme.slice(start, end).replace(/\s+/g, ' ');
  };
  const inWords = (statuses: readonly number[], last: 'and' | 'or'): string =>
    statuses.length < 2 ? statuses.join('') : `${statuses.slice(0, -1).join(', ')} ${last} ${statuses.at(-1)}`;

  it('Retries names the retried statuses, and those never retried', () => {
    const retries = bullet('Retries');
    expect(retries).toContain(`on a timeout, and on ${inWords(RETRIED_STATUSES, 'and')}, and when`);
    expect(retries).toContain(`It never retries ${inWords(UNRETRIED_STATUSES, 'or')}.`);
  });

  it('Throttling names the retried statuses that do not change the pace', () => {
    const neutral = RETRIED_STATUSES.filter((status) => !isLoadRefusal(classifyStatus(status).load));
    expect(bullet('Throttling')).toContain(`${neutral.join(', ')}, timeouts and resets are retried per request`);
  });
});
