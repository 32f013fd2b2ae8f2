// Preloaded with `node --import` when /usr/bin/time is missing: writes this
// process's peak RSS (KiB) to $BENCH_RSS_FILE as it exits.
import { writeFileSync } from 'node:fs';

const out = process.env.BENCH_RSS_FILE;
if (out) process.on('exit', () => writeFileSync(out, `${process.resourceUsage().maxRSS}\n`));
