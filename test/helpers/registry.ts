// A private npm registry on 127.0.0.1, just enough for `npm install` and `npx` to fetch
// packages from it as from registry.npmjs.org: the packument at GET /<name> (scoped names
// as npm asks for them, /@scope%2fname) and each tarball at the URL its packument names.
// Anything else (an audit's POST among them) is a 404 with a JSON body. It counts the
// requests per path, so a test can show what npm fetched, and what it did not fetch again.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { readTarball } from './tarball.js';

export interface Registry {
  /** http://127.0.0.1:PORT/, as npm's --registry takes it. */
  url: string;
  /** The tarball URL of a published package, as its packument names it. */
  tarballUrl(name: string): string;
  /** How many requests the path got (decoded: "/plantstore", "/@scope/name"). */
  requests(path: string): number;
  /** Every path requested so far, with its count. */
  requestCounts(): ReadonlyMap<string, number>;
  close(): Promise<void>;
}

interface Published {
  manifest: Record<string, unknown> & { name: string; version: string };
  /** The tarball's path on this registry: /<name>/-/<name without scope>-<version>.tgz */
  tarballPath: string;
  tarball: Buffer;
}

/** One version per package: the package.json inside each tarball (from `npm pack`) says which. */
function publish(file: string): Published {
  const tarball = readFileSync(file);
  const json = readTarball(file).get('package.json');
  if (!json) throw new Error(`${file} holds no package/package.json: not a tarball from npm pack`);
  const manifest = JSON.parse(json.toString('utf8')) as Published['manifest'];
  if (typeof manifest.name !== 'string' || typeof manifest.version !== 'string')
    throw new Error(`${file}: its package.json has no name or version`);
  const base = manifest.name.replace(/^@[^/]+\//, '');
  return { manifest, tarball, tarballPath: `/${manifest.name}/-/${base}-${manifest.version}.tgz` };
}

function packument(published: Published, url: string): unknown {
  const { manifest, tarball, tarballPath } = published;
  return {
    _id: manifest.name,
    name: manifest.name,
    'dist-tags': { latest: manifest.version },
    versions: {
      [manifest.version]: {
        ...manifest,
        _id: `${manifest.name}@${manifest.version}`,
        dist: {
          tarball: `${url.replace(/\/$/, '')}${tarballPath}`,
          integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
          shasum: createHash('sha1').update(tarball).digest('hex'),
        },
      },
    },
  };
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

/** Serves the packages of the given tarballs (paths to .tgz files from `npm pack`) until close(). */
export async function startRegistry(tarballs: readonly string[]): Promise<Registry> {
  const packages = new Map(tarballs.map((file) => publish(file)).map((published) => [published.manifest.name, published]));
  const byTarball = new Map([...packages.values()].map((published) => [published.tarballPath, published]));
  const counts = new Map<string, number>();
  let url = '';

  const server = createServer((request, response) => {
    let where: string;
    try {
      where = decodeURIComponent(new URL(request.url ?? '/', 'http://registry').pathname); // %2f -> "/"
    } catch {
      where = request.url ?? '/';
    }
    counts.set(where, (counts.get(where) ?? 0) + 1);
    const published = packages.get(where.slice(1));
    const tarball = byTarball.get(where);
    const reading = request.method === 'GET' || request.method === 'HEAD';
    if (reading && published) {
      send(response, 200, 'application/json', JSON.stringify(packument(published, url)));
    } else if (reading && tarball) {
      send(response, 200, 'application/octet-stream', tarball.tarball);
    } else {
      send(response, 404, 'application/json', JSON.stringify({ error: 'Not found' }));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  return {
    url,
    tarballUrl(name) {
      const published = packages.get(name);
      if (!published) throw new Error(`${name} is not published here`);
      return `${url.replace(/\/$/, '')}${published.tarballPath}`;
    },
    requests: (path) => counts.get(path) ?? 0,
    requestCounts: () => new Map(counts),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * npm's flags for a client of one registry alone (a Registry's url): `cache` (a folder; a fresh one is a
 * cold cache), no ~/.npmrc or global npmrc (empty files written in `tmp`), no audit, fund or
 * update check, and --yes, so npx installs without asking. Booleans are spelled --key=false:
 * npx takes the word after a --no-key it does not know as that flag's value, and would
 * swallow the package name.
 */
export function npmClientFlags(registryUrl: string, cache: string, tmp: string): string[] {
  const userRc = path.join(tmp, 'empty-user-npmrc');
  const globalRc = path.join(tmp, 'empty-global-npmrc');
  writeFileSync(userRc, '');
  writeFileSync(globalRc, '');
  return [
    '--yes',
    `--registry=${registryUrl}`,
    `--cache=${cache}`,
    `--userconfig=${userRc}`,
    `--globalconfig=${globalRc}`,
    '--audit=false',
    '--fund=false',
    '--update-notifier=false',
  ];
}
