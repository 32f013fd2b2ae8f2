// Throwaway certificates for TLS tests, made with the openssl command line: a CA,
// and server certificates it signs for whatever names a test needs.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** The openssl binary, or undefined when the machine has none (TLS tests then skip). */
export const OPENSSL = ((): string | undefined => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return 'openssl';
  } catch {
    return undefined;
  }
})();

export interface Issued {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(args: string[], cwd: string): void {
  execFileSync(OPENSSL ?? 'openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A self-signed CA in `dir` (ca.pem, ca.key). */
export function createCa(dir: string, name = 'ca'): Issued {
  openssl(
    [
      'req',
      '-x509',
      ...EC_KEY,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-subj',
      '/CN=plantstore test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  return read(dir, name);
}

/**
 * A server certificate signed by `ca` for `altNames` (e.g. ['IP:127.0.0.1', 'DNS:localhost']).
 * `days` -1 makes one that has already expired (its end a day before its start, which is now).
 */
export function issue(ca: Issued, dir: string, name: string, altNames: string[], days = 2): Issued {
  const ext = path.join(dir, `${name}.ext`);
  writeFileSync(ext, `subjectAltName=${altNames.join(',')}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  openssl(['req', '-new', ...EC_KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`], dir);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      ca.certFile,
      '-CAkey',
      ca.keyFile,
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      String(days),
      '-extfile',
      ext,
    ],
    dir,
  );
  return read(dir, name);
}

function read(dir: string, name: string): Issued {
  const certFile = path.join(dir, `${name}.pem`);
  const keyFile = path.join(dir, `${name}.key`);
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

export interface HttpsServer {
  url: string;
  port: number;
  /** Request paths served, in order. */
  requests: string[];
  /** TCP connections accepted, handshake or not. */
  connections: number;
  close(): Promise<void>;
}

/** An https server (on loopback unless `host` says otherwise) answering 204 to everything, with the given certificate (and chain). */
export async function startHttpsServer(cert: string, key: string, host = '127.0.0.1'): Promise<HttpsServer> {
  const state = { requests: [] as string[], connections: 0 };
  const server = https.createServer({ cert, key }, (req, res) => {
    state.requests.push(req.url ?? '');
    res.writeHead(204).end();
  });
  server.on('connection', () => (state.connections += 1));
  server.on('tlsClientError', () => {}); // the client refusing our certificate is the point
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://${host}:${port}`,
    port,
    get requests() {
      return state.requests;
    },
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
