// Where each setting this run would use comes from: `config list` shows the profile's stored
// settings, and says which of them a flag or a variable outranks (flag, then variable, then
// profile, then default, as every command reads them). Nothing here reads a token file or runs
// a token command: it names their sources only.

import type { Profile } from '../../config/file.js';
import type { Env } from '../../platform/env.js';

/** A setting in force and its source; `value` is left out for the token. */
export interface InForce {
  key: 'base-url' | 'missing-error' | 'token-command' | 'token';
  source: string;
  value?: string;
}

/** What was typed on this command line that outranks the profile. */
export interface GivenOnCommandLine {
  baseUrl: string | undefined;
  tokenFile: string | undefined;
}

const set = (env: Env, name: string): string | undefined => (env[name]?.trim() ? env[name] : undefined);

/** Each setting in force, in the order `config list` prints them, with where it comes from. */
export function settingsInForce(stored: Profile, profileSource: string, given: GivenOnCommandLine, env: Env): InForce[] {
  const settings: InForce[] = [];
  const baseUrl = given.baseUrl ?? set(env, 'PLANTSTORE_BASE_URL') ?? stored['base-url'];
  if (baseUrl !== undefined) {
    const source = given.baseUrl !== undefined ? '--base-url' : set(env, 'PLANTSTORE_BASE_URL') ? 'PLANTSTORE_BASE_URL' : profileSource;
    settings.push({ key: 'base-url', source, value: baseUrl });
  }
  const missing = set(env, 'PLANTSTORE_MISSING_ERROR');
  if (missing !== undefined) settings.push({ key: 'missing-error', source: 'PLANTSTORE_MISSING_ERROR', value: missing });
  else if (stored['missing-error'] !== undefined)
    settings.push({ key: 'missing-error', source: profileSource, value: stored['missing-error'] });
  const token = tokenSource(stored, profileSource, given, env);
  if (token !== undefined) settings.push(token);
  return settings;
}

// The token's order (config/resolve.ts): --token-file, PLANTSTORE_TOKEN, PLANTSTORE_TOKEN_FILE,
// PLANTSTORE_TOKEN_COMMAND, the profile's token-command, the profile's stored token.
function tokenSource(stored: Profile, profileSource: string, given: GivenOnCommandLine, env: Env): InForce | undefined {
  if (given.tokenFile !== undefined) return { key: 'token', source: `token file ${given.tokenFile} (from --token-file)` };
  if (set(env, 'PLANTSTORE_TOKEN')) return { key: 'token', source: 'PLANTSTORE_TOKEN' };
  const file = set(env, 'PLANTSTORE_TOKEN_FILE');
  if (file !== undefined) return { key: 'token', source: `token file ${file} (from PLANTSTORE_TOKEN_FILE)` };
  const command = set(env, 'PLANTSTORE_TOKEN_COMMAND');
  if (command !== undefined) return { key: 'token-command', source: 'PLANTSTORE_TOKEN_COMMAND', value: command.trim() };
  if (stored['token-command'] !== undefined) return { key: 'token-command', source: profileSource, value: stored['token-command'] };
  if (stored.token !== undefined) return { key: 'token', source: profileSource };
  return undefined;
}
