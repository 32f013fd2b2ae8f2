// The words `journal status`, `journal failed` and `journal status --watch` say a journal's counts
// in. A journal records the engine's states (batch/journal/summary.ts IdState); which words they
// are said in is its operation's, found by the name its header gives (delete's for a header that
// names none, formats 1 and 2 being delete's alone). The journal commands have no operation object
// to ask, so each operation registers its words here under its name.

import { UNNAMED_OPERATION } from '../batch/journal/format.js';
import type { IdState } from '../batch/journal/summary.js';
import type { ResultStates, StateWords } from './operation.js';

/** A word for each state a journal records: as a row's label and in lines (`word`), and as a --json key (`key`). */
export interface JournalWords {
  done: StateWords;
  absent: StateWords;
  failed: StateWords;
  /** With what it means, said beside a count that is not 0. */
  inFlight: StateWords & { note: string };
  notSent: StateWords;
}

/** The engine's own names for its states: the words of a journal whose operation this plantstore does not know. */
const ENGINE_WORDS: JournalWords = {
  done: { word: 'done', key: 'done' },
  absent: { word: 'absent', key: 'absent' },
  failed: { word: 'failed', key: 'failed' },
  inFlight: { word: 'in flight', key: 'inFlight', note: 'sent with no decided answer: it may have been carried out' },
  notSent: { word: 'not sent', key: 'notSent' },
};

/**
 * An operation's journal words, from the states it declares (operation.ts ResultStates), with `own`
 * where a journal's differ from its summary's (a row is labelled `absent`, where a summary says
 * `already absent`). A state it does not declare (no `absent` in a read) gets the engine's words.
 */
export function journalWordsFrom(states: ResultStates, own: Partial<JournalWords> = {}): JournalWords {
  const inFlight = states['in-flight'];
  return {
    done: own.done ?? states.done,
    absent: own.absent ?? (states.absent === undefined ? ENGINE_WORDS.absent : { word: states.absent.word, key: states.absent.key }),
    failed: own.failed ?? states.failed,
    inFlight:
      own.inFlight ??
      (inFlight === undefined ? ENGINE_WORDS.inFlight : { word: inFlight.word, key: inFlight.key, note: ENGINE_WORDS.inFlight.note }),
    notSent: own.notSent ?? states['not-sent'],
  };
}

const REGISTERED = new Map<string, JournalWords>();

/** Registers the words of the journals `operation` writes (its header's name: the command, `delete`). */
export function registerJournalWords(operation: string, words: JournalWords): void {
  REGISTERED.set(operation, words);
}

/**
 * The words of a journal written by `operation` (undefined: no header read yet, as a header of
 * format 1 or 2): its own when registered, else the engine's names for the states, never another's.
 */
export function journalWordsOf(operation: string | undefined): JournalWords {
  return REGISTERED.get(operation ?? UNNAMED_OPERATION) ?? ENGINE_WORDS;
}

/**
 * The counts under the words' --json keys, in the journal's order (done, absent, failed, in flight,
 * not sent); `notSent` is the job's (job-state.ts), null when unknown, not the lines' count.
 */
export function keyedCounts(words: JournalWords, counts: Record<IdState, number>, notSent: number | null): Record<string, number | null> {
  return {
    [words.done.key]: counts.done,
    [words.absent.key]: counts.absent,
    [words.failed.key]: counts.failed,
    [words.inFlight.key]: counts.inFlight,
    [words.notSent.key]: notSent,
  };
}
