import type { IO } from '../../ui/io.js';
import { type DeleteResult, isFailure, type NotDeleted } from './result.js';

/** The line a terminal (or a log) shows for a result: on stdout for a success, on stderr for a failure. */
export function resultLine(io: IO, result: DeleteResult): string {
  return isFailure(result) ? failureLine(io, result) : successLine(io, successText(result));
}

function successText(result: Exclude<DeleteResult, NotDeleted>): string {
  if (result.journal) return `Plant ${result.id} already ${result.deleted ? 'deleted' : 'absent'} (journal)`;
  if (result.deleted && result.confirmed) {
    return `Deleted plant ${result.id} (answered ${result.status}, confirmed: the DELETE sent again answered "no such plant")`;
  }
  if (result.deleted) return `Deleted plant ${result.id}`;
  if (result.after === 'run') return `Plant ${result.id} absent (in flight when the earlier run stopped: it may have deleted it)`;
  if (result.after === 'attempt') return `Plant ${result.id} absent (an earlier attempt's answer was lost: it may have deleted it)`;
  return `Plant ${result.id} already absent`;
}

// The mark goes with what the reader sees: a terminal, or color forced onto a pipe (FORCE_COLOR in a
// CI log), colored as failures are. A plain pipe gets the bare sentence, which scripts match on.
function successLine(io: IO, text: string): string {
  const style = io.outStyle();
  return io.stdoutIsTTY || style.level > 0 ? `${style.green('✓')} ${text}` : text;
}

export function failureLine(io: IO, result: NotDeleted): string {
  const code = result.error === null ? '' : `error ${result.error}: `;
  const status = result.status === null ? '' : ` (HTTP ${result.status})`;
  return `${io.errStyle().red('✗')} plant ${result.id}: ${code}${result.message}${status}`;
}

/**
 * Ids are int64: written as bare JSON numbers with their exact digits, which
 * JSON.stringify cannot do for values past 2^53, so the line is assembled by hand.
 * The message, the one field that can carry a server's words, is masked before it
 * is serialized; the line itself never is (see IO.outJson).
 */
export function resultJson(result: DeleteResult, mask: (text: string) => string = (text) => text): string {
  if (result.journal) {
    return result.deleted
      ? `{"id":${result.id},"deleted":true,"status":null,"journal":true}`
      : `{"id":${result.id},"deleted":false,"absent":true,"status":null,"journal":true}`;
  }
  if (result.deleted) return `{"id":${result.id},"deleted":true,"status":${result.status}${result.confirmed ? ',"confirmed":true' : ''}}`;
  if (result.absent) {
    const after = result.after === undefined ? '' : result.after === 'run' ? ',"earlierRun":true' : ',"earlierAttempt":true';
    return `{"id":${result.id},"deleted":false,"absent":true,"status":${result.status}${after}}`;
  }
  if (!result.attempted) return `{"id":${result.id},${notSentFields(result.message, result.exit, mask)}}`;
  const fields = [
    `"id":${result.id}`,
    `"deleted":false`,
    `"status":${result.status ?? 'null'}`,
    `"error":${result.error ?? 'null'}`,
    `"message":${JSON.stringify(mask(result.message))}`,
    `"exit":${result.exit}`,
  ];
  if (result.uncertain) fields.push(`"uncertain":true`);
  return `{${fields.join(',')}}`;
}

/**
 * Every field of a not-sent id's line but its id. The ids left after a stop share one message:
 * their fields are masked and serialized once, not a million times (a stop must end within a second).
 * The message is this program's own words, and no secret is registered while the ids left are reported
 * (nothing is sent then, so no token is renewed).
 */
let lastNotSent: { message: string; exit: number; mask: (text: string) => string; fields: string } | undefined;
function notSentFields(message: string, exit: number, mask: (text: string) => string): string {
  if (lastNotSent?.message === message && lastNotSent.exit === exit && lastNotSent.mask === mask) return lastNotSent.fields;
  const fields = `"deleted":false,"status":null,"error":null,"message":${JSON.stringify(mask(message))},"exit":${exit},"attempted":false`;
  lastNotSent = { message, exit, mask, fields };
  return fields;
}
