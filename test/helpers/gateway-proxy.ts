// A reverse proxy on loopback, as nginx stands before a service: it forwards each request to an
// upstream and, while the upstream is "down", answers 502 with nginx's HTML page at once, as a
// gateway does whose upstream refuses connections. It counts what reaches it, and when, so a
// test asserts on what a run sent at a failing service rather than on how long it took.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** nginx's own 502 page, byte for byte. */
export const BAD_GATEWAY_PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

export interface GatewayProxy {
  url: string;
  /** Every request that reached the proxy. */
  readonly received: number;
  /** Requests that arrived while the upstream was down (each answered 502, or the answer given). */
  readonly receivedWhileDown: number;
  /** Arrival times (performance.now) of the requests that arrived while it was down. */
  readonly downArrivals: readonly number[];
  /** The upstream goes down once `received` reaches `after`, for `forMs`; resolves when it is back. */
  downAfter(after: number, forMs: number): Promise<{ from: number; to: number }>;
  close(): Promise<void>;
}

/** What the proxy answers while the upstream is down: nginx's 502 page by default. */
export interface DownAnswer {
  status: number;
  contentType: string;
  body: string;
}

const BAD_GATEWAY: DownAnswer = { status: 502, contentType: 'text/html', body: BAD_GATEWAY_PAGE };

/** A maintenance page, as a site in maintenance mode serves it: 200, HTML (issue 40, item 5). */
export const MAINTENANCE_PAGE: DownAnswer = {
  status: 200,
  contentType: 'text/html; charset=utf-8',
  body: '<!DOCTYPE html><html><head><title>Down for maintenance</title></head><body><h1>Back soon</h1></body></html>',
};

export async function startGatewayProxy(upstream: string, whileDown: DownAnswer = BAD_GATEWAY): Promise<GatewayProxy> {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  let received = 0;
  let down = false;
  const downArrivals: number[] = [];
  let trigger: { after: number; start(): void } | undefined;

  const server = http.createServer((req, res) => {
    received += 1;
    if (trigger !== undefined && received >= trigger.after) {
      const start = trigger.start;
      trigger = undefined;
      start();
    }
    if (down) {
      downArrivals.push(performance.now());
      req.resume();
      res
        .writeHead(whileDown.status, { 'content-type': whileDown.contentType, 'content-length': Buffer.byteLength(whileDown.body) })
        .end(whileDown.body);
      return;
    }
    const forward = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/html' });
      res.end(BAD_GATEWAY_PAGE);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get received() {
      return received;
    },
    get receivedWhileDown() {
      return downArrivals.length;
    },
    downArrivals,
    downAfter(after, forMs) {
      return new Promise((resolve) => {
        trigger = {
          after,
          start() {
            down = true;
            const from = performance.now();
            setTimeout(() => {
              down = false;
              resolve({ from, to: performance.now() });
            }, forMs);
          },
        };
      });
    },
    async close() {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
