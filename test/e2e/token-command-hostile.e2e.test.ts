// A token command against what round 4's attack found (issue 27): a server that refuses every
// token, a command that leaves a child holding its output, a command that traces itself on
// stderr, and signals while the command runs. The built CLI, real shell scripts, loopback servers.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, type RunResult, runPlantstore } from '../helpers/cli.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const tokenOf = (n: number): string => `hostile-token-${n}-0123456789`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-token-hostile-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A token command: a sh script that counts its runs in a file and sets TOKEN to token n on its
 * n-th run, then runs `body` (which prints it, or not, in its own way).
 */
function tokenScript(body: string): { line: string; runs(): number } {
  const counter = path.join(dir, 'runs');
  const script = path.join(dir, 'token.sh');
  writeFileSync(
    script,
    `n=$(( $(cat ${JSON.stringify(counter)} 2>/dev/null || echo 0) + 1 ))
echo $n > ${JSON.stringify(counter)}
TOKEN=hostile-token-$n-0123456789
${body}
`,
  );
  return { line: `/bin/sh ${script}`, runs: () => (existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0) };
}

function ids(count: number): string {
  return Array.from({ length: count }, (_, i) => String(i + 1)).join('\n');
}

function jsonLines(result: RunResult): Array<{ id: number; deleted: boolean; attempted?: boolean; exit?: number; message?: string }> {
  return result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

function expectNoCommandToken(result: RunResult, runs: number): void {
  for (let n = 1; n <= runs; n++) {
    expect(result.stdout).not.toContain(tokenOf(n));
    expect(result.stderr).not.toContain(tokenOf(n));
  }
}

describe('a server that refuses every token', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":401,"message":"invalid token"}');
    });
  });
  afterEach(() => server.close());

  it('ends the run once a fresh token is refused too: exit 4, two command runs, the rest not sent', async () => {
    const command = tokenScript('echo "$TOKEN"');
    const result = await runPlantstore(['delete', '--stdin', '--json', '--concurrency', '4'], {
      env: cleanEnv({ PLANTSTORE_BASE_URL: server.url, PLANTSTORE_TOKEN_COMMAND: command.line, PLANTSTORE_CONFIG_DIR: dir }),
      input: ids(500),
    });
    expect(result.code).toBe(4);
    // The first token, refused; a second, refused as well: nothing more is asked of the command.
    expect(command.runs()).toBe(2);
    const sentWith = (n: number) => server.requests.filter((request) => request.headers.authorization === `Bearer ${tokenOf(n)}`);
    // The first four ids with token 1; with token 2, those waiting for it when it came (each id
    // started before its refusal), at most one each: never a third wave.
    expect(sentWith(1).map((request) => request.url)).toEqual(['/plants/1', '/plants/2', '/plants/3', '/plants/4']);
    expect(sentWith(2).length).toBeGreaterThanOrEqual(1);
    expect(sentWith(2).length).toBeLessThanOrEqual(8);
    expect(server.requests).toHaveLength(sentWith(1).length + sentWith(2).length);
    const lines = jsonLines(result);
    expect(lines).toHaveLength(500);
    const attempted = lines.filter((line) => line.attempted !== false);
    expect(attempted.length).toBeLessThanOrEqual(8);
    expect(attempted.every((line) => line.exit === 4)).toBe(true);
    const notSent = lines.filter((line) => line.attempted === false);
    expect(notSent).toHaveLength(500 - attempted.length);
    expect(notSent.every((line) => line.exit === 4)).toBe(true);
    expect(notSent[0]?.message).toMatch(/^not sent: the server refused token 2 .* as well/);
    expectNoCommandToken(result, 2);
  });
});
