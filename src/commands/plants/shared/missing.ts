// "No such plant", as the API says it: a 404 with the spec's Error object, or an Error object
// whose code the user declared (--missing-error: the sandbox answers an unknown plant 400, error 1).
// Every verb on a plant meets it; what it means (done for a delete, "not found" for a read) is the verb's.

import { Flag } from '../../../flags/flag.js';
import { missingErrors } from '../../../flags/kinds.js';
import type { FailedAttempt } from '../../../http/outcome.js';

export const MISSING_ERROR = Flag.valued(
  {
    key: 'missingError',
    flags: '--missing-error <codes>',
    help: 'API error codes (comma-separated) that mean "no such plant", e.g. 1 for the sandbox',
    env: 'PLANTSTORE_MISSING_ERROR',
    envHelp: 'like --missing-error',
    profileKey: 'missing-error',
  },
  missingErrors,
);

/** How the user said "no such plant" looks (--missing-error), and whether it counts as done (delete's --ignore-missing). */
export interface MissingRule {
  codes: readonly number[];
  ignore: boolean;
}

/**
 * The API's "no such plant": a 404 Error object, or a 400 Error object with a declared code. A 404
 * with any other body is a route the server does not have (a wrong base URL, most likely), not this.
 */
export function saidMissing(last: FailedAttempt, codes: readonly number[]): boolean {
  if (last.kind !== 'api-error' || last.code === null) return false;
  return last.status === 404 || (last.status === 400 && codes.includes(last.code));
}
