// No secret a base URL holds is written or shown (issue 40): a token in its path (an API of the
// `…/bot<token>/` style, or a token pasted into the wrong variable), stored by `auth login` and
// never given in PLANTSTORE_TOKEN, stays out of the journal's bytes and out of `journal status`;
// a resume with the masked journal still knows its base URL and refuses another; `config list`
// and `config get` show a stored base URL's password and query values masked.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPlantstore, tempConfigDir } from '../helpers/cli.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'pathSecret-Token-7c4e19ab2d';

let config: ReturnType<typeof tempConfigDir>;
let scratch: string;
let server: ScriptedServer;
beforeEach(async () => {
  config = tempConfigDir();
  scratch = mkdtempSync(path.join(tmpdir(), 'plantstore-url-secrets-'));
  // The API of the `/bot<token>/` style: the token in the path is the credential, checked as such.
  server = await startScriptedServer((req, res) => {
    res.writeHead(req.url?.startsWith(`/bot${TOKEN}/plants/`) ? 204 : 404).end();
  });
});
afterEach(async () => {
  await server.close();
  config.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** The token stored by `auth login` in the config file, the base URL (with the token in its path) in the variable. */
const env = (baseUrl: string) => ({ PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_BASE_URL: baseUrl, PLANTSTORE_RETRIES: '0' });

async function login(): Promise<void> {
  const stored = await runPlantstore(['auth', 'login', '--with-token'], {
    env: { PLANTSTORE_CONFIG_DIR: config.dir },
    input: `${TOKEN}\n`,
  });
  expect(stored.code).toBe(0);
}

describe('a token in the base URL path, stored by auth login', () => {
  it('is in neither the journal file nor journal status; a resume matches the masked journal and refuses another URL', async () => {
    await login();
    const baseUrl = `${server.url}/bot${TOKEN}`;
    const journal = path.join(scratch, 'job.journal');
    const first = await runPlantstore(['delete', '--journal', journal, '1', '2', '3'], { env: env(baseUrl) });
    expect(first.code).toBe(0);
    expect(server.requests).toHaveLength(3);

    const bytes = readFileSync(journal, 'utf8');
    expect(bytes).not.toContain(TOKEN);
    expect(JSON.parse(bytes.split('\n')[0] as string)).toMatchObject({ baseUrl: `${server.url}/bot***` });

    // Read as an operator would, with no token registered anywhere: only the file's words can show it.
    for (const json of [[], ['--json']]) {
      const status = await runPlantstore([...json, 'journal', 'status', journal], { env: { PLANTSTORE_CONFIG_DIR: scratch } });
      expect(status.code).toBe(0);
      expect(status.stdout + status.stderr).not.toContain(TOKEN);
      expect(status.stdout).toContain(`${server.url}/bot***`);
    }

    // The same command again: the masked header is this run's, and every id is done.
    const again = await runPlantstore(['delete', '--journal', journal, '1', '2', '3', '4'], { env: env(baseUrl) });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Plant 1 already deleted (journal)');
    expect(server.requests).toHaveLength(4);

    // Another base URL that masks alike (another token in the same place) is another run: refused, nothing sent.
    const otherToken = 'otherSecret-Token-51d0e8';
    const other = await runPlantstore(['delete', '--journal', journal, '5'], {
      env: { ...env(`${server.url}/bot${otherToken}`), PLANTSTORE_TOKEN: otherToken },
    });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('was written for another base URL that also prints as');
    expect(other.stderr).not.toContain(TOKEN);
    expect(server.requests).toHaveLength(4);
    // And a plainly different one.
    const moved = await runPlantstore(['delete', '--journal', journal, '5'], { env: env(`${server.url}/v2/bot${TOKEN}`) });
    expect(moved.code).toBe(2);
    expect(moved.stderr).toContain(`was written for ${server.url}/bot***`);
    expect(moved.stderr).not.toContain(TOKEN);
    expect(server.requests).toHaveLength(4);
  });

  it('the journal masks it also when the run uses another token (a token kept on this machine, pasted into the URL)', async () => {
    await login();
    const journal = path.join(scratch, 'other.journal');
    const result = await runPlantstore(['delete', '--journal', journal, '1', '2'], {
      env: { ...env(`${server.url}/bot${TOKEN}`), PLANTSTORE_TOKEN: 'runToken-0a9b8c7d6e' },
    });
    expect(result.code).toBe(0);
    expect(readFileSync(journal, 'utf8')).not.toContain(TOKEN);
  });

  it('config set, config get base-url, config list and config profiles show it masked', async () => {
    await login();
    const set = await runPlantstore(['config', 'set', 'base-url', `${server.url}/bot${TOKEN}`], {
      env: { PLANTSTORE_CONFIG_DIR: config.dir },
    });
    expect(set.code).toBe(0);
    expect(set.stdout + set.stderr).not.toContain(TOKEN);
    for (const args of [
      ['config', 'get', 'base-url'],
      ['config', 'list'],
      ['config', 'profiles'],
      ['--json', 'config', 'get', 'base-url'],
      ['--json', 'config', 'list'],
      ['--json', 'config', 'profiles'],
    ]) {
      const shown = await runPlantstore(args, { env: { PLANTSTORE_CONFIG_DIR: config.dir } });
      expect(shown.code).toBe(0);
      expect(shown.stdout + shown.stderr).not.toContain(TOKEN);
      expect(shown.stdout).toContain(`${server.url}/bot***`);
    }
  });
});

describe('a journal written before masking, its header holding the token in clear', () => {
  it('journal status masks the token that auth login stored, human and --json', async () => {
    await login();
    const journal = path.join(scratch, 'old.journal');
    const header = {
      plantstore: 'delete-journal',
      version: 2,
      baseUrl: `${server.url}/bot${TOKEN}`,
      profile: 'default',
      started: '2026-11-27T10:00:00.000Z',
    };
    writeFileSync(journal, `${JSON.stringify(header)}\n{"id":1,"sent":true}\n{"id":1,"deleted":true,"status":204}\n`, { mode: 0o600 });
    for (const json of [[], ['--json']]) {
      const status = await runPlantstore([...json, 'journal', 'status', journal], { env: { PLANTSTORE_CONFIG_DIR: config.dir } });
      expect(status.code).toBe(0);
      expect(status.stdout).toContain(`${server.url}/bot***`);
      expect(status.stdout + status.stderr).not.toContain(TOKEN);
    }
  });
});

describe('a stored base URL with a password and a query key (written by hand)', () => {
  it('config get and config list show both masked, the names kept', async () => {
    writeFileSync(
      path.join(config.dir, 'config.json'),
      JSON.stringify({ profiles: { default: { 'base-url': 'https://ci:hunter2-Pass@plants.example.com/v1?key=abc123secret&region=eu' } } }),
      { mode: 0o600 },
    );
    const masked = 'https://***@plants.example.com/v1?key=***&region=***';
    const get = await runPlantstore(['config', 'get', 'base-url'], { env: { PLANTSTORE_CONFIG_DIR: config.dir } });
    expect(get.stdout).toBe(`${masked}\n`);
    const list = await runPlantstore(['config', 'list'], { env: { PLANTSTORE_CONFIG_DIR: config.dir } });
    expect(list.stdout).toBe(`base-url=${masked}\n`);
    for (const args of [
      ['--json', 'config', 'get', 'base-url'],
      ['--json', 'config', 'list'],
    ]) {
      const json = await runPlantstore(args, { env: { PLANTSTORE_CONFIG_DIR: config.dir } });
      expect(json.stdout).toContain(JSON.stringify(masked));
    }
    for (const result of [get, list]) expect(result.stdout + result.stderr).not.toMatch(/hunter2|abc123secret/);
  });
});
