// The --verbose trace: the transport's events (http/outcome.ts TransportEvent) as lines on
// stderr. Requests run side by side, so every line says which one it is about. The command
// supplies the words for a failed attempt, since some of them are its own.

import { statusText } from '../http/error-body.js';
import type { FailedAttempt, TransportEvent } from '../http/outcome.js';
import { formatMilliseconds, formatSeconds } from './duration.js';
import { tlsDetail } from './tls-words.js';

export function traceLines(event: TransportEvent, describe: (failure: FailedAttempt) => string): string[] {
  const tag = `[${event.label}]`;
  switch (event.kind) {
    case 'attempt':
      return [
        `${tag} * attempt ${event.number} of ${event.total}: ${event.method} ${event.url} ${event.via === undefined ? '(direct)' : `via proxy ${event.via}`}`,
        ...event.headers.map(([name, value]) => `${tag} > ${name}: ${value}`),
      ];
    case 'answer':
      return [
        `${tag} < HTTP ${event.status} ${statusText(event.status)} (${formatMilliseconds(event.elapsedMs)})`,
        ...event.headers.map(([name, value]) => `${tag} < ${name}: ${value}`),
      ];
    case 'not-sent':
      return [`${tag} * interrupted after ${formatMilliseconds(event.elapsedMs)}, before the request was sent`];
    case 'failed':
      return [`${tag} * failed after ${formatMilliseconds(event.elapsedMs)}: ${describe(event.failure)}${lowerLayer(event.failure)}`];
    case 'retrying':
      return [
        `${tag} * retrying in ${formatSeconds(event.delayMs)}${event.retryAfter ? ' (Retry-After)' : ''}: ${describe(event.failure)}`,
      ];
  }
}

/** The lower layer's own text, which the sentence put in words (OpenSSL's, for a TLS failure). */
function lowerLayer(failure: FailedAttempt): string {
  const detail = tlsDetail(failure);
  return detail === undefined ? '' : ` (${detail})`;
}
