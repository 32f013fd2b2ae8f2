// https against a private CA made in the test: refused without trust, accepted with
// --cacert, PLANTSTORE_CA_CERT or NODE_EXTRA_CA_CERTS, refused again for a certificate
// of another host, and a bad --cacert is a configuration error before anything is sent.
// Each TLS failure is said in words with its next step (exit 7); OpenSSL's own text only with --verbose.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createCa, type HttpsServer, type Issued, issue, OPENSSL, startHttpsServer } from '../helpers/certificates.js';
import { tempConfigDir } from '../helpers/cli.js';
import { runTimed } from '../helpers/timed.js';

const TOKEN = 'tls-Token-9d04c7e2a1';

describe.skipIf(!OPENSSL)('https with a private CA', () => {
  let work: ReturnType<typeof tempConfigDir>;
  let ca: Issued;
  let good: Issued;
  let otherHost: Issued;
  let twoNames: Issued;
  let expired: Issued;
  let otherCa: Issued;

  beforeAll(() => {
    work = tempConfigDir();
    ca = createCa(work.dir);
    otherCa = createCa(work.dir, 'other-ca');
    good = issue(ca, work.dir, 'loopback', ['IP:127.0.0.1', 'DNS:localhost']);
    otherHost = issue(ca, work.dir, 'other', ['DNS:other.example']);
    twoNames = issue(ca, work.dir, 'two-names', ['DNS:other.example', 'IP:10.0.0.1']);
    expired = issue(ca, work.dir, 'expired', ['IP:127.0.0.1'], -1);
  });
  afterAll(() => work?.cleanup());

  const env = (server: { url: string }, extra: Record<string, string> = {}) => ({
    PLANTSTORE_CONFIG_DIR: work.dir,
    PLANTSTORE_TOKEN: TOKEN,
    PLANTSTORE_BASE_URL: server.url,
    ...extra,
  });

  async function serve(issued: Issued, chain = issued.cert): Promise<HttpsServer> {
    const server = await startHttpsServer(chain, issued.key);
    onTestFinished(() => server.close());
    return server;
  }

  // Servers behind a private CA send either their certificate alone or the chain up to the CA.
  it.each([
    { sends: 'its certificate alone', chain: () => good.cert },
    { sends: 'the chain up to the CA', chain: () => good.cert + ca.cert },
  ])('refuses an untrusted certificate (server sends $sends): exit 7, the --cacert advice, not retried', async ({ chain }) => {
    const server = await serve(good, chain());
    const run = await runTimed(['delete', '42'], { env: env(server) });
    expect(run.code).toBe(7);
    expect(run.stderr).toBe(
      `✗ plant 42: the certificate of 127.0.0.1:${server.port} is not signed by a trusted CA: trust a private CA with --cacert FILE\n`,
    );
    expect(server.requests).toHaveLength(0);
    expect(server.connections).toBe(1);
  });

  // A CA bundle was given, and the certificate is not signed by a CA in it: more of --cacert is not the advice.
  it.each([
    { how: '--cacert', args: () => ['--cacert', otherCa.certFile], extra: () => ({}) },
    { how: 'PLANTSTORE_CA_CERT', args: () => [], extra: () => ({ PLANTSTORE_CA_CERT: otherCa.certFile }) },
  ])('with $how naming another CA: exit 7, the certificate is not signed by a CA in that file', async ({ args, extra }) => {
    const server = await serve(good);
    const run = await runTimed([...args(), 'delete', '42'], { env: env(server, extra()) });
    expect(run.code).toBe(7);
    const file = otherCa.certFile;
    expect(run.stderr).toBe(
      `✗ plant 42: the certificate of 127.0.0.1:${server.port} is not signed by a CA in ${file}: check that ${file} holds the CA that signed the server's certificate\n`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    { how: '--cacert', args: () => ['--cacert', ca.certFile], extra: () => ({}) },
    { how: 'PLANTSTORE_CA_CERT', args: () => [], extra: () => ({ PLANTSTORE_CA_CERT: ca.certFile }) },
    { how: 'NODE_EXTRA_CA_CERTS', args: () => [], extra: () => ({ NODE_EXTRA_CA_CERTS: ca.certFile }) },
  ])('trusts the CA given with $how: exit 0', async ({ args, extra }) => {
    const server = await serve(good);
    const run = await runTimed([...args(), 'delete', '42'], { env: env(server, extra()) });
    expect(run).toMatchObject({ code: 0, stdout: 'Deleted plant 42\n', stderr: '' });
    expect(server.requests).toEqual(['/plants/42']);
  });

  // The names come from the certificate (its DNS names and IP addresses), the one asked for from the base URL.
  it.each([
    { host: '127.0.0.1', cert: () => otherHost, names: 'other.example' },
    { host: 'localhost', cert: () => otherHost, names: 'other.example' },
    { host: '127.0.0.1', cert: () => twoNames, names: 'other.example and 10.0.0.1' },
  ])('refuses a trusted certificate for $names at $host: exit 7, the names it names', async ({ host, cert, names }) => {
    const server = await serve(cert());
    const baseUrl = `https://${host}:${server.port}`;
    const run = await runTimed(['--cacert', ca.certFile, 'delete', '42'], { env: env(server, { PLANTSTORE_BASE_URL: baseUrl }) });
    expect(run.code).toBe(7);
    expect(run.stderr).toBe(
      `✗ plant 42: the certificate of ${host}:${server.port} names ${names}, not ${host}: use a name it names in the base URL\n`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('a certificate for another name, its CA not trusted: the trust comes first (Node checks names only in a trusted chain)', async () => {
    const server = await serve(otherHost);
    const run = await runTimed(['delete', '42'], { env: env(server) });
    expect(run.code).toBe(7);
    expect(run.stderr).toBe(
      `✗ plant 42: the certificate of 127.0.0.1:${server.port} is not signed by a trusted CA: trust a private CA with --cacert FILE\n`,
    );
  });

  it('refuses an expired certificate: exit 7, it has expired', async () => {
    const server = await serve(expired);
    const run = await runTimed(['--cacert', ca.certFile, 'delete', '42'], { env: env(server) });
    expect(run.code).toBe(7);
    expect(run.stderr).toBe(
      `✗ plant 42: the certificate of 127.0.0.1:${server.port} has expired: the server needs a new one, or this machine's clock is wrong\n`,
    );
    expect(server.requests).toHaveLength(0);
  });

  describe('the wrong scheme for the port', () => {
    it('https:// to a plain-http server: exit 7, it does not speak TLS there, no OpenSSL text', async () => {
      const plain = await plainServer();
      const run = await runTimed(['delete', '42'], { env: env(plain, { PLANTSTORE_BASE_URL: `https://127.0.0.1:${plain.port}` }) });
      expect(run.code).toBe(7);
      expect(run.stderr).toBe(`✗ plant 42: the server does not speak TLS at 127.0.0.1:${plain.port}: use http:// or check the port\n`);
      expect(plain.requests).toEqual([]);
    });

    it("with --verbose, the trace adds OpenSSL's own text; the result line stays in words", async () => {
      const plain = await plainServer();
      const baseUrl = `https://127.0.0.1:${plain.port}`;
      const run = await runTimed(['--verbose', 'delete', '42'], { env: env(plain, { PLANTSTORE_BASE_URL: baseUrl }) });
      expect(run.code).toBe(7);
      const sentence = `the server does not speak TLS at 127.0.0.1:${plain.port}: use http:// or check the port`;
      expect(run.stderr).toMatch(
        new RegExp(
          `\\[42\\] \\* failed after [\\d.]+ ms: ${literally(sentence)} \\(Node\\.js said: [^\\n]*wrong version number[^\\n]*\\)\\n`,
        ),
      );
      expect(run.stderr.endsWith(`✗ plant 42: ${sentence}\n`)).toBe(true);
    });

    // Node's TLS server hangs up on a request that is not TLS, without a byte: so does a plain-http server
    // that crashed, so the hint is conditional, and the request (which may have been read) uncertain.
    it('http:// to an https server: exit 7, if that port speaks TLS, use https://', async () => {
      const server = await serve(good);
      const baseUrl = `http://127.0.0.1:${server.port}`;
      const run = await runTimed(['--retries', '0', 'delete', '42'], { env: env(server, { PLANTSTORE_BASE_URL: baseUrl }) });
      expect(run.code).toBe(7);
      expect(run.stderr).toBe(
        `✗ plant 42: connection closed before a complete answer (127.0.0.1:${server.port}): if that port speaks TLS, use https://; the server may or may not have deleted it\n`,
      );
      expect(server.requests).toEqual([]);
    });
  });

  describe('a --cacert that cannot be used: exit 3 before anything is sent', () => {
    it.each([
      {
        what: 'a missing file',
        file: () => path.join(work.dir, 'missing.pem'),
        message: (f: string) =>
          `cannot read the CA bundle ${f} (from --cacert): no such file; point --cacert at a readable PEM file of CA certificates`,
      },
      {
        what: 'a file without a PEM certificate',
        file: () => notPem(),
        message: (f: string) => `${f} (from --cacert) holds no PEM certificate`,
      },
      {
        what: 'a private key instead of a certificate',
        file: () => good.keyFile,
        message: (f: string) => `${f} (from --cacert) holds no PEM certificate`,
      },
    ])('$what', async ({ file, message }) => {
      const server = await serve(good);
      const cacert = file();
      const run = await runTimed(['--cacert', cacert, 'delete', '42'], { env: env(server) });
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(message(cacert));
      expect(run.stderr.split('\n')).toHaveLength(2);
      expect(server.connections).toBe(0);
    });

    function notPem(): string {
      const file = path.join(work.dir, 'not-a-cert.pem');
      writeFileSync(file, 'this is not a certificate\n');
      return file;
    }

    // nginx's answer, byte for byte (its error page for error 497), from a plain-http server on loopback.
    it('http:// to a port where nginx speaks TLS: its 400 says so; exit 7, use https://', async () => {
      const plain = await plainServer((res) =>
        res.writeHead(400, { 'content-type': 'text/html', server: 'nginx' }).end(NGINX_PLAIN_TO_HTTPS),
      );
      const run = await runTimed(['delete', '42'], { env: env(plain) });
      expect(run.code).toBe(7);
      expect(run.stderr).toBe(`✗ plant 42: the server speaks TLS at 127.0.0.1:${plain.port}: use https:// (HTTP 400)\n`);
      expect(plain.requests).toEqual(['/plants/42']);
    });
  });
});

const NGINX_PLAIN_TO_HTTPS = `<html>
<head><title>400 The plain HTTP request was sent to HTTPS port</title></head>
<body>
<center><h1>400 Bad Request</h1></center>
<center>The plain HTTP request was sent to HTTPS port</center>
<hr><center>nginx</center>
</body>
</html>
`;

const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A plain-http server on loopback answering everything with `answer` (204); it answers a ClientHello with 400 and hangs up. */
async function plainServer(
  answer: (res: http.ServerResponse) => void = (res) => res.writeHead(204).end(),
): Promise<{ url: string; port: number; requests: string[] }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, requests };
}
