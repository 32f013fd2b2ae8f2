// The HTTP layer hands back data, not sentences: these drive the transport with a scripted
// dispatcher (no sockets) and check the outcome of each request, the events a trace is
// made from, what the throttle is told, which methods are sent again after an answer may
// have been lost, and that every string in an outcome is already masked.
import { describe, expect, it, vi } from 'vitest';
import { verdictOf } from '../../src/http/classify.js';
import type { AttemptGate, Feedback } from '../../src/http/gate.js';
import { ERROR_BODY_BYTES, type HttpRequest, type TransportEvent } from '../../src/http/outcome.js';
import { createTransport, type TransportOptions } from '../../src/http/transport.js';
import { get } from '../helpers/requests.js';
import { type Step, scriptedDispatcher } from '../helpers/scripted-dispatcher.js';

const TOKEN = 'outcome-token-0123456789abcdef';
const HOST = 'api.example.com';

/**
 * A gate that admits `admit` attempts, recording what each was released with, then refuses;
 * `admitting` says whether the server admits other requests of the run meanwhile.
 */
function gate(admit: number, gaveUp?: string, admitting = false, outage = false): AttemptGate & { feedback: Feedback[] } {
  const feedback: Feedback[] = [];
  let admitted = 0;
  return {
    feedback,
    acquire: async () => (admitted++ < admit ? { startedAt: 0, release: (given: Feedback) => feedback.push(given) } : undefined),
    gaveUp: () => gaveUp,
    admitting: () => admitting,
    outage: () => outage,
  };
}

type Asked = Omit<HttpRequest, 'path' | 'label'>;

async function outcome(
  steps: Step[],
  options: Partial<TransportOptions> = {},
  signal = new AbortController().signal,
  method = 'DELETE',
  asked: Asked = { method, successBody: 'ignored', bodyLimitBytes: ERROR_BODY_BYTES },
) {
  const script = scriptedDispatcher(steps);
  const transport = createTransport({
    endpoint: { baseUrl: `https://${HOST}`, token: TOKEN },
    userAgent: 'test',
    timeoutMs: 50,
    retries: 0,
    maxRetryWaitMs: 1000,
    env: {},
    dispatcher: script.dispatcher,
    random: () => 0, // no backoff: nothing here waits
    ...options,
  });
  try {
    return { outcome: await transport.send({ ...asked, path: '/plants/42', label: '42' }, signal), calls: script.requests.length };
  } finally {
    await transport.close();
  }
}

const notFound: Step = { answer: 404, headers: { 'content-type': 'application/json' }, body: '{"error":1,"message":"no plant 42"}' };

describe('the outcome of a request, as data', () => {
  it('a 204 is ok, with no body', async () => {
    expect((await outcome([{ answer: 204 }])).outcome).toEqual({ kind: 'ok', status: 204, body: '' });
  });

  it('another 2xx is ok, with its body as text', async () => {
    expect((await outcome([{ answer: 200, headers: { 'content-type': 'application/json' }, body: '{"gone":true}' }])).outcome).toEqual({
      kind: 'ok',
      status: 200,
      body: '{"gone":true}',
    });
  });

  it('our deadline is a timeout with its length and where it struck, and no words', async () => {
    // A fake clock: the attempt's own timer fires at --timeout, without waiting for it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const pending = outcome(['silent']);
    await vi.advanceTimersByTimeAsync(50);
    vi.useRealTimers();
    expect((await pending).outcome).toStrictEqual({
      kind: 'failed',
      last: { kind: 'timeout', host: HOST, ms: 50, phase: 'answer' },
      attempts: 1,
      earlierAnswerLost: false,
    });
  });

  it('an Error object keeps its code and message; the exit code is left to the table', async () => {
    expect((await outcome([notFound])).outcome).toMatchObject({
      last: { kind: 'api-error', status: 404, code: 1, message: 'no plant 42' },
    });
  });

  it('a body cut short keeps the status of the answer that had begun', async () => {
    const { outcome: cut } = await outcome([{ answer: 400, body: 'plant is', cut: 'ECONNRESET' }]);
    expect(cut).toMatchObject({ last: { kind: 'body-cut', host: HOST, status: 400, what: 'reset' } });
  });

  it('a reset, then "no such thing": the earlier attempt may have done it', async () => {
    const { outcome: result, calls } = await outcome([{ error: 'ECONNRESET' }, notFound], { retries: 1 });
    expect(result).toMatchObject({ kind: 'failed', last: { kind: 'api-error', status: 404 }, attempts: 2, earlierAnswerLost: true });
    expect(calls).toBe(2);
  });

  it('a connect timeout sent nothing, so it cannot have done it', async () => {
    const { outcome: result } = await outcome([{ error: 'UND_ERR_CONNECT_TIMEOUT' }, notFound], { retries: 1 });
    expect(result).toMatchObject({ attempts: 2, earlierAnswerLost: false });
  });

  it('a Retry-After past the longest wait stops the attempts and says so', async () => {
    const { outcome: result, calls } = await outcome([{ answer: 503, headers: { 'retry-after': '9' } }], { retries: 2 });
    expect(result).toMatchObject({ attempts: 1, stopped: { kind: 'retry-after-too-long', retryAfterMs: 9000, maxRetryWaitMs: 1000 } });
    expect(calls).toBe(1);
  });

  it('a refusal (503) while the server admits other requests costs a fifth of a retry, a 502 a whole one', async () => {
    const busy = gate(Number.POSITIVE_INFINITY, undefined, true);
    expect((await outcome([{ answer: 503, headers: { 'retry-after': '0' } }], { retries: 1, gate: busy })).calls).toBe(6);
    expect((await outcome([{ answer: 502 }], { retries: 1, gate: busy })).calls).toBe(2);
  });

  it('while the whole service is down (the gate pauses and probes), a failure costs a fifth of a retry, whatever it was', async () => {
    const down = gate(Number.POSITIVE_INFINITY, undefined, false, true);
    expect((await outcome([{ answer: 502 }], { retries: 1, gate: down })).calls).toBe(6);
    expect((await outcome([{ error: 'ECONNREFUSED' }], { retries: 1, gate: down })).calls).toBe(6);
    expect((await outcome([{ answer: 502 }], { retries: 1, gate: gate(Number.POSITIVE_INFINITY) })).calls).toBe(2);
  });

  it('each attempt event numbers it among the attempts the budget still assures, never past them', async () => {
    const events: TransportEvent[] = [];
    const busy = gate(Number.POSITIVE_INFINITY, undefined, true);
    const refused: Step = { answer: 429, headers: { 'retry-after': '0' } };
    await outcome([refused], { retries: 1, gate: busy, onEvent: (event) => events.push(event) });
    const numbered = events.flatMap((event) => (event.kind === 'attempt' ? [[event.number, event.total]] : []));
    // Six attempts: 1 of 2 and 2 of 2, then each paced refusal left room for one more.
    expect(numbered).toEqual([
      [1, 2],
      [2, 2],
      [3, 3],
      [4, 4],
      [5, 5],
      [6, 6],
    ]);
  });

  it('a refusal while nothing else is admitted costs a whole retry: --retries attempts, with or without a gate', async () => {
    const refused: Step = { answer: 503, headers: { 'retry-after': '0' } };
    expect((await outcome([refused], { retries: 1 })).calls).toBe(2);
    expect((await outcome([refused], { retries: 1, gate: gate(Number.POSITIVE_INFINITY) })).calls).toBe(2);
  });

  it('what is not retried is tried once', async () => {
    expect((await outcome([{ error: 'ENOTFOUND' }], { retries: 3 })).calls).toBe(1);
    expect((await outcome([{ answer: 500 }], { retries: 3 })).calls).toBe(1);
  });
});

// A request says what its answer must carry: whether the body of a 2xx is the answer, and
// how much of a body it reads. DELETE ignores it (the status says it all); a GET reads it.
describe('a 2xx whose body is the answer', () => {
  const json = { 'content-type': 'application/json' };
  const read = (steps: Step[], limit = 16, retries = 0) => outcome(steps, { retries }, undefined, 'GET', get(limit));

  it('is ok with all of its body, up to exactly the limit', async () => {
    const { outcome: result } = await read([{ answer: 200, headers: json, body: '{"id":42,"n":12}' }]);
    expect(result).toEqual({ kind: 'ok', status: 200, body: '{"id":42,"n":12}' });
  });

  it.each<[string, Step]>([
    ['reset', { answer: 200, headers: json, body: '{"id":4', cut: 'ECONNRESET' }],
    ['closed', { answer: 200, headers: json, body: '{"id":4', cut: 'UND_ERR_SOCKET' }],
  ])('cut short (%s) is a failure, retried like a reset', async (_name, cut) => {
    const whole: Step = { answer: 200, headers: json, body: '{"id":42}' };
    const { outcome: result, calls } = await read([cut, whole], 16, 1);
    expect(result).toEqual({ kind: 'ok', status: 200, body: '{"id":42}' });
    expect(calls).toBe(2);
    const { outcome: failed } = await read([cut]);
    expect(failed).toMatchObject({ kind: 'failed', last: { kind: 'body-cut', host: HOST, status: 200 }, attempts: 1 });
  });

  it('that does not end before the deadline is a timeout in the body, retried', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const pending = read([{ answer: 200, headers: json, body: '{"id":4', stall: true }]);
    await vi.advanceTimersByTimeAsync(50);
    vi.useRealTimers();
    const { outcome: result } = await pending;
    expect(result).toMatchObject({ kind: 'failed', last: { kind: 'timeout', status: 200, phase: 'body' } });
    expect(result.kind === 'failed' && verdictOf(result.last).retryable).toBe(true);
  });

  it('past the limit is a failure, not retried: the same answer would come again', async () => {
    const { outcome: result, calls } = await read([{ answer: 200, headers: json, body: '{"id":42,"n":123}' }], 16, 2);
    expect(result).toStrictEqual({
      kind: 'failed',
      last: { kind: 'too-large', host: HOST, status: 200, limitBytes: 16 },
      attempts: 1,
      earlierAnswerLost: false,
    });
    expect(calls).toBe(1);
  });

  it('compressed, past the limit once inflated, is too large; one that does not inflate is not an API answer', async () => {
    const { gzipSync } = await import('node:zlib');
    const gzip = { ...json, 'content-encoding': 'gzip' };
    const big = gzipSync(`{"id":42,"name":"${'a'.repeat(100)}"}`);
    expect((await read([{ answer: 200, headers: gzip, body: big }], 64)).outcome).toMatchObject({
      last: { kind: 'too-large', limitBytes: 64 },
    });
    const small = gzipSync('{"id":42}');
    expect((await read([{ answer: 200, headers: gzip, body: small }], 64)).outcome).toEqual({ kind: 'ok', status: 200, body: '{"id":42}' });
    const broken = Buffer.from('not gzip at all');
    expect((await read([{ answer: 200, headers: gzip, body: broken }], 64)).outcome).toMatchObject({
      last: { kind: 'not-api', body: { kind: 'encoding', encoding: 'gzip' } },
    });
  });

  it('a DELETE, whose 2xx body is not the thing asked for: past the limit it is ok with its beginning; cut short, a failure retried as a reset', async () => {
    const asked = { method: 'DELETE', successBody: 'ignored', bodyLimitBytes: 16 } as const;
    const long: Step = { answer: 200, headers: json, body: '{"id":42,"n":123}' };
    expect((await outcome([long], {}, undefined, 'DELETE', asked)).outcome).toEqual({ kind: 'ok', status: 200, body: '{"id":42,"n":123' });
    // Issue 40: a JSON 200 cut short by a reset counted as "deleted". No answer came: uncertain, and retried.
    const cut: Step = { answer: 200, headers: json, body: '{"id":4', cut: 'ECONNRESET' };
    const { outcome: failed, calls } = await outcome([cut, cut], { retries: 1 }, undefined, 'DELETE', asked);
    expect(failed).toMatchObject({ kind: 'failed', last: { kind: 'body-cut', status: 200 }, attempts: 2, earlierAnswerLost: true });
    expect(calls).toBe(2);
    expect(failed.kind === 'failed' && verdictOf(failed.last)).toMatchObject({ retryable: true, answerLost: true });
  });

  it('an error body past the limit keeps its beginning, for any request', async () => {
    const long: Step = { answer: 404, headers: json, body: `{"error":1,"message":"${'x'.repeat(100)}"}` };
    expect((await read([long])).outcome).toMatchObject({ last: { kind: 'api-error', status: 404 } });
  });
});

// RFC 9110 §9.2.2: only an idempotent request may go out again once an attempt may have reached
// the server unanswered; one the server cannot have processed may always be sent again.
describe('a request sent again only when sending it twice does no harm', () => {
  // A timeout after the request went out, as undici reports it.
  const ANSWER_TIMEOUT: Step = { error: 'UND_ERR_HEADERS_TIMEOUT' };
  const HTTP2_REFUSED: Step = { error: 'ERR_HTTP2_STREAM_ERROR', message: 'Stream closed with error code NGHTTP2_REFUSED_STREAM' };
  it.each<[string, string, Step, number]>([
    ['a POST that timed out waiting for its answer is not', 'POST', ANSWER_TIMEOUT, 1],
    ['a DELETE that timed out waiting for its answer is', 'DELETE', ANSWER_TIMEOUT, 2],
    ['a POST whose connection was reset is not', 'POST', { error: 'ECONNRESET' }, 1],
    ['a PUT whose connection was reset is', 'PUT', { error: 'ECONNRESET' }, 2],
    ['a POST whose HTTP/2 stream was refused is', 'POST', HTTP2_REFUSED, 2],
    ['a POST whose connection was refused is', 'POST', { error: 'ECONNREFUSED' }, 2],
    ['a POST that timed out connecting is', 'POST', { error: 'UND_ERR_CONNECT_TIMEOUT' }, 2],
  ])('%s', async (_name, method, failure, requests) => {
    const { outcome: result, calls } = await outcome([failure, { answer: 204 }], { retries: 1 }, undefined, method);
    expect(calls).toBe(requests);
    expect(result.kind).toBe(requests === 2 ? 'ok' : 'failed');
  });
});

describe('requests the gate or the user stopped', () => {
  it('interrupted before sending: not sent', async () => {
    const controller = new AbortController();
    controller.abort();
    const { outcome: result, calls } = await outcome([{ answer: 204 }], {}, controller.signal);
    expect(result).toEqual({ kind: 'not-sent', reason: { kind: 'interrupted' } });
    expect(calls).toBe(0);
  });

  it('a throttle that gave up before the first attempt: not sent, with its reason', async () => {
    const { outcome: result } = await outcome([{ answer: 204 }], { gate: gate(0, 'refused for 4s') });
    expect(result).toEqual({ kind: 'not-sent', reason: { kind: 'gave-up', reason: 'refused for 4s' } });
  });

  it('a throttle that gave up after an attempt: that failure, stopped', async () => {
    const { outcome: result } = await outcome([{ answer: 429 }], { retries: 2, gate: gate(1, 'refused for 4s') });
    expect(result).toMatchObject({ kind: 'failed', attempts: 1, stopped: { kind: 'gave-up', reason: 'refused for 4s' } });
  });

  it('a gate that refuses without giving up (Ctrl-C) keeps the last failure as it was', async () => {
    const { outcome: result } = await outcome([{ error: 'ECONNRESET' }], { retries: 2, gate: gate(1) });
    expect(result).toStrictEqual({
      kind: 'failed',
      last: { kind: 'network', host: HOST, what: 'reset' },
      attempts: 1,
      earlierAnswerLost: false,
    });
  });
});

describe('what each attempt tells the throttle', () => {
  it.each<[string, Step, Feedback]>([
    ['a 204', { answer: 204, headers: { 'retry-after': '5' } }, { kind: 'ok' }],
    ['a 404', notFound, { kind: 'ok' }],
    ['a 429', { answer: 429, headers: { 'retry-after': '3' } }, { kind: 'refused', load: 'rate-limited', status: 429, retryAfterMs: 3000 }],
    [
      'a 503 cut short',
      { answer: 503, headers: { 'retry-after': '2' }, cut: 'UND_ERR_SOCKET' },
      { kind: 'refused', load: 'overloaded', status: 503, retryAfterMs: 2000 },
    ],
    ['a 500', { answer: 500 }, { kind: 'neutral' }],
    // The service, or the way to it, failing: one is an id's bad luck, most across ids an outage (throttle/outage.ts).
    ['a 502', { answer: 502 }, { kind: 'failing', status: 502 }],
    ['a 504', { answer: 504 }, { kind: 'failing', status: 504 }],
    ['a refused connection', { error: 'ECONNREFUSED' }, { kind: 'failing', status: undefined }],
    ['a reset connection', { error: 'ECONNRESET' }, { kind: 'failing', status: undefined }],
    ['no answer', 'silent', { kind: 'neutral' }],
  ])('%s', async (_name, step, feedback) => {
    const throttle = gate(1);
    await outcome([step], { gate: throttle });
    expect(throttle.feedback).toEqual([feedback]);
  });
});

describe('strings in an outcome are masked where they are taken', () => {
  it('a Location echoing the token', async () => {
    const { outcome: result } = await outcome([{ answer: 302, headers: { location: `https://evil.example/?t=${TOKEN}` } }]);
    expect(result).toMatchObject({ last: { kind: 'redirect', status: 302, location: 'https://evil.example/?t=***' } });
  });

  it('a proxy URL carrying the token, and a lower layer quoting it', async () => {
    const env = { https_proxy: `http://user:pw@proxy.corp:3128/${TOKEN}` };
    const { outcome: result } = await outcome([{ error: 'EWHATEVER', message: `said Bearer ${TOKEN}` }], { env });
    expect(result).toMatchObject({ last: { kind: 'failed', via: 'http://***@proxy.corp:3128/***', reason: 'said Bearer ***' } });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });
});

describe('the events a trace is made from carry data, not words', () => {
  it('each step of a failure, then a retry that succeeds: the failure as data, the token hidden', async () => {
    const events: TransportEvent[] = [];
    await outcome([{ error: 'ECONNRESET' }, { answer: 204 }], { retries: 1, onEvent: (event) => events.push(event) });
    const reset = { kind: 'network', host: HOST, what: 'reset' };
    const attempt = (number: number) => ({
      kind: 'attempt',
      label: '42',
      number,
      total: 2,
      method: 'DELETE',
      url: `https://${HOST}/plants/42`,
      headers: [
        ['authorization', 'Bearer ***'],
        ['user-agent', 'test'],
      ],
    });
    expect(events).toStrictEqual([
      attempt(1),
      { kind: 'failed', label: '42', elapsedMs: expect.any(Number), failure: reset },
      { kind: 'retrying', label: '42', delayMs: 0, retryAfter: false, failure: reset },
      attempt(2),
      { kind: 'answer', label: '42', status: 204, elapsedMs: expect.any(Number), headers: [] },
    ]);
  });
});

// Issue 40: a 2xx other than 204 proves nothing by itself. To the DELETE that confirms one, any
// 2xx but a 204 is the same answer twice; an answer that is not the API's is retried as a failing
// answer, unless the request says it is final (a base URL that has never answered as the API).
describe("answers that are not the API's", () => {
  const PAGE: Step = { answer: 200, headers: { 'content-type': 'text/html' }, body: '<title>Down for maintenance</title>' };
  const EMPTY_200: Step = { answer: 200 };
  const confirming = { method: 'DELETE', successBody: 'ignored', bodyLimitBytes: ERROR_BODY_BYTES, confirms: 200 } as const;

  it('to a confirming DELETE, a 2xx again is the same answer twice; a 204 is ok', async () => {
    const { outcome: again } = await outcome([EMPTY_200], {}, undefined, 'DELETE', confirming);
    expect(again).toEqual({
      kind: 'failed',
      last: { kind: 'success-again', status: 200, first: 200 },
      attempts: 1,
      earlierAnswerLost: false,
    });
    expect((await outcome([{ answer: 204 }], {}, undefined, 'DELETE', confirming)).outcome).toEqual({ kind: 'ok', status: 204, body: '' });
  });

  it.each<[string, Step, Asked]>([
    ['a page', PAGE, { method: 'DELETE', successBody: 'ignored', bodyLimitBytes: ERROR_BODY_BYTES }],
    ['the same 2xx twice', EMPTY_200, confirming],
  ])('%s is retried as a failing answer, uncertain; final when the request says so, sent once', async (_name, step, asked) => {
    const { outcome: retried, calls } = await outcome([step, { answer: 204 }], { retries: 1 }, undefined, 'DELETE', asked);
    expect(retried).toEqual({ kind: 'ok', status: 204, body: '' });
    expect(calls).toBe(2);
    const { outcome: failed } = await outcome([step, step], { retries: 1 }, undefined, 'DELETE', asked);
    expect(failed).toMatchObject({ kind: 'failed', attempts: 2, earlierAnswerLost: true });
    expect(failed.kind === 'failed' && verdictOf(failed.last)).toEqual({ exit: 6, retryable: true, answerLost: true, load: 'failing' });
    const final = await outcome([step, { answer: 204 }], { retries: 1 }, undefined, 'DELETE', { ...asked, notApiIsFinal: () => true });
    expect(final.calls).toBe(1);
    expect(final.outcome).toMatchObject({ kind: 'failed', last: { final: true }, attempts: 1, earlierAnswerLost: false });
    expect(final.outcome.kind === 'failed' && verdictOf(final.outcome.last)).toMatchObject({ retryable: false, answerLost: false });
  });
});
