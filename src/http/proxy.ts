import { isLoopbackHost } from '../config/base-url.js';
import { ConfigError } from '../errors.js';
import type { Env } from '../platform/env.js';

/**
 * The proxy a request to `url` goes through, read from the environment the way
 * curl reads it, or undefined to go direct:
 * - https: `https_proxy`, then `HTTPS_PROXY`, then `all_proxy` / `ALL_PROXY`;
 * - http: `http_proxy` only, then `all_proxy` / `ALL_PROXY`. Uppercase
 *   `HTTP_PROXY` is ignored, as curl ignores it: a CGI server sets it from a
 *   request's `Proxy:` header ("httpoxy");
 * - `no_proxy` / `NO_PROXY` lists hosts (and `*`) that go direct;
 * - a loopback target never goes through a proxy, whatever the environment says:
 *   `127.0.0.1` means this machine, and at a proxy it would mean the proxy's own;
 * - a proxy written without a scheme (`proxy.corp:3128`) is an http:// proxy.
 *
 * Plain http reaches loopback only (base-url.ts), so it never meets a proxy; the
 * last check here keeps it that way should that rule ever loosen: a token sent
 * in clear text through a proxy on another host crosses the network readable.
 */
export function proxyFor(url: URL, env: Env): string | undefined {
  if (isLoopbackHost(url.hostname)) return undefined;
  const named = proxyVariable(url.protocol, env);
  if (named === undefined) return undefined;
  if (bypassesProxy(url, env['no_proxy'] ?? env['NO_PROXY'] ?? '')) return undefined;
  const proxy = parseProxy(named.value, named.name);
  if (url.protocol === 'http:' && !isLoopbackHost(new URL(proxy).hostname)) {
    throw new ConfigError(
      `refusing to send the token in clear text through proxy ${maskProxy(proxy)} (from ${named.name}): use an https base URL`,
    );
  }
  return proxy;
}

function proxyVariable(protocol: string, env: Env): { name: string; value: string } | undefined {
  const names = protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy'];
  for (const name of [...names, 'all_proxy', 'ALL_PROXY']) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

/** The proxy URL undici will be given: a scheme added where curl would assume one, and only schemes undici can use. */
function parseProxy(raw: string, variable: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ConfigError(`${variable} is not a proxy URL: expected something like http://proxy.example.com:3128`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      `unsupported proxy ${maskProxy(url.href)} (from ${variable}): plantstore speaks to http:// and https:// proxies only; set ${variable} to one, or unset it`,
    );
  }
  return url.href;
}

function bypassesProxy(url: URL, noProxy: string): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  return noProxy
    .split(/[,\s]+/)
    .filter(Boolean)
    .some((entry) => {
      if (entry === '*') return true;
      const match = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase().replace(/^\*?\./, '.'));
      const [, name = '', entryPort] = match ?? [];
      if (entryPort && Number(entryPort) !== port) return false;
      const bare = name.replace(/^\./, '').replace(/^\[|\]$/g, '');
      return host === bare || host.endsWith(`.${bare}`);
    });
}

/** A proxy URL fit to print: user and password replaced. */
export function maskProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    if (url.username || url.password) {
      url.username = '***';
      url.password = '';
    }
    return url.href.replace(/\/$/, '');
  } catch {
    return '(unparseable proxy URL)';
  }
}
