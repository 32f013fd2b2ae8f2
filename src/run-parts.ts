// What every run needs past main.ts's shortcuts (--version, --help): one module, so the bundle
// has one chunk for it, not five always loaded together. Each file of the package costs npx
// about a millisecond to extract on a cold cache, and each is one more read at every start.
export { fatalFieldsOf, runCli } from './cli.js';
export { learnTokensAtRest } from './config/tokens-at-rest.js';
export { createContext } from './context.js';
export { Exit, exitForSignal } from './errors.js';
export { argvWantsJson, reportFatal } from './ui/fatal.js';
export { createIO, READER_GRACE_MS } from './ui/io.js';
