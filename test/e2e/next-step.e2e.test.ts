// The built CLI words a system error for people, and keeps its code for --verbose (issue 29
// item 1): main.ts is what reads --verbose, -v and PLANTSTORE_DEBUG for a run that failed
// before any request, so only a spawned run shows it.
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runPlantstore, tempConfigDir } from '../helpers/cli.js';

const config = tempConfigDir();
afterAll(() => config.cleanup());

it.each([
  ['plain', [], {}, ''],
  ['--verbose', ['--verbose'], {}, ' (ENOENT)'],
  ['-v after the id', [], {}, ' (ENOENT)', ['-v']],
  ['PLANTSTORE_DEBUG=1', [], { PLANTSTORE_DEBUG: '1' }, ' (ENOENT)'],
])('a missing token file, %s', async (_name, before, env, detail, after: string[] = []) => {
  const file = path.join(config.dir, 'nope');
  const result = await runPlantstore([...before, '--token-file', file, '--base-url', 'http://127.0.0.1:9', 'delete', '1', ...after], {
    env: { PLANTSTORE_CONFIG_DIR: config.dir, ...env },
  });
  expect(result.code).toBe(3);
  expect(result.stderr).toBe(
    `plantstore: cannot read token file ${file} (from --token-file): no such file; point --token-file at a readable file that holds the token${detail}\n`,
  );
});

it('an unknown profile, from the built CLI: exit 3, the names there are', async () => {
  const result = await runPlantstore(['--profile', 'stagng', 'config', 'list'], { env: { PLANTSTORE_CONFIG_DIR: config.dir } });
  expect(result.code).toBe(3);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(
    /^plantstore: unknown profile 'stagng': .*config\.json holds no profiles; create it with plantstore --profile stagng auth login\n$/,
  );
});
