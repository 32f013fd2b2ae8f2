// `plantstore sandbox` as a user starts it: the token from PLANTSTORE_SANDBOX_TOKEN
// (argv is visible in ps), a refusal, and the URL line. Loopback only; each sandbox is
// stopped with SIGTERM and awaited. --token over the env, the public default and every
// refusal are test/unit/commands/sandbox's, through runCli; the public default also serves
// test/e2e/color and sandbox-stop.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { finished, plantstoreOnPath, type RunResult, runPlantstore, tempConfigDir } from '../helpers/cli.js';
import { startSandboxProcess } from '../helpers/sandbox-process.js';

const ENV_TOKEN = 'e2e-Sandbox-Env-9d41b7';

let running: Array<{ stop(): Promise<RunResult> }> = [];
let configs: Array<ReturnType<typeof tempConfigDir>> = [];

afterEach(async () => {
  // A test that failed before stopping its sandbox: stop it anyway.
  await Promise.all(running.map((sandbox) => sandbox.stop()));
  running = [];
  for (const config of configs) config.cleanup();
  configs = [];
});

/** `plantstore sandbox --port 0 ...` with `env`, stopped after the test if it has not been. */
async function sandbox(args: string[], env: Record<string, string> = {}): Promise<{ url: string; stop(): Promise<RunResult> }> {
  const started = await startSandboxProcess(args, env);
  const handle = { url: started.url, stop: () => started.stop('SIGTERM') };
  running.push(handle);
  return handle;
}

/** plantstore delete <id> against the sandbox with `token`: its exit code. */
async function deleteWith(url: string, token: string, id: string): Promise<number | null> {
  const config = tempConfigDir();
  configs.push(config);
  const run = await runPlantstore(['delete', id], {
    env: { PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_BASE_URL: url, PLANTSTORE_TOKEN: token },
  });
  return run.code;
}

describe('the sandbox token', () => {
  it('comes from PLANTSTORE_SANDBOX_TOKEN; the public default is then refused, and the token never printed', async () => {
    const sb = await sandbox([], { PLANTSTORE_SANDBOX_TOKEN: ENV_TOKEN });
    expect(await deleteWith(sb.url, ENV_TOKEN, '1')).toBe(0);
    expect(await deleteWith(sb.url, 'sandbox-token', '2')).toBe(4);
    const stopped = await sb.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toBe(`${sb.url}\n`);
    expect(stopped.stderr).toContain(`  echo "$PLANTSTORE_SANDBOX_TOKEN" | plantstore auth login --with-token --base-url ${sb.url}`);
    expect(stopped.stderr).toContain('sandbox stopped');
    expect(stopped.stderr).not.toContain(ENV_TOKEN);
  });

  // The paste line, run by a shell as printed: a masked `echo *** |` expands into file names there.
  it.each<[string, Record<string, string>, string]>([
    ['the public default', {}, 'echo sandbox-token |'],
    [
      'the public default, also exported as PLANTSTORE_TOKEN (output masks it)',
      { PLANTSTORE_TOKEN: 'sandbox-token' },
      'echo "$PLANTSTORE_TOKEN" |',
    ],
    ['PLANTSTORE_SANDBOX_TOKEN', { PLANTSTORE_SANDBOX_TOKEN: ENV_TOKEN }, 'echo "$PLANTSTORE_SANDBOX_TOKEN" |'],
  ])('the login line for %s logs in when pasted into sh, and no line wraps at 110 columns', async (_name, env, echo) => {
    const sb = await sandbox([], env);
    const stopped = await sb.stop();
    const lines = stopped.stderr.split('\n').filter((line) => line.startsWith('  '));
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(110);
    const login = lines[0]?.trim() ?? '';
    expect(login.startsWith(echo)).toBe(true);
    expect(login).not.toContain('***');
    // The line as printed, through a real shell with the same variables, then the token it stored.
    const config = tempConfigDir();
    configs.push(config);
    const PATH = `${plantstoreOnPath(config.dir)}:${process.env['PATH'] ?? ''}`;
    const child = spawn('sh', ['-c', `${login} >/dev/null && plantstore auth token`], {
      cwd: config.dir,
      env: { ...env, PATH, HOME: config.dir, PLANTSTORE_CONFIG_DIR: config.dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const shell = await finished(child);
    expect(shell.code).toBe(0);
    expect(shell.stderr).toMatch(/^✓ Token stored for profile 'default' in /);
    expect(shell.stdout.trim()).toBe(env['PLANTSTORE_SANDBOX_TOKEN'] ?? 'sandbox-token');
  });

  it('refuses an empty PLANTSTORE_SANDBOX_TOKEN, in one line, without listening: exit 3', async () => {
    const run = await runPlantstore(['sandbox', '--port', '0'], { env: { PLANTSTORE_SANDBOX_TOKEN: '' } });
    expect(run).toMatchObject({
      code: 3,
      stdout: '',
      stderr:
        'plantstore: the sandbox token (from PLANTSTORE_SANDBOX_TOKEN) is empty: give a token of at least 8 characters (letters, digits, - . _ ~ + /), or unset PLANTSTORE_SANDBOX_TOKEN for the public default sandbox-token\n',
    });
  });
});

describe('sandbox --help', () => {
  it('names PLANTSTORE_SANDBOX_TOKEN, and says --token is visible to other users', async () => {
    const run = await runPlantstore(['sandbox', '--help']);
    expect(run.code).toBe(0);
    const help = run.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--token <t> bearer token the sandbox accepts, for throwaway tokens: other users see it in ps');
    expect(help).toContain('prefer env PLANTSTORE_SANDBOX_TOKEN');
    expect(help).toContain(
      'Environment: PLANTSTORE_SANDBOX_TOKEN the token plantstore sandbox accepts; unlike --token, ps does not show it',
    );
  });
});

describe.runIf(process.platform === 'linux')('the URL line', () => {
  it('on another loopback address (127.0.0.2): that URL, which plantstore accepts, and no warning', async () => {
    const sb = await sandbox(['--host', '127.0.0.2']);
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    expect(await deleteWith(sb.url, 'sandbox-token', '1')).toBe(0);
    const stopped = await sb.stop();
    expect(stopped.stderr).not.toContain('warning');
  });
});
