// The config file against what real processes meet: a FIFO at its path (it hung every
// command, signals included), kill -9 at seeded random moments among concurrent logins, and a
// full disk (a small tmpfs, mounted where the tests run as root; skipped elsewhere), and a file
// that others can write, or a path to it that others can change, from which nothing is used (issues 27 and 34).
// Symlinks, foreign owners and sizes are test/unit/config/planted-files.test.ts's.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lchownSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endsWithin, finished, runPlantstore, startPlantstore, tempConfigDir } from '../helpers/cli.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { seeded } from '../helpers/seeded.js';
import { smallDisk } from '../helpers/small-disk.js';

let config: ReturnType<typeof tempConfigDir>;
let file: string;
beforeEach(() => {
  config = tempConfigDir();
  file = path.join(config.dir, 'config.json');
});
afterEach(() => config.cleanup());

const env = (extra: Record<string, string> = {}) => ({ PLANTSTORE_CONFIG_DIR: config.dir, ...extra });

/** Runs the CLI; one still running after `limitMs` (hung on the FIFO, waiting on a lock) fails the test. */
function runGuarded(args: string[], extra: Record<string, string> = {}, limitMs = 15_000, input = '') {
  return endsWithin(startPlantstore(args, { env: env(extra), input }), limitMs);
}

describe.skipIf(process.platform === 'win32')('a FIFO at config.json', () => {
  beforeEach(() => execFileSync('mkfifo', [file]));

  it.each([[['config', 'list']], [['auth', 'status']], [['delete', '--dry-run', '1']]])(
    'plantstore %j stops at once with exit 3, saying what is there',
    async (args) => {
      const result = await runGuarded(args, { PLANTSTORE_BASE_URL: 'https://plants.example.com' });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain(`config file ${file} is not a regular file (a FIFO)`);
    },
  );

  it('a run configured by the environment is not stopped by it: skipped, said in one line', async () => {
    const result = await runGuarded(['--json', 'delete', '--dry-run', '1', '2'], {
      PLANTSTORE_TOKEN: 'env-Token-12345678',
      PLANTSTORE_BASE_URL: 'https://plants.example.com',
    });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(2);
    expect(result.stderr.split('\n').filter((line) => line.startsWith('warning:'))).toEqual([
      `warning: config file skipped, its settings not used: config file ${file} is not a regular file (a FIFO): move it away, or set PLANTSTORE_CONFIG_DIR`,
    ]);
  });
});

describe('kill -9 at seeded random moments during concurrent logins', () => {
  it.each([11, 29, 47])(
    'seed %i: the file stays valid JSON, every login that said "stored" is kept, and the next login is not held up',
    async (seed) => {
      const random = seeded(seed);
      const profiles = Array.from({ length: 16 }, (_, i) => `p${i}`);
      const runs = profiles.map((profile) => {
        const child = startPlantstore(['--profile', profile, 'auth', 'login', '--with-token'], {
          env: env(),
          input: `kill-Token-${profile}-123456\n`,
        });
        // Half are killed somewhere between start-up and the end of their write.
        const killAt = random() < 0.5 ? 50 + random() * 300 : undefined;
        const timer = killAt === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAt);
        return finished(child).then((result) => {
          clearTimeout(timer);
          return { profile, result };
        });
      });
      const ended = await Promise.all(runs);
      const kept = existsSync(file)
        ? (JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, { token: string }> }).profiles
        : {};
      for (const { profile, result } of ended) {
        if (result.code === 0) expect(kept[profile]?.token).toBe(`kill-Token-${profile}-123456`);
        else expect(result.signal).toBe('SIGKILL');
      }
      // A lock left by a killed writer belongs to a process that is gone: the next login takes it at once.
      // (Without that, it waits 10 s for the lock and then fails: the guard below is shorter.)
      const next = await runGuarded(['--profile', 'after', 'auth', 'login', '--with-token'], {}, 8_000, 'after-Token-12345678\n');
      expect(next.code).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8')).profiles.after.token).toBe('after-Token-12345678');
    },
  );
});

describe('a lock left by a writer killed with -9', () => {
  it('on this machine, with its process gone: the next login takes it at once instead of waiting 10 s and failing', async () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(`${file}.lock`, `${gone} ${hostname()}`, { mode: 0o600 });
    const next = await runGuarded(['auth', 'login', '--with-token'], {}, 8_000, 'after-Token-12345678\n');
    expect(next.code).toBe(0);
    expect(readdirSync(config.dir)).toEqual(['config.json']);
  });
});

describe('a full disk', () => {
  it.each([[{}], [{ SNAP: '/snap/code/1' }]])(
    'a login fails with exit 3, the file keeps every profile byte for byte, and no lock is left: %j',
    async (extra) => {
      const disk = smallDisk(config.dir, '64k');
      if (disk === undefined) {
        console.warn('skipped: cannot mount a tmpfs here (needs root on Linux)');
        return;
      }
      try {
        const diskEnv = { PLANTSTORE_CONFIG_DIR: disk.dir, ...extra };
        const profiles = Array.from({ length: 60 }, (_, i) => [`p${i}`, { token: `disk-Token-${i}-12345678` }]);
        writeFileSync(path.join(disk.dir, 'config.json'), JSON.stringify({ profiles: Object.fromEntries(profiles) }), { mode: 0o600 });
        const before = readFileSync(path.join(disk.dir, 'config.json'));
        disk.fill();
        const result = await runPlantstore(['--profile', 'new', 'auth', 'login', '--with-token'], {
          env: diskEnv,
          input: 'new-Token-12345678\n',
        });
        expect(result.code).toBe(3);
        // In words, with what to do; the errno is for --verbose.
        expect(result.stderr).toMatch(/: no space left on the device; free some space/);
        expect(result.stderr).not.toMatch(/ENOSPC/);
        expect(readFileSync(path.join(disk.dir, 'config.json')).equals(before)).toBe(true);
        expect(readdirSync(disk.dir).sort()).toEqual(['config.json', 'filler']);
        // Room again: the next write is not told the folder is locked.
        spawnSync('rm', [path.join(disk.dir, 'filler')]);
        const next = await runPlantstore(['--profile', 'new', 'auth', 'login', '--with-token'], {
          env: diskEnv,
          input: 'new-Token-12345678\n',
        });
        expect(next.code).toBe(0);
      } finally {
        disk.unmount();
      }
    },
  );
});

// The folder is 0755 and the file ours, but another local user can write it: what it says could be theirs.
describe.skipIf(process.platform === 'win32')('a config file others can write', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    // Plant 7 is not there: 400 with error 7, which a planted missing-error would turn into "absent".
    server = await startScriptedServer((req, res) =>
      req.url?.endsWith('/plants/7')
        ? res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":7,"message":"plant 7 does not exist"}')
        : res.writeHead(204).end(),
    );
  });
  afterEach(() => server.close());

  const planted = (profile: Record<string, string>, mode: number): void => {
    writeFileSync(file, JSON.stringify({ profiles: { default: profile } }), { mode });
    chmodSync(file, mode);
  };

  it.each([
    { octal: '666', mode: 0o666 },
    { octal: '646', mode: 0o646 },
    { octal: '660', mode: 0o660 },
  ])('mode $octal: its token-command is never run, exit 3, nothing sent', async ({ mode, octal }) => {
    const marker = path.join(config.dir, 'ran');
    const script = path.join(config.dir, 'planted.mjs');
    writeFileSync(
      script,
      `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(marker)}, 'ran'); console.log('planted-Token-12345678');\n`,
    );
    planted({ 'token-command': `${process.execPath} ${script}` }, mode);
    const result = await runGuarded(['delete', '1'], { PLANTSTORE_BASE_URL: server.url });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `warning: config file ${file} is writable by others (mode ${octal}): nothing in it is used (token, base-url, missing-error, token-command, max-deletes), and it is not rewritten; to use it, check it, then run chmod 600 ${file}\n` +
        `plantstore: refusing to run the token-command of profile 'default': config file ${file} is writable by others (mode ${octal}), so someone else could have put it there; check it, then run chmod 600 ${file}\n`,
    );
    expect(existsSync(marker)).toBe(false);
    expect(server.requests).toEqual([]);
  });

  it('mode 666: its base-url is not used, so the token is not sent there: exit 3', async () => {
    planted({ token: 'stored-Token-12345678', 'base-url': server.url }, 0o666);
    const result = await runGuarded(['delete', '1']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `refusing to use the base-url of profile 'default': config file ${file} is writable by others (mode 666), so someone else could have pointed your token at their server; check it, then run chmod 600 ${file}\n`,
    );
    expect(server.requests).toEqual([]);
    // Once the user has checked it and made it theirs, it is used.
    chmodSync(file, 0o600);
    expect(await runGuarded(['delete', '1'])).toMatchObject({ code: 0, stdout: 'Deleted plant 1\n', stderr: '' });
    expect(server.requests).toHaveLength(1);
  });

  // Issue 34: a planted missing-error turned the server's failures into "already absent".
  it('mode 666, token and base URL from the environment: its missing-error is not used, said in one line, and the run goes on', async () => {
    planted({ 'missing-error': '7' }, 0o666);
    const result = await runGuarded(['--profile', 'default', 'delete', '--ignore-missing', '7'], {
      PLANTSTORE_TOKEN: 'env-Token-12345678',
      PLANTSTORE_BASE_URL: server.url,
    });
    // Error 7 stays a failure: the planted code did not make it "already absent".
    expect(result).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `warning: config file ${file} is writable by others (mode 666): nothing in it is used (token, base-url, missing-error, token-command, max-deletes), and it is not rewritten; to use it, check it, then run chmod 600 ${file}\n✗ plant 7: error 7: plant 7 does not exist (HTTP 400)\n`,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('mode 666, and the run needs nothing from it (token and base URL from the environment): one line, and it goes on', async () => {
    planted({ token: 'stored-Token-12345678' }, 0o666);
    const result = await runGuarded(['--profile', 'default', 'delete', '1'], {
      PLANTSTORE_TOKEN: 'env-Token-12345678',
      PLANTSTORE_BASE_URL: server.url,
    });
    expect(result).toMatchObject({
      code: 0,
      stdout: 'Deleted plant 1\n',
      stderr: `warning: config file ${file} is writable by others (mode 666): nothing in it is used (token, base-url, missing-error, token-command, max-deletes), and it is not rewritten; to use it, check it, then run chmod 600 ${file}\n`,
    });
    expect(server.requests).toHaveLength(1);
  });
});

// Issue 34: the folder check followed a symlink and never asked who owned it.
describe.runIf(process.platform !== 'win32' && process.getuid?.() === 0)(
  'a config folder reached through a link another user planted',
  () => {
    it("the issue's case: in a shared sticky folder, to a folder of yours: the token-command is never run, exit 3", async () => {
      const shared = path.join(config.dir, 'shared');
      mkdirSync(shared);
      chmodSync(shared, 0o1777);
      const yours = path.join(config.dir, 'yours');
      mkdirSync(yours, { mode: 0o700 });
      const marker = path.join(config.dir, 'ran');
      const script = path.join(yours, 'token.mjs');
      writeFileSync(
        script,
        `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(marker)}, 'ran'); console.log('planted-Token-12345678');\n`,
      );
      writeFileSync(
        path.join(yours, 'config.json'),
        JSON.stringify({ profiles: { default: { 'token-command': `${process.execPath} ${script}` } } }),
        {
          mode: 0o600,
        },
      );
      const link = path.join(shared, 'plantstore');
      symlinkSync(yours, link);
      lchownSync(link, 65534, 65534);
      const result = await endsWithin(
        startPlantstore(['delete', '1'], { env: { PLANTSTORE_CONFIG_DIR: link, PLANTSTORE_BASE_URL: 'http://127.0.0.1:9' } }),
        15_000,
      );
      expect(result.code).toBe(3);
      expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
        `plantstore: refusing to run the token-command of profile 'default': config file ${link}/config.json is reached through symbolic link ${link}, which belongs to another user (uid 65534), who can point it anywhere, so someone else could have put it there; check the file, then remove it, or set PLANTSTORE_CONFIG_DIR to a folder of your own`,
      );
      expect(existsSync(marker)).toBe(false);
    });
  },
);
