// What undici's HTTP/2 client (client-h2.js) takes from node:http2: connect() and ten constants.
// It requires node:http2 as it loads, and node:http2 brings node:tls with it: about 11 ms of
// every start-up, though only an https origin that agrees to h2 ever opens a session. The build
// hands undici this module in its place (scripts/bundle.ts), and node:http2 is loaded by the
// first connect(). test/unit/http/lazy-http2.test.ts holds both to undici's use and Node's values.

import type { ClientSessionOptions, connect as http2Connect, SecureClientSessionOptions } from 'node:http2';

/** HTTP/2's own names and codes (RFC 9113), as node:http2 spells them. */
export const constants = {
  HTTP2_HEADER_AUTHORITY: ':authority',
  HTTP2_HEADER_METHOD: ':method',
  HTTP2_HEADER_PATH: ':path',
  HTTP2_HEADER_SCHEME: ':scheme',
  HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
  HTTP2_HEADER_EXPECT: 'expect',
  HTTP2_HEADER_STATUS: ':status',
  HTTP2_HEADER_PROTOCOL: ':protocol',
  NGHTTP2_NO_ERROR: 0,
  NGHTTP2_REFUSED_STREAM: 7,
} as const;

export function connect(
  authority: string | URL,
  options?: ClientSessionOptions | SecureClientSessionOptions,
): ReturnType<typeof http2Connect> {
  return process.getBuiltinModule('node:http2').connect(authority, options);
}
