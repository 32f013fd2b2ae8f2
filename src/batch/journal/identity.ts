import { normalizeBaseUrl } from '../../config/base-url.js';
import { credentialWords, matchesPrint, type RunCredentials } from './credentials.js';
import { JournalRefusedError, shownPath, shownUrl } from './errors.js';
import { type JournalHeader, type JournalRun, UNNAMED_OPERATION } from './format.js';
import type { JournalContents } from './read.js';
import { matchesUrlPrint } from './url-print.js';

/**
 * Whose journal a file is: the base URL and profile it was written for, and the credentials
 * it was written with (credentials.ts). Resuming another run's journal would skip plants never
 * deleted there, so each difference is refused (exit 2) before anything is sent.
 */

/** Who the run is, beyond its base URL and profile: checked against a journal's header, recorded in a new one's. */
export interface JournalIdentity extends JournalRun {
  /** The run's token or token command; undefined records and checks none (tests and benchmarks). */
  credentials?: RunCredentials;
  /** --journal-same-account: a journal written with other credentials is resumed all the same, with a note. */
  sameAccount?: boolean;
}

export function checkRun(file: string, contents: JournalContents, run: JournalRun): void {
  const header = contents.header;
  if (header === undefined) return;
  checkOperation(file, header, run);
  checkValues(file, header, run);
  if (headerMatchesUrl(header, run.baseUrl) && header.profile === run.profile) {
    checkShard(file, header, run);
    return;
  }
  throw new JournalRefusedError(
    'other-run',
    `journal ${shownPath(file)} was written for ${otherRun(header, run)}: resuming would skip plants never deleted there; give --journal another file`,
  );
}

/**
 * Refuses a journal written with other credentials, unless the run says it is the same account
 * (a renewed token). Returns the note a resume prints: a 2.0 journal (no print: read as it was,
 * and it cannot be given one, being append-only), or one resumed under --journal-same-account.
 */
export async function checkCredentials(file: string, contents: JournalContents, run: JournalIdentity): Promise<string | undefined> {
  const recorded = contents.header?.credentials;
  if (run.credentials === undefined || contents.header === undefined) return undefined;
  if (recorded === undefined) {
    return `journal ${shownPath(file)} was started by a plantstore that did not record the credentials it was written with: it is resumed without checking them`;
  }
  if (await matchesPrint(recorded, run.credentials)) return undefined;
  const theirs = credentialWords(recorded.kind);
  const ours = recorded.kind === run.credentials.kind ? `another ${theirs.slice(2)}` : credentialWords(run.credentials.kind);
  if (run.sameAccount) {
    return `journal ${shownPath(file)} was written with other credentials (${theirs}; this run uses ${ours}): resumed as one account, as --journal-same-account says`;
  }
  throw new JournalRefusedError(
    'other-credentials',
    `journal ${shownPath(file)} was written with other credentials (${theirs}; this run uses ${ours}): resuming would skip the plants it records as deleted, which another account may still have; if both are the same account (a renewed token), add --journal-same-account, else give --journal another file`,
  );
}

/**
 * A journal resumes only the operation that wrote it: another's records would skip ids this one
 * never did (a read's journal taken by delete would skip plants never deleted).
 */
function checkOperation(file: string, header: JournalHeader, run: JournalRun): void {
  const ours = run.operation ?? UNNAMED_OPERATION;
  if (header.operation === ours) return;
  throw new JournalRefusedError(
    'other-operation',
    `journal ${shownPath(file)} was written by plantstore ${shownPath(header.operation)}, and this run is plantstore ${ours}: a journal resumes only the operation that wrote it; give --journal another file`,
  );
}

/**
 * A journal whose ids carry values (a rename's names) records each id done with one value; a run
 * whose ids carry none could not tell which, and the reverse could not tell a value from none.
 */
function checkValues(file: string, header: JournalHeader, run: JournalRun): void {
  if ((header.values === undefined) === (run.values === undefined)) return;
  const theirs = header.values === undefined ? 'ids alone' : `ids each with a ${shownPath(header.values.name)}`;
  const ours = run.values === undefined ? 'ids alone' : `ids each with a ${shownPath(run.values.name)}`;
  throw new JournalRefusedError(
    'other-operation',
    `journal ${shownPath(file)} records ${theirs}, and this run sends ${ours}: a journal resumes only a run that gives ids as it recorded them; give --journal another file`,
  );
}

/** Each shard of a job keeps its own journal: another shard's would skip ids this one never had, and never record its own. */
function checkShard(file: string, header: JournalRun, run: JournalRun): void {
  if (header.shard === run.shard) return;
  const named = (shard: string | undefined): string => (shard === undefined ? 'a run without --shard' : `--shard ${shard}`);
  throw new JournalRefusedError(
    'other-run',
    `journal ${shownPath(file)} was written by ${named(header.shard)}, and this run is ${named(run.shard)}: give each shard its own --journal file, or run with the journal's shard`,
  );
}

/** How the journal's run differs from this one, each URL named once, the run's as its header would store it. */
function otherRun(header: JournalHeader, run: JournalRun): string {
  const profiles = `profile ${shownPath(header.profile)}, and this run uses profile ${shownPath(run.profile)}`;
  const ours = shownUrl(run.maskedBaseUrl ?? run.baseUrl);
  if (headerMatchesUrl(header, run.baseUrl)) return `${profiles} (both at ${ours})`;
  const theirs = shownUrl(header.baseUrl);
  // Two URLs that print alike differ in what is never printed (a password, a query).
  if (theirs === ours) return `another base URL that also prints as ${ours} (they differ in a part not shown; ${profiles})`;
  return `${theirs} (profile ${shownPath(header.profile)}), and this run uses ${ours} (profile ${shownPath(run.profile)})`;
}

/**
 * Whether two base URLs name the same server: a header is a file anyone may have edited, so each
 * URL is compared as normalized (config/base-url.ts); one that does not normalize is compared as
 * written, and so never matches a run's, which always does.
 */
export function sameBaseUrl(a: string, b: string): boolean {
  return normalized(a) === normalized(b);
}

function normalized(url: string): string {
  try {
    return normalizeBaseUrl(url, 'the journal');
  } catch {
    return url;
  }
}

/** Whether a header names the run's base URL: by its print when it has one (its URL masked), else as written. */
function headerMatchesUrl(header: JournalHeader, baseUrl: string): boolean {
  const print = header.baseUrlPrint;
  if (print === undefined) return sameBaseUrl(header.baseUrl, baseUrl);
  return matchesUrlPrint(print, normalized(baseUrl));
}
