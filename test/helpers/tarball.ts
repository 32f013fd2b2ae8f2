// Reading what `npm pack` wrote, without a tar dependency: the pack test checks the tarball's
// files, and the loopback registry (registry.ts) serves the package.json inside it.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

/** The regular files of a .tgz, by path (without npm's leading "package/"). Plain ustar, as npm writes it. */
export function readTarball(file: string): Map<string, Buffer> {
  const tar = gunzipSync(readFileSync(file));
  const files = new Map<string, Buffer>();
  const text = (start: number, length: number): string => tar.toString('utf8', start, start + length).replace(/\0.*$/s, '');
  let longPath: string | undefined;
  for (let at = 0; at + 512 <= tar.length; ) {
    if (tar.subarray(at, at + 512).every((byte) => byte === 0)) break; // end-of-archive block
    const size = parseInt(text(at + 124, 12).trim() || '0', 8);
    const type = text(at + 156, 1) || '0';
    const prefix = text(at + 345, 155);
    const name = longPath ?? (prefix ? `${prefix}/${text(at, 100)}` : text(at, 100));
    const body = tar.subarray(at + 512, at + 512 + size);
    longPath = undefined;
    if (type === 'x')
      longPath = /\d+ path=(.*)\n/.exec(body.toString('utf8'))?.[1]; // pax header for the next entry
    else if (type === '0') files.set(name.replace(/^package\//, ''), Buffer.from(body));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}
