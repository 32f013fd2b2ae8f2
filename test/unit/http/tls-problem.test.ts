// What a TLS error says went wrong, as data: from Node's code, and for a certificate made out
// to other names, from the certificate Node attaches. Through failedRequest, as the transport reads it.
import { describe, expect, it } from 'vitest';
import { Exit } from '../../../src/errors.js';
import { verdictOf } from '../../../src/http/classify.js';
import type { FailedAttempt, Route } from '../../../src/http/outcome.js';
import { failedRequest } from '../../../src/http/request-errors.js';
import { wantsTls } from '../../../src/http/tls-problem.js';

const ROUTE: Route = { host: '127.0.0.1:8443' };

function read(error: object, extra: { caFile?: string; plainHttp?: boolean; route?: Route } = {}): FailedAttempt {
  const { route = ROUTE, ...rest } = extra;
  return failedRequest(Object.assign(new Error('lower layer words'), error), { aborted: undefined, timeoutMs: 1, route, ...rest });
}

const altnameError = (host: string, subjectaltname: string | undefined, cn = 'server') => ({
  code: 'ERR_TLS_CERT_ALTNAME_INVALID',
  host,
  cert: { ...(subjectaltname === undefined ? {} : { subjectaltname }), subject: { CN: cn } },
});

describe('tls problems from Node codes', () => {
  it.each<[string, object]>([
    ['ERR_SSL_WRONG_VERSION_NUMBER', { problem: 'not-tls' }],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', { problem: 'untrusted' }],
    ['SELF_SIGNED_CERT_IN_CHAIN', { problem: 'untrusted' }],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', { problem: 'untrusted' }],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', { problem: 'untrusted' }],
    ['CERT_HAS_EXPIRED', { problem: 'expired' }],
    ['CERT_NOT_YET_VALID', { problem: 'not-yet-valid' }],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', { problem: 'other' }],
  ])('%s: %j, exit 7, not retried', (code, problem) => {
    const attempt = read({ code });
    expect(attempt).toStrictEqual({ ...ROUTE, kind: 'tls', reason: 'lower layer words', ...problem });
    expect(verdictOf(attempt)).toMatchObject({ exit: Exit.network, retryable: false });
  });

  it('the CA bundle given is carried for the words', () => {
    expect(read({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }, { caFile: '/etc/ca.pem' })).toMatchObject({
      problem: 'untrusted',
      caFile: '/etc/ca.pem',
    });
  });

  it('dates, when the error carries the certificate', () => {
    const cert = { valid_from: 'Nov 29 07:06:28 2026 GMT', valid_to: 'Nov 26 07:06:28 2026 GMT' };
    expect(read({ code: 'CERT_HAS_EXPIRED', cert })).toMatchObject({ problem: 'expired', notAfter: 'Nov 26 07:06:28 2026 GMT' });
    expect(read({ code: 'CERT_NOT_YET_VALID', cert })).toMatchObject({ problem: 'not-yet-valid', notBefore: 'Nov 29 07:06:28 2026 GMT' });
  });

  // Node writes the names "DNS:a.example, IP Address:10.0.0.1"; other kinds (email, URI) name no host.
  it.each<[string, object, string[], string]>([
    [
      'DNS names',
      altnameError('localhost', 'DNS:other.example, DNS:www.other.example'),
      ['other.example', 'www.other.example'],
      'localhost',
    ],
    ['an IP address', altnameError('127.0.0.1', 'IP Address:10.0.0.1'), ['10.0.0.1'], '127.0.0.1'],
    ['names of other kinds left out', altnameError('h', 'email:a@b.example, URI:https://x, DNS:x.example'), ['x.example'], 'h'],
    ['no altnames: the common name', altnameError('h', undefined, 'legacy.example'), ['legacy.example'], 'h'],
    ['no certificate, no host: the base URL host', { code: 'ERR_TLS_CERT_ALTNAME_INVALID' }, [], '127.0.0.1'],
  ])('a certificate for other names: %s', (_name, error, names, asked) => {
    expect(read(error)).toMatchObject({ kind: 'tls', problem: 'altname', names, asked });
  });

  it('read from the cause that carries the code, when undici wraps the TLS error', () => {
    const tlsError = Object.assign(new Error('x'), altnameError('localhost', 'DNS:other.example'));
    expect(read({ code: 'UND_ERR', cause: tlsError })).toMatchObject({ kind: 'tls', problem: 'altname', names: ['other.example'] });
  });

  it('the names are masked like any server words', () => {
    const secret = 'tok-secret-value-123';
    const attempt = failedRequest(Object.assign(new Error('x'), altnameError('h', `DNS:${secret}.example`)), {
      aborted: undefined,
      timeoutMs: 1,
      route: ROUTE,
      mask: (text) => text.replaceAll(secret, '***'),
    });
    expect(attempt).toMatchObject({ names: ['***.example'] });
  });
});

describe('a plain-http connection closed before any answer: the port may speak TLS', () => {
  const closed = { code: 'UND_ERR_SOCKET' };
  it('marked on a plain-http connection', () => {
    expect(read(closed, { plainHttp: true })).toStrictEqual({ ...ROUTE, kind: 'network', what: 'closed', plainHttp: true });
  });
  it.each<[string, { plainHttp?: boolean; route?: Route }]>([
    ['over TLS', { plainHttp: false }],
    ['through a proxy (its own close)', { plainHttp: true, route: { ...ROUTE, via: 'http://proxy:3128' } }],
    ['after an answer began', { plainHttp: true, route: { ...ROUTE, status: 200 } }],
  ])('not %s', (_name, extra) => {
    expect(read(closed, extra)).not.toHaveProperty('plainHttp');
  });
  it('not for a reset', () => {
    expect(read({ code: 'ECONNRESET' }, { plainHttp: true })).not.toHaveProperty('plainHttp');
  });
});

describe('wantsTls: a 400 whose body is a web server saying the port speaks TLS', () => {
  it.each<[string, number, string, boolean]>([
    ['nginx', 400, '<title>400 The plain HTTP request was sent to HTTPS port</title>', true],
    ["Go's net/http", 400, 'Client sent an HTTP request to an HTTPS server.\n', true],
    [
      'Apache',
      400,
      "<p>Your browser sent a request that this server could not understand.<br />Reason: You're speaking plain HTTP to an SSL-enabled server port.",
      true,
    ],
    ['an API 400', 400, '{"error":1,"message":"no such plant"}', false],
    ['the words under another status', 404, 'The plain HTTP request was sent to HTTPS port', false],
  ])('%s: %s', (_name, status, body, wants) => {
    expect(wantsTls(status, body)).toBe(wants);
  });
});
