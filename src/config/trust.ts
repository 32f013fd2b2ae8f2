import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { ConfigFile, ProfileKey } from './file.js';

/**
 * The two profile keys that decide what runs as you (token-command) and where your token
 * goes (base-url). From a config file that others could have written, either one could be
 * theirs, so neither is used (issue 27): exit 3, saying how to make the file yours again.
 * The other keys (missing-error) are read as usual; the file's warning says what is wrong.
 */
export function checkTrusted(config: ConfigFile, profile: string, key: ProfileKey): void {
  if (key === 'token-command') {
    const folder = config.folderWritableByOthers();
    // Where others can write the folder, they could have put the whole file there.
    if (folder !== undefined) {
      throw new ConfigError(
        `refusing to run the token-command of profile '${profile}': its config folder ${path.dirname(config.path)} is writable by others (mode ${folder.toString(8)}); use a folder only you can write`,
      );
    }
  }
  if (key === 'missing-error') return;
  const mode = config.fileWritableByOthers();
  if (mode === undefined) return;
  const file = config.path;
  const octal = mode.toString(8);
  if (key === 'token-command') {
    throw new ConfigError(
      `refusing to run the token-command of profile '${profile}': config file ${file} is writable by others (mode ${octal}), so someone else could have put it there; check it, then run chmod 600 ${file}`,
    );
  }
  throw new ConfigError(
    `refusing to use the base-url of profile '${profile}': config file ${file} is writable by others (mode ${octal}), so someone else could have pointed your token at their server; check it, then run chmod 600 ${file}`,
  );
}
