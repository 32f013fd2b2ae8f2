// One rule for every command that reads a profile (config/profiles.ts unknownProfile, fed by
// service/settings.ts profileVariable): an unknown profile named by PLANTSTORE_PROFILE says so,
// and how to change it; one typed with --profile does not claim to come from a variable.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inProcess } from '../../helpers/in-process.js';

const { run, file } = inProcess();

const COMMANDS = [
  ['config', 'get', 'base-url'],
  ['config', 'list'],
  ['config', 'unset', 'base-url'],
  ['auth', 'status'],
  ['auth', 'logout'],
  ['auth', 'token'],
  ['delete', '1'],
];

describe.each(COMMANDS)('plantstore %s %s %s', (...argv) => {
  const twoProfiles = () =>
    writeFileSync(file(), JSON.stringify({ profiles: { default: { 'missing-error': '1' }, staging: { 'missing-error': '1' } } }), {
      mode: 0o600,
    });

  it('a name from PLANTSTORE_PROFILE: "from PLANTSTORE_PROFILE", and how to change it', async () => {
    twoProfiles();
    const result = await run(argv.filter(Boolean), { env: { PLANTSTORE_PROFILE: 'stagng' } });
    expect(result.exit).toBe(3);
    expect(result.error).toMatch(
      /^unknown profile 'stagng' \(from PLANTSTORE_PROFILE; did you mean staging\?\): .*, or set PLANTSTORE_PROFILE to a profile there is$/,
    );
  });

  it('a name typed with --profile: no variable named', async () => {
    twoProfiles();
    const result = await run(['--profile', 'stagng', ...argv.filter(Boolean)]);
    expect(result.exit).toBe(3);
    expect(result.error).toMatch(/^unknown profile 'stagng' \(did you mean staging\?\): /);
    expect(result.error).not.toContain('PLANTSTORE_PROFILE');
  });
});
