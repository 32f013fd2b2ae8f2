// Another host, played by a network namespace. A test that needs a proxy or a server that
// is not on this machine creates a namespace of its own, joined to this one by a veth pair:
// this side 198.18.N.1/30, the namespace's side 198.18.N.2/30 (the benchmarking range of
// RFC 2544, which no real host uses), and runs the server or proxy in it as a child process
// (`ip netns exec NAME node netns-server.ts`). To the CLI it is another host: an address
// that is not loopback, reached through a route. Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN)
// and iproute2's `ip`; without them the test fails and says so, rather than skip.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { threadId } from 'node:worker_threads';
import type { ProxiedRequest, ProxyOptions } from './forward-proxy.js';

/** Every namespace a test run creates is named `plantstore-test-{pid}-{thread}-{n}`. */
const PREFIX = 'plantstore-test-';
/** The veth's end on this side is `psnet{N}`, N its /30 in 198.18.0.0/15: the name claims the subnet. */
const VETH = 'psnet';
const SUBNETS = 1 << 15;
const SERVER = path.join(import.meta.dirname, 'netns-server.ts');
const TSX = import.meta.resolve('tsx');

export interface SeenByRemote {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/** A server or proxy running on the other host. */
export interface RemoteServer<T> {
  url: string;
  port: number;
  /** What it has been asked so far: read from the child after a round trip, so nothing it received before the call is missed. */
  requests(): Promise<T[]>;
  /** Connections it accepted so far, whether or not a request followed (the http and https servers; a proxy counts none: null). */
  connections(): Promise<number>;
  close(): Promise<void>;
}

export interface OtherHost {
  /** The namespace's name (`ip netns list`). */
  name: string;
  /** The other host's address, inside the namespace: 198.18.N.2. */
  address: string;
  /** This machine's address on the link to it: 198.18.N.1. */
  localAddress: string;
  /** A forward proxy there (test/helpers/forward-proxy.ts). */
  proxy(options?: Omit<ProxyOptions, 'host'>): Promise<RemoteServer<ProxiedRequest>>;
  /** An https server there answering 204 to everything; `requests` are the paths asked for. */
  https(certFile: string, keyFile: string): Promise<RemoteServer<string>>;
  /** A plain http server there answering 204 to everything. */
  http(): Promise<RemoteServer<SeenByRemote>>;
  /** Stops its servers and removes the namespace and the veth pair. */
  remove(): Promise<void>;
}

let created = 0;
/** The namespaces this process made and has not removed, and the veth end on this side of each. */
const live = new Map<string, string>();
// A worker that ends without its afterAll hooks still removes what it made.
process.once('exit', () => {
  for (const name of live.keys()) removeNamespace(name);
});

/** Creates a namespace joined to this machine by a veth pair, after removing any a dead test run left behind. */
export function createOtherHost(): OtherHost {
  removeStale();
  const name = `${PREFIX}${process.pid}-${threadId}-${created++}`;
  ip(['netns', 'add', name]);
  live.set(name, '');
  try {
    const subnet = claimSubnet(name);
    live.set(name, `${VETH}${subnet}`);
    const [local, address] = [1, 2].map((offset) => addressOf(subnet, offset)) as [string, string];
    ip(['addr', 'add', `${local}/30`, 'dev', `${VETH}${subnet}`]);
    ip(['link', 'set', `${VETH}${subnet}`, 'up']);
    ip(['-n', name, 'addr', 'add', `${address}/30`, 'dev', 'eth0']);
    ip(['-n', name, 'link', 'set', 'eth0', 'up']);
    ip(['-n', name, 'link', 'set', 'lo', 'up']);
    const children = new Set<ChildProcess>();
    const start = <T>(role: string, options: object) => startServer<T>(name, address, role, options, children);
    return {
      name,
      address,
      localAddress: local,
      proxy: (options = {}) => start('proxy', options),
      https: (certFile, keyFile) => start('https', { certFile, keyFile }),
      http: () => start('http', {}),
      async remove() {
        await Promise.all([...children].map(stop));
        removeNamespace(name);
      },
    };
  } catch (error) {
    removeNamespace(name);
    throw error;
  }
}

/**
 * The first free /30: the veth's name is the claim, since the kernel refuses a second link of
 * that name, so parallel workers (and parallel test runs) never share a subnet. The pair is
 * created with its far end already in the namespace, so removing the namespace removes both.
 */
function claimSubnet(namespace: string): number {
  for (let subnet = 0; subnet < SUBNETS; subnet++) {
    try {
      ip(['link', 'add', `${VETH}${subnet}`, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', namespace]);
      return subnet;
    } catch (error) {
      if (!/File exists/.test(String(error))) throw error;
    }
  }
  throw new Error(`no free /30 left in 198.18.0.0/15 for a veth pair (${VETH}0 to ${VETH}${SUBNETS - 1} all exist)`);
}

function addressOf(subnet: number, offset: number): string {
  const n = (198 << 24) + (18 << 16) + subnet * 4 + offset;
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

async function startServer<T>(
  namespace: string,
  address: string,
  role: string,
  options: object,
  children: Set<ChildProcess>,
): Promise<RemoteServer<T>> {
  const child = spawn(
    'ip',
    ['netns', 'exec', namespace, process.execPath, '--import', TSX, SERVER, role, address, JSON.stringify(options)],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  children.add(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<unknown> => {
    const line = await lines.next();
    if (line.done) throw new Error(`the ${role} in network namespace ${namespace} ended (exit ${child.exitCode ?? child.signalCode})`);
    return JSON.parse(line.value);
  };
  const { port } = (await next()) as { port: number };
  // One request at a time: each answer is the line after its question.
  let queue: Promise<unknown> = Promise.resolve();
  const state = () => {
    const asked = queue.then(() => {
      child.stdin!.write('state\n');
      return next() as Promise<{ requests: T[]; connections: number }>;
    });
    queue = asked.catch(() => {});
    return asked;
  };
  const scheme = role === 'https' ? 'https' : 'http';
  return {
    url: `${scheme}://${address}:${port}`,
    port,
    requests: async () => (await state()).requests,
    connections: async () => (await state()).connections,
    async close() {
      await stop(child);
      children.delete(child);
    },
  };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return exited;
}

function removeNamespace(name: string): void {
  for (const pid of run(['netns', 'pids', name]).split('\n').filter(Boolean)) killQuietly(Number(pid));
  // Deleting the namespace deletes the veth pair too, but the kernel does that a little later;
  // ours goes now, so its subnet is free for the next claim. (A stale one goes with its namespace.)
  const veth = live.get(name);
  if (veth) run(['link', 'del', veth]);
  run(['netns', 'del', name]);
  live.delete(name);
}

/** Namespaces with our prefix whose test process is gone (a killed run): removed, with what still runs in them. */
function removeStale(): void {
  for (const line of run(['netns', 'list']).split('\n')) {
    const name = line.split(' ')[0] ?? '';
    const pid = Number(/^plantstore-test-(\d+)-\d+-\d+$/.exec(name)?.[1]);
    if (name.startsWith(PREFIX) && pid > 0 && !alive(pid)) removeNamespace(name);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {}
}

/** `ip` for set-up: a failure throws, saying why these tests need it. */
function ip(args: string[]): void {
  try {
    execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const { code, stderr } = error as NodeJS.ErrnoException & { stderr?: Buffer };
    const said = code === 'ENOENT' ? 'ip is not installed (iproute2)' : `\`ip ${args.join(' ')}\` said: ${String(stderr).trim()}`;
    throw new Error(
      `cannot create a network namespace to play another host: ${said}. These tests need root (CAP_SYS_ADMIN and CAP_NET_ADMIN) and iproute2; CI runs them as root`,
    );
  }
}

/** `ip` for clean-up and reading: what it printed, or '' when it failed. */
function run(args: string[]): string {
  try {
    return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
}
