import { IdTable } from './id-table.js';

/** An id's last failure line: the exit code it stands for and the API's error code, when it had them. */
export interface FailureDetail {
  exit: number | undefined;
  error: number | undefined;
}

/** Each distinct (exit, error) pair once, numbered from 1: a million ids that failed alike share one. */
export class FailureDetails {
  readonly #list: FailureDetail[] = [];
  readonly #index = new Map<string, number>();
  /** The last one interned: failures come in runs of the same kind, which then build no key. */
  #last: { exit: number | undefined; error: number | undefined; index: number } = { exit: undefined, error: undefined, index: 0 };

  intern(detail: FailureDetail): number {
    const last = this.#last;
    if (last.index !== 0 && last.exit === detail.exit && last.error === detail.error) return last.index;
    const key = `${detail.exit}/${detail.error}`;
    let index = this.#index.get(key);
    if (index === undefined) {
      this.#list.push(detail);
      index = this.#list.length;
      this.#index.set(key, index);
    }
    this.#last = { ...detail, index };
    return index;
  }

  at(index: number): FailureDetail | undefined {
    return this.#list[index - 1];
  }
}

/**
 * The detail of each id's last failure line in one journal. Nearly always every failure of a job
 * is alike (a revoked token, a list of wrong ids), so the first detail is kept once and only ids
 * that failed otherwise take a slot: a million failures then cost no table at all.
 */
export class LastFailures {
  #first = 0;
  readonly #others = new IdTable();

  record(id: bigint, detail: number): void {
    if (this.#first === 0) this.#first = detail;
    if (detail !== this.#first) this.#others.set(id, detail);
    else if (this.#others.size > 0 && this.#others.get(id) !== 0) this.#others.set(id, detail);
  }

  /** The detail of `id`'s last failure line; only asked of an id whose last result is a failure. */
  get(id: bigint): number {
    return this.#others.size === 0 ? this.#first : this.#others.get(id) || this.#first;
  }
}

/** A failure line's exit and error codes, from its parsed fields (format.ts ResultLine). */
export function failureDetail(fields: Record<string, unknown>): FailureDetail {
  const code = (field: unknown): number | undefined => (Number.isSafeInteger(field) ? (field as number) : undefined);
  return { exit: code(fields['exit']), error: code(fields['error']) };
}
