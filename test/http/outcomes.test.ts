// The HTTP layer hands back data, not sentences: these drive the client with a scripted
// dispatcher (no sockets) and check the outcome of each id, what the throttle is told,
// and that every string in an outcome is already masked.
import { describe, expect, it } from 'vitest';
import { type ApiOptions, createPlantApi } from '../../src/http/client.js';
import type { AttemptGate, Feedback } from '../../src/http/gate.js';
import type { PlantOutcome } from '../../src/http/outcome.js';
import { type Step, scriptedDispatcher } from '../helpers/scripted-dispatcher.js';

const TOKEN = 'outcome-token-0123456789abcdef';
const HOST = 'api.example.com';

/**
 * A gate that admits `admit` attempts, recording what each was released with, then refuses;
 * `admitting` says whether the server admits other requests of the run meanwhile.
 */
function gate(admit: number, gaveUp?: string, admitting = false): AttemptGate & { feedback: Feedback[] } {
  const feedback: Feedback[] = [];
  let admitted = 0;
  return {
    feedback,
    acquire: async () => (admitted++ < admit ? { startedAt: 0, release: (given: Feedback) => feedback.push(given) } : undefined),
    gaveUp: () => gaveUp,
    admitting: () => admitting,
  };
}

async function outcome(steps: Step[], options: Partial<ApiOptions> = {}, signal = new AbortController().signal) {
  const script = scriptedDispatcher(steps);
  const api = createPlantApi({
    target: { profile: 'default', baseUrl: `https://${HOST}`, token: TOKEN },
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
    return { outcome: await api.deletePlant('42', signal), calls: script.requests.length };
  } finally {
    await api.close();
  }
}

const notFound: Step = { answer: 404, headers: { 'content-type': 'application/json' }, body: '{"error":1,"message":"no plant 42"}' };

describe('the outcome of an id, as data', () => {
  it('a 204 is deleted', async () => {
    expect((await outcome([{ answer: 204 }])).outcome).toEqual({ kind: 'deleted', id: '42', status: 204 });
  });

  it('our deadline is a timeout with its length and where it struck, and no words', async () => {
    expect((await outcome(['deadline'])).outcome).toEqual({
      kind: 'failed',
      id: '42',
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

  it('a reset, then "no such plant": the earlier attempt may have deleted it', async () => {
    const { outcome: result, calls } = await outcome([{ error: 'ECONNRESET' }, notFound], { retries: 1 });
    expect(result).toMatchObject({ kind: 'failed', last: { kind: 'api-error', status: 404 }, attempts: 2, earlierAnswerLost: true });
    expect(calls).toBe(2);
  });

  it('a connect timeout sent nothing, so it cannot have deleted it', async () => {
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

  it('the trace numbers each attempt of the attempts the budget still assures, never past them', async () => {
    const lines: string[] = [];
    const busy = gate(Number.POSITIVE_INFINITY, undefined, true);
    const refused: Step = { answer: 429, headers: { 'retry-after': '0' } };
    await outcome([refused], { retries: 1, gate: busy, trace: (line) => lines.push(line) });
    const numbered = lines.flatMap((line) => /\* attempt (\d+) of (\d+)/.exec(line)?.slice(1).map(Number) ?? []);
    // Six attempts: 1 of 2 and 2 of 2, then each paced refusal left room for one more.
    expect(numbered).toEqual([1, 2, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
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

describe('ids the gate or the user stopped', () => {
  it('interrupted before sending: not sent', async () => {
    const controller = new AbortController();
    controller.abort();
    const { outcome: result, calls } = await outcome([{ answer: 204 }], {}, controller.signal);
    expect(result).toEqual({ kind: 'not-sent', id: '42', reason: { kind: 'interrupted' } });
    expect(calls).toBe(0);
  });

  it('a throttle that gave up before the first attempt: not sent, with its reason', async () => {
    const { outcome: result } = await outcome([{ answer: 204 }], { gate: gate(0, 'refused for 4s') });
    expect(result).toEqual({ kind: 'not-sent', id: '42', reason: { kind: 'gave-up', reason: 'refused for 4s' } });
  });

  it('a throttle that gave up after an attempt: that failure, stopped', async () => {
    const { outcome: result } = await outcome([{ answer: 429 }], { retries: 2, gate: gate(1, 'refused for 4s') });
    expect(result).toMatchObject({ kind: 'failed', attempts: 1, stopped: { kind: 'gave-up', reason: 'refused for 4s' } });
  });

  it('a gate that refuses without giving up (Ctrl-C) keeps the last failure as it was', async () => {
    const { outcome: result } = await outcome([{ error: 'ECONNRESET' }], { retries: 2, gate: gate(1) });
    expect(result).toEqual({
      kind: 'failed',
      id: '42',
      last: { kind: 'network', host: HOST, what: 'reset' },
      attempts: 1,
      earlierAnswerLost: false,
    });
  });
});

describe('what each attempt tells the throttle', () => {
  it.each<[string, Step, Feedback]>([
    ['a deletion', { answer: 204, headers: { 'retry-after': '5' } }, { kind: 'ok' }],
    ['a 404', notFound, { kind: 'ok' }],
    ['a 429', { answer: 429, headers: { 'retry-after': '3' } }, { kind: 'refused', load: 'rate-limited', status: 429, retryAfterMs: 3000 }],
    [
      'a 503 cut short',
      { answer: 503, headers: { 'retry-after': '2' }, cut: 'UND_ERR_SOCKET' },
      { kind: 'refused', load: 'overloaded', status: 503, retryAfterMs: 2000 },
    ],
    ['a 500', { answer: 500 }, { kind: 'neutral' }],
    ['no answer', { error: 'ECONNREFUSED' }, { kind: 'neutral' }],
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

describe('the trace words failures as the command that asked for it says', () => {
  it('uses the describe it was given for failures and retries', async () => {
    const lines: string[] = [];
    const describe = (attempt: Extract<PlantOutcome, { kind: 'failed' }>['last']) => `<${attempt.kind}>`;
    await outcome([{ error: 'ECONNRESET' }, { answer: 204 }], { retries: 1, trace: (line) => lines.push(line), describe });
    expect(lines.filter((line) => line.includes('<network>'))).toEqual([
      expect.stringMatching(/^\[42\] \* failed after \d+\.\d ms: <network>$/),
      '[42] * retrying in 0s: <network>',
    ]);
  });
});
