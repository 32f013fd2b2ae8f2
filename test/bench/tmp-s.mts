import { summarizeJournals } from '../../src/batch/journal/summary.ts';
const t = performance.now();
const s = await summarizeJournals([process.argv[2]]);
console.log(performance.now() - t, s.counts.failed);
