import { CliError, Exit } from '../../errors.js';
import { maskProxy } from '../../http/proxy.js';
import { shown } from '../../text/shown.js';

/** Why a journal is not used. In every case nothing was sent and the file is byte for byte as it was. */
export type JournalRefusal =
  /** Not a plantstore delete journal: no header, another format or version, garbage. */
  | 'not-journal'
  /** A plantstore journal with an invalid line before its last one. */
  | 'corrupt'
  /** Written for another base URL or profile. */
  | 'other-run'
  /** Locked by another running plantstore. */
  | 'in-use'
  /** A symlink, FIFO, directory, device, or a file another user owns. */
  | 'unsafe-file'
  /** The file or its folder cannot be opened (permissions, a missing folder). */
  | 'unopenable';

/** A journal that cannot be used for this run: exit 2, like any bad argument, before anything is sent. */
export class JournalRefusedError extends CliError {
  constructor(
    readonly reason: JournalRefusal,
    message: string,
  ) {
    super(message, Exit.usage);
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
  ) {
    super(message, Exit.internal);
  }
}

/** A path as the user gave it, safe on a terminal. */
export const shownPath = (file: string): string => shown(file);

/**
 * A base URL fit to print: a header is a file anyone may have edited, so its URL may
 * hold a user and password (masked as proxies are) or a query (cut, as base-url.ts does).
 */
export function shownUrl(raw: string): string {
  if (!URL.canParse(raw)) return '(not a URL)';
  const url = new URL(raw);
  const cut = url.search || url.hash || url.href.includes('?') || url.href.includes('#') ? '?…' : '';
  url.search = '';
  url.hash = '';
  return shown(`${maskProxy(url.href)}${cut}`);
}
