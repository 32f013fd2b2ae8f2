// The words for what a token command did, for --verbose: said by any command that calls the service.

import type { TokenEvent } from '../config/token-lease.js';
import { formatRunSeconds } from './duration.js';

/** A --verbose line for each token a token command gave, and why it was asked again; never the token. */
export function describeTokenEvent(event: TokenEvent): string {
  switch (event.kind) {
    case 'obtained':
      return event.expiresAt === undefined
        ? `token ${event.generation} obtained from the token command`
        : `token ${event.generation} obtained from the token command; it expires in ${formatRunSeconds(event.expiresAt - Date.now())}`;
    case 'renewing':
      return event.reason === 'expiring'
        ? `renewing token ${event.generation}: it expires in ${formatRunSeconds(Math.max(0, event.expiresAt - Date.now()))}`
        : `renewing token ${event.generation}: the server answered 401`;
  }
}
