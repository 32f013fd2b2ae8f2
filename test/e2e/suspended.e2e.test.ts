// A run suspended longer than --timeout (Ctrl-Z then fg, a laptop asleep, a paused VM): the
// answers that arrived while it was stopped sit in its sockets, and must be used when it goes
// on, not discarded as timeouts (issue 27, item 3). Deleted plants are not retried into a
// "does not exist", and are not reported as failed.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, onTestFinished } from 'vitest';
import { BIN, cleanEnv, endsWithin, tempConfigDir } from '../helpers/cli.js';
import { type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';

const TOKEN = 'suspended-Token-0a1b2c3d';
const ANSWER_AFTER_MS = 300;
const TIMEOUT_S = 1;

let server: ScriptedServer;
const deleted = new Set<string>();
let answered = 0;
let waiters: Array<{ count: number; resolve(): void }> = [];
const answeredAtLeast = (count: number) =>
  new Promise<void>((resolve) => (answered >= count ? resolve() : waiters.push({ count, resolve })));

beforeEach(async () => {
  deleted.clear();
  answered = 0;
  waiters = [];
  // Each plant exists until its first DELETE; every answer comes ANSWER_AFTER_MS late.
  server = await startScriptedServer((req, res) => {
    setTimeout(() => {
      const id = req.url ?? '';
      if (deleted.has(id)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":404,"message":"plant does not exist"}');
      } else {
        deleted.add(id);
        res.writeHead(204).end();
      }
      answered += 1;
      for (const waiter of waiters.filter((w) => answered >= w.count)) waiter.resolve();
      waiters = waiters.filter((w) => answered < w.count);
    }, ANSWER_AFTER_MS);
  });
});
afterEach(() => server.close());

it.each([
  ['', false],
  [' with --journal: every id recorded deleted', true],
])('SIGSTOP longer than --timeout mid-batch, then SIGCONT: the answers that came meanwhile are used, exit 0%s', async (_, withJournal) => {
  const ids = Array.from({ length: 12 }, (_, i) => String(i + 1));
  const config = tempConfigDir();
  onTestFinished(() => config.cleanup());
  const journal = path.join(config.dir, 'suspended.journal');
  const child = spawn(
    process.execPath,
    [
      BIN,
      'delete',
      '--stdin',
      '--json',
      '--concurrency',
      '4',
      '--retries',
      '2',
      '--timeout',
      String(TIMEOUT_S),
      ...(withJournal ? ['--journal', journal] : []),
    ],
    { env: cleanEnv({ PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url }), stdio: ['pipe', 'pipe', 'pipe'] },
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  child.stdin.end(ids.join('\n'));
  const ending = endsWithin(child, 30_000);
  // Stopped once four requests are out, and kept stopped until their answers have all been
  // written to its sockets and its deadlines have passed: the pause is what is tested, so it is waited out.
  while (server.requests.length < 4) await server.nextRequest();
  child.kill('SIGSTOP');
  await answeredAtLeast(4);
  await new Promise((resolve) => setTimeout(resolve, TIMEOUT_S * 1000 + ANSWER_AFTER_MS));
  child.kill('SIGCONT');
  const result = await ending;
  const lines = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: number; deleted: boolean; message?: string });
  expect(lines.filter((line) => !line.deleted)).toEqual([]);
  expect(lines.map((line) => String(line.id))).toEqual(ids);
  expect(result.code).toBe(0);
  // None sent twice: the answer was there, so no retry went out.
  expect(server.requests.map((request) => request.url).sort()).toEqual(ids.map((id) => `/plants/${id}`).sort());
  if (withJournal) {
    // What the journal last says of each id: deleted, with a 204.
    const last = new Map<string, string>();
    for (const line of readFileSync(journal, 'utf8').trim().split('\n').slice(1)) last.set(String(JSON.parse(line).id), line);
    expect(ids.map((id) => last.get(id))).toEqual(ids.map((id) => `{"id":${id},"deleted":true,"status":204}`));
  }
});
