/**
 * A system error code in words, as a message says it to a person: `ENOENT` is "no such
 * file". The code itself stays for --verbose (CliError.detail). Codes not listed are
 * rare enough that their name is the most useful thing to print.
 */
const WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files on this system',
  ENXIO: 'no such device or address',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'the file is larger than this system allows',
  EROFS: 'read-only file system',
  EIO: 'input/output error',
  EBUSY: 'the file is busy',
  EEXIST: 'the file already exists',
  EAGAIN: 'temporarily unavailable, try again',
  EADDRINUSE: 'the address is in use',
  EADDRNOTAVAIL: 'no such address on this machine',
};

export function errnoWords(code: string | undefined): string {
  if (code === undefined) return 'unknown error';
  return WORDS[code] ?? code;
}
