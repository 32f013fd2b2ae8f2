// Prints a batch's results as they are decided, in input order: the operation's human lines,
// or one JSON object per id (NDJSON). Ids never sent are folded after the first few.

import { Exit } from '../errors.js';
import type { IO } from '../ui/io.js';
import { isFailure, type ResultKind, type Results } from './operation.js';

export interface OutputMode {
  json: boolean;
  quiet: boolean;
}

export interface Reporter<R> {
  /** `kind`: the result's, when the caller has it already. */
  result(result: R, kind?: ResultKind): void;
  /** Ends the run's output: says how many ids never sent were not listed one by one. */
  finish(): void;
  /**
   * From here on results are counted, not written: after a signal, the reader has stopped
   * taking them, and a stop must neither wait for it nor queue a million lines for it.
   */
  mute(): void;
}

/** Ids never sent are listed on stderr up to this many; a stopped run of a million ids gets one more line, not a million. */
const MAX_NOT_SENT_LINES = 10;
/** The same for ids a signal caught in flight: 64 of them would push the summary and the advice off the screen. */
const MAX_IN_FLIGHT_LINES = 10;
const SIGNAL_EXITS: ReadonlySet<number> = new Set([Exit.hangup, Exit.interrupted, Exit.terminated]);

export function createReporter<R>(io: IO, mode: OutputMode, results: Results<R>): Reporter<R> {
  let notSent = 0;
  let inFlight = 0;
  let muted = false;
  return {
    mute() {
      muted = true;
    },
    finish() {
      const mark = io.errStyle().red('✗');
      if (inFlight > MAX_IN_FLIGHT_LINES) io.err(`${mark} … and ${inFlight - MAX_IN_FLIGHT_LINES} more in flight when interrupted`);
      if (notSent > MAX_NOT_SENT_LINES)
        io.err(`${mark} … and ${notSent - MAX_NOT_SENT_LINES} more plants ${results.states['not-sent'].word}`);
    },
    result(result, kind = results.kindOf(result)) {
      if (muted) {
        if (kind === 'not-sent') notSent++;
        return;
      }
      if (mode.json) io.outJson(results.json(result, io.mask));
      if (!isFailure(kind)) {
        if (!mode.json && !mode.quiet) io.out(results.line(io, result));
      } else {
        if (kind === 'not-sent' && ++notSent > MAX_NOT_SENT_LINES) return;
        // A signal's code on a request that went out: it was in flight when the run was interrupted.
        if (kind !== 'not-sent' && SIGNAL_EXITS.has(results.exitOf(result) ?? 0) && ++inFlight > MAX_IN_FLIGHT_LINES) return;
        // Failures always reach stderr, even with --quiet or --json: a human may be watching.
        io.err(results.line(io, result));
      }
    },
  };
}
