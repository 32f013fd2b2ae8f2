import type { ExitCode } from './errors.js';

/** What happened to one id. Rendered by output.ts; the first failure decides the exit code. */
export type DeleteResult = Deleted | NotDeleted;

export interface Deleted {
  id: string;
  deleted: true;
  status: number;
}

export interface NotDeleted {
  id: string;
  deleted: false;
  /** HTTP status, or null when no answer arrived. */
  status: number | null;
  /** The API's Error.error code, or null when the body was not an Error object. */
  error: number | null;
  message: string;
  exit: ExitCode;
  /** False when the request was never sent (interrupted before its turn). */
  attempted: boolean;
}

export function firstFailureExit(results: Iterable<DeleteResult>): ExitCode | 0 {
  for (const result of results) if (!result.deleted) return result.exit;
  return 0;
}
