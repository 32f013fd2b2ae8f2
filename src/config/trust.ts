import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { ConfigFile, ProfileKey } from './file.js';

/** What a profile supplies to a run: its stored token, and its keys. */
export type StoredSetting = ProfileKey | 'token';

/** What someone else could do with each setting, had they written it. */
const WHAT_THEY_COULD_DO: Readonly<Record<StoredSetting, string>> = {
  token: 'put their own token there, so your deletions would be made as them',
  'token-command': 'put it there',
  'base-url': 'pointed your token at their server',
  'missing-error': 'made failures read as plants already absent',
  'max-deletes': 'raised the limit that guards against deleting the wrong list',
};

/** A setting refused because the whole file is not trusted: the file's own warning has said why, once. */
export class UntrustedFileError extends ConfigError {}

/**
 * Nothing a config file says is used when others could have written it (issue 27, whole since
 * issue 34): the file itself is writable by others, or the path to it is (config/path-trust.ts).
 * A run that needs one of its settings stops here, exit 3, saying how to make it yours again;
 * the file's warning (file.ts) has already told a run that needs none of them.
 */
export function checkTrusted(config: ConfigFile, profile: string, key: StoredSetting): void {
  if (key === 'token-command') {
    const folder = config.folderWritableByOthers();
    // Where others can write the folder, even a sticky one, they could have put the whole file there.
    if (folder !== undefined) {
      throw new ConfigError(
        `refusing to run the token-command of profile '${profile}': its config folder ${path.dirname(config.path)} is writable by others (mode ${folder.toString(8)}); use a folder only you can write`,
      );
    }
  }
  const distrust = config.distrust();
  if (distrust === undefined) return;
  const what = key === 'token-command' ? 'run the token-command' : key === 'token' ? 'use the stored token' : `use the ${key}`;
  throw new UntrustedFileError(
    `refusing to ${what} of profile '${profile}': ${distrust.what}, so someone else could have ${WHAT_THEY_COULD_DO[key]}; ${distrust.fix}`,
  );
}
