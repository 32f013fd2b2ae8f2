import type { ExitCode } from '../errors.js';
import type { ResultKind, ResultStates, Results } from './operation.js';

/** Counts for the summary line, kept instead of the results so a million ids cost nothing here. */
export class Tally<R> {
  done = 0;
  absent = 0;
  failed = 0;
  /** Sent with no decided answer: may or may not be done (the journal's "in flight"); a failure for the exit code, not counted failed. */
  inFlight = 0;
  notSent = 0;
  /** Ids of the input this run's --shard left to other shards: never this run's, counted so the summary says so. */
  otherShards = 0;
  /** Done by an earlier run, as the --journal said: counted apart, as success. */
  skipped = 0;
  /** Of `absent`: absent after an earlier request of ours whose answer never came (it may have done it). */
  absentAfterUncertain = 0;
  /** The exit code of the first failure in input order. */
  firstFailure: ExitCode | undefined;

  constructor(private readonly results: Results<R>) {}

  /** The states the operation declares, and its words for them: what the summary says of these counts. */
  get states(): ResultStates {
    return this.results.states;
  }

  /** `kind`: the result's, when the caller has it already. */
  add(result: R, kind: ResultKind = this.results.kindOf(result)): void {
    switch (kind) {
      case 'skipped':
        this.skipped++;
        return;
      case 'done':
        this.done++;
        return;
      case 'absent':
        this.absent++;
        if (this.results.afterUncertain(result)) this.absentAfterUncertain++;
        return;
      case 'failed':
        this.failed++;
        break;
      case 'in-flight':
        this.inFlight++;
        break;
      case 'not-sent':
        this.notSent++;
        break;
    }
    this.firstFailure ??= this.results.exitOf(result);
  }

  get total(): number {
    return this.done + this.skipped + this.absent + this.failed + this.inFlight + this.notSent;
  }
}
