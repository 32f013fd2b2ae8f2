import { maskedBaseUrl } from '../../config/base-url.js';
import { CliError, Exit } from '../../errors.js';
import { errnoWords } from '../../text/errno.js';
import { shown } from '../../text/shown.js';

/** Why a journal is not used. In every case nothing was sent and the file is byte for byte as it was. */
export type JournalRefusal =
  /** Not a plantstore journal: no header, another format or version, garbage. */
  | 'not-journal'
  /** A plantstore journal with an invalid line before its last one. */
  | 'corrupt'
  /** Written for another base URL or profile. */
  | 'other-run'
  /** Written by another operation (a read's journal given to delete). */
  | 'other-operation'
  /** Written with other credentials (another token, another token command), and not --journal-same-account. */
  | 'other-credentials'
  /** Locked by another running plantstore. */
  | 'in-use'
  /** A symlink, FIFO, directory, device, a file another user owns, or one others could have written (file-trust.ts). */
  | 'unsafe-file'
  /** The file or its folder cannot be opened (permissions, a missing folder). */
  | 'unopenable';

/** A journal that cannot be used for this run: exit 2, like any bad argument, before anything is sent. */
export class JournalRefusedError extends CliError {
  constructor(
    readonly reason: JournalRefusal,
    message: string,
    /** The errno behind the words, for --verbose. */
    detail?: string,
  ) {
    super(message, Exit.usage, detail);
  }
}

/**
 * Results could not be written durably (a full disk, an I/O error), or another
 * plantstore took the journal over. Results decided after it are not in the journal,
 * so the run must stop saying so rather than go on as if they were kept.
 */
export class JournalWriteError extends CliError {
  constructor(
    message: string,
    /** The errno code (ENOSPC, EIO...), or 'lock-lost'. */
    readonly code: string,
    /** What went wrong, in words ("no space left on the device"): the run's closing line says it. */
    readonly why: string,
    /** What to do about it, ending with how to resume: the run's closing line says it. */
    readonly advice: string,
  ) {
    super(message, Exit.internal, /^E[A-Z]+$/.test(code) ? code : undefined);
  }
}

/** A write to the journal failed with `error`: `consequence` is what that means for the run. */
export function writeFailed(file: string, error: unknown, consequence: string): JournalWriteError {
  const code = (error as NodeJS.ErrnoException).code;
  const { why, advice } = journalFileProblem(code, false);
  const again = `${advice}, then run the same command again to resume`;
  return new JournalWriteError(
    `cannot write journal ${shownPath(file)}: ${why}, so ${consequence}; ${again}`,
    code ?? 'unknown error',
    why,
    again,
  );
}

/**
 * A file operation on the journal or its lock that failed with `code`, in words, and what to
 * do about it (`creating`: the file was being created, so a missing file is a missing folder).
 */
export function journalFileProblem(code: string | undefined, creating: boolean): { why: string; advice: string } {
  if (code === 'ENOENT' && creating) return { why: 'its folder does not exist', advice: 'create the folder' };
  const why = errnoWords(code);
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return { why, advice: 'free some space' };
    case 'EFBIG':
      return { why, advice: 'raise the file size limit (ulimit -f)' };
    case 'EACCES':
    case 'EPERM':
      return { why, advice: 'check the permissions of the journal and its folder' };
    case 'EROFS':
      return { why, advice: 'use a journal on a writable disk' };
    case 'ENOTDIR':
    case 'ENAMETOOLONG':
    case 'ELOOP':
      return { why, advice: 'check the path' };
    default:
      return { why, advice: 'check the disk' };
  }
}

/** A path as the user gave it, safe on a terminal. */
export const shownPath = (file: string): string => shown(file);

/**
 * A base URL fit to print: a header is a file anyone may have edited, so its URL may
 * hold a user and password (masked as proxies are) or a query (cut, as base-url.ts does).
 */
export function shownUrl(raw: string): string {
  const masked = maskedBaseUrl(raw);
  return masked === undefined ? '(not a URL)' : shown(masked);
}
