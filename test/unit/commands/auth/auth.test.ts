// auth login, logout, status and token, in-process on a temporary config folder: where the token
// is stored, that it is shown masked, and the tokens login refuses.
import { describe, expect, it } from 'vitest';
import { CliError, Exit } from '../../../../src/errors.js';
import { expectUsageError, inProcess } from '../../../helpers/in-process.js';
import { normalize } from '../normalize.js';

const TOKEN = 'sandbox-token-0123456789';
const BASE = 'https://api.example.com';

const { run, stored, dir } = inProcess();

describe('auth', () => {
  it('login --with-token stores a trimmed token; status masks it; logout keeps base-url', async () => {
    await run(['config', 'set', 'base-url', BASE]);

    const login = await run(['auth', 'login', '--with-token'], { stdin: [`  ${TOKEN}\n`] });
    expect(login.error).toBeUndefined();
    expect(login.exit).toBe(0);
    expect(login.stdout).toBe('');
    expect(login.stderr).not.toContain(TOKEN);
    expect(stored()?.profiles?.['default']).toEqual({ 'base-url': BASE, token: TOKEN });

    const status = await run(['auth', 'status']);
    expect(status.exit).toBe(0);
    expect(status.stdout).toContain('sand…');
    expect(status.stdout).not.toContain(TOKEN);
    expect(status.stdout).not.toContain('sandb');
    expect(status.stdout).toContain(BASE);

    const logout = await run(['auth', 'logout']);
    expect(logout.exit).toBe(0);
    expect(stored()?.profiles?.['default']).toEqual({ 'base-url': BASE });
    const get = await run(['config', 'get', 'base-url']);
    expect(get.stdout).toBe(`${BASE}\n`);

    const after = await run(['auth', 'status']);
    expect(after.error).toBeUndefined();
    expect(after.exit).toBe(Exit.auth);
  });

  it('login reads a token split across chunks', async () => {
    const result = await run(['auth', 'login', '--with-token'], { stdin: ['sandbox-', 'token-', '0123456789\r\n'] });
    expect(result.exit).toBe(0);
    expect(stored()?.profiles?.['default']?.token).toBe(TOKEN);
  });

  it('status --json masks the token too', async () => {
    await run(['auth', 'login', '--with-token'], { stdin: [TOKEN] });
    const status = await run(['auth', 'status', '--json']);
    expect(status.exit).toBe(0);
    expect(status.stdout).not.toContain(TOKEN);
    expect(JSON.parse(status.stdout) as unknown).toMatchObject({ profile: 'default', token: { masked: 'sand…' } });
  });

  it('status with no token anywhere exits 4', async () => {
    const result = await run(['auth', 'status']);
    expect(result.error).toBeUndefined();
    expect(result.exit).toBe(Exit.auth);
    expect({ stdout: normalize(result.stdout, { '<dir>': dir() }), stderr: result.stderr }).toMatchInlineSnapshot(`
      {
        "stderr": "No token for profile 'default': run plantstore auth login, or set PLANTSTORE_TOKEN
      ",
        "stdout": "Profile:  default
      Token:    none
      Base URL: not set
      Guard:    no --max-deletes; at a terminal, a batch of more than 100 ids is asked about
      Config:   <dir>/config.json
      ",
      }
    `);
  });

  it('token prints the stored token, alone, on stdout', async () => {
    await run(['auth', 'login', '--with-token'], { stdin: [`${TOKEN}\n`] });
    const result = await run(['auth', 'token']);
    expect(result.exit).toBe(0);
    expect(result.stdout).toBe(`${TOKEN}\n`);
  });

  it('token prefers PLANTSTORE_TOKEN', async () => {
    await run(['auth', 'login', '--with-token'], { stdin: [`${TOKEN}\n`] });
    expect((await run(['auth', 'token'], { env: { PLANTSTORE_TOKEN: 'env-token-value-1234' } })).stdout).toBe('env-token-value-1234\n');
  });

  it('token with none stored is exit 4', async () => {
    const result = await run(['auth', 'token']);
    expect(result.thrown).toBeInstanceOf(CliError);
    expect(result.exit).toBe(Exit.auth);
    expect(result.stdout).toBe('');
  });

  it('login without --with-token on a non-TTY stdin is a usage error', async () => {
    const result = await run(['auth', 'login'], { stdin: [`${TOKEN}\n`] });
    expectUsageError(result, /--with-token/);
    expect(result.error).toMatchInlineSnapshot(
      `"standard input is not a terminal: pipe the token with plantstore auth login --with-token"`,
    );
    expect(stored()).toBeUndefined();
  });

  it.each([
    ['inner whitespace', ['sandbox token 0123456789\n']],
    ['an inner line break', ['sandbox-token\n0123456789\n']],
    ['nothing at all', ['  \n']],
    ['a control character', ['sandbox-\u0007token\n']],
  ])('login with %s is exit 2 and stores nothing', async (_name, stdin) => {
    const result = await run(['auth', 'login', '--with-token'], { stdin });
    expectUsageError(result, /token/);
    expect(result.error).toMatchSnapshot();
    expect(stored()).toBeUndefined();
  });

  it('login with an http --base-url to a remote host stores nothing (exit 3)', async () => {
    const result = await run(['--base-url', 'http://api.example.com', 'auth', 'login', '--with-token'], { stdin: [TOKEN] });
    expect(result.thrown).toBeInstanceOf(CliError);
    expect(result.exit).toBe(Exit.config);
    expect(stored()).toBeUndefined();
  });

  it('login with --base-url stores both', async () => {
    const result = await run(['--base-url', 'http://127.0.0.1:8080/', 'auth', 'login', '--with-token'], { stdin: [TOKEN] });
    expect(result.exit).toBe(0);
    expect(stored()?.profiles?.['default']).toEqual({ token: TOKEN, 'base-url': 'http://127.0.0.1:8080' });
  });
});
