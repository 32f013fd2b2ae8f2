// The words any command may use for what became of a request on the way to the service. Most
// failure kinds are checked through the delete command's sentences
// (test/unit/commands/delete/outcomes.test.ts); these are the ones no command words itself.
import { describe, expect, it } from 'vitest';
import { Exit } from '../../../src/errors.js';
import { exitOfNotSent } from '../../../src/http/classify.js';
import type { FailedAttempt, NotSentReason, Outcome } from '../../../src/http/outcome.js';
import { describeFailed, describeNotSent, describeTransportFailure } from '../../../src/ui/transport-words.js';

const HOST = 'api.example.com';

describe('describeTransportFailure', () => {
  it.each([
    [64 * 1024, 'the 200 answer from api.example.com was larger than the 64 KiB this request reads'],
    [1000, 'the 200 answer from api.example.com was larger than the 1000 bytes this request reads'],
  ])('a 2xx body past the request limit of %i bytes', (limitBytes, sentence) => {
    expect(describeTransportFailure({ kind: 'too-large', host: HOST, status: 200, limitBytes })).toBe(sentence);
  });
});

describe('describeFailed: the last failure, why attempts stopped early, and how many there were', () => {
  const reset: FailedAttempt = { kind: 'network', host: HOST, what: 'reset' };
  const failed = (more: Partial<Extract<Outcome, { kind: 'failed' }>>) =>
    ({ kind: 'failed', last: reset, attempts: 1, earlierAnswerLost: false, ...more }) as const;
  // The command's words for what it words itself; here, every failure is the transport's.
  const words = (attempt: FailedAttempt) => (attempt.kind === 'network' ? `reset (${attempt.host})` : 'other');

  it.each<[string, Extract<Outcome, { kind: 'failed' }>, string]>([
    ['one attempt', failed({}), 'reset (api.example.com)'],
    ['three attempts', failed({ attempts: 3 }), 'reset (api.example.com) (after 3 attempts)'],
    [
      'a Retry-After too long',
      failed({ attempts: 2, stopped: { kind: 'retry-after-too-long', retryAfterMs: 90_000, maxRetryWaitMs: 30_000 } }),
      'reset (api.example.com); the server asked to retry after 90s, longer than --max-retry-wait 30s (after 2 attempts)',
    ],
    [
      'a throttle that gave up',
      failed({ stopped: { kind: 'gave-up', reason: 'the server refused every request for 60s' } }),
      'reset (api.example.com); the server refused every request for 60s, so it was not tried again',
    ],
  ])('%s', (_name, outcome, sentence) => {
    expect(describeFailed(outcome, words)).toBe(sentence);
  });
});

describe('a request never sent: its sentence, and its exit code from the table', () => {
  it.each<[NotSentReason, string, number]>([
    [{ kind: 'interrupted' }, 'not sent: interrupted before its turn', Exit.interrupted],
    [{ kind: 'gave-up', reason: 'refused for 60s' }, 'not sent: refused for 60s', Exit.server],
    [{ kind: 'no-token', message: 'the token command failed' }, 'not sent: the token command failed', Exit.auth],
  ])('%j', (reason, sentence, exit) => {
    expect([describeNotSent(reason), exitOfNotSent(reason)]).toEqual([sentence, exit]);
  });
});
