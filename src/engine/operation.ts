// What an operation gives the batch engine: only what is its own. The request it sends for an
// id, how an answer becomes a result, and its words. Everything a batch needs besides (ids
// read and checked, the journal, the throttle, progress, signals, the summary) is the engine's.

import type { ExitCode } from '../errors.js';
import type { FailedAttempt, HttpRequest } from '../http/outcome.js';
import type { Transport } from '../http/transport.js';
import type { Mask } from '../text/secret-mask.js';
import type { IO } from '../ui/io.js';

/**
 * What the engine makes of a result: what it counts and how it ends the run.
 * - `done`: what was asked was done, on the server's proof (deleted);
 * - `absent`: nothing to do, the server says so (no such plant), which counts as success;
 * - `failed`: sent, and not done, on the server's word or for a reason of ours;
 * - `in-flight`: sent with no decided answer (in flight at a signal, a timeout, a reset, a 5xx):
 *   it may or may not be done. The journal's word for it too (`journal status`: "in flight"):
 *   never counted as failed, so the summary and the journal give the same counts;
 * - `not-sent`: never sent (interrupted, stopped);
 * - `skipped`: done by an earlier run, as the --journal records.
 */
export type ResultKind = 'done' | 'absent' | 'failed' | 'in-flight' | 'not-sent' | 'skipped';

/** A kind the run fails with: sent and not done (or not known to be), or never sent. */
export function isFailure(kind: ResultKind): boolean {
  return kind === 'failed' || kind === 'in-flight' || kind === 'not-sent';
}

/** The states the --journal keeps an id in once an earlier run decided it for good: it is not sent again. */
export type EarlierState = Extract<ResultKind, 'done' | 'absent'>;

/**
 * What the --journal records of a result beside its kind (ResultKind, asked of kindOf): the
 * engine writes the journal's own line from these (batch/journal/records.ts), never from --json.
 */
export interface JournalDetails {
  /** The HTTP status of the answer that decided it; null when none came, or nothing was sent. */
  status: number | null;
  /** Of a failure (failed, in flight, not sent): the API's error code, null when its answer had none. */
  error?: number | null;
  /** Of a failure: why, in words (masked by the engine before it is written); its exit code is exitOf's. */
  message?: string;
}

/** An operation's words for one state of its results. */
export interface StateWords {
  /** After its count in the summary line: "deleted", "already absent", "not found". */
  word: string;
  /** Its key in the --json summary: "deleted", "absent". */
  key: string;
}

/**
 * The states an operation's results can be in, each with its own words: the engine counts,
 * prints and writes in the JSON summary these and no others. `done`, `failed`, `not-sent` and
 * `skipped` every batch can meet (a failure of the network, a signal, a --journal); `absent` and
 * `in-flight` only an operation that declares them (kindOf never returns a state not declared here).
 */
export interface ResultStates {
  done: StateWords;
  /** Nothing to do, on the server's word; with, when it can be, the words for those after a request of ours whose answer was lost. */
  absent?: StateWords & { afterUncertain?: (count: number) => string };
  failed: StateWords;
  /** Sent with no decided answer: said only when there are any, with `note` in brackets. */
  'in-flight'?: StateWords & { note: string };
  'not-sent': StateWords;
  /** Said only in a run with a --journal. */
  skipped: StateWords;
}

/** How the engine reads, builds and prints an operation's results. */
export interface Results<R> {
  /** Its states and their words (see ResultStates). */
  states: ResultStates;
  /** Asked where a result is emitted (and where a failure budget reads it): the engine hands the kind on to what counts and prints it. */
  kindOf(result: R): ResultKind;
  /** A failure's exit code (failed or not sent); undefined for a success. */
  exitOf(result: R): ExitCode | undefined;
  /**
   * The same failed result, marked in flight: its request of an earlier run (the --journal says) may
   * have done it, so a failure now does not decide it, as the journal reader counts it.
   */
  asInFlight(result: R): R;
  /** The same result with another exit code: the signal's, for an id a signal interrupted. */
  withExit(result: R, exit: ExitCode): R;
  /** Absent after an uncertain request of ours, which may have done it: counted apart in the summary. */
  afterUncertain(result: R): boolean;
  /** Whether the server refused the token (exit 4 from an answer): the run ends with the hint to log in again. */
  tokenRefused(result: R): boolean;
  /**
   * Whether this result ends the batch (the ids left not sent, with this message and exit code):
   * an answer that says the target itself is wrong, so every id would meet it.
   */
  stopsRun?(result: R): { message: string; exit: ExitCode } | undefined;
  /** An id this run does not send, with why. */
  notSent(id: string, message: string, exit: ExitCode): R;
  /**
   * Of an operation that is not `repeatable` (and declares `in-flight`): an id an earlier run of the
   * --journal left in flight (its request may have been carried out), which this run does not send
   * again: kind `in-flight`, with why and the exit code the engine gives (not-repeated.ts).
   */
  notRepeated?(id: string, message: string, exit: ExitCode): R;
  /** An id the journal records as decided by an earlier run (`done`, or `absent`): kind `skipped`, not sent again. */
  skipped(id: string, earlier: EarlierState): R;
  /** What the journal records of a result beside its kind: its status, and a failure's error code and message. */
  journalDetails(result: R): JournalDetails;
  /** The --json line for a result: output only, never read back; a server's words in it masked with `mask`. */
  json(result: R, mask: Mask): string;
  /** The human line: printed on stdout for a success, on stderr for a failure. */
  line(io: IO, result: R): string;
}

/** An operation's words, for the lines a batch ends with. */
export interface OperationWords {
  /** What the operation does to an id, as a verb: "delete". */
  verb: string;
  /** The command that runs it, as typed after `plantstore`: "delete". The hints for a run given no ids name it. */
  command: string;
  /** What the batch is doing, for the progress line: "deleting". */
  doing: string;
  /** How to finish a run without a journal, after an interrupt. */
  finishWithoutJournal(profile: string): string;
}

export interface Operation<R> {
  /**
   * Whether it destroys what it is sent for: only then does the guard run (--max-deletes, the
   * question at a terminal, --yes), and only then are its flags declared and read (batch-flags.ts).
   */
  destructive: boolean;
  /**
   * Whether a request of it whose answer may have been lost (a timeout, a reset once written, a
   * 5xx) may be sent again, by a retry or the resend after an idle connection's close: its own
   * word, not its method's (a PATCH that sets a name may; one that appends may not). The engine
   * puts it on every request `send` makes (HttpRequest.repeatable), unless the request says otherwise.
   * Nor, when it may not, does a later run of a --journal send again an id an earlier run left in
   * flight: it is reported in flight (Results.notRepeated), never sent twice.
   */
  repeatable: boolean;
  /**
   * What each id carries, for an operation whose request needs a value besides the id (a
   * rename: the new name): then the ids are given as pairs (`42 Fern`) or `id<TAB>value` lines
   * (ids/values.ts), and `request` and `send` get each id's. Undefined: ids alone.
   */
  value?: { name: string };
  /** The request for one id (and its value, when it carries one), for --dry-run: what would be sent. */
  request(id: string, value: string | undefined): Pick<HttpRequest, 'method' | 'path' | 'body'>;
  /**
   * Sends one id and words the outcome. `uncertainEarlier`: the --journal says an earlier run's
   * request for it may have been carried out with no decided answer (in flight at a stop, timed out...).
   * `value`: the id's, when the operation declares one (`value`).
   */
  send(transport: Transport, id: string, interrupt: AbortSignal, uncertainEarlier: boolean, value: string | undefined): Promise<R>;
  results: Results<R>;
  words: OperationWords;
  /** One attempt's failure in words, for the --verbose trace. */
  describeAttempt(attempt: FailedAttempt): string;
}
