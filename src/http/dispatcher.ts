import type { Socket } from 'node:net';
import tls from 'node:tls';
import type { Dispatcher } from 'undici';
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
  /** Connections kept open to the origin. */
  connections?: number;
  /** Called each time undici sends a request again on its own (HTTP/2 REFUSED_STREAM, GOAWAY), for --rate to count. */
  onResend?: () => void;
}

/**
 * One keep-alive connection pool for the whole run. Every request goes to one
 * origin, so the proxy question is answered once (proxy.ts): a plain Pool when
 * direct, a ProxyAgent when not.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const trust = options.caPem ? { ca: [...tls.getCACertificates('default'), options.caPem] } : undefined;
  // The token may travel in clear text to http://localhost: only if that name leads to this machine.
  const pinned = new URL(options.origin).hostname === 'localhost' ? { lookup: loopbackOnlyLookup } : undefined;
  const connect = { timeout: options.timeoutMs, ...trust, ...pinned };
  const common = {
    connect,
    // Our own per-attempt deadline governs; these only stop undici's 300 s defaults from lingering.
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 10_000,
    ...(options.connections ? { connections: options.connections } : {}),
  };
  if (options.proxy) {
    return new ProxyAgent({ ...common, uri: options.proxy, ...(trust ? { requestTls: trust, proxyTls: trust } : {}) });
  }
  const pool = new Pool(options.origin, { ...common, connect: watchingTlsAlerts(buildConnector(connect)) });
  return countingResends(reconnectAfterGoAway(pool), options.onResend);
}

/** undici's own connector, with each socket's TLS alerts recorded (tls-alerts.ts). */
function watchingTlsAlerts(connector: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connector(options, (error: Error | null, socket?: Socket | null) => {
      // A failed connect passes no socket at all.
      if (socket != null && 'encrypted' in socket) watchTlsAlerts(socket);
      // undici's callback type has two overloads; this passes through whichever came.
      (callback as (error: Error | null, socket?: Socket | null) => void)(error, socket);
    });
}

/**
 * undici resends a request on its own when HTTP/2 says it was not processed (one retry
 * after REFUSED_STREAM, a replay after a GOAWAY). The server still sees it arrive, so
 * --rate must count it: each start of a request after its first is reported.
 */
function countingResends(dispatcher: Dispatcher, onResend: (() => void) | undefined): Dispatcher {
  if (onResend === undefined) return dispatcher;
  return dispatcher.compose((dispatch) => (opts, handler) => {
    let starts = 0;
    // A view of the handler, not a copy: its methods keep running on the handler itself.
    const counted = new Proxy(handler, {
      get(target, name) {
        const value = Reflect.get(target, name);
        if (typeof value !== 'function') return value;
        if (name !== 'onRequestStart') return value.bind(target);
        return (...args: unknown[]) => {
          if (++starts > 1) onResend();
          return value.apply(target, args);
        };
      },
    });
    return dispatch(opts, counted);
  });
}

/** What undici's own h2c client (H2CClient) sets pipelining to: its default maxConcurrentStreams. */
const H2_PIPELINING = 100;

type PoolClient = Dispatcher & { pipelining: number; [kHTTPContext]?: { version?: string } | null };

/**
 * A server retires an HTTP/2 connection with GOAWAY (nginx does after keepalive_requests,
 * and on every reload). undici's Client then drops the session at once but lets the
 * streams the server still answers run on; until it connects again it holds itself to
 * the HTTP/1.1 pipelining limit, 1 by default, counting those streams. So the requests
 * the GOAWAY sent back, and any given to that Client meanwhile, wait for the slowest
 * answer still due on the retired connection: a whole --timeout when it never comes.
 * A Client that speaks h2 gets the limit undici's own h2c client has, and connects
 * again at once. Over HTTP/1.1 the limit stays 1, so a DELETE never queues behind
 * another answer on its connection. (pipelining means nothing else over h2.)
 */
function reconnectAfterGoAway(pool: Dispatcher): Dispatcher {
  pool.on('connect', (_origin, targets) => {
    const client = targets.at(-1) as PoolClient | undefined;
    if (client === undefined || client === pool) return;
    const limit = client[kHTTPContext]?.version === 'h2' ? H2_PIPELINING : 1;
    if (client.pipelining !== limit) client.pipelining = limit;
  });
  return pool;
}
