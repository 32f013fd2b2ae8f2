// The delete operation over the generic transport (gh's deleteLabel over api/client.go): the
// request it sends, and what "deleted" means.

import { ERROR_BODY_BYTES, type NotSentReason, type Outcome } from '../../http/outcome.js';
import type { Transport } from '../../http/transport.js';

/** The path of a plant under the base URL; the spec's `DELETE {base_url}/plants/{id}`. */
export function plantPath(id: string): string {
  return `/plants/${id}`;
}

/** What became of one id, after every attempt. */
export type PlantOutcome =
  /** Any 2xx from the API (a web page is a failure: the transport sorts those out). */
  | { kind: 'deleted'; id: string; status: number }
  | ({ id: string } & Extract<Outcome, { kind: 'failed' }>)
  | { kind: 'not-sent'; id: string; reason: NotSentReason };

export async function deletePlant(transport: Transport, id: string, interrupt: AbortSignal): Promise<PlantOutcome> {
  // Only the status says whether it was deleted: a body matters only as an Error object.
  const request = { method: 'DELETE', path: plantPath(id), label: id, successBody: 'ignored', bodyLimitBytes: ERROR_BODY_BYTES } as const;
  const outcome = await transport.send(request, interrupt);
  // 204 is the spec's answer; a 200 or 202 says the same (202: taken, to be carried out).
  return outcome.kind === 'ok' ? { kind: 'deleted', id, status: outcome.status } : { ...outcome, id };
}
