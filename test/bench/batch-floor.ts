// The floor for a batch delete: the least a Node program must do to send the
// same DELETEs with the same HTTP client and the same concurrency: one undici
// Pool of <n> keep-alive connections, <n> workers taking ids in turn. No id
// validation, no ordering, no output. Bundled at bench time exactly as floor.ts
// bundles the single-delete floor (the settings of scripts/bundle.ts).

import { bundleFloorScript } from './floor.js';

const SOURCE = `
import { Pool } from 'undici';
const [base, token, n] = process.argv.slice(2);
const concurrency = Number(n);
let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
const ids = input.split('\\n').filter((id) => id !== '');
const pool = new Pool(base, { connections: concurrency });
const headers = { authorization: 'Bearer ' + token };
let next = 0;
let failed = 0;
async function worker() {
  while (next < ids.length) {
    const res = await pool.request({ path: '/plants/' + ids[next++], method: 'DELETE', headers });
    await res.body.dump();
    if (res.statusCode !== 204) failed++;
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
await pool.close();
process.exit(failed === 0 ? 0 : 1);
`;

/** Writes and bundles the batch floor script into `dir`; returns the bundle's path. Args: <base url> <token> <concurrency>; ids on stdin, one a line. */
export function buildBatchFloor(dir: string): Promise<string> {
  return bundleFloorScript(dir, 'floor-batch', SOURCE);
}
