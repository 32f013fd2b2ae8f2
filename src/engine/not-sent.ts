// Results a batch makes itself, for ids it stops or a signal interrupts: their words and exit codes.

import { Exit, type ExitCode, exitForSignal } from '../errors.js';
import { exitOfNotSent } from '../http/classify.js';
import type { NotSentReason } from '../http/outcome.js';
import { describeNotSent } from '../ui/transport-words.js';
import type { Results } from './operation.js';

/** An id that was never sent: its message and exit code, also for ids the batch itself stopped before sending. */
export function whyNotSent(reason: NotSentReason): { message: string; exit: ExitCode } {
  return { message: describeNotSent(reason), exit: exitOfNotSent(reason) };
}

/**
 * An id interrupted by a signal says the code the process ends with (130, 143 or 129), not
 * Ctrl-C's for all three: a script reading --json sees one code for one event.
 */
export function signalExit<R>(results: Results<R>, result: R, interrupt: AbortSignal): R {
  if (!interrupt.aborted || results.exitOf(result) !== Exit.interrupted) return result;
  return results.withExit(result, exitForSignal(interrupt.reason));
}

/**
 * An id an earlier run left in flight (the --journal says) stays in flight through a failure now:
 * that earlier request may have done it, which only "done" or "no such plant" settles. The journal
 * reader counts it so (journal status: "in flight"), and the summary must give the same count.
 */
export function inFlightStill<R>(results: Results<R>, result: R, uncertainEarlier: boolean): R {
  return uncertainEarlier && results.kindOf(result) === 'failed' ? results.asInFlight(result) : result;
}
