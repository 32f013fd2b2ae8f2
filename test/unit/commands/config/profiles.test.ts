// config profiles (issue 29 item 2): every profile with its base URL and where its token comes
// from, never the token, as kubectl's config get-contexts lists contexts; and the same as JSON.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Exit } from '../../../../src/errors.js';
import { inProcess } from '../../../helpers/in-process.js';

const { run, file } = inProcess();
const TOKEN = 'stored-token-0123456789';

function threeProfiles(): void {
  const profiles = {
    default: { 'base-url': 'https://api.example.com/v1', token: TOKEN },
    staging: { 'base-url': 'https://staging.example.com', 'token-command': 'op read op://vault/plantstore/token' },
    empty: { 'missing-error': '1' },
  };
  writeFileSync(file(), JSON.stringify({ profiles }), { mode: 0o600 });
}

describe('config profiles', () => {
  it('lists each profile, its base URL and token source, the one in use marked; never the token', async () => {
    threeProfiles();
    const result = await run(['--profile', 'staging', 'config', 'profiles']);
    expect(result.exit).toBe(Exit.ok);
    expect(result.stdout).toMatchInlineSnapshot(`
      "CURRENT  NAME     BASE URL                     TOKEN
               default  https://api.example.com/v1   stored
      *        staging  https://staging.example.com  token command
               empty    not set                      none
      "
    `);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    expect(result.stderr).toBe('');
  });

  it('--json: one object, the token as its kind only', async () => {
    threeProfiles();
    const result = await run(['config', 'profiles', '--json'], { env: { PLANTSTORE_TOKEN: 'env-token-0123456789' } });
    expect(JSON.parse(result.stdout)).toEqual({
      path: file(),
      profiles: [
        { name: 'default', current: true, baseUrl: 'https://api.example.com/v1', token: 'stored' },
        { name: 'staging', current: false, baseUrl: 'https://staging.example.com', token: 'command' },
        { name: 'empty', current: false, baseUrl: null, token: null },
      ],
      skipped: [],
      environment: ['PLANTSTORE_TOKEN'],
    });
    expect(result.stdout).not.toContain(TOKEN);
  });

  it('lists default even with no config file, and says what the environment overrides', async () => {
    const result = await run(['config', 'profiles'], { env: { PLANTSTORE_BASE_URL: 'https://ci.example.com' } });
    expect(result.exit).toBe(Exit.ok);
    expect(result.stdout).toBe('CURRENT  NAME     BASE URL  TOKEN\n*        default  not set   none\n');
    expect(result.stderr).toBe('note: PLANTSTORE_BASE_URL is set: it is used instead of what the profiles say\n');
  });

  // Issue 34: a list that leaves profiles out without saying so looks whole.
  it('says how many profiles it skipped (names --profile cannot select) and why, in words and in --json', async () => {
    const profiles = {
      default: { token: TOKEN },
      'bad name': { token: TOKEN },
      '-dash': {},
      'esc\u001b[31m': {},
    };
    writeFileSync(file(), JSON.stringify({ profiles }), { mode: 0o600 });
    const human = await run(['config', 'profiles']);
    expect(human.exit).toBe(Exit.ok);
    expect(human.stdout).toBe('CURRENT  NAME     BASE URL  TOKEN\n*        default  not set   stored\n');
    expect(human.stderr).toBe(
      `note: 3 profiles in ${file()} not listed ('bad name', '-dash', 'esc\\x1b[31m'): their names are not profile names (letters, digits, '-' and '_', at most 64, starting with a letter or digit), which --profile cannot select; rename them in the file by hand\n`,
    );
    const machine = await run(['config', 'profiles', '--json']);
    expect(JSON.parse(machine.stdout).skipped).toEqual(['bad name', '-dash', 'esc\u001b[31m']);
    expect(machine.stderr).toContain('note: 3 profiles');
  });

  it('one skipped profile is said in the singular', async () => {
    writeFileSync(file(), JSON.stringify({ profiles: { 'a b': {} } }), { mode: 0o600 });
    expect((await run(['config', 'profiles'])).stderr).toMatch(
      /^note: 1 profile in .* not listed \('a b'\): its name is not a profile name .* rename it in the file by hand\n$/,
    );
  });

  it('masks a password and the query values in a stored base URL, and cuts a fragment (a hand-edited file), in words and in --json', async () => {
    const profiles = {
      default: { 'base-url': 'https://user:s3cret-pass@api.example.com/v1?api_key=k3y-123' },
      other: { 'base-url': 'https://api.example.com/v2#frag' },
    };
    writeFileSync(file(), JSON.stringify({ profiles }), { mode: 0o600 });
    const human = await run(['config', 'profiles']);
    expect(human.stdout).toContain('https://***@api.example.com/v1?api_key=***');
    expect(human.stdout).toContain('https://api.example.com/v2#…');
    const machine = await run(['config', 'profiles', '--json']);
    expect(JSON.parse(machine.stdout).profiles.map((row: { baseUrl: string }) => row.baseUrl)).toEqual([
      'https://***@api.example.com/v1?api_key=***',
      'https://api.example.com/v2#…',
    ]);
    for (const secret of ['s3cret-pass', 'k3y-123', 'user:', 'frag']) expect(human.stdout + machine.stdout).not.toContain(secret);
  });
});
