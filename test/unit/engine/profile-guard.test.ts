// The profile's max-deletes guards a run whose token and base URL come from the environment (a
// CI job), as docs/reference.md says: a guard that a CI job's variables turned off would fail
// open exactly where nobody is watching (issue 40, item 11).
import { chmodSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inProcess } from '../../helpers/in-process.js';

const { run, file } = inProcess();
const OUTSIDE = { PLANTSTORE_TOKEN: 'env-token-0f3c9a7d21', PLANTSTORE_BASE_URL: 'https://env.example.com' };

function profile(settings: Record<string, string>, mode = 0o600): void {
  writeFileSync(file(), JSON.stringify({ profiles: { default: settings, prod: settings } }), { mode });
  chmodSync(file(), mode);
}

describe("a profile's max-deletes with the token and base URL from the environment", () => {
  it.each([
    ['the default profile', []],
    ['a profile given with --profile', ['--profile', 'prod']],
  ])('%s: a batch over it is refused, exit 9, nothing sent, the profile named as the source', async (_name, select) => {
    profile({ 'max-deletes': '2' });
    const result = await run([...select, 'delete', '1', '2', '3'], { env: OUTSIDE });
    expect(result).toMatchObject({ exit: 9, sent: [] });
    const name = select.length === 0 ? 'default' : 'prod';
    expect(result.stderr).toContain(`is more than --max-deletes 2 (from profile '${name}' in ${file()}); nothing sent`);
  });

  it('a batch within it goes out', async () => {
    profile({ 'max-deletes': '3' });
    expect(await run(['delete', '1', '2', '3'], { env: OUTSIDE })).toMatchObject({ exit: 0, sent: ['1', '2', '3'] });
  });

  it('a file others can write supplies no limit, and the run says the file was not used', async () => {
    profile({ 'max-deletes': '2' }, 0o666);
    const result = await run(['delete', '1', '2', '3'], { env: OUTSIDE });
    expect(result).toMatchObject({ exit: 0, sent: ['1', '2', '3'] });
    expect(result.stderr).toMatch(/config file .*(writable|others)/);
  });
});
