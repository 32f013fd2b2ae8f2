// Issue 36: the profile's settings add up with the environment's (flag, then variable, then
// profile, then default, for every key), and auth status and config list say where each
// setting in force comes from.
import { chmodSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inProcess, refused } from '../../../helpers/in-process.js';

const { run, file } = inProcess();
const TOKEN = 'env-token-abcdefghijkl';
const OUTSIDE = { PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: 'https://env.example.com' };
const noSuchPlant = (id: string) => refused(id, { status: 400, error: 1, message: 'Plant not found' });

function profile(settings: Record<string, string>, mode = 0o600): void {
  writeFileSync(file(), JSON.stringify({ profiles: { default: settings } }), { mode });
  chmodSync(file(), mode);
}

describe("the profile's missing-error with the token and base URL from the environment (the README's --port 0 snippet)", () => {
  it('is used: --ignore-missing counts error 1 as already absent, exit 0', async () => {
    profile({ 'missing-error': '1' });
    const result = await run(['delete', '--ignore-missing', '42'], { env: OUTSIDE, answer: noSuchPlant });
    expect(result).toMatchObject({ exit: 0, sent: ['42'], stderr: '' });
  });

  it('PLANTSTORE_MISSING_ERROR outranks it, and --missing-error outranks both', async () => {
    profile({ 'missing-error': '1' });
    const env = { ...OUTSIDE, PLANTSTORE_MISSING_ERROR: '7' };
    expect((await run(['delete', '--ignore-missing', '42'], { env, answer: noSuchPlant })).exit).toBe(1);
    expect((await run(['delete', '--ignore-missing', '--missing-error', '1', '42'], { env, answer: noSuchPlant })).exit).toBe(0);
  });

  it('from a file others can write, it is not used: one warning line, and the run goes on', async () => {
    profile({ 'missing-error': '1' }, 0o666);
    const result = await run(['delete', '--ignore-missing', '42'], { env: OUTSIDE, answer: noSuchPlant });
    expect(result.exit).toBe(1);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('warning:'))).toHaveLength(1);
    expect(result.stderr).toContain(`config file ${file()} is writable by others (mode 666)`);
  });
});

describe('auth status says where each setting in force comes from', () => {
  it('the profile from PLANTSTORE_PROFILE, the token and base URL from variables, the missing-error from the profile', async () => {
    writeFileSync(file(), JSON.stringify({ profiles: { staging: { 'missing-error': '1' } } }), { mode: 0o600 });
    const status = await run(['auth', 'status'], { env: { ...OUTSIDE, PLANTSTORE_PROFILE: 'staging' } });
    expect(status.exit).toBe(0);
    expect(status.stdout).toBe(
      [
        'Profile:  staging (from PLANTSTORE_PROFILE)',
        'Token:    env-… (from PLANTSTORE_TOKEN)',
        'Base URL: https://env.example.com (from PLANTSTORE_BASE_URL)',
        `Missing:  error 1 (from profile 'staging' in ${file()})`,
        'Guard:    no --max-deletes; at a terminal, a batch of more than 100 ids is asked about',
        `Config:   ${file()}`,
        '',
      ].join('\n'),
    );
  });

  it('--json carries the same sources', async () => {
    profile({ 'missing-error': '1' });
    const status = await run(['--profile', 'default', '--json', 'auth', 'status'], {
      env: { ...OUTSIDE, PLANTSTORE_MISSING_ERROR: '1,7' },
    });
    expect(JSON.parse(status.stdout)).toMatchObject({
      profile: 'default',
      profileSource: '--profile',
      token: { source: 'PLANTSTORE_TOKEN' },
      baseUrl: { value: 'https://env.example.com', source: 'PLANTSTORE_BASE_URL' },
      missingError: { codes: [1, 7], source: 'PLANTSTORE_MISSING_ERROR' },
    });
  });
});

describe('config list names the profile it shows (issue 41 item 6)', () => {
  it('on stderr, with where its name came from; stdout stays key=value lines', async () => {
    writeFileSync(file(), JSON.stringify({ profiles: { staging: { 'missing-error': '1' } } }), { mode: 0o600 });
    const flag = await run(['--profile', 'staging', 'config', 'list']);
    expect(flag).toMatchObject({ exit: 0, stdout: 'missing-error=1\n', stderr: "profile 'staging' (from --profile):\n" });
    const variable = await run(['config', 'list'], { env: { PLANTSTORE_PROFILE: 'staging' } });
    expect(variable.stderr).toBe("profile 'staging' (from PLANTSTORE_PROFILE):\n");
    const empty = await run(['config', 'list']);
    expect(empty).toMatchObject({ exit: 0, stdout: '', stderr: "profile 'default': no settings stored\n" });
  });
});

describe('auth status shows the guard and the shard a batch here would run with (issue 41 item 6)', () => {
  it('--max-deletes from its variable or the profile, PLANTSTORE_SHARD, each with its source', async () => {
    profile({ 'max-deletes': '500' });
    const fromProfile = await run(['auth', 'status'], { env: OUTSIDE });
    expect(fromProfile.stdout).toContain(`\nGuard:    --max-deletes 500 (from profile 'default' in ${file()})\n`);
    expect(fromProfile.stdout).not.toContain('Shard:');
    const env = { ...OUTSIDE, PLANTSTORE_MAX_DELETES: '20', PLANTSTORE_SHARD: '1/4' };
    const fromEnv = await run(['auth', 'status'], { env });
    expect(fromEnv.stdout).toContain('\nGuard:    --max-deletes 20 (from PLANTSTORE_MAX_DELETES)\nShard:    1/4 (from PLANTSTORE_SHARD)\n');
    const json = await run(['--json', 'auth', 'status'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({
      maxDeletes: { value: 20, source: 'PLANTSTORE_MAX_DELETES' },
      shard: { value: '1/4', source: 'PLANTSTORE_SHARD' },
    });
  });

  it('a value a batch would stop on is named with its error; status itself goes on', async () => {
    const status = await run(['auth', 'status'], { env: { ...OUTSIDE, PLANTSTORE_SHARD: '4/4' } });
    expect(status.exit).toBe(0);
    expect(status.stdout).toMatch(/\nShard: {4}a batch here stops: invalid PLANTSTORE_SHARD '4\/4'/);
  });
});

describe('config list says which settings the flags and variables outrank', () => {
  it('lists the profile on stdout, and each setting taken from elsewhere on stderr', async () => {
    profile({ 'base-url': 'https://profile.example.com', 'missing-error': '1', token: 'stored-token-0123456789' });
    const list = await run(['config', 'list'], { env: { ...OUTSIDE, PLANTSTORE_MISSING_ERROR: '7' } });
    expect(list.exit).toBe(0);
    expect(list.stdout).toBe('base-url=https://profile.example.com\nmissing-error=1\n');
    expect(list.stderr).toBe(
      [
        "profile 'default':",
        'note: base-url https://env.example.com comes from PLANTSTORE_BASE_URL here, which outranks the profile',
        'note: missing-error 7 comes from PLANTSTORE_MISSING_ERROR here, which outranks the profile',
        'note: token comes from PLANTSTORE_TOKEN here, which outranks the profile',
        '',
      ].join('\n'),
    );
  });

  it('nothing from elsewhere: only the profile named on stderr; --json names every source', async () => {
    profile({ 'base-url': 'https://profile.example.com', 'token-command': 'pass show ps' });
    const list = await run(['config', 'list']);
    expect(list.stderr).toBe("profile 'default':\n");
    const json = await run(['--json', '--base-url', 'https://flag.example.com', 'config', 'list']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      'base-url': 'https://profile.example.com',
      inForce: {
        'base-url': { value: 'https://flag.example.com', source: '--base-url' },
        'token-command': { value: 'pass show ps', source: `profile 'default' in ${file()}` },
      },
    });
  });
});

// config list reads through the run's own reader (flags/read.ts, config/resolve.ts): each case runs
// a delete and config list in the same environment, and holds them to the same answer.
describe('config list says what a run here does, blank variables and max-deletes included', () => {
  it('an empty PLANTSTORE_MISSING_ERROR is unset: the run takes the profile’s code, and both say so in the same warning', async () => {
    profile({ 'missing-error': '1' });
    const env = { ...OUTSIDE, PLANTSTORE_MISSING_ERROR: '' };
    const warning = `warning: PLANTSTORE_MISSING_ERROR is set but empty, so it is not used; the missing-error comes from profile 'default' in ${file()}\n`;
    const deletion = await run(['delete', '--ignore-missing', '42'], { env, answer: noSuchPlant });
    expect(deletion.exit).toBe(0);
    expect(deletion.stderr).toContain(warning);
    const list = await run(['--json', 'config', 'list'], { env });
    expect(JSON.parse(list.stdout).inForce['missing-error']).toEqual({ value: '1', source: `profile 'default' in ${file()}` });
    expect(list.stderr).toBe(warning);
  });

  it.each([
    ['PLANTSTORE_MISSING_ERROR', 'missing-error'],
    ['PLANTSTORE_MAX_DELETES', 'max-deletes'],
    ['PLANTSTORE_BASE_URL', 'base-url'],
    ['PLANTSTORE_TOKEN', 'token'],
  ])('a blank (spaces only) %s stops the run, and config list names that error for %s', async (variable, key) => {
    profile({ 'missing-error': '1', 'max-deletes': '5' });
    const env = { ...OUTSIDE, [variable]: '  ' };
    const deletion = await run(['delete', '42'], { env });
    expect(deletion.exit).toBe(3);
    const problem = deletion.error;
    expect(problem).toContain(variable);
    // Advice for where the value is: not "paste the token", which only a prompt can take.
    expect(problem).not.toContain('paste');
    const list = await run(['config', 'list'], { env });
    expect(list.exit).toBe(0);
    expect(list.stderr).toContain(`note: ${key}: a run here stops: ${problem}\n`);
    const json = await run(['--json', 'config', 'list'], { env });
    expect(JSON.parse(json.stdout).inForce[key]).toEqual({ problem });
  });

  it('a value is shown as the run reads it: PLANTSTORE_MISSING_ERROR=" 7, 7" is error 7', async () => {
    profile({ 'missing-error': '1' });
    const env = { ...OUTSIDE, PLANTSTORE_MISSING_ERROR: ' 7, 7' };
    const status = await run(['auth', 'status'], { env });
    expect(status.stdout).toContain('Missing:  error 7 (from PLANTSTORE_MISSING_ERROR)');
    const list = await run(['config', 'list'], { env });
    expect(list.stderr).toContain('note: missing-error 7 comes from PLANTSTORE_MISSING_ERROR here, which outranks the profile\n');
  });

  it('PLANTSTORE_MAX_DELETES outranks the profile’s max-deletes in the run, and config list says so', async () => {
    profile({ 'max-deletes': '5' });
    const env = { ...OUTSIDE, PLANTSTORE_MAX_DELETES: '1' };
    const refusedBatch = await run(['delete', '1', '2'], { env });
    expect(refusedBatch).toMatchObject({ exit: 9, sent: [] });
    expect(refusedBatch.stderr).toContain('PLANTSTORE_MAX_DELETES');
    const list = await run(['config', 'list'], { env });
    expect(list.stdout).toBe('max-deletes=5\n');
    expect(list.stderr).toContain('note: max-deletes 1 comes from PLANTSTORE_MAX_DELETES here, which outranks the profile\n');
  });

  it('an empty PLANTSTORE_MAX_DELETES is unset: the profile’s limit holds in the run and in config list --json', async () => {
    profile({ 'max-deletes': '1' });
    const env = { ...OUTSIDE, PLANTSTORE_MAX_DELETES: '' };
    expect((await run(['delete', '1', '2'], { env })).exit).toBe(9);
    const list = await run(['config', 'list'], { env });
    expect(list.stderr).toBe(
      `warning: PLANTSTORE_MAX_DELETES is set but empty, so it is not used; the max-deletes comes from profile 'default' in ${file()}\n` +
        "profile 'default':\n" +
        'note: base-url https://env.example.com comes from PLANTSTORE_BASE_URL here\nnote: token comes from PLANTSTORE_TOKEN here\n',
    );
    const json = await run(['--json', 'config', 'list'], { env });
    expect(JSON.parse(json.stdout).inForce['max-deletes']).toEqual({ value: '1', source: `profile 'default' in ${file()}` });
  });

  it('a file others can write supplies nothing to a run configured outside it, and config list no longer says its missing-error is in force', async () => {
    profile({ 'missing-error': '1' }, 0o666);
    expect((await run(['delete', '--ignore-missing', '42'], { env: OUTSIDE, answer: noSuchPlant })).exit).toBe(1);
    const list = await run(['--json', 'config', 'list'], { env: OUTSIDE });
    expect(JSON.parse(list.stdout).inForce['missing-error']).toBeUndefined();
  });

  it('a file others can write that a run needs: its warning once, then one note naming every setting a run here would stop on', async () => {
    profile({ token: 'stored-Token-0123456789', 'base-url': 'https://file.example.com', 'missing-error': '1' }, 0o666);
    const list = await run(['config', 'list'], { env: {} });
    expect(list.exit).toBe(0);
    const lines = list.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^warning: config file .* is writable by others \(mode 666\): nothing in it is used/);
    expect(lines[1]).toBe("profile 'default':");
    expect(lines[2]).toBe('note: base-url, missing-error, token: a run here stops on each, as the file is not trusted (the warning above)');
    // --json still gives each setting the error a run would stop on.
    const json = JSON.parse((await run(['--json', 'config', 'list'], { env: {} })).stdout).inForce;
    expect(Object.keys(json).sort()).toEqual(['base-url', 'missing-error', 'token']);
    for (const setting of Object.values(json))
      expect(setting).toEqual({ problem: expect.stringMatching(/^refusing to use the .* of profile 'default'/) });
  });
});

describe('config list never shows the token', () => {
  it('the stored token pasted into PLANTSTORE_BASE_URL is masked in the note that names its error', async () => {
    const stored = 'stored-Token-0123456789';
    profile({ token: stored });
    const list = await run(['config', 'list'], { env: { PLANTSTORE_BASE_URL: stored } });
    expect(list.exit).toBe(0);
    expect(list.stderr).toContain("note: base-url: a run here stops: invalid base URL '***' (from PLANTSTORE_BASE_URL)");
    expect(list.stderr + list.stdout).not.toContain(stored);
  });
});
