// Logins racing in separate processes leave a valid config file with nothing lost: only
// real processes overlap. The rest of the config file's protection (bad tokens, corrupt
// files, permissions, unwritable folders, base URLs, partial updates) runs in-process in
// test/unit/commands/config/integrity.test.ts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { finished, startPlantstore, tempConfigDir } from '../helpers/cli.js';

let config: ReturnType<typeof tempConfigDir>;
let file: string;
beforeEach(() => {
  config = tempConfigDir();
  file = path.join(config.dir, 'config.json');
});
afterEach(() => config.cleanup());

const readConfig = () => JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, Record<string, string>> };

describe('concurrent updates', () => {
  it('two logins at once: both exit 0, the file is valid JSON holding one of the two tokens', async () => {
    const tokens = ['racer-Token-aaaa1111', 'racer-Token-bbbb2222'];
    const runs = await Promise.all(tokens.map((token) => startedTogether(['auth', 'login', '--with-token'], `${token}\n`)));
    for (const run of runs) expect(run.code).toBe(0);
    const stored = readConfig();
    expect(Object.keys(stored.profiles)).toEqual(['default']);
    expect(tokens).toContain(stored.profiles['default']?.['token']);
    expect(readdirSync(config.dir)).toEqual(['config.json']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  // Each racer reports "Token stored"; one whose write another silently undid is a lost login.
  // A race shows only when the processes overlap, so a few rounds of four make that likely.
  it('four logins at once to different profiles, three rounds: all exit 0, and every token is kept', async () => {
    const expected: Record<string, { token: string }> = {};
    for (const round of [1, 2, 3]) {
      const profiles = ['a', 'b', 'c', 'd'].map((letter) => `${letter}${round}`);
      const runs = await Promise.all(
        profiles.map((profile) =>
          startedTogether(['--profile', profile, 'auth', 'login', '--with-token'], `racer-Token-${profile}-1234\n`),
        ),
      );
      for (const run of runs) expect(run.code).toBe(0);
      for (const profile of profiles) expected[profile] = { token: `racer-Token-${profile}-1234` };
      expect(readConfig().profiles).toEqual(expected);
    }
  });
});

/** Starts the CLI with this test's config folder; both racers are spawned in the same tick. */
function startedTogether(args: string[], input: string) {
  return finished(startPlantstore(args, { env: { PLANTSTORE_CONFIG_DIR: config.dir }, input }));
}
