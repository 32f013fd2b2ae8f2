import type { Mask } from '../../text/secret-mask.js';
import type { IO } from '../../ui/io.js';
import { failureJson, failureLine } from '../plants/shared/failure.js';
import { idLine } from '../plants/shared/json.js';
import { successLine } from '../plants/shared/success.js';
import { type DeleteResult, isFailure, type NotDeleted } from './result.js';

/** The line a terminal (or a log) shows for a result: on stdout for a success, on stderr for a failure. */
export function resultLine(io: IO, result: DeleteResult): string {
  return isFailure(result) ? failureLine(io, result) : successLine(io, successText(result));
}

function successText(result: Exclude<DeleteResult, NotDeleted>): string {
  if (result.journal) return `Plant ${result.id} already ${result.deleted ? 'deleted' : 'absent'} (journal)`;
  if (result.deleted && result.confirmed) {
    return `Deleted plant ${result.id} (answered ${result.status}, confirmed: the DELETE sent again answered "no such plant")`;
  }
  if (result.deleted) return `Deleted plant ${result.id}`;
  if (result.after === 'run') return `Plant ${result.id} absent (in flight when the earlier run stopped: it may have deleted it)`;
  if (result.after === 'attempt') return `Plant ${result.id} absent (an earlier attempt's answer was lost: it may have deleted it)`;
  return `Plant ${result.id} already absent`;
}

/**
 * The --json line (plants/shared/json.ts: the id with its exact digits; failure.ts: a failure's fields,
 * its message masked with `mask`).
 */
export function resultJson(result: DeleteResult, mask: Mask = (text) => text): string {
  if (result.journal) {
    return idLine(
      result.id,
      result.deleted ? '"deleted":true,"status":null,"journal":true' : '"deleted":false,"absent":true,"status":null,"journal":true',
    );
  }
  if (result.deleted) return idLine(result.id, `"deleted":true,"status":${result.status}${result.confirmed ? ',"confirmed":true' : ''}`);
  if (result.absent) {
    const after = result.after === undefined ? '' : result.after === 'run' ? ',"earlierRun":true' : ',"earlierAttempt":true';
    return idLine(result.id, `"deleted":false,"absent":true,"status":${result.status}${after}`);
  }
  return idLine(result.id, `"deleted":false,${failureJson(result, mask)}`);
}
