// Resumable batches (`delete --journal FILE`): each decided id's result line, appended
// durably, so that a killed run's next run skips what it finished.
export { type JournalRefusal, JournalRefusedError, JournalWriteError } from './errors.js';
export type { JournalRun, RecordedKind } from './format.js';
export { type Journal, type JournalState, type OpenJournalOptions, openJournal, readJournalForPlan } from './open.js';
export type { JournalIo } from './writer.js';
