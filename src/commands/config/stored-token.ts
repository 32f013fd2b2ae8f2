import { tokenRuleBroken } from '../../config/token.js';
import type { Context } from '../../context.js';

/**
 * A profile's stored token, masked in every line from here on, should a stored setting hold it
 * (a base URL's path: an API of the `…/bot<token>` style, or a token pasted in the wrong place).
 * Only what a run could use as a token, as tokens-at-rest.ts learns them: a mask of 8 KiB of
 * zeros is no pattern to run.
 */
export function hideStoredToken(token: string | undefined, ctx: Pick<Context, 'io'>): void {
  if (token !== undefined && tokenRuleBroken(token.trim()) === undefined) ctx.io.redact(token.trim());
}
