// Why a TLS handshake failed, as data: read from Node's error code, and for a certificate
// made out to other names, from the certificate Node attaches (ERR_TLS_CERT_ALTNAME_INVALID
// carries `cert.subjectaltname`). The words, and what to do, are ui/tls-words.ts's.

import type { Mask } from '../text/secret-mask.js';
import { serverLine } from './error-body.js';
import type { TlsProblem } from './outcome.js';

// OpenSSL's verification codes for a chain that ends in no CA the run trusts.
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

interface NodeTlsError {
  code?: unknown;
  host?: unknown;
  cert?: { subjectaltname?: unknown; subject?: { CN?: unknown }; valid_to?: unknown; valid_from?: unknown };
}

/** What the TLS error `error` (code `code`) says went wrong; `host` is the base URL's host, for when Node names none. */
export function tlsProblemOf(error: unknown, code: string, host: string, mask: Mask | undefined): TlsProblem {
  const info = (typeof error === 'object' && error !== null ? error : {}) as NodeTlsError;
  // A plain-http server answering the ClientHello: its "HTTP/1.1 400" is no TLS record header.
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER') return { problem: 'not-tls' };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') {
    const asked = typeof info.host === 'string' && info.host !== '' ? info.host : hostname(host);
    return { problem: 'altname', names: certificateNames(info.cert).map((name) => serverLine(name, mask)), asked: serverLine(asked, mask) };
  }
  if (UNTRUSTED.has(code)) return { problem: 'untrusted' };
  if (code === 'CERT_HAS_EXPIRED') return withDate({ problem: 'expired' }, 'notAfter', info.cert?.valid_to, mask);
  if (code === 'CERT_NOT_YET_VALID') return withDate({ problem: 'not-yet-valid' }, 'notBefore', info.cert?.valid_from, mask);
  return { problem: 'other' };
}

/**
 * The names a certificate is made out to: its subject alternative names, DNS and IP
 * (Node writes them "DNS:a.example, IP Address:10.0.0.1"), or its common name when it has none.
 */
function certificateNames(cert: NodeTlsError['cert']): string[] {
  const altnames = typeof cert?.subjectaltname === 'string' ? cert.subjectaltname : '';
  const names = altnames
    .split(',')
    .map((entry) => /^\s*(?:DNS|IP Address):(.+)$/.exec(entry)?.[1]?.trim())
    .filter((name): name is string => name !== undefined && name !== '');
  if (names.length > 0) return names;
  const common = cert?.subject?.CN;
  return typeof common === 'string' && common !== '' ? [common] : [];
}

/** `host:port` (or `[::1]:port`) without its port. */
function hostname(host: string): string {
  return host.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
}

function withDate<P extends { problem: 'expired' } | { problem: 'not-yet-valid' }>(
  problem: P,
  field: 'notAfter' | 'notBefore',
  date: unknown,
  mask: Mask | undefined,
): TlsProblem {
  return typeof date === 'string' && date !== '' ? ({ ...problem, [field]: serverLine(date, mask) } as TlsProblem) : problem;
}

/**
 * What web servers answer a plain-http request sent to a port that speaks TLS, in their
 * own words: nginx (its page's title), Go's net/http, Apache.
 */
const PLAIN_TO_TLS = [
  /The plain HTTP request was sent to HTTPS port/i,
  /Client sent an HTTP request to an HTTPS server/i,
  /speaking plain HTTP to an SSL-enabled server port/i,
];

/** Whether a 400's body is a server saying the request should have come over TLS. */
export function wantsTls(status: number, body: string): boolean {
  return status === 400 && PLAIN_TO_TLS.some((words) => words.test(body));
}
