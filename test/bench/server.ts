// A tiny loopback stand-in for the Plant Store: 204 to every DELETE, so a
// benchmark can delete the same plant as often as it likes. It counts what it
// is sent, so a run that sent nothing (or the wrong token) is caught, not timed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DeleteServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** DELETEs received with `Authorization: Bearer <token>`. */
  authorized(): number;
  /** Every request received. */
  total(): number;
  close(): Promise<void>;
}

export async function startDeleteServer(token: string): Promise<DeleteServer> {
  let authorized = 0;
  let total = 0;
  const server = http.createServer((req, res) => {
    total++;
    if (req.method === 'DELETE' && req.headers.authorization === `Bearer ${token}`) authorized++;
    req.resume();
    if (req.method === 'DELETE') res.writeHead(204).end();
    else res.writeHead(405, { allow: 'DELETE' }).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve); // loopback only
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    authorized: () => authorized,
    total: () => total,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
