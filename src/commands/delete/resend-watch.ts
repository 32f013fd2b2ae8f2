// A proxy that sends a DELETE again on its own. nginx's default proxy_next_upstream passes a
// request that timed out at one upstream to the next, DELETE included (it is idempotent): the
// first upstream deleted the plant, slowly, and the second answers "no such plant", which is all
// the client sees, at its first attempt and after a long wait. The run cannot tell that from a
// plant that never existed; what it can do is say, once, when many such answers come slowly or
// in a run that has met timeouts, what likely happened and how to finish.

import { type MissingRule, type PlantOutcome, saysNoSuchPlant } from './request.js';
import type { DeleteResult } from './result.js';

/** First-attempt "no such plant" answers, slow or after timeouts, before the run says it. */
export const RESENT_AFTER = 3;
/** A "no such plant" this slow has waited for something: an upstream's timeout, most likely. A plain one comes in milliseconds. */
export const SLOW_MISSING_MS = 1000;

export class ResendWatch {
  #timeouts = 0;
  #suspects = 0;
  #said = false;

  constructor(private readonly missing: MissingRule) {}

  /** What became of one id, and how long it took: the line to add to its message, once in a run. */
  note(outcome: PlantOutcome, result: DeleteResult, elapsedMs: number): string | undefined {
    if (outcome.kind !== 'failed') return undefined;
    const { last } = outcome;
    if (last.kind === 'timeout' || (last.kind === 'api-error' && last.status === 504)) this.#timeouts += 1;
    // Done (--ignore-missing), or after a lost answer of ours (absent): nothing to explain.
    if (result.deleted || result.absent === true || outcome.attempts > 1 || outcome.earlierAnswerLost) return undefined;
    if (!isDeclaredMissing(last, this.missing)) return undefined;
    if (elapsedMs < SLOW_MISSING_MS && this.#timeouts === 0) return undefined;
    this.#suspects += 1;
    if (this.#said || this.#suspects < RESENT_AFTER) return undefined;
    this.#said = true;
    return resentLine(this.#suspects);
  }
}

/** "No such plant" as the run counts it done under --ignore-missing: a 404 Error object, or a declared code. */
function isDeclaredMissing(last: Extract<PlantOutcome, { kind: 'failed' }>['last'], missing: MissingRule): boolean {
  return saysNoSuchPlant(last, { ...missing, codes: missing.codes.length === 0 ? [Number.NaN] : missing.codes });
}

function resentLine(count: number): string {
  return (
    `${count} plants so far answered "no such plant" at their first attempt, slowly or after timeouts: a proxy before ` +
    `the service (nginx's proxy_next_upstream, on by default) may have sent a DELETE that timed out at one upstream ` +
    `again to another, which found the plant already deleted; if so, run the same command again with --ignore-missing to finish`
  );
}
