import type { ExitCode } from '../../errors.js';
import type { PlantFailure, PlantNotSent } from '../plants/shared/failure.js';

/** What happened to one id, as printed (report.ts); worded from the transport's outcome by outcomes.ts. */
export type DeleteResult = Deleted | DoneEarlier | Absent | NotDeleted;

/** The server's proof, in this run: a 204 to this run's own request, or another 2xx confirmed. */
export interface Deleted {
  id: string;
  deleted: true;
  /** The answer that proved it: a 204, or the 2xx the DELETE sent again confirmed (`confirmed`). */
  status: number;
  /** A 2xx other than 204, confirmed: the same DELETE sent again answered "no such plant". */
  confirmed?: true;
  journal?: undefined;
}

/**
 * Recorded as done by an earlier run in the --journal: not sent again, and no answer this run
 * (status null). Deleted, or absent as it was recorded: a journal never turns one into the other.
 */
export type DoneEarlier =
  | { id: string; deleted: true; status: null; journal: true }
  | { id: string; deleted: false; absent: true; status: null; journal: true; after?: undefined };

/**
 * Which earlier request of ours may have deleted a plant now absent: one of the earlier run's
 * (in flight, interrupted or unanswered when it stopped, as its --journal says), or an earlier
 * attempt of this run whose answer was lost (a timeout, a reset, a 5xx). Nobody can tell
 * whether it did, or whether the plant never existed: the report says neither.
 */
export type UncertainEarlier = 'run' | 'attempt';

/**
 * The API said there is no such plant: it is not there, which is what was wanted. Done under
 * --ignore-missing, or always when an earlier request of ours may have deleted it (`after`).
 */
export interface Absent {
  id: string;
  deleted: false;
  absent: true;
  status: number;
  journal?: undefined;
  after?: UncertainEarlier;
}

/** A failure: the request went out and did not delete the plant, or it never went out. */
export type NotDeleted = Failed | NotSent;

/**
 * Sent, and not deleted (the shape every verb on a plant fails with: plants/shared/failure.ts).
 * `uncertain`: the plant may or may not be deleted; the next attempt, in a re-run of its --journal
 * too, settles it: "no such plant" is then done.
 */
export interface Failed extends PlantFailure {
  deleted: false;
  absent?: undefined;
  journal?: undefined;
  /**
   * The base URL has never answered as the API in this run, and answered this with a page or the
   * same 2xx twice: the run stops, the ids left not sent with this message (never written out).
   */
  stopsRun?: string;
}

/** Never sent: interrupted, or stopped by --fail-fast or a throttle that gave up. No answer, so no status. */
export interface NotSent extends PlantNotSent {
  deleted: false;
  absent?: undefined;
  journal?: undefined;
}

/** An id the journal records as decided by an earlier run: `done` is deleted, `absent` absent. */
export function skippedEarlier(id: string, earlier: 'done' | 'absent'): DoneEarlier {
  return earlier === 'done'
    ? { id, deleted: true, status: null, journal: true }
    : { id, deleted: false, absent: true, status: null, journal: true };
}

export function isFailure(result: DeleteResult): result is NotDeleted {
  return !result.deleted && result.absent !== true;
}

export function notSent(id: string, message: string, exit: ExitCode): NotSent {
  // Its fields in the order of its --json line (report.ts), as a script reading either expects.
  return { id, deleted: false, status: null, error: null, message, exit, attempted: false };
}
