// Issue 36, item 1, through the built CLI: after the README's --port 0 snippet exports
// PLANTSTORE_BASE_URL and PLANTSTORE_TOKEN, the profile's `missing-error 1` still applies; and a
// config file the run cannot use (absent, unreadable, another user's, writable by others) never
// stops such a run: it is skipped with at most one line on stderr naming it.
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runPlantstore, tempConfigDir } from '../helpers/cli.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'env-Token-12345678';
let server: ScriptedServer;
let config: ReturnType<typeof tempConfigDir>;
let file: string;

// The sandbox's answer for a plant that is not there.
beforeAll(async () => {
  server = await startScriptedServer((_req, res) => {
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 1, message: 'Plant not found' }));
  });
});
afterAll(() => server.close());
beforeEach(() => {
  config = tempConfigDir();
  file = path.join(config.dir, 'config.json');
});
afterEach(() => config.cleanup());

const outside = () => ({ PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url });

function profile(settings: Record<string, string>): void {
  writeFileSync(file, JSON.stringify({ profiles: { default: settings } }), { mode: 0o600 });
}

it("the profile's missing-error applies with the token and base URL from the environment, and both status commands say so", async () => {
  profile({ 'missing-error': '1' });
  const result = await runPlantstore(['delete', '--ignore-missing', '42'], { env: outside() });
  expect(result).toMatchObject({ code: 0, stderr: '' });
  const status = await runPlantstore(['auth', 'status'], { env: outside() });
  expect(status.stdout).toContain(`Missing:  error 1 (from profile 'default' in ${file})`);
  expect(status.stdout).toContain(`Base URL: ${server.url} (from PLANTSTORE_BASE_URL)`);
  const list = await runPlantstore(['config', 'list'], { env: outside() });
  expect(list.stdout).toBe('missing-error=1\n');
  // Named first: the profile whose settings these are.
  expect(list.stderr).toBe(
    `profile 'default':\nnote: base-url ${server.url} comes from PLANTSTORE_BASE_URL here\nnote: token comes from PLANTSTORE_TOKEN here\n`,
  );
});

const isRoot = process.getuid?.() === 0;

describe.each([
  { state: 'absent', place: () => {}, says: undefined },
  { state: 'unreadable (a folder at its path)', place: () => mkdirSync(file), says: 'is not a regular file' },
  { state: 'not JSON', place: () => writeFileSync(file, '{ "profiles":', { mode: 0o600 }), says: 'is not valid JSON' },
  ...(isRoot
    ? [
        {
          state: "another user's (uid 65534)",
          place: () => {
            profile({ 'missing-error': '1' });
            chownSync(file, 65534, 65534);
          },
          says: 'belongs to another user (uid 65534',
        },
      ]
    : []),
  {
    state: 'writable by others',
    place: () => {
      profile({ 'missing-error': '1' });
      chmodSync(file, 0o666);
    },
    says: 'is writable by others (mode 666)',
  },
])('a config file that is $state', ({ place, says }) => {
  it('supplies nothing, stops nothing, and is said in at most one line naming it', async () => {
    place();
    const result = await runPlantstore(['delete', '--ignore-missing', '42'], { env: outside() });
    // Nothing from the file: error 1 is a failure (exit 1), not "already absent".
    expect(result.code).toBe(1);
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('warning:'));
    if (says === undefined) expect(warnings).toEqual([]);
    else {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`config file ${file} ${says}`);
    }
    expect(server.requests.length).toBeGreaterThan(0);
  });

  it('a flag or variable still sets missing-error, and auth status works', async () => {
    place();
    const byVariable = await runPlantstore(['delete', '--ignore-missing', '42'], { env: { ...outside(), PLANTSTORE_MISSING_ERROR: '1' } });
    expect(byVariable.code).toBe(0);
    const byFlag = await runPlantstore(['delete', '--ignore-missing', '--missing-error', '1', '42'], { env: outside() });
    expect(byFlag.code).toBe(0);
    expect((await runPlantstore(['auth', 'status'], { env: outside() })).code).toBe(0);
  });
});

// config list reads through the run's own reader: what it says is in force, or would stop a run,
// is what the built CLI's delete does in the same environment.
describe('config list and a delete, in the same environment, agree', () => {
  it('PLANTSTORE_MAX_DELETES outranks the profile: the delete is refused, and config list names the variable', async () => {
    profile({ 'max-deletes': '5' });
    const env = { ...outside(), PLANTSTORE_MAX_DELETES: '1' };
    const sent = server.requests.length;
    const deletion = await runPlantstore(['delete', '1', '2'], { env });
    expect(deletion.code).toBe(9);
    expect(server.requests).toHaveLength(sent);
    const list = await runPlantstore(['config', 'list'], { env });
    expect(list.stdout).toBe('max-deletes=5\n');
    expect(list.stderr).toContain('note: max-deletes 1 comes from PLANTSTORE_MAX_DELETES here, which outranks the profile\n');
  });

  it('a blank PLANTSTORE_MISSING_ERROR stops the delete (exit 3), and config list names that same error', async () => {
    profile({ 'missing-error': '1' });
    const env = { ...outside(), PLANTSTORE_MISSING_ERROR: ' ' };
    const deletion = await runPlantstore(['delete', '--ignore-missing', '42'], { env });
    expect(deletion.code).toBe(3);
    const error = deletion.stderr.trim().replace(/^plantstore: /, '');
    expect(error).toContain('PLANTSTORE_MISSING_ERROR');
    const list = await runPlantstore(['config', 'list'], { env });
    expect(list.code).toBe(0);
    expect(list.stderr).toContain(`note: missing-error: a run here stops: ${error}\n`);
  });
});
