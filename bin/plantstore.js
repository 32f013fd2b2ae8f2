#!/usr/bin/env node
// Launcher. Written in syntax any Node with ES modules (12+) can parse, so an old Node gets one
// clear line instead of a SyntaxError from the bundle.
import module from 'node:module';

var MIN_MAJOR = 22;
var MIN_MINOR = 19;
var parts = process.versions.node.split('.');
var major = Number(parts[0]);
var minor = Number(parts[1]);

if (major < MIN_MAJOR || (major === MIN_MAJOR && minor < MIN_MINOR)) {
  refuse(
    `plantstore needs Node.js >= ${MIN_MAJOR}.${MIN_MINOR}; this is ${process.version}; install a newer Node (https://nodejs.org, or nvm install 22), or run it with npx -p node@22 -p plantstore plantstore`,
    3,
  );
} else {
  // Repeated runs skip recompiling the bundle (Node >= 22.1).
  if (typeof module.enableCompileCache === 'function') module.enableCompileCache();
  import('../dist/main.js').catch(notBuilt);
}

/**
 * A clone before its first build has no dist/: say how to build, in one line, instead of
 * Node's ERR_MODULE_NOT_FOUND stack trace. Any other failure to load is left to Node.
 */
function notBuilt(error) {
  var main = new URL('../dist/main.js', import.meta.url);
  var missing =
    error &&
    error.code === 'ERR_MODULE_NOT_FOUND' &&
    (error.url === main.href || String(error.message).indexOf(decodeURIComponent(main.pathname)) !== -1);
  if (!missing) throw error;
  var root = decodeURIComponent(new URL('..', import.meta.url).pathname).replace(/\/$/, '');
  refuse(`plantstore is not built (no ${root}/dist/main.js): run npm run build in ${root}`, 70);
}

/**
 * The line on stderr and, with --json, the one JSON object on stdout that every run stopped
 * before any request prints (src/ui/fatal.ts fatalJson; `delete` adds deleted:false, as
 * src/cli.ts fatalFieldsOf does). After `--`, words are operands.
 */
function refuse(message, exit) {
  var args = process.argv.slice(2);
  var end = args.indexOf('--');
  var words = end === -1 ? args : args.slice(0, end);
  var fields = words.indexOf('delete') !== -1 ? { deleted: false } : {};
  if (words.indexOf('--json') !== -1) {
    process.stdout.write(`${JSON.stringify(Object.assign(fields, { exit: exit, message: message }))}\n`);
  }
  process.stderr.write(`${message}\n`);
  // exitCode, not exit(): a piped stdout may still be writing.
  process.exitCode = exit;
}
