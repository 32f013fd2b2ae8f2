// Preloaded with `node --import` into a spawned plantstore: writes STDIN_PROBE_LINE to stderr
// the moment the process starts reading stdin (a 'readable' or 'data' listener is added),
// so a test can act on "it is reading now" instead of guessing with a delay. By then main
// has installed its signal handlers, which come before any command runs.
import { writeSync } from 'node:fs';

let told = false;
process.stdin.on('newListener', (event) => {
  if (told || (event !== 'readable' && event !== 'data')) return;
  told = true;
  writeSync(2, 'stdin-probe: reading standard input\n');
});
