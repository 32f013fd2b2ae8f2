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
});
