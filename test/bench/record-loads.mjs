// Preloaded with `node --import`: records the URL of every module this process
// loads, ESM or CommonJS, static or dynamic import(), and writes them to
// $BENCH_LOADS_FILE (one per line) as the process exits.
//
// module.registerHooks (Node >= 22.15 / 23.5) installs synchronous, in-thread
// hooks that run for every import and require() after this file, including the
// bundle's lazily imported chunks, so a chunk that is never imported never shows up.
import { writeFileSync } from 'node:fs';
import module from 'node:module';

const out = process.env.BENCH_LOADS_FILE;
const loaded = new Set();
module.registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});
if (out) process.on('exit', () => writeFileSync(out, `${[...loaded].join('\n')}\n`));
