// The guard against the wrong list: --max-deletes (a flag, a variable, a profile key; counted
// after the journal's done ids; told by --dry-run), and the question at a terminal for a batch of
// more than 100 ids, answered through a real pseudo-terminal while stdin holds the ids.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { idRange } from '../helpers/batch-output.js';
import { BIN, cleanEnv, runPlantstore } from '../helpers/cli.js';
import { loopbackCases } from '../helpers/loopback-cases.js';
import { HAS_SCRIPT, runAtTerminal } from '../helpers/terminal.js';

const TOKEN = 'guard-Token-7c2e19ab';
const { serve, envFor } = loopbackCases(TOKEN);

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'plantstore-guard-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

describe('--max-deletes', () => {
  it('refuses a batch larger than the limit, sending nothing, with exit 9 and one line naming the count, limit, URL and profile', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const result = await runPlantstore(['delete', '--stdin', '--max-deletes', '100'], {
      env: envFor(server.url),
      input: idRange(1, 101).join('\n'),
    });
    expect(result.code).toBe(9);
    expect(server.requests).toEqual([]);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      `refusing: 101 plants to delete at ${server.url} (profile 'default') is more than --max-deletes 100; nothing sent. Check the list and the profile; if both are right, give --max-deletes 101, or split the job with --shard`,
    ]);
    // At the limit, the batch goes.
    const within = await runPlantstore(['delete', '--stdin', '--max-deletes', '100'], {
      env: envFor(server.url),
      input: idRange(1, 100).join('\n'),
    });
    expect(within.code).toBe(0);
    expect(server.requests.length).toBe(100);
  });

  it('comes from PLANTSTORE_MAX_DELETES or the profile key max-deletes (config set), and says which', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const env = envFor(server.url);
    const fromEnv = await runPlantstore(['delete', '1', '2', '3'], { env: { ...env, PLANTSTORE_MAX_DELETES: '2' } });
    expect(fromEnv.code).toBe(9);
    expect(fromEnv.stderr).toContain('more than --max-deletes 2 (from PLANTSTORE_MAX_DELETES)');
    // A run with both its token and base URL from the environment never opens the config file: the profile holds the base URL here.
    const { PLANTSTORE_BASE_URL: _, ...profileEnv } = env;
    for (const [key, value] of [
      ['base-url', server.url],
      ['max-deletes', '1'],
    ]) {
      expect((await runPlantstore(['config', 'set', key as string, value as string], { env: profileEnv })).code).toBe(0);
    }
    const fromProfile = await runPlantstore(['delete', '1', '2'], { env: profileEnv });
    expect(fromProfile.code).toBe(9);
    expect(fromProfile.stderr).toContain("more than --max-deletes 1 (from profile 'default' in");
    // The flag outranks the profile.
    const flag = await runPlantstore(['delete', '--max-deletes', '2', '1', '2'], { env: profileEnv });
    expect(flag.code).toBe(0);
    expect(server.requests.length).toBe(2);
    const bad = await runPlantstore(['config', 'set', 'max-deletes', 'lots'], { env: profileEnv });
    expect(bad.code).toBe(2);
  });

  it('counts only what this run would send: the ids a journal records as done are left out', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const journal = path.join(scratch, 'job.journal');
    const first = await runPlantstore(['delete', '--journal', journal, ...idRange(1, 100)], { env: envFor(server.url) });
    expect(first.code).toBe(0);
    const over = await runPlantstore(['delete', '--journal', journal, '--max-deletes', '49', ...idRange(1, 150)], {
      env: envFor(server.url),
    });
    expect(over.code).toBe(9);
    expect(over.stderr).toContain('refusing: 50 plants to delete');
    expect(server.requests.length).toBe(100);
    const within = await runPlantstore(['delete', '--journal', journal, '--max-deletes', '50', ...idRange(1, 150)], {
      env: envFor(server.url),
    });
    expect(within.code).toBe(0);
    expect(server.requests.length).toBe(150);
  });

  it('--dry-run says whether the real run would be refused', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const over = await runPlantstore(['delete', '--dry-run', '--max-deletes', '2', '1', '2', '3'], { env: envFor(server.url) });
    expect(over.code).toBe(9);
    expect(over.stdout.trim().split('\n').length).toBe(3);
    expect(over.stderr).toContain('dry run: the real run would stop here: refusing: 3 plants to delete');
    const within = await runPlantstore(['delete', '--dry-run', '--max-deletes', '3', '1', '2', '3'], { env: envFor(server.url) });
    expect(within.code).toBe(0);
    expect(within.stderr).not.toContain('refusing');
    expect(server.requests).toEqual([]);
  });

  it('not at a terminal, a large batch is never asked about', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const result = await runPlantstore(['delete', '--stdin'], { env: envFor(server.url), input: idRange(1, 500).join('\n') });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain('Type 500');
    expect(server.requests.length).toBe(500);
  });
});

describe.skipIf(!HAS_SCRIPT)('at a terminal', () => {
  const run = async (ids: number, flags: string, typed?: string) => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const file = path.join(scratch, 'ids.txt');
    writeFileSync(file, `${idRange(1001, 1000 + ids).join('\n')}\n`);
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} delete --stdin ${flags} < ${JSON.stringify(file)}`;
    const result = await runAtTerminal(command, cleanEnv(envFor(server.url)), typed);
    return { ...result, sent: server.requests.length, url: server.url };
  };

  it('asks before a batch of more than 100 ids from a file on stdin, and sends it when the count is typed back', async () => {
    const result = await run(150, '', '150\n');
    expect(result.stdout).toContain(`About to delete 150 plants at ${result.url} (profile 'default'): 1001 … 1150.`);
    expect(result.stdout).toContain('Type 150 to go on, anything else to stop:');
    expect(result.code).toBe(0);
    expect(result.sent).toBe(150);
  });

  it.each([
    ['a wrong count', '149\n'],
    ['yes', 'yes\n'],
    ['an empty line', '\n'],
    ['end of input', '\u0004'],
  ])('sends nothing on %s: exit 9', async (_what, typed) => {
    const result = await run(150, '', typed);
    expect(result.code).toBe(9);
    expect(result.sent).toBe(0);
    expect(result.stdout).toContain('nothing sent: ');
    expect(result.stdout).toContain('add --yes');
  });

  it('--yes (or -y) skips the question; 100 ids or fewer are never asked about', async () => {
    for (const flag of ['--yes', '-y']) {
      const yes = await run(150, flag);
      expect(yes.code).toBe(0);
      expect(yes.sent).toBe(150);
      expect(yes.stdout).not.toContain('About to delete');
    }
    const hundred = await run(100, '');
    expect(hundred.code).toBe(0);
    expect(hundred.sent).toBe(100);
    expect(hundred.stdout).not.toContain('About to delete');
  });

  it("a shard's refusal after a wrong count names the shard, as its question does", async () => {
    const result = await run(600, '--shard 1/4', '1\n');
    expect(result.code).toBe(9);
    expect(result.sent).toBe(0);
    expect(result.stdout).toMatch(/About to delete \d+ plants \(shard 1\/4\)/);
    expect(result.stdout).toContain('nothing sent (shard 1/4): the answer was "1", not ');
  });

  it('--max-deletes refuses before asking', async () => {
    const result = await run(150, '--max-deletes 120');
    expect(result.code).toBe(9);
    expect(result.sent).toBe(0);
    expect(result.stdout).toContain('more than --max-deletes 120');
    expect(result.stdout).not.toContain('About to delete');
  });
});
