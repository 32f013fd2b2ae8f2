// A loopback HTTP/1.1 server written on raw sockets, so that it can misbehave the
// ways real servers and middleboxes do: never answer, flood a body, announce a
// gigabyte, or whatever a script does with the socket (reset mid-body, close without
// a word). It records when every request arrived and when every connection closed,
// so tests can wait on events (nextExchange, closed) instead of sleeping, and check
// timing server-side.
import { STATUS_CODES } from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface Connection {
  /** 1-based, in order of acceptance. */
  number: number;
  socket: net.Socket;
  openedAt: number;
  /** performance.now() when the socket closed; undefined while open. */
  closedAt: number | undefined;
  /** Bytes the server handed to the socket before it closed (kernel buffers included). */
  bytesWritten: number;
  /** Resolves once the socket has closed, whoever closed it. */
  closed: Promise<Connection>;
}

export interface Exchange {
  /** 1-based, in order of arrival over the whole server. */
  number: number;
  connection: Connection;
  method: string;
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** performance.now() when the request head arrived. */
  at: number;
  /** Date.now() when the request head arrived: comparable with HTTP dates. */
  wallClock: number;
}

export type Script = (exchange: Exchange) => void;

export interface HostileServer {
  url: string;
  port: number;
  exchanges: Exchange[];
  connections: Connection[];
  /** Resolves when the next request head arrives. */
  nextExchange(): Promise<Exchange>;
  close(): Promise<void>;
}

export interface HostileOptions {
  /** Runs first on every accepted socket; return true to skip request handling (e.g. it was closed). */
  onConnection?: (connection: Connection) => boolean | undefined;
  host?: string;
}

export async function startHostileServer(script: Script, options: HostileOptions = {}): Promise<HostileServer> {
  const exchanges: Exchange[] = [];
  const connections: Connection[] = [];
  const waiting: Array<(exchange: Exchange) => void> = [];

  const server = net.createServer((socket) => {
    socket.on('error', () => {}); // resets and broken pipes are the point here
    let resolveClosed!: (connection: Connection) => void;
    const connection: Connection = {
      number: connections.length + 1,
      socket,
      openedAt: performance.now(),
      closedAt: undefined,
      bytesWritten: 0,
      closed: new Promise((resolve) => (resolveClosed = resolve)),
    };
    connections.push(connection);
    socket.on('close', () => {
      connection.closedAt = performance.now();
      connection.bytesWritten = socket.bytesWritten;
      resolveClosed(connection);
    });
    if (options.onConnection?.(connection) === true) return;

    let buffered = Buffer.alloc(0);
    let skip = 0; // request body bytes still to discard
    socket.on('data', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      for (;;) {
        if (skip > 0) {
          const dropped = Math.min(skip, buffered.length);
          buffered = buffered.subarray(dropped);
          skip -= dropped;
          if (skip > 0) return;
        }
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) return;
        const [requestLine = '', ...lines] = buffered.subarray(0, end).toString('latin1').split('\r\n');
        buffered = buffered.subarray(end + 4);
        const headers: Record<string, string> = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        skip = Number(headers['content-length'] ?? 0) || 0;
        const [method = '', url = ''] = requestLine.split(' ');
        const exchange: Exchange = {
          number: exchanges.length + 1,
          connection,
          method,
          url,
          headers,
          at: performance.now(),
          wallClock: Date.now(),
        };
        exchanges.push(exchange);
        for (const resolve of waiting.splice(0)) resolve(exchange);
        script(exchange);
      }
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    exchanges,
    connections,
    nextExchange: () => new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise((resolve) => {
        for (const { socket } of connections) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---- Writing answers by hand ----------------------------------------------------

export type Headers = Record<string, string | number>;

/** The status line and headers only; the body (if any) is up to the caller. */
export function writeHead(exchange: Exchange, status: number, headers: Headers = {}): void {
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  exchange.connection.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
}

/** A complete, well-formed answer on a keep-alive connection. */
export function answer(exchange: Exchange, status: number, headers: Headers = {}, body: string | Buffer = ''): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const hasBody = status !== 204 && status !== 304;
  writeHead(exchange, status, hasBody ? { ...headers, 'content-length': bytes.length } : headers);
  if (hasBody && bytes.length > 0) exchange.connection.socket.write(bytes);
}

/** Writes `chunk` over and over, as fast as the reader drains it, until the socket closes. */
export function flood(exchange: Exchange, chunk: Buffer | string): void {
  const { socket } = exchange.connection;
  const pump = (): void => {
    while (!socket.destroyed && socket.write(chunk)) {
      // keep the kernel buffer full
    }
  };
  socket.on('drain', pump);
  pump();
}

/** An HTTP/1.1 chunk: size line, data, CRLF. */
export function chunked(data: Buffer | string): Buffer {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
}

// ---- Ready-made misbehaviour ------------------------------------------------------

export const modes = {
  /** Reads the request and never answers. */
  silent: (): Script => () => {},
  /** A chunked body that never ends, sent as fast as it is read. */
  endlessBody:
    (status: number): Script =>
    (exchange) => {
      writeHead(exchange, status, { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' });
      flood(exchange, chunked(`endless ${status} `.padEnd(16 * 1024, 'x')));
    },
  /** Announces `bytes` with Content-Length and starts sending them. */
  hugeBody:
    (status: number, bytes: number): Script =>
    (exchange) => {
      writeHead(exchange, status, { 'content-type': 'text/html', 'content-length': bytes });
      exchange.connection.socket.write('<html><head><title>Huge gateway page</title></head><body>');
      flood(exchange, Buffer.alloc(64 * 1024, 'y'));
    },
  /** A status line, then header fields past any client's limit (undici's and Node's are 16 KiB by default). */
  hugeHeaders:
    (status: number, bytes: number): Script =>
    (exchange) =>
      writeHead(exchange, status, { 'x-padding': 'p'.repeat(bytes), 'content-length': 0 }),
  /** One well-formed answer. */
  reply:
    (status: number, headers: Headers = {}, body: string | Buffer = ''): Script =>
    (exchange) =>
      answer(exchange, status, headers, body),
  /** The n-th request (1-based) gets scripts[n-1]; later ones get the last script. */
  sequence:
    (...scripts: Script[]): Script =>
    (exchange) => {
      const script = scripts[Math.min(exchange.number, scripts.length) - 1];
      script?.(exchange);
    },
};
