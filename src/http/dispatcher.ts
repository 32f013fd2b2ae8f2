import tls from 'node:tls';
import type { Dispatcher } from 'undici';
import { loopbackOnlyLookup } from './loopback-lookup.js';
import { Pool, ProxyAgent } from './undici-parts.js';

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
  const common = {
    connect: { timeout: options.timeoutMs, ...trust, ...pinned },
    // Our own per-attempt deadline governs; these only stop undici's 300 s defaults from lingering.
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 10_000,
    ...(options.connections ? { connections: options.connections } : {}),
  };
  if (options.proxy) {
    return new ProxyAgent({ ...common, uri: options.proxy, ...(trust ? { requestTls: trust, proxyTls: trust } : {}) });
  }
  return new Pool(options.origin, common);
}
