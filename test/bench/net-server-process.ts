// The scripted server of net-server.ts in a process of its own, as
// server-process.ts does for the instant server: its timers and answers then do
// not run on the event loop of the process that times the runs, and its CPU
// time can be read apart (the client and the server share this machine's CPUs).
//
// Messages to the child: configure (new behaviour, new record) and stats; each
// is answered in turn, so a caller can await them in order.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Behaviour, type NetStats, startNetServer, type Tls } from './net-server.js';

export interface NetServerStats extends NetStats {
  /** CPU time the server process has used so far (user + system), in ms. */
  cpuMs: number;
}

export interface NetServerProcess {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Sets the behaviour and starts a new record (counters, arrivals, tail count, a full bucket). */
  configure(behaviour: Behaviour): Promise<void>;
  stats(): Promise<NetServerStats>;
  close(): Promise<void>;
}

type Request = { type: 'configure'; behaviour: Behaviour } | { type: 'stats' };
type Reply = { type: 'ready'; url: string } | { type: 'configured' } | { type: 'stats'; stats: NetServerStats };

const SELF = fileURLToPath(import.meta.url);

/** Starts the server in a child process; resolves once it is listening on 127.0.0.1. */
export function startNetServerProcess(token: string, tls?: Tls): Promise<NetServerProcess> {
  const env = { ...process.env, BENCH_NET_TOKEN: token, BENCH_NET_TLS: tls ? JSON.stringify(tls) : '' };
  const child = fork(SELF, [], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void }[] = [];
  let failed: Error | undefined;

  const ask = (request: Request): Promise<Reply> =>
    new Promise((resolve, reject) => {
      if (failed) return reject(failed);
      waiting.push({ resolve, reject });
      child.send(request);
    });

  return new Promise((resolveStart, rejectStart) => {
    const fail = (error: Error): void => {
      failed ??= error;
      rejectStart(error);
      for (const waiter of waiting.splice(0)) waiter.reject(error);
    };
    child.once('error', fail);
    child.once('exit', (code, signal) => fail(new Error(`bench network server process exited (${signal ?? code})`)));
    child.on('message', (reply: Reply) => {
      if (reply.type === 'ready') resolveStart(handle(reply.url));
      else waiting.shift()?.resolve(reply);
    });
  });

  function handle(url: string): NetServerProcess {
    return {
      url,
      configure: async (behaviour) => {
        await ask({ type: 'configure', behaviour });
      },
      stats: async () => {
        const reply = await ask({ type: 'stats' });
        if (reply.type !== 'stats') throw new Error(`bench network server answered ${reply.type} to stats`);
        return reply.stats;
      },
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
  const tlsText = process.env['BENCH_NET_TLS'];
  const server = await startNetServer(process.env['BENCH_NET_TOKEN'] ?? '', tlsText ? (JSON.parse(tlsText) as Tls) : undefined);
  const reply = (message: Reply): void => void process.send?.(message);
  process.on('message', (request: Request) => {
    if (request.type === 'configure') {
      server.configure(request.behaviour);
      reply({ type: 'configured' });
    } else {
      const cpu = process.cpuUsage();
      reply({ type: 'stats', stats: { ...server.stats(), cpuMs: (cpu.user + cpu.system) / 1000 } });
    }
  });
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
  process.once('disconnect', () => void server.close().then(() => process.exit(0)));
  reply({ type: 'ready', url: server.url });
}
