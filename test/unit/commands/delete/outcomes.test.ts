import { describe, expect, it } from 'vitest';
import { DELETE_RESULTS } from '../../../../src/commands/delete/operation.js';
import { describeAttempt, describeOutcome, explainOutcome, type MissingRule } from '../../../../src/commands/delete/outcomes.js';
import type { PlantOutcome } from '../../../../src/commands/delete/request.js';
import type { DeleteResult } from '../../../../src/commands/delete/result.js';
import { signalExit as engineSignalExit, whyNotSent } from '../../../../src/engine/not-sent.js';
import { Exit } from '../../../../src/errors.js';
import type { FailedAttempt } from '../../../../src/http/outcome.js';

const HOST = 'api.example.com';
const PROXY = 'http://***@proxy.corp:3128';

describe('describeAttempt: one sentence per kind of failure, naming the flag that helps', () => {
  it.each<[string, FailedAttempt, string]>([
    ['an API error', { kind: 'api-error', status: 400, code: 13, message: 'plant 13 is protected' }, 'plant 13 is protected'],
    [
      'a redirect with a Location',
      { kind: 'redirect', status: 302, location: 'https://evil.example.net/x' },
      'the server redirected to https://evil.example.net/x; redirects are not followed so the token stays with the base URL you chose, so fix the base URL',
    ],
    ['a redirect without one', { kind: 'redirect', status: 301 }, 'the server answered 301 Moved Permanently without a Location'],
    ['a 3xx with no name', { kind: 'redirect', status: 399 }, 'the server answered HTTP 399 without a Location'],
    [
      'a 304, Location or not',
      { kind: 'redirect', status: 304, location: 'https://x.example' },
      'the server answered 304 Not Modified, which makes no sense for a DELETE',
    ],
    [
      'no answer in time',
      { kind: 'timeout', host: HOST, ms: 50, phase: 'answer' },
      'no complete answer from api.example.com within 0.05s (timeout; raise it with --timeout)',
    ],
    [
      'no connection in time, through a proxy',
      { kind: 'timeout', host: HOST, via: PROXY, ms: 30_000, phase: 'connect' },
      `could not connect to api.example.com via proxy ${PROXY} within 30s (timeout; raise it with --timeout)`,
    ],
    [
      'a body too slow',
      { kind: 'timeout', host: HOST, ms: 1234, phase: 'body', status: 400 },
      'the 400 answer from api.example.com was not complete within 1.234s (timeout; raise it with --timeout)',
    ],
    [
      'a body cut short',
      { kind: 'body-cut', host: HOST, status: 503, what: 'closed' },
      'connection reset or closed while the server was sending a 503 answer (api.example.com)',
    ],
    [
      'a refused connection',
      { kind: 'network', host: HOST, what: 'refused' },
      'connection refused (api.example.com): is the server running at that address, and is the base URL right?',
    ],
    [
      'a reset through a proxy',
      { kind: 'network', host: HOST, via: PROXY, what: 'reset' },
      `connection reset before a complete answer (api.example.com via proxy ${PROXY})`,
    ],
    [
      'a DNS failure',
      { kind: 'network', host: HOST, what: 'host-not-found' },
      'host not found (DNS) (api.example.com): check the host name in the base URL',
    ],
    [
      'an unreachable proxy',
      { kind: 'proxy-unreachable', host: HOST, via: PROXY, what: 'lookup-failed' },
      `lookup of proxy ${PROXY} failed (DNS), try again (while reaching api.example.com)`,
    ],
    [
      'a proxy refusing the tunnel',
      { kind: 'proxy-refused', host: HOST, via: PROXY, connectStatus: 407 },
      `proxy ${PROXY} refused to connect to api.example.com (HTTP 407 to CONNECT): check the user and password in the proxy variable`,
    ],
    [
      "TLS, without Node's advice about Node's flags",
      {
        kind: 'tls',
        problem: 'other',
        host: HOST,
        reason: 'unable to verify the first certificate; if the root CA is installed locally, try running Node.js with --use-system-ca',
      },
      'TLS failure talking to api.example.com: unable to verify the first certificate',
    ],
    [
      'TLS with no words',
      { kind: 'tls', problem: 'other', host: HOST, reason: '' },
      'TLS failure talking to api.example.com: unknown error',
    ],
    [
      'headers too large',
      { kind: 'malformed', host: HOST, headersTooLarge: true },
      'malformed HTTP answer from api.example.com: headers too large; check that the base URL points at the Plant Store API',
    ],
    [
      'a broken answer',
      { kind: 'malformed', host: HOST, via: PROXY, headersTooLarge: false },
      `malformed HTTP answer from api.example.com via proxy ${PROXY}: check that the base URL points at the Plant Store API`,
    ],
    [
      'localhost resolving elsewhere',
      { kind: 'not-loopback', host: 'localhost:8080', reason: 'localhost resolved to 10.0.0.5, not to this machine' },
      'refusing to send the token over plain http: localhost resolved to 10.0.0.5, not to this machine',
    ],
    [
      'Ctrl-C while waiting',
      { kind: 'interrupted', host: HOST },
      'interrupted while waiting for the answer; the server may or may not have deleted it',
    ],
    ['Ctrl-C during a body', { kind: 'interrupted', host: HOST, status: 404 }, 'interrupted while the server was sending a 404 answer'],
    [
      'a web page where the API should be',
      { kind: 'web-page', status: 200, title: 'Welcome', final: true },
      'the server answered 200 with a web page ("Welcome"), not the API; nothing says the plant was deleted: the base URL may lead elsewhere (check it with plantstore auth status)',
    ],
    [
      'a web page without a title',
      { kind: 'web-page', status: 200, title: '' },
      'the server answered 200 with a web page, not the API; the service, which had answered as the API in this run, may be down behind a maintenance page or a catch-all',
    ],
    [
      'another 2xx body that is not an API answer',
      { kind: 'not-api', status: 200, body: { kind: 'media-type', mediaType: 'text/csv', bytes: 12_000, more: false }, final: true },
      'the server answered 200 with 12 kB of text/csv, not the API; nothing says the plant was deleted: the base URL may lead elsewhere (check it with plantstore auth status)',
    ],
    [
      'the same 2xx twice, from a base URL that never answered as the API',
      { kind: 'success-again', status: 200, first: 200, final: true },
      'the server answered 200 twice to the same DELETE, where the API answers the second "no such plant", so it is not the API; nothing says the plant was deleted: the base URL may lead elsewhere (check it with plantstore auth status)',
    ],
    [
      'a 2xx to the DELETE sent again after another, from a service that had answered as the API',
      { kind: 'success-again', status: 202, first: 200 },
      'the server answered 200, then 202 to the same DELETE, where the API answers the second "no such plant", so it is not the API; the service, which had answered as the API in this run, may be down behind a maintenance page or a catch-all',
    ],
    ['a 300 without a Location', { kind: 'redirect', status: 300 }, 'the server answered 300 Multiple Choices without a Location'],
    ['a 307 without a Location', { kind: 'redirect', status: 307 }, 'the server answered 307 Temporary Redirect without a Location'],
    [
      'an HTTP/2 stream refused',
      { kind: 'network', host: HOST, what: 'stream-refused' },
      'the server refused the HTTP/2 stream before processing it (api.example.com)',
    ],
    [
      'an HTTP/2 stream reset',
      { kind: 'network', host: HOST, what: 'stream-reset' },
      'the server reset the HTTP/2 stream before a complete answer (api.example.com)',
    ],
    ['a direct reset', { kind: 'network', host: HOST, what: 'reset' }, 'connection reset before a complete answer (api.example.com)'],
    ['a direct close', { kind: 'network', host: HOST, what: 'closed' }, 'connection closed before a complete answer (api.example.com)'],
    [
      'a server that wants a client certificate',
      { kind: 'tls', problem: 'other', host: HOST, reason: 'the server requires a client certificate, which plantstore never sends' },
      'TLS failure talking to api.example.com: the server requires a client certificate, which plantstore never sends',
    ],
    [
      'a proxy refusing the connection',
      { kind: 'proxy-unreachable', host: HOST, via: PROXY, what: 'refused' },
      `connection refused by proxy ${PROXY} (while reaching api.example.com): is the proxy running there, and is the proxy variable right?`,
    ],
    ['anything else', { kind: 'failed', host: HOST, reason: 'odd' }, 'request to api.example.com failed: odd'],
    ['anything else, wordless', { kind: 'failed', host: HOST, reason: '' }, 'request to api.example.com failed: unknown error'],
  ])('%s', (_name, attempt, sentence) => {
    expect(describeAttempt(attempt)).toBe(sentence);
  });
});

const failed = (last: FailedAttempt, more: Partial<Extract<PlantOutcome, { kind: 'failed' }>> = {}): PlantOutcome => ({
  kind: 'failed',
  id: '42',
  last,
  attempts: 1,
  earlierAnswerLost: false,
  ...more,
});

const busy: FailedAttempt = { kind: 'api-error', status: 503, code: null, message: 'Service Unavailable' };

describe('describeOutcome: the printed record of an id', () => {
  it('a deletion', () => {
    expect(describeOutcome({ kind: 'deleted', id: '42', status: 204 })).toEqual({ id: '42', deleted: true, status: 204 });
  });

  it('a failure takes its exit code from the table, its status and code from the answer', () => {
    expect(describeOutcome(failed({ kind: 'api-error', status: 401, code: 7, message: 'bad token' }))).toEqual({
      id: '42',
      deleted: false,
      status: 401,
      error: 7,
      message: 'bad token',
      exit: Exit.auth,
      attempted: true,
    });
  });

  it('a transport failure keeps the status of an answer that had begun, and has no API code', () => {
    expect(describeOutcome(failed({ kind: 'body-cut', host: HOST, status: 400, what: 'reset' }))).toMatchObject({
      status: 400,
      error: null,
      exit: Exit.network,
    });
    expect(describeOutcome(failed({ kind: 'network', host: HOST, what: 'refused' }))).toMatchObject({ status: null, error: null });
  });

  it.each<[string, Partial<Extract<PlantOutcome, { kind: 'failed' }>>]>([
    ['one attempt', {}],
    ['several', { attempts: 3 }],
    [
      'a Retry-After past --max-retry-wait',
      { attempts: 2, stopped: { kind: 'retry-after-too-long', retryAfterMs: 120_000, maxRetryWaitMs: 30_000 } },
    ],
    ['a throttle that gave up', { attempts: 4, stopped: { kind: 'gave-up', reason: 'the server refused every request for 4s' } }],
  ])('how the attempts ended: %s', (_name, more) => {
    const outcome = describeOutcome(failed(busy, more));
    expect(outcome).toMatchObject({ exit: Exit.server, status: 503, attempted: true, uncertain: true });
    expect(outcome).toHaveProperty('message');
    expect('message' in outcome ? outcome.message : undefined).toMatchSnapshot();
  });

  it.each<[PlantOutcome, string, number]>([
    [{ kind: 'not-sent', id: '8', reason: { kind: 'interrupted' } }, 'not sent: interrupted before its turn', Exit.interrupted],
    [
      { kind: 'not-sent', id: '8', reason: { kind: 'gave-up', reason: 'the server refused every request for 4s' } },
      'not sent: the server refused every request for 4s',
      Exit.server,
    ],
  ])('never sent: %j', (outcome, message, exit) => {
    expect(describeOutcome(outcome)).toEqual({ id: '8', deleted: false, status: null, error: null, message, exit, attempted: false });
    expect(whyNotSent(outcome.kind === 'not-sent' ? outcome.reason : { kind: 'interrupted' })).toEqual({ message, exit });
  });
});

describe('explainOutcome: what "no such plant" looks like', () => {
  const none: MissingRule = { codes: [], ignore: false };
  const ignore: MissingRule = { codes: [], ignore: true };
  const gone: FailedAttempt = { kind: 'api-error', status: 404, code: 1, message: 'no plant 42' };
  const WRONG_BASE = "the answer is not the API's Error object, so the base URL may be wrong (check it with plantstore auth status)";

  it('a 404 Error object under --ignore-missing is absent', () => {
    expect(explainOutcome(failed(gone), ignore)).toEqual({ id: '42', deleted: false, absent: true, status: 404 });
  });

  it('after an attempt whose answer was lost, "no such plant" is absent (never deleted), with or without --ignore-missing', () => {
    for (const rule of [ignore, none]) {
      expect(explainOutcome(failed(gone, { attempts: 2, earlierAnswerLost: true }), rule)).toEqual({
        id: '42',
        deleted: false,
        absent: true,
        status: 404,
        after: 'attempt',
      });
    }
  });

  it("after a request of the earlier run that the journal records as uncertain: absent, said as the earlier run's", () => {
    const declared: FailedAttempt = { kind: 'api-error', status: 400, code: 1, message: 'plant 42 does not exist' };
    expect(explainOutcome(failed(declared), { codes: [1], ignore: false }, true)).toEqual({
      id: '42',
      deleted: false,
      absent: true,
      status: 400,
      after: 'run',
    });
    // A code nobody declared cannot settle it: a failure, saying how to declare it.
    expect(explainOutcome(failed(declared), none, true)).toMatchObject({
      deleted: false,
      exit: Exit.apiRefused,
      message: expect.stringContaining('run again with --missing-error 1'),
    });
  });

  it('without --ignore-missing, and after no lost answer, a 404 Error object fails: the plant may never have existed', () => {
    expect(explainOutcome(failed(gone), none)).toMatchObject({ message: 'no plant 42', exit: Exit.notFound });
    expect(explainOutcome(failed(gone, { attempts: 2 }), none)).toMatchObject({ message: 'no plant 42 (after 2 attempts)' });
  });

  it.each<[string, FailedAttempt, boolean]>([
    ['a timeout waiting for the answer', { kind: 'timeout', host: HOST, ms: 50, phase: 'answer' }, true],
    ['a reset once the request was written', { kind: 'network', host: HOST, what: 'reset' }, true],
    ['a 502 from a gateway', { kind: 'api-error', status: 502, code: null, message: 'Bad Gateway' }, true],
    ['a 500 Error object', { kind: 'api-error', status: 500, code: 3, message: 'database gone' }, true],
    ['a signal while waiting', { kind: 'interrupted', host: HOST }, true],
    ['a connection refused (nothing left)', { kind: 'network', host: HOST, what: 'refused' }, false],
    ['a connect timeout (nothing left)', { kind: 'timeout', host: HOST, ms: 50, phase: 'connect' }, false],
    ['a 400 Error object', { kind: 'api-error', status: 400, code: 13, message: 'protected' }, false],
    ['a 401', { kind: 'api-error', status: 401, code: null, message: 'Unauthorized' }, false],
  ])('%s: uncertain %s, and said so in --json terms', (_name, last, uncertain) => {
    const result = describeOutcome(failed(last));
    expect('uncertain' in result && result.uncertain === true).toBe(uncertain);
    if (uncertain) expect('message' in result ? result.message : '').toMatch(/may or may not have deleted it/);
  });

  it('a lost answer then a decided API refusal (a protected plant) is certain; a lost answer then a 401 or a 503 is not', () => {
    const protectedPlant: FailedAttempt = { kind: 'api-error', status: 400, code: 13, message: 'protected' };
    expect(describeOutcome(failed(protectedPlant, { attempts: 2, earlierAnswerLost: true }))).not.toHaveProperty('uncertain');
    expect(describeOutcome(failed(busy, { attempts: 2, earlierAnswerLost: true }))).toHaveProperty('uncertain', true);
    const unauthorized: FailedAttempt = { kind: 'api-error', status: 401, code: null, message: 'Unauthorized' };
    expect(describeOutcome(failed(unauthorized, { attempts: 2, earlierAnswerLost: true }))).toHaveProperty('uncertain', true);
  });

  it('a 400 Error object counts only with a code the user declared', () => {
    const refused: FailedAttempt = { kind: 'api-error', status: 400, code: 1, message: 'plant 42 does not exist' };
    expect(explainOutcome(failed(refused), { codes: [1], ignore: true })).toEqual({ id: '42', deleted: false, absent: true, status: 400 });
    expect(explainOutcome(failed(refused), { codes: [2], ignore: true })).toMatchObject({ deleted: false, exit: Exit.apiRefused });
    expect(explainOutcome(failed({ ...refused, status: 409 }), { codes: [1], ignore: true })).toMatchObject({ exit: Exit.apiRefused });
  });

  it('a 404 without the Error object is a wrong base URL, not a missing plant, even under --ignore-missing', () => {
    const route: FailedAttempt = { kind: 'api-error', status: 404, code: null, message: 'Not Found' };
    expect(explainOutcome(failed(route), ignore)).toMatchObject({ message: `Not Found; ${WRONG_BASE}`, exit: Exit.notFound });
  });

  it('a 404 cut short or interrupted is neither missing nor a wrong base URL: the connection failed', () => {
    for (const last of [
      { kind: 'body-cut', host: HOST, status: 404, what: 'reset' },
      { kind: 'timeout', host: HOST, status: 404, ms: 50, phase: 'body' },
      { kind: 'interrupted', host: HOST, status: 404 },
    ] satisfies FailedAttempt[]) {
      const result = explainOutcome(failed(last, { earlierAnswerLost: true }), ignore);
      expect(result).toMatchObject({ deleted: false, status: 404 });
      expect(result).not.toHaveProperty('absent', true);
      expect(JSON.stringify(result)).not.toMatch(/base URL|earlier attempt/);
    }
  });

  it('deletions and ids never sent pass through', () => {
    expect(explainOutcome({ kind: 'deleted', id: '1', status: 204 }, ignore)).toEqual({ id: '1', deleted: true, status: 204 });
    expect(explainOutcome({ kind: 'not-sent', id: '1', reason: { kind: 'interrupted' } }, ignore)).toMatchObject({ attempted: false });
  });
});

const signalExit = (result: DeleteResult, interrupt: AbortSignal): DeleteResult => engineSignalExit(DELETE_RESULTS, result, interrupt);

describe('signalExit: an id interrupted by a signal says the code the process ends with', () => {
  const interrupted = notSentFor('9');
  function notSentFor(id: string) {
    return explainOutcome({ kind: 'not-sent', id, reason: { kind: 'interrupted' } }, { codes: [], ignore: false });
  }
  function aborted(reason: string): AbortSignal {
    const controller = new AbortController();
    controller.abort(reason);
    return controller.signal;
  }
  it.each<[string, number]>([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ])('after %s: exit %i', (signal, exit) => {
    expect(signalExit(interrupted, aborted(signal))).toMatchObject({ exit, attempted: false });
  });

  it('leaves every other result alone, and all of them when nothing was interrupted', () => {
    const refused = explainOutcome(
      {
        kind: 'failed',
        id: '2',
        last: { kind: 'api-error', status: 401, code: 401, message: 'no' },
        attempts: 1,
        earlierAnswerLost: false,
      },
      { codes: [], ignore: false },
    );
    expect(signalExit(refused, aborted('SIGTERM'))).toBe(refused);
    expect(signalExit(interrupted, new AbortController().signal)).toBe(interrupted);
  });
});
