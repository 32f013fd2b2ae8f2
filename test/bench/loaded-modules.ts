// Which modules a plantstore run loaded, and whether conf was among them.
//
// How: the child runs as `node --import record-loads.mjs bin/plantstore.js …`;
// that file installs a module.registerHooks load hook, which sees every module
// the process loads (static and dynamic import, require), and writes the URLs at
// exit. conf is bundled into a dist/ chunk with a generated name, so a chunk is
// recognised as conf's by text that is in conf's own source and survives
// minification (its error messages). The markers are first checked against
// node_modules/conf, and the detector is proven on `auth login`, which must
// load conf to write the file; if either check fails the answer is "unknown".
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Command, checkOk, NODE, type Options, ROOT, runOnce } from './proc.js';

const HOOK = path.join(path.dirname(fileURLToPath(import.meta.url)), 'record-loads.mjs');
const MARKERS = ['Config schema violation', 'Failed to decrypt config data'];

/** Runs a `node …` command once with the recording hook; returns the file: URLs it loaded. */
export async function loadedModules(command: Command, tmp: string, what: string): Promise<string[]> {
  if (command.file !== NODE) throw new Error('loadedModules: only `node …` commands can be recorded');
  const out = path.join(tmp, `loads-${process.hrtime.bigint()}.txt`);
  checkOk(await runOnce({ ...command, args: ['--import', HOOK, ...command.args], env: { ...command.env, BENCH_LOADS_FILE: out } }), what);
  if (!existsSync(out)) throw new Error(`${what}: the load hook wrote nothing`);
  const urls = readFileSync(out, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'));
  rmSync(out, { force: true });
  return urls;
}

/** The markers that really are in the installed conf's source (empty if conf moved or changed). */
function verifiedMarkers(): string[] {
  try {
    const pkgDir = path.join(ROOT, 'node_modules', 'conf');
    const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { exports?: { default?: string }; main?: string };
    const source = readFileSync(path.join(pkgDir, pkg.exports?.default ?? pkg.main ?? 'index.js'), 'utf8');
    return MARKERS.filter((marker) => source.includes(marker));
  } catch {
    return [];
  }
}

/** The loaded URLs that are conf: its own files, or a dist/ chunk carrying conf's code. */
export function confModules(urls: readonly string[], pkg: string): string[] {
  const markers = verifiedMarkers();
  return urls.filter((url) => {
    const file = fileURLToPath(url);
    if (file.includes(`${path.sep}node_modules${path.sep}conf${path.sep}`)) return true;
    if (!file.startsWith(path.join(pkg, 'dist') + path.sep)) return false;
    const text = readFileSync(file, 'utf8');
    return markers.some((marker) => text.includes(marker));
  });
}

export function distNames(urls: readonly string[], pkg: string): string[] {
  const dist = path.join(pkg, 'dist') + path.sep;
  return urls
    .map((url) => fileURLToPath(url))
    .filter((file) => file.startsWith(dist))
    .map((file) => file.slice(dist.length));
}

export interface ConfCheck {
  /** true / false, or undefined when the detector could not be proven on `auth login`. */
  loaded: boolean | undefined;
  note: string;
}

/**
 * Whether `command` loads conf. `control` must be a run that does load it
 * (`auth login --with-token`): it proves the detector before it is believed.
 */
export async function checkConfLoaded(command: Command, control: Command, { tmp, pkg }: Options): Promise<ConfCheck> {
  const controlUrls = await loadedModules(control, tmp, 'auth login (conf detector control)');
  const controlConf = confModules(controlUrls, pkg);
  const urls = await loadedModules(command, tmp, 'delete with PLANTSTORE_TOKEN (module record)');
  const conf = confModules(urls, pkg);
  const files = distNames(urls, pkg).join(', ');
  if (controlConf.length === 0) {
    return {
      loaded: undefined,
      note: `conf detector unproven: auth login showed no conf chunk (dist files it loaded: ${distNames(controlUrls, pkg).join(', ')}); delete loaded: ${files}`,
    };
  }
  const confNames = distNames(controlConf, pkg).join(', ') || controlConf.join(', ');
  return {
    loaded: conf.length > 0,
    note: `conf ${conf.length > 0 ? 'WAS' : 'was not'} loaded (conf is in ${confNames}, seen loaded by auth login); dist files the delete loaded: ${files}`,
  };
}
