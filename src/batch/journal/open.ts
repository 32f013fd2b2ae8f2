import fs from 'node:fs';
import path from 'node:path';
import { syncFolder } from '../../config/own-file.js';
import { type CredentialPrint, printCredentials } from './credentials.js';
import { JournalRefusedError, type JournalWriteError, journalFileProblem, shownPath, writeFailed } from './errors.js';
import { checkJournalFolder, checkLockMode } from './file-trust.js';
import { headerLine, type JournalRun, Recorded, type RecordedCode, type RecordedKind, vocabularyOf } from './format.js';
import { checkCredentials, checkRun, type JournalIdentity } from './identity.js';
import { openJournalFile } from './journal-file.js';
import { type JournalLock, lockJournal } from './journal-lock.js';
import { type JournalContents, readJournal } from './read.js';
import { RecordedIds } from './recorded-ids.js';
import { type JournalRecord, recordLine } from './records.js';
import type { LastRun } from './run-record.js';
import { halvesOf, newSalt, printText, printValue, type ValuePrint } from './value-print.js';
import { JournalWriter, type WriterOptions } from './writer.js';

const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** What a journal said when it was opened: which ids an earlier run finished. */
export interface JournalState {
  readonly file: string;
  /** True when the file held an earlier run's journal; false for a new (or empty) one. */
  readonly resumed: boolean;
  /** One line for stderr when the last line was torn and left out; undefined otherwise. */
  readonly note: string | undefined;
  /** What the journal last said of `id` (a canonical id string), or undefined when it does not mention it. */
  recorded(id: string): RecordedKind | undefined;
  /**
   * Whether `id` is finished and not to be sent again: recorded done, or absent (the API said
   * there is nothing to do, which counts as success; a later run asks no more). `value`: the id's,
   * when the journal's ids carry values: done only with that value.
   */
  isDone(id: string, value?: string): boolean;
  /**
   * Whether an earlier run's request for `id` (with `value`, when ids carry values) may have been
   * carried out with its answer never recorded: it was in flight when that run stopped (a sent line
   * and no result after it), or it failed with no decided answer.
   */
  wasInFlight(id: string, value?: string): boolean;
  /** The exit code `id`'s last line carries (a failure's, in flight or not), undefined when it carries none (a sent line). */
  earlierExit(id: string): number | undefined;
  /** Ids by what their last line says. */
  counts(): Record<RecordedKind, number>;
  /** How its last run ended (run-record.ts), as read when it was opened. */
  readonly lastRun: LastRun;
}

export interface Journal extends JournalState {
  /** Set once writing failed (JournalWriteError, exit 70); every later record, flush and close throws it. */
  readonly failure: JournalWriteError | undefined;
  /** Writes `id`'s sent line (with its `value`'s print, when ids carry values) to the file before it returns; its request may leave once it has. */
  recordSent(id: string, value?: string): void;
  /** Appends `id`'s result line, in the journal's own vocabulary (records.ts), with its `value`'s print when ids carry values. */
  record(id: string, record: JournalRecord, value?: string): void;
  /** Queues a run's start or end line (run-record.ts). */
  recordRun(line: string): void;
  flush(): void;
  close(): void;
}

export interface OpenJournalOptions extends JournalIdentity, WriterOptions {
  /** The run's start, for a new journal's header (default: now). */
  started?: Date;
  /** Stops reading a large journal (Ctrl-C): an InterruptedError. */
  signal?: AbortSignal;
}

const KIND_NAMES: Record<RecordedCode, RecordedKind> = { 1: 'done', 2: 'absent', 3: 'failed', 4: 'notSent', 5: 'sent' };

/**
 * Opens `file` for a run: locks it, then resumes the journal there (its torn last line,
 * if any, cut off so the next line starts clean) or starts a new one. Every refusal is a
 * JournalRefusedError (exit 2) thrown before the file is changed in any way.
 */
export async function openJournal(file: string, options: OpenJournalOptions): Promise<Journal> {
  checkJournalFolder(file);
  checkLockMode(file, `${file}.lock`);
  const lock = lockJournal(file);
  let fd: number | undefined;
  // A new header's values get a salt of their own (value-print.ts).
  const run = options.values === undefined ? options : { ...options, values: { name: options.values.name, salt: newSalt() } };
  try {
    fd = openJournalFile(file, 'run');
    const print = async (): Promise<CredentialPrint | undefined> =>
      options.credentials === undefined ? undefined : await printCredentials(options.credentials);
    if (fd === undefined) {
      const created = createJournal(file, run, options.started ?? new Date(), await print());
      fd = created.fd;
      return journal(file, emptyContents(), fd, created.size, lock, options, undefined, run.values?.salt);
    }
    const contents = await readJournal(fd, file, options.signal);
    checkRun(file, contents, options);
    const note = await checkCredentials(file, contents, options);
    let size = contents.goodBytes;
    if (contents.header === undefined) size = writeHeader(fd, file, run, options.started ?? new Date(), await print());
    else if (contents.tornBytes > 0) cutTornLine(fd, file, contents.goodBytes);
    return journal(file, contents, fd, size, lock, options, note, contents.header?.values?.salt ?? run.values?.salt);
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    lock.release();
    throw error;
  }
}

/** Reads `file` for `--dry-run`: no lock, nothing written, a missing file is an empty journal. Refuses as openJournal does. */
export async function readJournalForPlan(file: string, run: JournalIdentity, signal?: AbortSignal): Promise<JournalState> {
  checkJournalFolder(file);
  checkLockMode(file, `${file}.lock`);
  const fd = openJournalFile(file, 'dry-run');
  if (fd === undefined) return state(file, emptyContents(), undefined);
  try {
    const contents = await readJournal(fd, file, signal);
    checkRun(file, contents, run);
    return state(file, contents, await checkCredentials(file, contents, run));
  } finally {
    fs.closeSync(fd);
  }
}

/** A new journal: created only if nothing stands at the path, mode 0600, its header durable before any result. */
function createJournal(file: string, run: JournalRun, started: Date, print: CredentialPrint | undefined): { fd: number; size: number } {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_EXCL | NO_FOLLOW, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const { why, advice } = journalFileProblem(code, true);
    throw new JournalRefusedError(
      'unopenable',
      `cannot create journal ${shownPath(file)}: ${why}; ${advice}, or give --journal another path`,
      code,
    );
  }
  let size: number;
  try {
    size = writeHeader(fd, file, run, started, print);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw error;
  }
  syncFolder(path.dirname(file));
  return { fd, size };
}

/** Writes the header of a new (or empty) journal and fsyncs it; returns the file's size. */
function writeHeader(fd: number, file: string, run: JournalRun, started: Date, print: CredentialPrint | undefined): number {
  const data = Buffer.from(`${headerLine(run, started, print)}\n`, 'utf8');
  try {
    let written = 0;
    while (written < data.length) written += fs.writeSync(fd, data, written, data.length - written);
    fs.fsyncSync(fd);
  } catch (error) {
    fs.ftruncateSync(fd, 0);
    throw writeFailed(file, error, 'nothing was sent');
  }
  return data.length;
}

/**
 * Cuts the torn last line off rather than ending it with a newline: a newline would
 * make it a bad line in the middle, and every later read would refuse the journal.
 */
function cutTornLine(fd: number, file: string, goodBytes: number): void {
  try {
    fs.ftruncateSync(fd, goodBytes);
    fs.fsyncSync(fd);
  } catch (error) {
    throw writeFailed(file, error, 'nothing was sent');
  }
}

function emptyContents(): JournalContents {
  return { header: undefined, recorded: new RecordedIds(), goodBytes: 0, tornBytes: 0, lastRun: { kind: 'unrecorded' } };
}

function state(file: string, contents: JournalContents, credentialNote: string | undefined): JournalState {
  const { recorded } = contents;
  // A new journal records nothing earlier: its runs ask for every id, and need no BigInt to be told so.
  const kindOf = (id: string): RecordedCode | 0 => (recorded.size === 0 ? 0 : recorded.get(BigInt(id)));
  const salt = contents.header?.values === undefined ? undefined : halvesOf(contents.header.values.salt);
  const printOf = (value: string | undefined): ValuePrint | undefined =>
    salt && value !== undefined ? printValue(value, salt) : undefined;
  const sameValue = (id: string, value: string | undefined): boolean =>
    salt === undefined || recorded.sameValue(BigInt(id), printOf(value));
  return {
    file,
    resumed: contents.header !== undefined,
    note: joinNotes(
      credentialNote,
      contents.tornBytes > 0
        ? `journal ${shownPath(file)}: its end was torn (${contents.tornBytes} bytes: a run stopped while writing, or a power cut) and is left out; the plants it named are sent again`
        : undefined,
    ),
    recorded(id) {
      const kind = kindOf(id);
      return kind === 0 ? undefined : KIND_NAMES[kind];
    },
    isDone(id, value) {
      const kind = kindOf(id);
      return (kind === Recorded.done || kind === Recorded.absent) && sameValue(id, value);
    },
    wasInFlight: (id, value) => recorded.size !== 0 && recorded.wasInFlight(BigInt(id)) && sameValue(id, value),
    earlierExit: (id) => (recorded.size === 0 ? undefined : recorded.exitOf(BigInt(id))),
    counts: () => recorded.counts(),
    lastRun: contents.lastRun,
  };
}

function journal(
  file: string,
  contents: JournalContents,
  fd: number,
  size: number,
  lock: JournalLock,
  options: WriterOptions,
  credentialNote: string | undefined,
  /** Its values' salt, when its ids carry values: each id line carries its value's print. */
  salt: string | undefined,
): Journal {
  const writer = new JournalWriter(fd, file, size, lock, options);
  // A new journal is of this format; an older one resumed goes on in its own, which its plantstore reads.
  const vocabulary = contents.header === undefined ? '3' : vocabularyOf(contents.header.version);
  const halves = salt === undefined ? undefined : halvesOf(salt);
  const print = (value: string | undefined): string | undefined =>
    halves === undefined || value === undefined ? undefined : printText(printValue(value, halves));
  return {
    ...state(file, contents, credentialNote),
    get failure() {
      return writer.failure;
    },
    recordSent: (id, value) => writer.recordSent(id, print(value)),
    record: (id, record, value) => writer.record(id, recordLine(id, record, vocabulary, print(value))),
    recordRun: (line) => writer.recordRun(line),
    flush: () => writer.flush(),
    close: () => writer.close(),
  };
}

/** The notes of a resume, one per line. */
function joinNotes(...notes: (string | undefined)[]): string | undefined {
  const said = notes.filter((note) => note !== undefined);
  return said.length === 0 ? undefined : said.join('\n');
}
