// `npm run install-local`: puts the clone's plantstore on the PATH that shells, `sh -c`,
// xargs, GNU parallel and CI steps see, which an alias is not (issue 41). It writes a small
// `plantstore` launcher into PREFIX/bin that runs the clone under the project's own Node (the
// machine's may be older than the engines floor, which is why `npm link` is not enough), and
// links the man page into PREFIX/share/man/man1, where man finds it from PATH. PREFIX is
// ~/.local unless `--prefix DIR` says otherwise. Nothing is copied: a rebuild is seen at once.
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The line that marks a launcher as this script's, so a second run may replace it and nothing else. */
const MARK = '# plantstore from a clone (npm run install-local)';

function fail(message: string): never {
  process.stderr.write(`install-local: ${message}\n`);
  process.exit(1);
}

function prefixOf(argv: readonly string[]): string {
  if (argv.length === 0) return path.join(homedir(), '.local');
  if (argv[0] === '--prefix' && argv.length === 2 && argv[1] !== '') return path.resolve(argv[1] as string);
  fail(
    'usage: npm run install-local [-- --prefix DIR] (default ~/.local: the launcher goes to DIR/bin, the man page to DIR/share/man/man1)',
  );
}

/** Writes `file` only when it is absent or ours: an installed plantstore (npm install -g) is never overwritten. */
function writeLauncher(file: string, text: string): void {
  if (existsSync(file) && !readFileSync(file, 'utf8').includes(MARK)) {
    fail(`${file} exists and was not written by install-local (another plantstore?); remove it, or choose another --prefix`);
  }
  // A new file renamed into place: a shell running the old launcher never reads half of the new one.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o755 });
  renameSync(temporary, file);
}

function linkManPage(link: string, target: string): void {
  const present = lstatSync(link, { throwIfNoEntry: false });
  if (present !== undefined) {
    if (!present.isSymbolicLink()) fail(`${link} exists and is not a link this script made; remove it, or choose another --prefix`);
    unlinkSync(link);
  }
  symlinkSync(target, link);
}

const prefix = prefixOf(process.argv.slice(2));
const node = path.join(ROOT, 'node_modules', '.bin', 'node');
const manPage = path.join(ROOT, 'dist', 'plantstore.1');
if (!existsSync(node)) fail(`no ${node}: run npm install in ${ROOT} first`);
if (!existsSync(manPage)) fail(`no ${manPage}: run npm run build in ${ROOT} first`);

const bin = path.join(prefix, 'bin');
const man1 = path.join(prefix, 'share', 'man', 'man1');
mkdirSync(bin, { recursive: true });
mkdirSync(man1, { recursive: true });
const launcher = path.join(bin, 'plantstore');
const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
writeLauncher(
  launcher,
  `#!/bin/sh\n${MARK}; remove this file to undo.\nexec ${quote(node)} ${quote(path.join(ROOT, 'bin', 'plantstore.js'))} "$@"\n`,
);
linkManPage(path.join(man1, 'plantstore.1'), manPage);

const onPath = (process.env['PATH'] ?? '').split(':').some((dir) => dir !== '' && path.resolve(dir) === bin);
process.stdout.write(`installed ${launcher} (runs ${ROOT} with its own Node) and ${path.join(man1, 'plantstore.1')}\n`);
if (!onPath) process.stdout.write(`${bin} is not on your PATH: add it, such as export PATH="${bin}:$PATH" in your shell's profile\n`);
