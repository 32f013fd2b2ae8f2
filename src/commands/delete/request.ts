// The delete operation over the generic transport (gh's deleteLabel over api/client.go): the
// request it sends, and what "deleted" means. The spec's success is 204, and a 204 is proof.
// Any other 2xx proves nothing by itself (a gateway's catch-all answers 200 {} to anything):
// it is confirmed by sending the same DELETE again, which the API must answer "no such plant"
// and a catch-all cannot. HTTP's idempotence of DELETE makes the repeat safe.

import { ERROR_BODY_BYTES, type FailedAttempt, type NotSentReason, type Outcome } from '../../http/outcome.js';
import type { Transport } from '../../http/transport.js';
import { type MissingRule, saidMissing } from '../plants/shared/missing.js';
import { plantPath } from '../plants/shared/path.js';
import type { ApiWitness } from './api-witness.js';

export type { MissingRule } from '../plants/shared/missing.js';

/** What one run's requests share: what "no such plant" looks like, and whether the base URL has answered as the API. */
export interface DeleteRun {
  missing: MissingRule;
  witness: ApiWitness;
}

type Failed = Extract<Outcome, { kind: 'failed' }>;

/** What became of one id, after every attempt. */
export type PlantOutcome =
  /** A 204; or another 2xx (`status`) that the DELETE sent again answered "no such plant" (`confirmed`). */
  | { kind: 'deleted'; id: string; status: number; confirmed?: true }
  /** `confirming`: the status of a 2xx that this failure, of the DELETE sent again, left unconfirmed. */
  | ({ id: string; confirming?: number } & Failed)
  | { kind: 'not-sent'; id: string; reason: NotSentReason }
  /** A 2xx other than 204 (`status`), and the DELETE that would have confirmed it was never sent. */
  | { kind: 'unconfirmed'; id: string; status: number; reason: NotSentReason };

export async function deletePlant(transport: Transport, id: string, interrupt: AbortSignal, run: DeleteRun): Promise<PlantOutcome> {
  // Only the status says whether it was deleted: a body matters as an Error object, or for the words.
  const request = {
    method: 'DELETE',
    path: plantPath(id),
    label: id,
    successBody: 'ignored',
    bodyLimitBytes: ERROR_BODY_BYTES,
    notApiIsFinal: run.witness.notApiIsFinal,
  } as const;
  const outcome = await transport.send(request, interrupt);
  run.witness.note(outcome);
  if (outcome.kind === 'not-sent') return { ...outcome, id };
  if (outcome.kind === 'failed') return { ...outcome, id };
  if (outcome.status === 204) return { kind: 'deleted', id, status: 204 };
  // One more request, through the same transport (its retries, throttle and token) as any attempt.
  const again = await transport.send({ ...request, confirms: outcome.status }, interrupt);
  run.witness.note(again);
  // Only a 204 is success to a confirming request: the plant is deleted now, by this DELETE if not the first.
  if (again.kind === 'ok') return { kind: 'deleted', id, status: again.status };
  if (again.kind === 'not-sent') return { kind: 'unconfirmed', id, status: outcome.status, reason: again.reason };
  // "No such plant" at once: the first 2xx deleted it. After a lost answer (a timeout, a page, the
  // same 2xx again), nobody can tell which request did, or whether the plant was ever there.
  if (saysNoSuchPlant(again.last, run.missing) && !again.earlierAnswerLost) {
    run.witness.proved();
    return { kind: 'deleted', id, status: outcome.status, confirmed: true };
  }
  // The first 2xx may or may not have deleted it, unless the same 2xx twice says this is not the API at all.
  return { ...again, id, confirming: outcome.status, earlierAnswerLost: !isFinalNotApi(again.last) };
}

/**
 * "No such plant", as a DELETE of a plant just deleted is answered: a 404 Error object, the code
 * the user declared, or, with none declared, any 400 Error object (the API is there, and refuses
 * to delete a plant it has just answered for).
 */
export function saysNoSuchPlant(last: FailedAttempt, missing: MissingRule): boolean {
  if (saidMissing(last, missing.codes)) return true;
  return missing.codes.length === 0 && last.kind === 'api-error' && last.code !== null && last.status === 400;
}

/** An answer that is not the API's, from a base URL that had never answered as the API: the run ends. */
export function isFinalNotApi(last: FailedAttempt): last is Extract<FailedAttempt, { kind: 'web-page' | 'not-api' | 'success-again' }> {
  return (last.kind === 'web-page' || last.kind === 'not-api' || last.kind === 'success-again') && last.final === true;
}
