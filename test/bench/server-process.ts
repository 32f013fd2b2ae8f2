// The loopback delete server of server.ts, in a process of its own, so that
// answering thousands of requests a second is not done on the event loop of the
// process that times the runs (and so that its CPU time can be read apart).
//
// startDeleteServerProcess() forks this file (with the bench's own Node and
// loader flags, so it runs as TypeScript like the rest of the bench); the child
// answers 'stats' messages with its counters and its own CPU time.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startDeleteServer } from './server.js';

export interface ServerStats {
  /** DELETEs received with `Authorization: Bearer <token>`. */
  authorized: number;
  /** Every request received. */
  total: number;
  /** CPU time the server process has used so far (user + system), in ms. */
  cpuMs: number;
}

export interface DeleteServerProcess {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Counters and CPU time, asked of the child. */
  stats(): Promise<ServerStats>;
  close(): Promise<void>;
}

type Message = { type: 'ready'; url: string } | ({ type: 'stats' } & ServerStats);

const SELF = fileURLToPath(import.meta.url);

/** Starts the server in a child process; resolves once it is listening on 127.0.0.1. */
export function startDeleteServerProcess(token: string): Promise<DeleteServerProcess> {
  const child = fork(SELF, [], { env: { ...process.env, BENCH_SERVER_TOKEN: token }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting: { resolve: (stats: ServerStats) => void; reject: (error: Error) => void }[] = [];
  let failed: Error | undefined;
  return new Promise((resolveStart, rejectStart) => {
    const fail = (error: Error): void => {
      failed ??= error;
      rejectStart(error);
      for (const waiter of waiting.splice(0)) waiter.reject(error);
    };
    child.once('error', fail);
    child.once('exit', (code, signal) => fail(new Error(`bench server process exited (${signal ?? code})`)));
    child.on('message', (message: Message) => {
      if (message.type === 'ready') resolveStart(handle(message.url));
      else waiting.shift()?.resolve({ authorized: message.authorized, total: message.total, cpuMs: message.cpuMs });
    });
  });

  function handle(url: string): DeleteServerProcess {
    return {
      url,
      stats: () =>
        new Promise((resolve, reject) => {
          if (failed) return reject(failed);
          waiting.push({ resolve, reject });
          child.send({ type: 'stats' });
        }),
      close: () =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    };
  }
}

// In the child: serve until told to stop.
if (process.send && process.argv[1] === SELF) {
  const server = await startDeleteServer(process.env['BENCH_SERVER_TOKEN'] ?? '');
  process.on('message', (message: { type: string }) => {
    if (message.type !== 'stats') return;
    const cpu = process.cpuUsage();
    process.send?.({ type: 'stats', authorized: server.authorized(), total: server.total(), cpuMs: (cpu.user + cpu.system) / 1000 });
  });
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
  process.once('disconnect', () => void server.close().then(() => process.exit(0)));
  process.send({ type: 'ready', url: server.url });
}
