// https against a private CA made in the test: refused without trust, accepted with
// --cacert, PLANTSTORE_CA_CERT or NODE_EXTRA_CA_CERTS, refused again for a certificate
// of another host, and a bad --cacert is a configuration error before anything is sent.
import { writeFileSync } from 'node:fs';
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

  beforeAll(() => {
    work = tempConfigDir();
    ca = createCa(work.dir);
    good = issue(ca, work.dir, 'loopback', ['IP:127.0.0.1', 'DNS:localhost']);
    otherHost = issue(ca, work.dir, 'other', ['DNS:other.example']);
  });
  afterAll(() => work?.cleanup());

  const env = (server: HttpsServer, extra: Record<string, string> = {}) => ({
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
  ])('refuses an untrusted certificate (server sends $sends): exit 7, a TLS failure, not retried', async ({ chain }) => {
    const server = await serve(good, chain());
    const run = await runTimed(['delete', '42'], { env: env(server) });
    expect(run.code).toBe(7);
    expect(run.stderr).toMatch(
      new RegExp(`^✗ plant 42: TLS failure talking to 127\\.0\\.0\\.1:${server.port}: [^\\n]*certificate[^\\n]*\\n$`),
    );
    expect(server.requests).toHaveLength(0);
    expect(server.connections).toBe(1);
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

  // Node names the IP it checked, or the host name and the certificate's DNS names.
  it.each([
    { host: '127.0.0.1', says: ['127.0.0.1 is not in the cert'] },
    { host: 'localhost', says: ['localhost', 'DNS:other.example'] },
  ])('refuses a trusted certificate made out to another host ($host): exit 7 naming the host and altnames', async ({ host, says }) => {
    const server = await serve(otherHost);
    const baseUrl = `https://${host}:${server.port}`;
    const run = await runTimed(['--cacert', ca.certFile, 'delete', '42'], { env: env(server, { PLANTSTORE_BASE_URL: baseUrl }) });
    expect(run.code).toBe(7);
    expect(run.stderr).toContain(`✗ plant 42: TLS failure talking to ${host}:${server.port}: `);
    expect(run.stderr).toMatch(/altnames/i);
    for (const text of says) expect(run.stderr).toContain(text);
    expect(run.stderr.split('\n')).toHaveLength(2);
    expect(server.requests).toHaveLength(0);
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
  });
});
