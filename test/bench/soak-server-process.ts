// The soak server (soak-server.ts) in a process of its own, as net-server-process.ts does for the
// network benchmarks: its timers and answers do not share the harness's event loop, and its CPU
// time is read apart. Each request carries an id; its reply comes when it is done (at once for
// stats, once the server has deleted so many plants for whenDeleted).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type SoakPlan, type SoakStats, startSoakServer } from './soak-server.js';

export interface SoakServerProcess {
  url: string;
  stats(): Promise<SoakStats>;
  /** Resolves once the server has deleted `count` plants. */
  whenDeleted(count: number): Promise<void>;
  close(): Promise<void>;
}

type Request = { id: number; type: 'stats' } | { id: number; type: 'whenDeleted'; count: number };
type Reply = { type: 'ready'; url: string } | { id: number; type: 'stats'; stats: SoakStats } | { id: number; type: 'reached' };

const SELF = fileURLToPath(import.meta.url);

export function startSoakServerProcess(plan: SoakPlan): Promise<SoakServerProcess> {
  const child = fork(SELF, [], {
    env: { ...process.env, BENCH_SOAK_PLAN: JSON.stringify(plan) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let failed: Error | undefined;

  const ask = (request: { type: 'stats' } | { type: 'whenDeleted'; count: number }): Promise<Reply> =>
    new Promise((resolve, reject) => {
      if (failed) return reject(failed);
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.send({ ...request, id });
    });

  return new Promise((resolveStart, rejectStart) => {
    const fail = (error: Error): void => {
      failed ??= error;
      rejectStart(error);
      for (const waiter of pending.values()) waiter.reject(error);
      pending.clear();
    };
    child.once('error', fail);
    child.once('exit', (code, signal) => fail(new Error(`soak server process exited (${signal ?? code})`)));
    child.on('message', (reply: Reply) => {
      if (reply.type === 'ready') {
        resolveStart({
          url: reply.url,
          stats: async () => {
            const answer = await ask({ type: 'stats' });
            if (answer.type !== 'stats') throw new Error(`soak server answered ${answer.type} to stats`);
            return answer.stats;
          },
          whenDeleted: async (count) => {
            await ask({ type: 'whenDeleted', count });
          },
          close: () =>
            new Promise((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.removeAllListeners('exit');
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        });
        return;
      }
      const waiter = pending.get(reply.id);
      pending.delete(reply.id);
      waiter?.resolve(reply);
    });
  });
}

// In the child: serve until told to stop.
if (process.send && process.argv[1] === SELF) {
  const server = await startSoakServer(JSON.parse(process.env['BENCH_SOAK_PLAN'] ?? '{}') as SoakPlan);
  const reply = (message: Reply): void => void process.send?.(message);
  process.on('message', (request: Request) => {
    if (request.type === 'stats') {
      const cpu = process.cpuUsage();
      reply({ id: request.id, type: 'stats', stats: { ...server.stats(), cpuMs: (cpu.user + cpu.system) / 1000 } });
    } else {
      server.whenDeleted(request.count, () => reply({ id: request.id, type: 'reached' }));
    }
  });
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
  process.once('disconnect', () => void server.close().then(() => process.exit(0)));
  reply({ type: 'ready', url: server.url });
}
