// A small forward proxy on loopback, enough for what undici's ProxyAgent sends:
// absolute-form requests (`DELETE http://127.0.0.1:1234/plants/42`) for http
// origins, forwarded with http.request; CONNECT tunnels for https origins, piped
// to net.connect. It records what it was asked for, and can refuse CONNECT.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface ProxiedRequest {
  /** 'forward' for an absolute-form request, 'connect' for a tunnel. */
  kind: 'forward' | 'connect';
  method: string;
  /** The absolute URL (forward) or host:port (connect) asked for. */
  target: string;
  headers: http.IncomingHttpHeaders;
}

export interface ForwardProxy {
  url: string;
  port: number;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

export interface ProxyOptions {
  /** Answer every CONNECT with this status (e.g. 407) instead of opening the tunnel. */
  refuseConnect?: number;
  /** The address to listen on; loopback by default. */
  host?: string;
}

// Hop-by-hop headers a proxy must not pass on (RFC 9110 §7.6.1).
const HOP_BY_HOP = ['connection', 'proxy-connection', 'proxy-authorization', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade'];

export async function startForwardProxy(options: ProxyOptions = {}): Promise<ForwardProxy> {
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<net.Socket>();

  const server = http.createServer((req, res) => {
    requests.push({ kind: 'forward', method: req.method ?? '', target: req.url ?? '', headers: req.headers });
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form request expected');
      return;
    }
    const headers = { ...req.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    const upstream = http.request(target, { method: req.method ?? 'GET', headers, agent: false }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end('upstream failed')));
    req.pipe(upstream);
  });

  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    requests.push({ kind: 'connect', method: req.method ?? '', target: req.url ?? '', headers: req.headers });
    client.on('error', () => {});
    if (options.refuseConnect) {
      const reason = http.STATUS_CODES[options.refuseConnect] ?? 'Refused';
      const extra = options.refuseConnect === 407 ? 'Proxy-Authenticate: Basic realm="test proxy"\r\n' : '';
      client.end(`HTTP/1.1 ${options.refuseConnect} ${reason}\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    const [host = '', port = ''] = splitHostPort(req.url ?? '');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function splitHostPort(authority: string): [string, string] {
  const match = /^\[?([^\]]*?)\]?:(\d+)$/.exec(authority);
  return match ? [match[1]!, match[2]!] : [authority, '443'];
}
