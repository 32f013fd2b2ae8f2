import { ConfigError } from '../errors.js';

/**
 * Checks a base URL and returns it without a trailing slash, so that
 * "https://api.example.com/v1/" and ".../v1" both lead to ".../v1/plants/42".
 */
export function normalizeBaseUrl(raw: string, source: string): string {
  let url: URL;
  // `localhost:8080` parses, as scheme "localhost:": the scheme left out is the likelier typo.
  const meant = withScheme(raw.trim());
  if (meant !== undefined) {
    throw new ConfigError(`invalid base URL '${raw}' (from ${source}): did you mean ${meant}? A base URL starts with http:// or https://`);
  }
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`invalid base URL '${raw}' (from ${source}): expected something like https://api.example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`invalid base URL '${raw}' (from ${source}): only http and https are supported, as in https://api.example.com`);
  }
  if (url.username || url.password) {
    throw new ConfigError(`the base URL (from ${source}) must not hold credentials; use plantstore auth login for the token`);
  }
  // `search` and `hash` are empty for a bare "?" or "#", which href still keeps (and would send: a
  // bare "?" ends up before /plants/42). href writes a "?" only as the query's start and a "#"
  // only as the fragment's: elsewhere they are percent-encoded.
  const hashAt = url.href.indexOf('#');
  const hasQuery = (hashAt === -1 ? url.href : url.href.slice(0, hashAt)).includes('?');
  const hasFragment = hashAt !== -1;
  if (hasQuery || hasFragment) {
    const part = hasQuery && hasFragment ? 'a query or fragment' : hasQuery ? 'a query' : 'a fragment';
    // Not echoed whole: a query is where people paste tokens.
    throw new ConfigError(
      `invalid base URL '${url.origin}${url.pathname}${hasQuery ? '?' : '#'}…' (from ${source}): it must not have ${part}; drop everything from the ${hasQuery ? '?' : '#'} on`,
    );
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * The URL meant by a base URL written without its scheme (`localhost:8080`, `api.example.com/v1`):
 * http:// for this machine, where plain http is allowed, https:// anywhere else. Undefined when
 * `raw` has a scheme, or is not a host with an optional port and path.
 */
function withScheme(raw: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) || !/^[\w.-]+(?::[0-9]{1,5})?(?:\/(?!\/)[^\s?#]*)?$/.test(raw)) return undefined;
  if (!URL.canParse(`http://${raw}`)) return undefined;
  const { hostname } = new URL(`http://${raw}`);
  if (hostname === 'http' || hostname === 'https') return undefined;
  return `${isLoopbackHost(hostname) ? 'http' : 'https'}://${raw.replace(/\/+$/, '')}`;
}

/**
 * Hosts a bearer token may travel to in clear text: IP literals of this machine
 * (127.0.0.0/8, ::1 and its IPv4-mapped form) and exactly `localhost`, whose
 * connections are pinned to a loopback address (loopback-lookup.ts). Not
 * `*.localhost`: a resolver may send such a name to DNS, and DNS anywhere.
 * Takes a WHATWG URL hostname, which writes IPv4 in dotted decimal and
 * `[::ffff:127.0.0.1]` as `[::ffff:7f00:1]`.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || isLoopbackAddress(host);
}

/** An IP address (as a URL or the resolver writes it) on the loopback interface. */
export function isLoopbackAddress(address: string): boolean {
  const ip = address.toLowerCase();
  if (ip === '::1') return true;
  if (/^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(ip)) return true;
  return /^(?:::ffff:)?127(\.\d{1,3}){3}$/.test(ip);
}

/** Refuses to send a token in clear text to anything but this machine. */
export function assertSafeForToken(baseUrl: string, source: string): void {
  const url = new URL(baseUrl);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ConfigError(
      `refusing to send the token over plain http to ${url.host} (base URL from ${source}); use https, or http only for loopback`,
    );
  }
}

/**
 * A base URL fit to print or to write down (a journal's header, `config list`), from a file anyone
 * may have edited or a variable a token was pasted into: a user and password masked as proxies'
 * are (`***@`), each query value masked (`?key=***`, where people paste tokens), a fragment cut
 * to `#…`, no trailing slash, and every secret `mask` knows (the run's token, in any encoding)
 * masked wherever it stands, as in an API whose path holds it (`…/bot<token>`). Undefined when it
 * is not a URL. Not escaped: the caller makes it safe for where it goes.
 */
export function maskedBaseUrl(raw: string, mask: (text: string) => string = (text) => text): string | undefined {
  if (!URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  const query = maskedQuery(url);
  const fragment = url.hash || url.href.includes('#') ? '#…' : '';
  url.search = '';
  url.hash = '';
  if (url.username || url.password) {
    url.username = '***';
    url.password = '';
  }
  return mask(`${url.href.replace(/\/$/, '')}${query}${fragment}`);
}

/** `?key=***&other=***`: the names kept (they say what was pasted), every value masked; `?…` for a query of no names. */
function maskedQuery(url: URL): string {
  const hashAt = url.href.indexOf('#');
  if (!(hashAt === -1 ? url.href : url.href.slice(0, hashAt)).includes('?')) return '';
  const names = [...url.searchParams.keys()].filter((name) => name !== '');
  if (names.length === 0) return '?…';
  return `?${names.map((name) => `${encodeURIComponent(name)}=${MASKED}`).join('&')}`;
}

const MASKED = '***';
