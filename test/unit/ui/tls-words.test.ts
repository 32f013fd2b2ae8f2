// Each TLS failure in words, with the one next step that fits it; OpenSSL's own text only in the trace.
import { describe, expect, it } from 'vitest';
import type { FailedAttempt } from '../../../src/http/outcome.js';
import { traceLines } from '../../../src/ui/trace.js';
import { describeTransportFailure } from '../../../src/ui/transport-words.js';

type Tls = Extract<FailedAttempt, { kind: 'tls' }>;
const AT = { host: '127.0.0.1:8443' };
const OPENSSL =
  '40EDE8A25B7F0000:error:0A00010B:SSL routines:tls_validate_record_header:wrong version number:../deps/openssl/openssl/ssl/record/methods/tlsany_meth.c:77:';

describe('describeTransportFailure: TLS', () => {
  it.each<[string, Tls, string]>([
    [
      'not TLS at that address',
      { ...AT, kind: 'tls', problem: 'not-tls', reason: OPENSSL },
      'the server does not speak TLS at 127.0.0.1:8443: use http:// or check the port',
    ],
    [
      'a server that says it speaks TLS there',
      { ...AT, kind: 'tls', problem: 'speaks-tls', status: 400, reason: '400 The plain HTTP request was sent to HTTPS port' },
      'the server speaks TLS at 127.0.0.1:8443: use https://',
    ],
    [
      'a certificate for one other name',
      { ...AT, kind: 'tls', problem: 'altname', names: ['other.example'], asked: '127.0.0.1', reason: 'x' },
      'the certificate of 127.0.0.1:8443 names other.example, not 127.0.0.1: use a name it names in the base URL',
    ],
    [
      'a certificate for three other names',
      { ...AT, kind: 'tls', problem: 'altname', names: ['a.example', 'b.example', '10.0.0.1'], asked: 'localhost', reason: 'x' },
      'the certificate of 127.0.0.1:8443 names a.example, b.example and 10.0.0.1, not localhost: use a name it names in the base URL',
    ],
    [
      'a certificate whose names are unknown',
      { ...AT, kind: 'tls', problem: 'altname', names: [], asked: 'localhost', reason: 'x' },
      'the certificate of 127.0.0.1:8443 does not name localhost: use a name it names in the base URL',
    ],
    [
      'untrusted, no CA bundle given',
      { ...AT, kind: 'tls', problem: 'untrusted', reason: 'self-signed certificate' },
      'the certificate of 127.0.0.1:8443 is not signed by a trusted CA: trust a private CA with --cacert FILE',
    ],
    [
      'untrusted, a CA bundle given',
      { ...AT, kind: 'tls', problem: 'untrusted', reason: 'x', caFile: '/etc/ca.pem' },
      "the certificate of 127.0.0.1:8443 is not signed by a CA in /etc/ca.pem: check that /etc/ca.pem holds the CA that signed the server's certificate",
    ],
    [
      'expired, with its date',
      { ...AT, kind: 'tls', problem: 'expired', notAfter: 'Nov 26 07:06:20 2026 GMT', reason: 'x' },
      "the certificate of 127.0.0.1:8443 has expired (on Nov 26 07:06:20 2026 GMT): the server needs a new one, or this machine's clock is wrong",
    ],
    [
      'not yet valid, with its date',
      { ...AT, kind: 'tls', problem: 'not-yet-valid', notBefore: 'Dec 1 00:00:00 2026 GMT', reason: 'x' },
      "the certificate of 127.0.0.1:8443 is not valid yet (from Dec 1 00:00:00 2026 GMT): check this machine's clock",
    ],
    [
      'anything else: OpenSSL reduced to its words',
      { ...AT, kind: 'tls', problem: 'other', reason: OPENSSL.replace('wrong version number', 'sslv3 alert handshake failure') },
      'TLS failure talking to 127.0.0.1:8443: sslv3 alert handshake failure',
    ],
    [
      'through a proxy',
      { ...AT, via: 'http://proxy:3128', kind: 'tls', problem: 'not-tls', reason: OPENSSL },
      'the server does not speak TLS at 127.0.0.1:8443 via proxy http://proxy:3128: use http:// or check the port',
    ],
  ])('%s', (_name, attempt, sentence) => {
    expect(describeTransportFailure(attempt)).toBe(sentence);
  });

  it('a plain-http close: the hint is conditional', () => {
    expect(describeTransportFailure({ ...AT, kind: 'network', what: 'closed', plainHttp: true })).toBe(
      'connection closed before a complete answer (127.0.0.1:8443): if that port speaks TLS, use https://',
    );
  });
});

describe('the --verbose trace adds the lower layer text the sentence put in words', () => {
  const words = (failure: FailedAttempt) => (failure.kind === 'tls' ? describeTransportFailure(failure) : 'other');
  const failed = (failure: FailedAttempt) => traceLines({ kind: 'failed', label: '42', elapsedMs: 3, failure }, words);

  it('for a TLS failure in words', () => {
    expect(failed({ ...AT, kind: 'tls', problem: 'not-tls', reason: OPENSSL })).toEqual([
      `[42] * failed after 3.0 ms: the server does not speak TLS at 127.0.0.1:8443: use http:// or check the port (Node.js said: ${OPENSSL})`,
    ]);
  });
  it("for a server's own words that it speaks TLS", () => {
    const reason = '400 The plain HTTP request was sent to HTTPS port';
    expect(failed({ ...AT, kind: 'tls', problem: 'speaks-tls', status: 400, reason })).toEqual([
      `[42] * failed after 3.0 ms: the server speaks TLS at 127.0.0.1:8443: use https:// (it answered 400: ${reason})`,
    ]);
  });
  it('not when the sentence quotes it already', () => {
    expect(failed({ ...AT, kind: 'tls', problem: 'other', reason: 'the server requires a client certificate' })).toEqual([
      '[42] * failed after 3.0 ms: TLS failure talking to 127.0.0.1:8443: the server requires a client certificate',
    ]);
  });
});
