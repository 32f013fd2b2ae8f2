// The README quick start's two setup lines, `auth login --with-token --base-url URL` (the token
// on stdin) and `config set missing-error 1`, for the --journal tests that resume as a user who
// followed it would. A file of such tests runs the two lines through the built CLI once; each
// test then gets the config file they wrote, with its own server's URL in place of the one they
// were given. The lines cost two starts of the CLI (~120 ms of CPU); a file of nine to eleven
// tests, each with its own server, paid them in every test.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runPlantstore, tempConfigDir } from './cli.js';

/** The base URL the lines are run with: port 9 (discard), which nothing here listens on and no test's server can have. */
const GIVEN_URL = 'http://127.0.0.1:9';

/** What the quick start wrote for `token`, run once; a failed line fails every test that asks. */
async function quickStartFile(token: string): Promise<string> {
  const config = tempConfigDir();
  try {
    const env = { PLANTSTORE_CONFIG_DIR: config.dir };
    const login = await runPlantstore(['auth', 'login', '--with-token', '--base-url', GIVEN_URL], { env, input: `${token}\n` });
    if (login.code !== 0) throw new Error(`the quick start's auth login exited ${login.code}: ${login.stderr}`);
    const missing = await runPlantstore(['config', 'set', 'missing-error', '1'], { env });
    if (missing.code !== 0) throw new Error(`the quick start's config set exited ${missing.code}: ${missing.stderr}`);
    const text = readFileSync(path.join(config.dir, 'config.json'), 'utf8');
    // (The file holds the token: not shown.)
    if (text.split(JSON.stringify(GIVEN_URL)).length !== 2)
      throw new Error(`the quick start's config file does not hold ${GIVEN_URL} once`);
    return text;
  } finally {
    config.cleanup();
  }
}

/**
 * The quick start's profile for `token`: called with a config folder and a server's URL, writes
 * there the config file the two lines write when given that URL (they run once, at the first call).
 */
export function quickStart(token: string): (dir: string, url: string) => Promise<void> {
  let written: Promise<string> | undefined;
  return async (dir, url) => {
    written ??= quickStartFile(token);
    const text = (await written).replace(JSON.stringify(GIVEN_URL), JSON.stringify(url));
    writeFileSync(path.join(dir, 'config.json'), text, { mode: 0o600, flag: 'wx' });
  };
}
