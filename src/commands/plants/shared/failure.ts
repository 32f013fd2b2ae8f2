// An id that was not done, as every verb on a plant reports it: the answer's status, the API's
// Error code and message (the spec's Error object), the exit code; or never sent, and why.
// Printed the same way by every verb (failureLine), and written the same way in --json (failureJson).

import { whyNotSent } from '../../../engine/not-sent.js';
import { Exit, type ExitCode } from '../../../errors.js';
import { verdictOf } from '../../../http/classify.js';
import type { NotSentReason, Outcome } from '../../../http/outcome.js';
import type { Mask } from '../../../text/secret-mask.js';
import type { IO } from '../../../ui/io.js';

/** Sent, and not done: on the API's word, or with no decided answer (`uncertain`). */
export interface PlantFailure {
  id: string;
  /** HTTP status, or null when no answer arrived. */
  status: number | null;
  /** The API's Error.error code, or null when the body was not an Error object. */
  error: number | null;
  message: string;
  exit: ExitCode;
  attempted: true;
  /** The request may have reached the server with no decided answer (a timeout, a reset once written, a 5xx, a signal while waiting). */
  uncertain?: true;
}

/** Never sent: interrupted, stopped by a budget, or a service given up on. No answer, so no status. */
export interface PlantNotSent {
  id: string;
  status: null;
  error: null;
  message: string;
  exit: ExitCode;
  attempted: false;
}

export type PlantNotDone = PlantFailure | PlantNotSent;

export function plantNotSent(id: string, message: string, exit: ExitCode): PlantNotSent {
  return { id, status: null, error: null, message, exit, attempted: false };
}

/** An id the transport never sent, in words. */
export function notSentFor(id: string, reason: NotSentReason): PlantNotSent {
  const { message, exit } = whyNotSent(reason);
  return plantNotSent(id, message, exit);
}

/** What every failure says from its last answer: the status, the API's code, the exit code. `message` is the verb's. */
export function plantFailure(id: string, outcome: Extract<Outcome, { kind: 'failed' }>, message: string): PlantFailure {
  const { last } = outcome;
  return {
    id,
    status: last.status ?? null,
    error: last.kind === 'api-error' ? last.code : null,
    message,
    // Interrupted before its next attempt: that answer was not final, and the id says the signal's code (signalExit).
    exit: outcome.stopped?.kind === 'interrupted-awaiting-token' ? Exit.interrupted : verdictOf(last).exit,
    attempted: true,
  };
}

/** `✗ plant 42: error 13: protected (HTTP 400)`, on stderr. */
export function failureLine(io: IO, result: PlantNotDone): string {
  const code = result.error === null ? '' : `error ${result.error}: `;
  const status = result.status === null ? '' : ` (HTTP ${result.status})`;
  return `${io.errStyle().red('✗')} plant ${result.id}: ${code}${result.message}${status}`;
}

/**
 * A failure's fields in --json, after the id and the verb's own ("deleted":false): status, error,
 * message, exit, then "uncertain":true or "attempted":false. The message, the one field that can
 * carry a server's words, is masked before it is serialized; the line itself never is (IO.outJson).
 */
export function failureJson(result: PlantNotDone, mask: Mask): string {
  if (!result.attempted) return notSentFields(result.message, result.exit, mask);
  const fields = `"status":${result.status ?? 'null'},"error":${result.error ?? 'null'},"message":${JSON.stringify(mask(result.message))},"exit":${result.exit}`;
  return result.uncertain ? `${fields},"uncertain":true` : fields;
}

/**
 * The ids left after a stop share one message: their fields are masked and serialized once, not a
 * million times (a stop must end within a second). The message is this program's own words, and no
 * secret is registered while the ids left are reported (nothing is sent then, so no token is renewed).
 */
let lastNotSent: { message: string; exit: number; mask: Mask; fields: string } | undefined;
function notSentFields(message: string, exit: number, mask: Mask): string {
  if (lastNotSent?.message === message && lastNotSent.exit === exit && lastNotSent.mask === mask) return lastNotSent.fields;
  const fields = `"status":null,"error":null,"message":${JSON.stringify(mask(message))},"exit":${exit},"attempted":false`;
  lastNotSent = { message, exit, mask, fields };
  return fields;
}
