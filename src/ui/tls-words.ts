// The words for a TLS failure: what went wrong, and the one next step that fits it. The
// lower layer's own text (OpenSSL's "…:wrong version number:../deps/openssl/…") is no
// sentence for a user: it is said only in the --verbose trace (tlsDetail).

import type { FailedAttempt } from '../http/outcome.js';

type TlsFailure = Extract<FailedAttempt, { kind: 'tls' }>;

/** One sentence for a failed handshake with `at` ("127.0.0.1:8443", or "… via proxy …"). */
export function describeTls(attempt: TlsFailure, at: string): string {
  switch (attempt.problem) {
    case 'not-tls':
      return `the server does not speak TLS at ${at}: use http:// or check the port`;
    case 'speaks-tls':
      return `the server speaks TLS at ${at}: use https://`;
    case 'altname':
      return attempt.names.length === 0
        ? `the certificate of ${at} does not name ${attempt.asked}: use a name it names in the base URL`
        : `the certificate of ${at} names ${list(attempt.names)}, not ${attempt.asked}: use a name it names in the base URL`;
    case 'untrusted':
      return attempt.caFile === undefined
        ? `the certificate of ${at} is not signed by a trusted CA: trust a private CA with --cacert FILE`
        : `the certificate of ${at} is not signed by a CA in ${attempt.caFile}: check that ${attempt.caFile} holds the CA that signed the server's certificate`;
    case 'expired':
      return `the certificate of ${at} has expired${attempt.notAfter === undefined ? '' : ` (on ${attempt.notAfter})`}: the server needs a new one, or this machine's clock is wrong`;
    case 'not-yet-valid':
      return `the certificate of ${at} is not valid yet${attempt.notBefore === undefined ? '' : ` (from ${attempt.notBefore})`}: check this machine's clock`;
    case 'other':
      return `TLS failure talking to ${at}: ${openSslWords(attempt.reason)}`;
  }
}

/**
 * The lower layer's text behind a TLS failure (or the server's words), for the --verbose trace; undefined when the
 * sentence already says it all (it quotes the text itself, or there is none).
 */
export function tlsDetail(attempt: FailedAttempt): string | undefined {
  if (attempt.kind !== 'tls' || attempt.problem === 'other' || attempt.reason === '') return undefined;
  return attempt.problem === 'speaks-tls' ? `it answered ${attempt.status}: ${attempt.reason}` : `Node.js said: ${attempt.reason}`;
}

/**
 * OpenSSL's error line reduced to its words: "40EDE8A25B7F0000:error:0A00010B:SSL
 * routines:tls_validate_record_header:wrong version number:../deps/openssl/…" says
 * "wrong version number". Node's advice about Node's own flags (--use-system-ca) is dropped: ours is --cacert.
 */
function openSslWords(reason: string): string {
  const words = /^[0-9A-F]+:error:[0-9A-F]+:[^:]*:[^:]*:([^:]+):/.exec(reason)?.[1] ?? reason;
  return words.replace(/;\s*if the root CA is installed locally.*$/i, '') || 'unknown error';
}

/** "a", "a and b", "a, b and c". */
function list(names: readonly string[]): string {
  return names.length === 1 ? `${names[0]}` : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
