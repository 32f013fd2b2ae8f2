// The soak's token command (PLANTSTORE_TOKEN_COMMAND, see docs/reference.md "Short-lived
// tokens"): prints {"token": "...", "expiresAt": "..."} for a token that expires `lifeMs` from
// now, signed as soak-server.ts checks it, and appends one line to `log` per token issued.
// Usage: node soak-token.mjs <secret> <lifeMs> <log>
import { createHmac } from 'node:crypto';
import { appendFileSync } from 'node:fs';

const [secret = '', lifeMs = '20000', log] = process.argv.slice(2);
const expiresAtMs = Date.now() + Number(lifeMs);
const signature = createHmac('sha256', secret).update(String(expiresAtMs)).digest('hex').slice(0, 32);
if (log) appendFileSync(log, `${Date.now()}\n`);
process.stdout.write(`${JSON.stringify({ token: `soak-${expiresAtMs}-${signature}`, expiresAt: new Date(expiresAtMs).toISOString() })}\n`);
