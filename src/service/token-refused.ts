import { isTokenCommand, type TargetSettings, type TokenSource } from '../config/resolve.js';

/**
 * Said once after a run in which the server answered 401 or 403: where the token came from,
 * and how to replace it there. Each source owns its whole sentence.
 */
export function tokenRefusedLine(token: TokenSource, target: TargetSettings): string {
  const refused = 'the server refused the token (401/403)';
  if (isTokenCommand(token)) {
    return `${refused}; it came from the token command of ${token.source}: check that the command prints a valid token for this service (plantstore auth token runs it)`;
  }
  if (token.source === 'PLANTSTORE_TOKEN') {
    return `${refused}; it came from PLANTSTORE_TOKEN: set it to a valid token, or unset it and store one with plantstore auth login`;
  }
  const file = target.tokenFile;
  if (file !== undefined) {
    return `${refused}; it came from the file ${file.value} (from ${file.source}): put a valid token in it, or drop ${file.source} and store one with plantstore auth login`;
  }
  const login = target.profile === 'default' ? 'plantstore auth login' : `plantstore --profile ${target.profile} auth login`;
  return `${refused}; it came from ${token.source}: replace it with ${login}`;
}
