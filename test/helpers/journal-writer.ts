// A child process for test/unit/batch/journal/crash.test.ts, killed with -9 while it writes:
// it resumes the journal at argv[2], records ids on from the first one not yet done, in
// batches of a seeded size, each id as the delete command does (its sent line, then its
// result). After each batch it says on stdout the last id whose sent line was recorded (stdout
// to a pipe is written synchronously on Linux, so what it said was said before the kill), and
// after each flush() how far the journal is durable.
import { setImmediate } from 'node:timers/promises';
import { openJournal } from '../../src/batch/journal/index.js';

const [file = '', seedArg = '1'] = process.argv.slice(2);
const journal = await openJournal(file, { baseUrl: 'https://plants.example.com', profile: 'default' });
let next = journal.counts().done + 1;
let seed = Number(seedArg) >>> 0;
const random = (): number => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 4294967296;
};
process.stdout.write(`started ${next}\n`);
for (;;) {
  // Some batches large (a write of hundreds of kB, likely to be cut by the kill), some small.
  const batch = random() < 0.3 ? 5000 : 1 + Math.floor(random() * 200);
  for (let i = 0; i < batch; i++, next++) {
    journal.recordSent(String(next));
    journal.record(String(next), { state: 'done', status: 204 });
  }
  process.stdout.write(`sent ${next - 1}\n`);
  if (random() < 0.5) {
    journal.flush();
    process.stdout.write(`durable ${next - 1}\n`);
  }
  await setImmediate();
}
