// Issue 42 item 6: a request may carry a body and a value per id, and whether an attempt may be
// repeated after a lost answer is the operation's to say, not the method's. The suite's rename
// (test/helpers/patch-operation.ts), PATCH /plants/{id} with a JSON body, runs through the real
// engine and the real transport against a loopback server.
import { mkdtempSync, rmSync } from 'node:fs';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/engine/operation.js';
import { renameOperation } from '../../helpers/patch-operation.js';
import { READ_OPERATION } from '../../helpers/read-operation.js';
import { runOperation } from '../../helpers/run-operation.js';
import { type ScriptedServer, startScriptedServer } from '../../helpers/scripted-server.js';

const TOKEN = 'rename-token-7d2f0c41';

interface Seen {
  method: string;
  url: string;
  type: string | undefined;
  body: string;
}

let dir: string;
let server: ScriptedServer;
let seen: Seen[];
/** How many requests, from the first, lose their answer: the server reads them whole and resets the connection. */
let lose: number;

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', type: req.headers['content-type'], body: Buffer.concat(chunks).toString() });
    if (seen.length <= lose) {
      // Read, maybe done, and no answer: the client cannot tell.
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(`{"id":1,"name":"x"}`);
  });
}

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'plantstore-rename-'));
  seen = [];
  lose = 0;
  server = await startScriptedServer(answer);
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `op` on `args` (ids and values, as the command line gives them) with `parsed` flags, and `stdin`. */
const run = (op: Operation<unknown & { id: string }>, args: string[], parsed: Record<string, unknown> = {}, stdin: string[] = []) =>
  runOperation(op, args, { dir, url: server.url, token: TOKEN, parsed, stdin, env: { PLANTSTORE_MAX_RETRY_WAIT: '0.05' } });

describe('a request with a body, and a value per id', () => {
  it('ids with their values on the command line: each PATCH carries its own as JSON', async () => {
    const result = await run(renameOperation(true), ['1', 'Fern', '9223372036854775807', 'Moss "the second"']);
    expect(result.exit).toBe(0);
    expect(seen).toEqual([
      { method: 'PATCH', url: '/plants/1', type: 'application/json', body: '{"name":"Fern"}' },
      { method: 'PATCH', url: '/plants/9223372036854775807', type: 'application/json', body: '{"name":"Moss \\"the second\\""}' },
    ]);
    expect(result.stderr).toMatch(/^2 renamed, /m);
  });

  it('id<TAB>value lines on stdin: the rest of the line is the value, spaces and # included', async () => {
    const result = await run(renameOperation(true), [], { stdin: true }, ['# new names\n1\tFern tree #1\n', '2\tMoss\r\n\n3\tIvy']);
    expect(result.exit).toBe(0);
    expect(seen.map(({ url, body }) => `${url} ${body}`)).toEqual([
      '/plants/1 {"name":"Fern tree #1"}',
      '/plants/2 {"name":"Moss"}',
      '/plants/3 {"name":"Ivy"}',
    ]);
  });

  it('--dry-run shows each body; nothing is sent', async () => {
    const human = await run(renameOperation(true), ['1', 'Fern'], { dryRun: true });
    expect(human.stdout).toBe(`PATCH ${server.url}/plants/1 {"name":"Fern"}  (Authorization: Bearer ***)\n`);
    const json = await run(renameOperation(true), ['1', 'Fern'], { dryRun: true, json: true });
    expect(JSON.parse(json.stdout)).toEqual({
      id: 1,
      dryRun: true,
      method: 'PATCH',
      url: `${server.url}/plants/1`,
      body: '{"name":"Fern"}',
    });
    expect(seen).toEqual([]);
  });

  it.each([
    [['1'], /give each plant id with its name: plantstore rename 42 <name>/],
    [['1', 'Fern', '1', 'Moss'], /plant 1 is given twice, with two names \('Fern', then 'Moss'\): give it once/],
    [['x', 'Fern'], /invalid plant id 'x'/],
  ])('%j: refused before anything is sent (exit 2)', async (args, message) => {
    const result = await run(renameOperation(true), args);
    expect(result.exit).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(seen).toEqual([]);
  });

  it('a stdin line without a tab says which line', async () => {
    const result = await run(renameOperation(true), [], { stdin: true }, ['1\tFern\n2 Moss\n']);
    expect(result.exit).toBe(2);
    expect(result.stderr).toMatch(/no name on line 2 of standard input: give one plant id and its name a line, separated by a tab/);
  });
});

describe('whether an attempt is sent again after a lost answer is the operation’s word', () => {
  it('a PATCH its operation says may be repeated is sent again, and done', async () => {
    lose = 1;
    const result = await run(renameOperation(true), ['1', 'Fern'], { retries: '2' });
    expect(seen.map(({ method, body }) => `${method} ${body}`)).toEqual(['PATCH {"name":"Fern"}', 'PATCH {"name":"Fern"}']);
    expect(result.exit).toBe(0);
  });

  it('a PATCH its operation says may not be repeated is sent once: it failed, and may have been done', async () => {
    lose = 1;
    const result = await run(renameOperation(false), ['1', 'Fern'], { retries: '2' });
    expect(seen).toHaveLength(1);
    expect(result.exit).not.toBe(0);
    expect(result.stderr).toMatch(/^✗ plant 1: connection closed before a complete answer/m);
  });

  it('even a GET is sent once when its operation says so: not the method’s call', async () => {
    lose = 1;
    const result = await run({ ...READ_OPERATION, repeatable: false }, ['1'], { retries: '2' });
    expect(seen.map(({ method, url }) => `${method} ${url}`)).toEqual(['GET /plants/1']);
    expect(result.exit).not.toBe(0);
    // And as HTTP's idempotent GET, repeatable, it is sent again.
    seen = [];
    const again = await run(READ_OPERATION, ['1'], { retries: '2' });
    expect(seen).toHaveLength(2);
    expect(again.exit).toBe(0);
  });
});
