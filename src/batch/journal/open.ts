import fs from 'node:fs';
import path from 'node:path';
import { normalizeBaseUrl } from '../../config/base-url.js';
import { fileProblem, syncFolder } from '../../config/own-file.js';
import { JournalRefusedError, type JournalWriteError, journalFileProblem, shownPath, shownUrl, writeFailed } from './errors.js';
import { headerLine, type JournalRun, Recorded, type RecordedCode, type RecordedKind } from './format.js';
import { type JournalLock, lockJournal } from './journal-lock.js';
import { type JournalContents, readJournal } from './read.js';
import { RecordedIds } from './recorded-ids.js';
import { JournalWriter, type WriterOptions } from './writer.js';

const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const NO_BLOCK = fs.constants.O_NONBLOCK ?? 0;

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
   * Whether `id` is finished and not to be sent again: recorded deleted, or absent (the API
   * said there is no such plant, which is what a deletion wants; a later run asks no more).
   */
  isDone(id: string): boolean;
  /**
   * Whether an earlier run's request for `id` may have deleted the plant with its answer
   * never recorded: it was in flight when that run stopped (a sent line and no result after it).
   */
  wasInFlight(id: string): boolean;
  /** Ids by what their last line says. */
  counts(): Record<RecordedKind, number>;
}

export interface Journal extends JournalState {
  /** Set once writing failed (JournalWriteError, exit 70); every later record, flush and close throws it. */
  readonly failure: JournalWriteError | undefined;
  /** Writes `id`'s sent line to the file before it returns; its request may leave once it has. */
  recordSent(id: string): void;
  record(id: string, line: string): void;
  flush(): void;
  close(): void;
}

export interface OpenJournalOptions extends JournalRun, WriterOptions {
  /** The run's start, for a new journal's header (default: now). */
  started?: Date;
  /** Stops reading a large journal (Ctrl-C): an InterruptedError. */
  signal?: AbortSignal;
}

const KIND_NAMES: Record<RecordedCode, RecordedKind> = { 1: 'deleted', 2: 'absent', 3: 'failed', 4: 'notSent', 5: 'sent' };

/**
 * Opens `file` for a run: locks it, then resumes the journal there (its torn last line,
 * if any, cut off so the next line starts clean) or starts a new one. Every refusal is a
 * JournalRefusedError (exit 2) thrown before the file is changed in any way.
 */
export async function openJournal(file: string, options: OpenJournalOptions): Promise<Journal> {
  const lock = lockJournal(file);
  let fd: number | undefined;
  try {
    fd = openExisting(file, fs.constants.O_RDWR | fs.constants.O_APPEND);
    if (fd === undefined) {
      const created = createJournal(file, options, options.started ?? new Date());
      fd = created.fd;
      return journal(file, emptyContents(), fd, created.size, lock, options);
    }
    const contents = await readJournal(fd, file, options.signal);
    checkRun(file, contents, options);
    let size = contents.goodBytes;
    if (contents.header === undefined) size = writeHeader(fd, file, options, options.started ?? new Date());
    else if (contents.tornBytes > 0) cutTornLine(fd, file, contents.goodBytes);
    return journal(file, contents, fd, size, lock, options);
  } catch (error) {
    if (fd !== undefined) fs.closeSync(fd);
    lock.release();
    throw error;
  }
}

/** Reads `file` for `--dry-run`: no lock, nothing written, a missing file is an empty journal. Refuses as openJournal does. */
export async function readJournalForPlan(file: string, run: JournalRun, signal?: AbortSignal): Promise<JournalState> {
  const fd = openExisting(file, fs.constants.O_RDONLY);
  if (fd === undefined) return state(file, emptyContents());
  try {
    const contents = await readJournal(fd, file, signal);
    checkRun(file, contents, run);
    return state(file, contents);
  } finally {
    fs.closeSync(fd);
  }
}

/** The journal's descriptor, undefined when there is none yet; anything but our own regular file is refused. */
function openExisting(file: string, mode: number): number | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, mode | NO_FOLLOW | NO_BLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw unsafe(file, 'it is a symbolic link, which plantstore never follows there');
    if (code === 'EISDIR') throw unsafe(file, 'it is a directory');
    if (code === 'ENXIO') throw unsafe(file, 'it is not a regular file');
    const { why, advice } = journalFileProblem(code, false);
    throw new JournalRefusedError(
      'unopenable',
      `cannot open journal ${shownPath(file)}: ${why}; ${advice}, or give --journal another path`,
      code,
    );
  }
  const problem = fileProblem(fs.fstatSync(fd));
  if (problem === undefined) return fd;
  fs.closeSync(fd);
  if (problem.kind === 'foreign') {
    throw unsafe(file, `it belongs to another user (uid ${problem.owner}, you are ${problem.you}), who may have planted it`);
  }
  throw unsafe(file, problem.kind === 'symlink' ? 'it is a symbolic link' : `it is not a regular file (${problem.what})`);
}

function unsafe(file: string, why: string): JournalRefusedError {
  return new JournalRefusedError('unsafe-file', `cannot use ${shownPath(file)} as a journal: ${why}; give --journal another path`);
}

function checkRun(file: string, contents: JournalContents, run: JournalRun): void {
  const header = contents.header;
  if (header === undefined || (sameBaseUrl(header.baseUrl, run.baseUrl) && header.profile === run.profile)) return;
  throw new JournalRefusedError(
    'other-run',
    `journal ${shownPath(file)} was written for ${otherRun(header, run)}: resuming would skip plants never deleted there; give --journal another file`,
  );
}

/** How the journal's run differs from this one, each URL named once. */
function otherRun(header: JournalRun, run: JournalRun): string {
  const profiles = `profile ${shownPath(header.profile)}, and this run uses profile ${shownPath(run.profile)}`;
  if (sameBaseUrl(header.baseUrl, run.baseUrl)) return `${profiles} (both at ${shownUrl(run.baseUrl)})`;
  const theirs = shownUrl(header.baseUrl);
  const ours = shownUrl(run.baseUrl);
  // Two URLs that print alike differ in what is never printed (a password, a query).
  if (theirs === ours) return `another base URL that also prints as ${ours} (they differ in a part not shown; ${profiles})`;
  return `${theirs} (profile ${shownPath(header.profile)}), and this run uses ${ours} (profile ${shownPath(run.profile)})`;
}

/** A header is a file anyone may have edited: its URL is compared as the run's was normalized. */
function sameBaseUrl(recorded: string, run: string): boolean {
  try {
    return normalizeBaseUrl(recorded, 'the journal') === run;
  } catch {
    return false;
  }
}

/** A new journal: created only if nothing stands at the path, mode 0600, its header durable before any result. */
function createJournal(file: string, run: JournalRun, started: Date): { fd: number; size: number } {
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
    size = writeHeader(fd, file, run, started);
  } catch (error) {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw error;
  }
  syncFolder(path.dirname(file));
  return { fd, size };
}

/** Writes the header of a new (or empty) journal and fsyncs it; returns the file's size. */
function writeHeader(fd: number, file: string, run: JournalRun, started: Date): number {
  const data = Buffer.from(`${headerLine(run, started)}\n`, 'utf8');
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
  return { header: undefined, recorded: new RecordedIds(), goodBytes: 0, tornBytes: 0 };
}

function state(file: string, contents: JournalContents): JournalState {
  const { recorded } = contents;
  // A new journal records nothing earlier: its runs ask for every id, and need no BigInt to be told so.
  const kindOf = (id: string): RecordedCode | 0 => (recorded.size === 0 ? 0 : recorded.get(BigInt(id)));
  return {
    file,
    resumed: contents.header !== undefined,
    note:
      contents.tornBytes > 0
        ? `journal ${shownPath(file)}: its end was torn (${contents.tornBytes} bytes: a run stopped while writing, or a power cut) and is left out; the plants it named are sent again`
        : undefined,
    recorded(id) {
      const kind = kindOf(id);
      return kind === 0 ? undefined : KIND_NAMES[kind];
    },
    isDone(id) {
      const kind = kindOf(id);
      return kind === Recorded.deleted || kind === Recorded.absent;
    },
    wasInFlight: (id) => recorded.size !== 0 && recorded.wasInFlight(BigInt(id)),
    counts: () => recorded.counts(),
  };
}

function journal(file: string, contents: JournalContents, fd: number, size: number, lock: JournalLock, options: WriterOptions): Journal {
  const writer = new JournalWriter(fd, file, size, lock, options);
  return {
    ...state(file, contents),
    get failure() {
      return writer.failure;
    },
    recordSent: (id) => writer.recordSent(id),
    record: (id, line) => writer.record(id, line),
    flush: () => writer.flush(),
    close: () => writer.close(),
  };
}
