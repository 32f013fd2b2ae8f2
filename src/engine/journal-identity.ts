// Who a batch run is, as its --journal's header records it and a resume checks it (batch/journal/identity.ts).

import type { JournalIdentity } from '../batch/journal/identity.js';
import { maskedBaseUrl } from '../config/base-url.js';
import { isTokenCommand, type Target } from '../config/resolve.js';
import { learnTokensAtRest } from '../config/tokens-at-rest.js';
import type { Context } from '../context.js';
import { createMask, type Mask } from '../text/secret-mask.js';
import type { Operation } from './operation.js';
import { describeShard, type Shard } from './shard.js';

/** What openRunJournal reads of the run's options. */
export interface RunJournalOptions {
  verbose: boolean;
  /** --journal-same-account */
  journalSameAccount: boolean;
  /** --shard: recorded in a new journal's header, and checked against an old one's. */
  shard?: Shard | undefined;
}

/**
 * What a new header masks in the base URL: every secret the run knows (its token, from any source),
 * and every token kept on this machine (each profile's stored token, PLANTSTORE_TOKEN_FILE's), which a
 * URL may hold though this run uses another. Kept apart from the run's own mask: those tokens are
 * not this run's, and every line the run prints would pay for each pattern.
 */
export function headerMask(ctx: Context): Mask {
  const atRest: string[] = [];
  learnTokensAtRest(ctx.env, [], (token) => atRest.push(token));
  const others = createMask(atRest);
  return (text) => others(ctx.io.mask(text));
}

/**
 * Who the run is, for the journal's header: the credentials as configured (a token, or the
 * token command's text), so that a token command is not run to check a journal, nor twice.
 */
export function journalIdentity(
  target: Target,
  opts: RunJournalOptions,
  op: Pick<Operation<unknown>, 'words' | 'value'>,
  mask?: Mask,
): JournalIdentity {
  const { token } = target;
  // Every secret the run knows (its token, from any source) masked in the URL a new header stores.
  const masked = mask && maskedBaseUrl(target.baseUrl, mask);
  return {
    baseUrl: target.baseUrl,
    ...(masked === undefined || masked === target.baseUrl ? {} : { maskedBaseUrl: masked }),
    profile: target.profile,
    operation: op.words.command,
    // Ids that carry values: each id line records its value's print, and the header says so.
    ...(op.value === undefined ? {} : { values: { name: op.value.name } }),
    ...(opts.shard ? { shard: describeShard(opts.shard) } : {}),
    credentials: isTokenCommand(token) ? { kind: 'token-command', command: token.command } : { kind: 'token', token: token.value },
    sameAccount: opts.journalSameAccount,
  };
}
