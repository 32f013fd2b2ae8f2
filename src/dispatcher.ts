import tls from 'node:tls';
import type { Dispatcher } from 'undici';
import { EnvHttpProxyAgent } from './undici-parts.js';
import type { Env } from './io.js';

export interface DispatcherOptions {
  env: Env;
  timeoutMs: number;
  /** Extra PEM certificates to trust besides the default store (which includes NODE_EXTRA_CA_CERTS). */
  caPem?: string;
  /** Connections kept per origin. */
  connections?: number;
}

/**
 * One connection pool for the whole run, keep-alive, proxies from the environment.
 * Proxy variables are passed explicitly so tests that hand in an env get exactly
 * that env ('' means none; undici would otherwise fall back to process.env).
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { env } = options;
  const trust = options.caPem ? { ca: [...tls.getCACertificates('default'), options.caPem] } : undefined;
  return new EnvHttpProxyAgent({
    httpProxy: env['http_proxy'] ?? env['HTTP_PROXY'] ?? '',
    httpsProxy: env['https_proxy'] ?? env['HTTPS_PROXY'] ?? '',
    noProxy: env['no_proxy'] ?? env['NO_PROXY'] ?? '',
    connect: { timeout: options.timeoutMs, ...trust },
    ...(trust ? { requestTls: trust, proxyTls: trust } : {}),
    // Our own per-attempt deadline governs; these only stop undici's 300 s defaults from lingering.
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 10_000,
    ...(options.connections ? { connections: options.connections } : {}),
  });
}
