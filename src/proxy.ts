import type { Env } from './io.js';

/**
 * The proxy undici's EnvHttpProxyAgent will use for a URL, worked out the same way
 * (HTTPS_PROXY/HTTP_PROXY, lowercase first, and NO_PROXY), so that traces and
 * errors can name it. Returns undefined when the request goes direct.
 */
export function proxyFor(url: URL, env: Env): string | undefined {
  const httpProxy = env['http_proxy'] ?? env['HTTP_PROXY'];
  const httpsProxy = env['https_proxy'] ?? env['HTTPS_PROXY'] ?? httpProxy;
  const proxy = url.protocol === 'https:' ? httpsProxy : httpProxy;
  if (!proxy) return undefined;
  return bypassesProxy(url, env['no_proxy'] ?? env['NO_PROXY'] ?? '') ? undefined : proxy;
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
