import type { IO } from '../../ui/io.js';
import type { DeleteResult, NotDeleted } from './result.js';

export interface OutputMode {
  json: boolean;
  quiet: boolean;
}

/** Prints results as they arrive: human lines, or one JSON object per id (NDJSON). */
export interface Reporter {
  result(result: DeleteResult): void;
  /** Ends the run's output: says how many notSent ids were not listed one by one. */
  finish(): void;
  /**
   * From here on results are counted, not written: after a signal, the reader has stopped
   * taking them, and a stop must neither wait for it nor queue a million lines for it.
   */
  mute(): void;
}

/** Ids never sent are listed on stderr up to this many; a stopped run of a million ids gets one more line, not a million. */
const MAX_NOT_SENT_LINES = 10;

export function createReporter(io: IO, mode: OutputMode): Reporter {
  let notSent = 0;
  let muted = false;
  return {
    mute() {
      muted = true;
    },
    finish() {
      if (notSent > MAX_NOT_SENT_LINES) io.err(`${io.errStyle().red('✗')} … and ${notSent - MAX_NOT_SENT_LINES} more plants not sent`);
    },
    result(result) {
      if (muted) {
        if (!result.deleted && !result.absent && !result.attempted) notSent++;
        return;
      }
      if (mode.json) io.outJson(resultJson(result, io.mask));
      if (result.deleted || result.absent) {
        if (!mode.json && !mode.quiet) io.out(successLine(io, successText(result)));
      } else {
        if (!result.attempted && ++notSent > MAX_NOT_SENT_LINES) return;
        // Failures always reach stderr, even with --quiet or --json: a human may be watching.
        io.err(failureLine(io, result));
      }
    },
  };
}

function successText(result: Exclude<DeleteResult, NotDeleted>): string {
  if (result.journal) return `Plant ${result.id} already ${result.deleted ? 'deleted' : 'absent'} (journal)`;
  if (result.deleted) {
    return result.earlierRun ? `Plant ${result.id} deleted by the earlier run (in flight when it stopped)` : `Deleted plant ${result.id}`;
  }
  return `Plant ${result.id} already absent${result.note ? ` (${result.note})` : ''}`;
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
  if (result.deleted) {
    return result.earlierRun
      ? `{"id":${result.id},"deleted":true,"status":${result.status},"earlierRun":true}`
      : `{"id":${result.id},"deleted":true,"status":${result.status}}`;
  }
  if (result.absent) return `{"id":${result.id},"deleted":false,"absent":true,"status":${result.status}}`;
  if (!result.attempted) return `{"id":${result.id},${notSentFields(result.message, result.exit, mask)}}`;
  const fields = [
    `"id":${result.id}`,
    `"deleted":false`,
    `"status":${result.status ?? 'null'}`,
    `"error":${result.error ?? 'null'}`,
    `"message":${JSON.stringify(mask(result.message))}`,
    `"exit":${result.exit}`,
  ];
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
