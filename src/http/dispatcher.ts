import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { Dispatcher } from 'undici';
import { watchReuse } from './idle-reuse.js';
import { loopbackOnlyLookup } from './loopback-lookup.js';
import { watchTlsAlerts } from './tls-alerts.js';
import { buildConnector, kHTTPContext, Pool, ProxyAgent } from './undici-parts.js';

export interface DispatcherOptions {
  /** The one origin every request of this run goes to. */
  origin: string;
  /** The proxy for that origin (see proxy.ts), with any credentials; undefined to go direct. */
  proxy: string | undefined;
  timeoutMs: number;
  /** Extra PEM certificates to trust besides the default store (which includes NODE_EXTRA_CA_CERTS). */
  caPem?: string;
  /** Requests the run may have in flight at once: connections kept open over HTTP/1.1, streams on one connection over h2. */
  connections?: number;
}

/**
 * One keep-alive connection pool for the whole run. Every request goes to one
 * origin, so the proxy question is answered once (proxy.ts): a plain Pool when
 * direct, a ProxyAgent when not.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  // node:tls only when asked: a plain http:// run never loads it.
  const trust = options.caPem ? { ca: [...process.getBuiltinModule('node:tls').getCACertificates('default'), options.caPem] } : undefined;
  // The token may travel in clear text to http://localhost: only if that name leads to this machine.
  const pinned = new URL(options.origin).hostname === 'localhost' ? { lookup: loopbackOnlyLookup } : undefined;
  const connect = { timeout: options.timeoutMs, ...trust, ...pinned };
  const common = {
    connect,
    // Off: our own per-attempt deadline (deadline.ts) governs the whole answer. undici's fire in
    // the timers phase after a suspend, before the sockets are read, and over h2 each reset its
    // stream whose answer had arrived while the process was stopped (issue 34, item 5).
    headersTimeout: 0,
    bodyTimeout: 0,
    keepAliveTimeout: 10_000,
    ...(options.connections ? { connections: options.connections } : {}),
    h2Options: { maxConcurrentStreams: streamsPerConnection(options.connections) },
  };
  if (options.proxy) {
    const agent = new ProxyAgent({ ...common, uri: options.proxy, ...(trust ? { requestTls: trust, proxyTls: trust } : {}) });
    return agent;
  }
  const connecting = new Set<Socket>();
  const pool = new Pool(options.origin, { ...common, connect: watchingConnects(buildConnector(connect), connecting) });
  // A connect under way holds the process open until its own timeout (a handshake the server
  // never finishes: --timeout, 20 s or more), though every request waiting on it was abandoned.
  // Destroying the pool ends those connects too.
  const destroy = pool.destroy.bind(pool) as () => Promise<void>;
  pool.destroy = ((...args: unknown[]) => {
    for (const socket of connecting) socket.destroy();
    return (destroy as (...rest: unknown[]) => Promise<void>)(...args);
  }) as typeof pool.destroy;
  return reconnectAfterGoAway(pool, streamsPerConnection(options.connections));
}

/**
 * Over h2, one connection carries every request the run has in flight, as RFC 9113 asks of a
 * client (section 9.1), where a server allows that many streams: undici takes the lower of this
 * and the server's SETTINGS_MAX_CONCURRENT_STREAMS (nginx 128, Go 250, Node's unlimited), and
 * opens another connection only past it. At undici's default of 100, a batch at 256 opened three
 * connections one after the other, each a TLS handshake made while the first carried 100 requests:
 * measured at a server with room for 200 (20 ms, two cores), 10,000 ids took 1.72 s at fixed 256
 * over three connections and 1.64 s over one.
 */
function streamsPerConnection(inFlight: number | undefined): number {
  return Math.max(H2_PIPELINING, inFlight ?? 0);
}

/**
 * undici's own connector, with each socket's TLS alerts recorded (tls-alerts.ts), its reuse
 * watched (idle-reuse.ts), and the
 * sockets still connecting kept in `connecting` (undici's connector returns the socket at once).
 */
function watchingConnects(connector: buildConnector.connector, connecting: Set<Socket>): buildConnector.connector {
  return (options, callback) => {
    let opening: Socket | undefined;
    const returned = connector(options, (error: Error | null, socket?: Socket | null) => {
      if (opening !== undefined) connecting.delete(opening);
      // A failed connect passes no socket at all.
      if (socket != null && 'encrypted' in socket) watchTlsAlerts(socket);
      if (socket != null) watchReuse(socket);
      // undici's callback type has two overloads; this passes through whichever came.
      (callback as (error: Error | null, socket?: Socket | null) => void)(error, socket);
    }) as unknown;
    if (returned instanceof EventEmitter) {
      opening = returned as Socket;
      connecting.add(opening);
    }
    return returned as ReturnType<buildConnector.connector>;
  };
}

/** undici's default maxConcurrentStreams, which its own h2c client (H2CClient) sets pipelining to; the least streamsPerConnection asks. */
const H2_PIPELINING = 100;

type PoolClient = Dispatcher & { pipelining: number; [kHTTPContext]?: { version?: string } | null };

/**
 * A server retires an HTTP/2 connection with GOAWAY (nginx does after keepalive_requests,
 * and on every reload). undici's Client then drops the session at once but lets the
 * streams the server still answers run on; until it connects again it holds itself to
 * the HTTP/1.1 pipelining limit, 1 by default, counting those streams. So the requests
 * the GOAWAY sent back, and any given to that Client meanwhile, wait for the slowest
 * answer still due on the retired connection: a whole --timeout when it never comes.
 * A Client that speaks h2 gets as many as its streams (streamsPerConnection), and
 * connects again at once. Over HTTP/1.1 the limit stays 1, so a DELETE never queues behind
 * another answer on its connection. (pipelining means nothing else over h2.)
 */
function reconnectAfterGoAway(pool: Dispatcher, streams: number): Dispatcher {
  pool.on('connect', (_origin, targets) => {
    const client = targets.at(-1) as PoolClient | undefined;
    if (client === undefined || client === pool) return;
    const limit = client[kHTTPContext]?.version === 'h2' ? streams : 1;
    if (client.pipelining !== limit) client.pipelining = limit;
  });
  return pool;
}
