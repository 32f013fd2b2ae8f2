// Signals and deadlines while connections are still being opened: an https server that
// accepts TCP and never answers the TLS handshake. Nothing has left the machine then, so
// Ctrl-C or SIGTERM ends the run at once with every id "not sent", and --timeout bounds the
// connect as it bounds the answer, for every id side by side (undici held each queued request
// until the one connection it probes for HTTP/2 failed, one after another).
import { type ChildProcess, spawn } from 'node:child_process';
import net, { type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { BIN, cleanEnv, endsWithin } from '../helpers/cli.js';

const TOKEN = 'connect-Token-0a1b2c3d';
let server: net.Server;
let sockets: net.Socket[];
let onConnection: (() => void) | undefined;
beforeEach(async () => {
  sockets = [];
  // Accepts, reads the ClientHello, never answers it.
  server = net.createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    onConnection?.();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const baseUrl = () => `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

function start(args: string[]): ChildProcess {
  const child = spawn(process.execPath, [BIN, '--json', ...args], {
    env: cleanEnv({ PLANTSTORE_TOKEN: TOKEN, PLANTSTORE_BASE_URL: baseUrl() }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('a signal while the TLS handshake is unanswered', () => {
  it.each([
    { signal: 'SIGINT', code: 130 },
    { signal: 'SIGTERM', code: 143 },
  ] as const)(
    '$signal ends the run at once (exit $code), well before the 20 s timeout; every id "not sent", with that exit code too',
    async ({ signal, code }) => {
      const connected = new Promise<void>((resolve) => (onConnection = resolve));
      const child = start(['--timeout', '20', 'delete', '1', '2', '3', '4']);
      await connected;
      child.kill(signal);
      const result = await endsWithin(child, 10_000);
      expect(result.code).toBe(code);
      const results = lines(result.stdout);
      expect(results.map((line) => line['id'])).toEqual([1, 2, 3, 4]);
      for (const line of results) expect(line).toMatchObject({ deleted: false, status: null, attempted: false, exit: code });
    },
  );
});

describe('--timeout bounds the connect', () => {
  it('12 ids side by side, --timeout 1 --retries 0: each is a connect timeout, all within about one timeout, not one after another', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => String(i + 1));
    const child = start(['--timeout', '1', '--retries', '0', 'delete', '--concurrency', '12', ...ids]);
    // One after another, as before, took 12 × 1.5 s.
    const result = await endsWithin(child, 8_000);
    expect(result.code).toBe(8);
    const results = lines(result.stdout);
    expect(results).toHaveLength(12);
    for (const line of results) {
      expect(line).toMatchObject({ deleted: false, status: null, exit: 8 });
      expect(line['message']).toMatch(/^could not connect to 127\.0\.0\.1:\d+ within 1s \(timeout; raise it with --timeout\)$/);
    }
  });
});
