import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { maskProxy, proxyFor } from '../../../src/http/proxy.js';
import { thrown } from '../../helpers/thrown.js';

const PROXY = 'http://proxy.corp:3128';

describe('proxyFor', () => {
  it.each<[string, string, Record<string, string>, string | undefined]>([
    // Read as curl reads them.
    ['https uses HTTPS_PROXY', 'https://api.example.com', { HTTPS_PROXY: PROXY }, `${PROXY}/`],
    [
      'https uses https_proxy before HTTPS_PROXY',
      'https://api.example.com',
      { https_proxy: PROXY, HTTPS_PROXY: 'http://other:1' },
      `${PROXY}/`,
    ],
    ['https falls back to ALL_PROXY', 'https://api.example.com', { ALL_PROXY: PROXY }, `${PROXY}/`],
    ['https ignores http_proxy (curl does)', 'https://api.example.com', { http_proxy: PROXY }, undefined],
    ['a proxy without a scheme is http://', 'https://api.example.com', { HTTPS_PROXY: 'proxy.corp:3128' }, `${PROXY}/`],
    ['NO_PROXY by name', 'https://api.example.com', { HTTPS_PROXY: PROXY, NO_PROXY: 'example.com' }, undefined],
    ['no_proxy with a port that differs', 'https://api.example.com', { HTTPS_PROXY: PROXY, no_proxy: 'api.example.com:8443' }, `${PROXY}/`],
    ['NO_PROXY=*', 'https://api.example.com', { HTTPS_PROXY: PROXY, NO_PROXY: '*' }, undefined],
    // Loopback is this machine: at the proxy it would be the proxy's own.
    ['never for 127.0.0.1, whatever the environment', 'http://127.0.0.1:8080', { http_proxy: PROXY, ALL_PROXY: PROXY }, undefined],
    ['never for localhost over https', 'https://localhost:8443', { HTTPS_PROXY: PROXY }, undefined],
    ['never for [::1]', 'https://[::1]:8443', { HTTPS_PROXY: PROXY }, undefined],
    // httpoxy: a CGI server sets HTTP_PROXY from a request header.
    ['uppercase HTTP_PROXY is ignored for http', 'http://127.0.0.1:8080', { HTTP_PROXY: PROXY }, undefined],
  ])('%s', (_name, target, env, expected) => {
    expect(proxyFor(new URL(target), env)).toBe(expected);
  });

  it('refuses plain http through a proxy that is not on this machine (exit 3), naming it masked', () => {
    const error = thrown(() => proxyFor(new URL('http://plants.internal'), { http_proxy: 'http://user:pw@192.0.2.2:3128' }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exit).toBe(3);
    expect((error as ConfigError).message).toBe(
      'refusing to send the token in clear text through proxy http://***@192.0.2.2:3128 (from http_proxy): use an https base URL',
    );
  });

  it('allows plain http through a proxy on this machine', () => {
    expect(proxyFor(new URL('http://plants.internal'), { http_proxy: 'http://127.0.0.1:3128' })).toBe('http://127.0.0.1:3128/');
  });

  it.each([
    ['socks5://127.0.0.1:1080', 'unsupported proxy socks5://127.0.0.1:1080 (from HTTPS_PROXY)'],
    ['http://[bad', 'HTTPS_PROXY is not a proxy URL'],
  ])('refuses the proxy %s with exit 3', (proxy, message) => {
    const error = thrown(() => proxyFor(new URL('https://api.example.com'), { HTTPS_PROXY: proxy }));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(message);
  });
});

describe('maskProxy', () => {
  it.each([
    ['http://user:secret@proxy:3128', 'http://***@proxy:3128'],
    ['http://proxy:3128/', 'http://proxy:3128'],
  ])('%s -> %s', (proxy, shown) => {
    expect(maskProxy(proxy)).toBe(shown);
  });
});
