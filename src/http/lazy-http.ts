// What undici's core/util.js and dispatcher/client.js take from node:http, which plantstore's
// client never uses otherwise: node:http and its _http_* modules cost about 1.5 ms of every
// start-up. The build hands those two files this module in its place (scripts/bundle-plugins.ts).
// test/unit/http/lazy-http.test.ts holds it to undici's use and to Node's value.

/**
 * Node's default limit on the size of an answer's headers (--max-http-header-size: 16 KiB),
 * which a Client takes when not told one. Where that option may have been given (on the command
 * line, in NODE_OPTIONS, or by a config file), node:http is asked, as undici would.
 */
export const maxHeaderSize: number = /max-http-header-size|config-file/.test(
  [...process.execArgv, process.env['NODE_OPTIONS'] ?? ''].join(' '),
)
  ? process.getBuiltinModule('node:http').maxHeaderSize
  : 16 * 1024;

/**
 * undici's util.destroy() compares a stream's class with this to clear an http.IncomingMessage's
 * socket before destroying it. The streams plantstore's requests give undici are its sockets
 * (net.Socket, tls.TLSSocket); bodies are strings (http/attempt.ts withBody), never an
 * IncomingMessage, which only node:http's own client or server makes. So the comparison is false
 * for every stream that reaches it, with this class as with node:http's.
 */
export class IncomingMessage {}

export default { maxHeaderSize, IncomingMessage };
