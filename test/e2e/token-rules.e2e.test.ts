// Rules that keep the mask safe to apply: it works on the strings that carry
// server text, never on a serialized JSON line, and tokens are long enough that
// masking them cannot shred ordinary words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finished, runPlantstore, startPlantstore, tempConfigDir } from '../helpers/cli.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

let config: ReturnType<typeof tempConfigDir>;
let server: ScriptedServer;
beforeAll(async () => {
  config = tempConfigDir();
  server = await startScriptedServer((req, res) => {
    if (req.url === '/plants/7') {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":7,"message":"plant 7 is protected by 12345678"}');
    } else res.writeHead(204).end();
  });
});
afterAll(async () => {
  await server.close();
  config.cleanup();
});

describe('a token that looks like an id', () => {
  it('--json output stays valid JSON: the id keeps its digits, only the message is masked', async () => {
    // Not runPlantstore: its leak check would count the id, which is the same digits, as the token.
    const run = await finished(
      startPlantstore(['--json', 'delete', '12345678', '7'], {
        env: { PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_TOKEN: '12345678', PLANTSTORE_BASE_URL: server.url },
      }),
    );
    expect(run.code).toBe(1);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      { id: 12345678, deleted: true, status: 204 },
      { id: 7, deleted: false, status: 400, error: 7, message: 'plant 7 is protected by ***', exit: 1 },
    ]);
  });
});

describe('tokens shorter than 8 characters are refused', () => {
  it.each([
    [
      'from PLANTSTORE_TOKEN (exit 3)',
      { PLANTSTORE_TOKEN: 'a' },
      undefined,
      3,
      'the token in PLANTSTORE_TOKEN is shorter than 8 characters',
    ],
    ['at login (exit 2)', {}, 'abc1234\n', 2, 'the token in standard input is shorter than 8 characters'],
  ])('%s', async (_name, env, input, exit, message) => {
    const args = input === undefined ? ['delete', '1'] : ['auth', 'login', '--with-token'];
    const run = await runPlantstore(args, {
      env: { PLANTSTORE_CONFIG_DIR: config.dir, PLANTSTORE_BASE_URL: server.url, ...env },
      ...(input === undefined ? {} : { input }),
    });
    expect(run.code).toBe(exit);
    expect(run.stderr).toContain(message);
    // The words of the message are whole: nothing was masked inside them.
    expect(run.stderr).not.toContain('***');
  });
});
