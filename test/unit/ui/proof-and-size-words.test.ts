// What a 2xx that is not proof is called: what came back, in words a person checks against the
// base URL. The rule that decides is test/unit/http/api-answer.test.ts.
import { describe, expect, it } from 'vitest';
import type { FailedAttempt } from '../../../src/http/outcome.js';
import { describeNotProof, describeTransportFailure } from '../../../src/ui/transport-words.js';

type NotProof = Extract<FailedAttempt, { kind: 'web-page' | 'not-api' }>;

describe('describeNotProof', () => {
  it.each<[NotProof, string]>([
    [{ kind: 'web-page', status: 200, title: 'Plant Shop' }, 'the server answered 200 with a web page ("Plant Shop"), not the API'],
    [{ kind: 'web-page', status: 202, title: '' }, 'the server answered 202 with a web page, not the API'],
    [
      { kind: 'not-api', status: 200, body: { kind: 'media-type', mediaType: 'text/html', bytes: 12_345, more: false } },
      'the server answered 200 with 12 kB of text/html, not the API',
    ],
    [
      { kind: 'not-api', status: 200, body: { kind: 'media-type', mediaType: 'application/xml', bytes: 312, more: false } },
      'the server answered 200 with 312 bytes of application/xml, not the API',
    ],
    [
      { kind: 'not-api', status: 200, body: { kind: 'media-type', mediaType: 'image/svg+xml', bytes: 1500, more: true } },
      'the server answered 200 with more than 1.5 kB of image/svg+xml, not the API',
    ],
    [
      { kind: 'not-api', status: 200, body: { kind: 'not-json', mediaType: 'application/json' } },
      'the server answered 200 with a body declared application/json that is not JSON, not the API',
    ],
    [
      { kind: 'not-api', status: 200, body: { kind: 'not-text' } },
      'the server answered 200 with a body that is not an API answer (not UTF-8 text), not the API',
    ],
    [
      { kind: 'not-api', status: 200, body: { kind: 'encoding', encoding: 'zstd' } },
      'the server answered 200 with a body that is not an API answer (its content-encoding "zstd" could not be decoded), not the API',
    ],
    [
      { kind: 'not-api', status: 200, body: { kind: 'unchecked', limitBytes: 65536, cut: false } },
      'the server answered 200 with a body that is not an API answer (more than 64 KiB of text not declared JSON, which cannot be checked), not the API',
    ],
    [
      { kind: 'not-api', status: 200, body: { kind: 'text', bytes: 1 } },
      'the server answered 200 with a body that is not an API answer (1 byte of text, not the one short line of an acknowledgement), not the API',
    ],
  ])('%o', (attempt, words) => {
    expect(describeNotProof(attempt)).toBe(words);
  });
});

describe('describeTransportFailure: a request refused for its size over HTTP/2', () => {
  it('names the refusal and its likely cause, and where', () => {
    expect(describeTransportFailure({ kind: 'request-too-large', host: 'api.example.com' })).toBe(
      'the server refused the request over HTTP/2 as too large (ENHANCE_YOUR_CALM) (api.example.com): its headers, the token most of all, are likely larger than it accepts',
    );
  });
});

describe('describeTransportFailure: a keep-alive connection closed as the request went out', () => {
  it('says so after what happened', () => {
    expect(describeTransportFailure({ kind: 'network', what: 'closed', host: 'api.example.com', idleClose: true })).toBe(
      'connection closed before a complete answer (api.example.com): the server closed its idle keep-alive connection as the request went out',
    );
  });
});
