// What every run needs past main.ts's shortcuts (--version, --help): one module, so the bundle
// has one chunk for it. Each file of the package costs npx about 1.4 ms to extract on a cold
// cache, and each is one more module to read and link at every start, while code in a file that
// is loaded but not run costs little (V8 compiles a function when it is first called, and the
// compile cache keeps what it compiled). So the commands' own code is imported statically and
// lands here: the journal reader, journal --watch, completion's scripts, a token command's
// leases. Only what would load a large library or a built-in a run does not use is imported
// lazily, each its own file: undici (src/context.ts), chalk (src/main.ts), the sandbox's server
// (src/commands/sandbox/run.ts). A built-in that only some runs use is given a stand-in by the
// build (scripts/bundle-plugins.ts), and test/e2e/delete.e2e.test.ts lists what a delete must
// not load.
export { fatalFieldsOf, runCli } from './cli.js';
export { learnTokensAtRest } from './config/tokens-at-rest.js';
export { createContext } from './context.js';
export { Exit, exitForSignal } from './errors.js';
export { argvWantsJson, reportFatal } from './ui/fatal.js';
export { createIO, READER_GRACE_MS } from './ui/io.js';
