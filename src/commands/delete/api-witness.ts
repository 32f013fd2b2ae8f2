// Whether the base URL has answered as the Plant Store API in this run: a 204, a 2xx confirmed by
// "no such plant", or the spec's Error object on a refusal. Until it has, an answer that is not
// the API's (a page, the same 2xx twice) more likely means a base URL that leads elsewhere than a
// service that is down, and ends the run at once; once it has, the same answer is the service
// away (a maintenance page, a gateway's catch-all), retried and counted towards an outage.

import type { Outcome } from '../../http/outcome.js';

export class ApiWitness {
  #answered = false;

  get answered(): boolean {
    return this.#answered;
  }

  /** HttpRequest.notApiIsFinal: asked as such an answer comes. */
  readonly notApiIsFinal = (): boolean => !this.#answered;

  /** What came back to one request of the run. */
  note(outcome: Outcome): void {
    if (this.#answered) return;
    if (outcome.kind === 'ok') this.#answered = outcome.status === 204;
    else if (outcome.kind === 'failed') this.#answered = isErrorObjectRefusal(outcome.last);
  }

  /** A 2xx confirmed by "no such plant". */
  proved(): void {
    this.#answered = true;
  }
}

/** A 4xx carrying the spec's Error object: the API refused, and said so in its own shape. */
function isErrorObjectRefusal(last: Extract<Outcome, { kind: 'failed' }>['last']): boolean {
  return last.kind === 'api-error' && last.code !== null && last.status >= 400 && last.status < 500;
}
