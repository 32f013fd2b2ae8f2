// A run suspended longer than --timeout (Ctrl-Z then fg, a laptop asleep, a paused VM): the
// answers that arrived while it was stopped sit in its sockets, and must be used when it goes
// on, not discarded as timeouts (issue 27, item 3), over HTTP/1.1 and over HTTP/2 (issue 34,
// item 5: there each stream's own timer cut the stream in flight). Deleted plants are not
// retried into a "does not exist", and are not reported as failed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http, { type IncomingMessage } from 'node:http';
import http2, { type Http2ServerRequest } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createCa, type Issued, issue, OPENSSL } from '../helpers/certificates.js';
import { BIN, cleanEnv, endsWithin, tempConfigDir } from '../helpers/cli.js';

const TOKEN = 'suspended-Token-0a1b2c3d';
const ANSWER_AFTER_MS = 300;
const TIMEOUT_S = 1;

/** What one test's server saw and did: its own, as the tests of this file run at once. */
function serverState() {
  const state = {
    deleted: new Set<string>(),
    answered: 0,
    /** Every request that arrived, by path. */
    requests: [] as string[],
    arrivalWaiters: [] as Array<() => void>,
    waiters: [] as Array<{ count: number; resolve(): void }>,
    answeredAtLeast: (count: number) =>
      new Promise<void>((resolve) => (state.answered >= count ? resolve() : state.waiters.push({ count, resolve }))),
    nextRequest: () => new Promise<void>((resolve) => state.arrivalWaiters.push(resolve)),
  };
  return state;
}
type ServerState = ReturnType<typeof serverState>;

/** Sends a status, and with a body, its JSON: over HTTP/1.1 or HTTP/2 alike. */
type Reply = (status: number, json?: string) => void;

/** Each plant exists until its first DELETE; every answer comes `delayMs` late. */
function answer(state: ServerState, req: IncomingMessage | Http2ServerRequest, reply: Reply, delayMs = ANSWER_AFTER_MS): void {
  const id = req.url ?? '';
  state.requests.push(id);
  for (const resolve of state.arrivalWaiters.splice(0)) resolve();
  req.resume();
  setTimeout(() => {
    if (state.deleted.has(id)) {
      reply(404, '{"error":404,"message":"plant does not exist"}');
    } else {
      state.deleted.add(id);
      reply(204);
    }
    state.answered += 1;
    for (const waiter of state.waiters.filter((w) => state.answered >= w.count)) waiter.resolve();
    state.waiters = state.waiters.filter((w) => state.answered < w.count);
  }, delayMs);
}

interface Served {
  url: string;
  state: ServerState;
  /** Extra environment for the CLI: the CA to trust over TLS. */
  env: Record<string, string>;
  close(): Promise<void>;
}

async function serveHttp1(delayMs = ANSWER_AFTER_MS): Promise<Served> {
  const state = serverState();
  const server = http.createServer((req, res) =>
    answer(
      state,
      req,
      (status, json) =>
        json === undefined ? res.writeHead(status).end() : res.writeHead(status, { 'content-type': 'application/json' }).end(json),
      delayMs,
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    env: {},
    close: () => new Promise((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}

/** HTTP/2 only (no HTTP/1.1 fallback offered), over TLS with a throwaway CA the CLI is told to trust. */
async function serveHttp2(dir: string, ca: Issued): Promise<Served> {
  const issued = issue(ca, dir, 'server', ['IP:127.0.0.1']);
  const state = serverState();
  const server = http2.createSecureServer({ cert: issued.cert, key: issued.key }, (req, res) =>
    answer(state, req, (status, json) =>
      json === undefined ? res.writeHead(status).end() : res.writeHead(status, { 'content-type': 'application/json' }).end(json),
    ),
  );
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    env: { PLANTSTORE_CA_CERT: ca.certFile },
    close: () =>
      new Promise((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}

let certs: { dir: string; ca: Issued } | undefined;
beforeAll(() => {
  if (!OPENSSL) return;
  const dir = mkdtempSync(path.join(tmpdir(), 'plantstore-suspended-'));
  certs = { dir, ca: createCa(dir) };
});
afterAll(() => {
  if (certs) rmSync(certs.dir, { recursive: true, force: true });
});

const protocols = [
  { name: 'HTTP/1.1', serve: serveHttp1, skip: false },
  { name: 'HTTP/2 over TLS', serve: () => serveHttp2(certs?.dir ?? '', certs?.ca as Issued), skip: !OPENSSL },
];

// Each test has its own server, config folder and child: the pauses they wait out overlap.
describe.concurrent.each(protocols)('over $name', ({ serve, skip }) => {
  it.skipIf(skip).for<[string, boolean]>([
    ['', false],
    [' with --journal: every id recorded deleted', true],
  ])(
    'SIGSTOP longer than --timeout mid-batch, then SIGCONT: the answers that came meanwhile are used, exit 0%s',
    async ([_, withJournal], { expect, onTestFinished }) => {
      const server = await serve();
      const { requests } = server.state;
      onTestFinished(() => server.close());
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
        { env: cleanEnv({ PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: server.url, ...server.env }), stdio: ['pipe', 'pipe', 'pipe'] },
      );
      onTestFinished(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      });
      child.stdin.end(ids.join('\n'));
      const ending = endsWithin(child, 30_000);
      // Stopped once four requests are out, and kept stopped until their answers have all been
      // written to its sockets and its deadlines have passed: the pause is what is tested, so it is waited out.
      while (requests.length < 4) await server.state.nextRequest();
      child.kill('SIGSTOP');
      await server.state.answeredAtLeast(4);
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
      expect([...requests].sort()).toEqual(ids.map((id) => `/plants/${id}`).sort());
      if (withJournal) {
        // What the journal last says of each id: done, with a 204.
        const last = new Map<string, string>();
        for (const line of readFileSync(journal, 'utf8').trim().split('\n').slice(1)) last.set(String(JSON.parse(line).id), line);
        expect(ids.map((id) => last.get(id))).toEqual(ids.map((id) => `{"id":${id},"state":"done","status":204}`));
      }
    },
  );
});

describe.concurrent('a suspend while the token command runs', () => {
  it('the command printed its token and exited while the run was stopped past --timeout: the token is used, exit 0', async ({
    expect,
    onTestFinished,
  }) => {
    // Answers at once: only the token command's deadline is tested here.
    const server = await serveHttp1(0);
    onTestFinished(() => server.close());
    const config = tempConfigDir();
    onTestFinished(() => config.cleanup());
    const waiting = path.join(config.dir, 'waiting');
    const go = path.join(config.dir, 'go');
    const printed = path.join(config.dir, 'printed');
    // Says it is waiting, waits for the go, then prints the token and exits.
    const script = path.join(config.dir, 'token.sh');
    writeFileSync(
      script,
      `: > ${JSON.stringify(waiting)}\nwhile [ ! -e ${JSON.stringify(go)} ]; do sleep 0.02; done\necho ${TOKEN}\n: > ${JSON.stringify(printed)}\n`,
    );
    const child = spawn(process.execPath, [BIN, 'delete', '--json', '--timeout', String(TIMEOUT_S), '1', '2'], {
      env: cleanEnv({ PLANTSTORE_TOKEN_COMMAND: `/bin/sh ${script}`, PLANTSTORE_BASE_URL: server.url, PLANTSTORE_CONFIG_DIR: config.dir }),
      stdio: ['pipe', 'pipe', 'pipe'],
      // A session of its own, as in CI: the command runs in a group of its own, which SIGSTOP leaves running.
      detached: true,
    });
    onTestFinished(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    child.stdin.end();
    const ending = endsWithin(child, 30_000);
    await until(() => existsSync(waiting));
    child.kill('SIGSTOP');
    writeFileSync(go, '');
    await until(() => existsSync(printed));
    // Kept stopped past the command's deadline (--timeout): the pause is what is tested, so it is waited out.
    await new Promise((resolve) => setTimeout(resolve, TIMEOUT_S * 1000 + ANSWER_AFTER_MS));
    child.kill('SIGCONT');
    const result = await ending;
    expect(result.stderr).not.toContain('gave no token');
    expect(result.code).toBe(0);
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).deleted),
    ).toEqual([true, true]);
  });
});

/** Resolves once `ready()` holds: a readiness poll, not a timing assertion. */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 20));
}
