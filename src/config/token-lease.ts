import { AuthError } from '../errors.js';
import type { ObtainedToken } from './token-output.js';

/**
 * One token as handed to a request. `generation` counts the tokens obtained in this run
 * (1 for the first); a request remembers the lease it was sent with, so that a 401 can
 * be told apart: refused with an old token, or refused with a fresh one.
 */
export interface Lease {
  readonly token: string;
  readonly generation: number;
  /** When it was obtained, on the source's clock (epoch ms). */
  readonly obtainedAt: number;
  readonly expiresAt?: number;
}

/** Why a token was obtained, for --verbose: data, never the token. */
export type TokenEvent =
  | { kind: 'obtained'; generation: number; expiresAt?: number }
  | { kind: 'renewing'; reason: 'expiring'; generation: number; expiresAt: number }
  | { kind: 'renewing'; reason: 'refused'; generation: number };

/** Where the transport gets its token: one interface for a static token and for a token command. */
export interface TokenLeases {
  /** False for a static token: a 401 is then final at once. */
  readonly renewable: boolean;
  /** The newest generation obtained so far (0 before the first): what a request notes when it starts. */
  generation(): number;
  /** The lease for a request about to go out; waits for a renewal under way, or starts one when the token is expiring. */
  current(): Promise<Lease>;
  /** After a 401 for a request sent with `refused`: a newer lease, obtained once for any number of such calls. */
  renewAfter(refused: Lease): Promise<Lease>;
  /** Whether a 401 for a request that started at `startedAt` (generation()) and was sent with `sent` is final. */
  refusalIsFinal(sent: Lease, startedAt: number): boolean;
  /**
   * The server answered a request sent with `sent` with `status`. Any status but 401 says it
   * took the token. A token obtained because the one before was refused, refused in turn before
   * the server took it even once, ends the renewals: the command's tokens are not for this server.
   */
  answered(sent: Lease, status: number): void;
}

/**
 * The rule for a 401: it is final for a request only when the token it was sent with was
 * obtained after that request started (a fresh token refused), or when no other token can
 * be had. Otherwise the token may have expired while the request waited: renew and send again.
 * `startedAt` is the newest generation when the request first started, before any attempt:
 * a resend after renewal carries a newer one, so each request renews at most once.
 */
export function isFinalRefusal(sent: Lease, startedAt: number, renewable: boolean): boolean {
  return !renewable || sent.generation > startedAt;
}

/** When a token stops being handed out: 30 s before it expires, or half its life for a short-lived one. */
export const RENEW_BEFORE_EXPIRY_MS = 30_000;

export function renewsAt(lease: Lease): number | undefined {
  if (lease.expiresAt === undefined) return undefined;
  const life = Math.max(0, lease.expiresAt - lease.obtainedAt);
  return lease.expiresAt - Math.min(RENEW_BEFORE_EXPIRY_MS, life / 2);
}

export interface LeaseOptions {
  now: () => number;
  /** Told each token before any request carries it, so the CLI's mask knows it before any output could hold it. */
  onToken?: (token: string) => void;
  onEvent?: (event: TokenEvent) => void;
}

/** A token from the environment, a file or the profile: never renewed. */
export function staticTokens(token: string, options: LeaseOptions): TokenLeases {
  options.onToken?.(token);
  const lease: Lease = { token, generation: 1, obtainedAt: options.now() };
  return {
    renewable: false,
    generation: () => 1,
    current: () => Promise.resolve(lease),
    // Nothing newer exists; refusalIsFinal already says so, this is for a caller that asks anyway.
    renewAfter: () => Promise.resolve(lease),
    refusalIsFinal: (sent, startedAt) => isFinalRefusal(sent, startedAt, false),
    answered: () => {},
  };
}

/**
 * Tokens from `obtain` (a token command), obtained on first use, again before one expires,
 * and again after a 401 with the newest token. One renewal at a time: requests that need a
 * token meanwhile wait for it, however many ask. A failure is final: every waiter, and every
 * later caller, gets the same error, and `obtain` never runs again in this run.
 */
export function commandTokens(obtain: () => Promise<ObtainedToken>, options: LeaseOptions): TokenLeases {
  let newest: Lease | undefined;
  let renewal: Promise<Lease> | undefined;
  let failure: { error: unknown } | undefined;
  // Whether `newest` was obtained because the server refused the one before it.
  let newestAfterRefusal = false;
  // The newest generation the server has taken (answered with anything but 401).
  let taken = 0;

  const renew = (afterRefusal: boolean): Promise<Lease> => {
    const generation = (newest?.generation ?? 0) + 1;
    renewal = obtain().then(
      (obtained) => {
        const lease: Lease = { ...obtained, generation, obtainedAt: options.now() };
        options.onToken?.(lease.token);
        options.onEvent?.(
          lease.expiresAt === undefined ? { kind: 'obtained', generation } : { kind: 'obtained', generation, expiresAt: lease.expiresAt },
        );
        newest = lease;
        newestAfterRefusal = afterRefusal;
        renewal = undefined;
        return lease;
      },
      (error: unknown) => {
        failure = { error };
        renewal = undefined;
        throw error;
      },
    );
    return renewal;
  };

  const current = (): Promise<Lease> => {
    if (failure) return Promise.reject(failure.error);
    if (renewal) return renewal;
    if (!newest) return renew(false);
    const at = renewsAt(newest);
    if (at !== undefined && options.now() >= at) {
      options.onEvent?.({ kind: 'renewing', reason: 'expiring', generation: newest.generation, expiresAt: newest.expiresAt as number });
      return renew(false);
    }
    return Promise.resolve(newest);
  };

  return {
    renewable: true,
    generation: () => newest?.generation ?? 0,
    current,
    renewAfter: (refused) => {
      if (!failure && !renewal && newest && newest.generation <= refused.generation) {
        options.onEvent?.({ kind: 'renewing', reason: 'refused', generation: refused.generation });
        return renew(true);
      }
      return current();
    },
    refusalIsFinal: (sent, startedAt) => isFinalRefusal(sent, startedAt, true),
    answered: (sent, status) => {
      if (status !== 401) {
        taken = Math.max(taken, sent.generation);
        return;
      }
      // Renewing again would only ask for another token to be refused, as every one so far
      // was: a run of thousands of ids would run the command once per wave of 401s.
      if (failure || !newestAfterRefusal || newest?.generation !== sent.generation || taken >= sent.generation) return;
      const { generation } = sent;
      failure = {
        error: new AuthError(
          `the server refused token ${generation} from the token command as well, right after refusing token ${generation - 1}: ` +
            'check that the command gives tokens for this server, and the base URL (plantstore auth status)',
        ),
      };
    },
  };
}
