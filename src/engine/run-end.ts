// How a batch stops, and how it ended in the journal's word (batch/journal/run-record.ts). The
// first stop wins, and it is recorded with its kind where it happens, never inferred at the end:
// a --fail-fast stop also stops the throttle, which must not then read as the service given up.

import type { RunEnding } from '../batch/journal/run-record.js';
import type { ExitCode } from '../errors.js';

/** What stopped the batch from starting ids, in the journal's words for a run's end. */
export type StopKind = 'max-duration' | 'max-failures' | 'fail-fast' | 'gave-up' | 'not-the-api' | 'error';

/** Why the ids left are not sent: their line, and the exit code they stand for. */
export interface StopReason {
  message: string;
  exit: ExitCode;
}

/** The run's first stop. */
export class RunStop {
  #reason: StopReason | undefined;
  #kind: StopKind | undefined;

  /** Records `reason` unless the run has stopped already: the first stop is the one the ids left are not sent for. */
  set(reason: StopReason | undefined, kind: StopKind): void {
    if (this.#reason !== undefined || reason === undefined) return;
    this.#reason = reason;
    this.#kind = kind;
  }

  get reason(): StopReason | undefined {
    return this.#reason;
  }

  get kind(): StopKind | undefined {
    return this.#kind;
  }

  /** How the run ended: a signal outranks every stop, and names itself (`SIGINT`). */
  ending(signal: AbortSignal): RunEnding {
    if (signal.aborted) {
      const reason: unknown = signal.reason;
      return typeof reason === 'string' && /^SIG[A-Z0-9]+$/.test(reason) ? reason : 'interrupted';
    }
    return this.#kind ?? 'finished';
  }
}
