// The banner's account of how the sandbox was asked to misbehave, so the operator sees at once
// what their rehearsal will meet: `answers after 30-70 ms; 10% answered 503 (Retry-After: 1)…`.
import { describeRate } from '../../batch/rate-limit.js';
import type { Pressure } from '../../sandbox/pressure.js';

const ms = (value: number): string => `${Number(value.toFixed(1))} ms`;

/** One clause per option in force, in the order a request meets them; none for a plain sandbox. */
export function describePressure(pressure: Pressure): string[] {
  const clauses: string[] = [];
  if (pressure.rate) clauses.push(`429 past ${describeRate(pressure.rate)}`);
  if (pressure.capacity !== undefined) clauses.push(`${pressure.capacity} served at once, the rest queued`);
  const { latencyMs, jitterMs } = pressure;
  if (latencyMs > 0 || jitterMs > 0) {
    const low = Math.max(0, latencyMs - jitterMs);
    clauses.push(
      jitterMs === 0 ? `each answer after ${ms(latencyMs)}` : `each answer after ${ms(low).replace(' ms', '')}-${ms(latencyMs + jitterMs)}`,
    );
  }
  if (pressure.failShare > 0) {
    const percent = Number((pressure.failShare * 100).toFixed(2));
    clauses.push(`${percent}% answered 503 (Retry-After: ${pressure.retryAfterSeconds})`);
  }
  if (clauses.length > 0 && (pressure.failShare > 0 || pressure.jitterMs > 0)) clauses.push(`seed ${pressure.seed}`);
  return clauses;
}
