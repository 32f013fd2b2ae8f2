// Recorded's codes (format.ts), written out: format.ts reads this module, which reads nothing of it.
const DONE = 1;
const ABSENT = 2;
const SENT = 5;
type RecordedCode = typeof DONE | typeof ABSENT | typeof SENT;

const OPEN = Buffer.from('{"id":');
const SENT_TAIL = Buffer.from(',"sent":true}');
/** The done lines of each format, and format 3's absent line, each followed by a 3-digit status and `}`. */
const STATUS_TAILS: Record<'2' | '3', ReadonlyArray<{ tail: Buffer; kind: RecordedCode }>> = {
  '2': [{ tail: Buffer.from(',"deleted":true,"status":'), kind: DONE }],
  '3': [
    { tail: Buffer.from(',"state":"done","status":'), kind: DONE },
    { tail: Buffer.from(',"state":"absent","status":'), kind: ABSENT },
  ],
};
const ZERO = 48;
const NINE = 57;
const MINUS = 45;

/** The vocabulary of a journal's id lines: format 3's states, or formats 1 and 2's (delete's --json lines). */
export const vocabularyOf = (version: number): '2' | '3' => (version >= 3 ? '3' : '2');

/**
 * The lines nearly every journal line is (a sent line, a done line), read from the bytes
 * without making a string of them: a resume reads two million lines for a million ids, and the
 * strings were most of its time and garbage. Undefined for any other line, which parseResultLine
 * then reads; what this accepts, parseResultLine reads the same way.
 */
export function parseCommonLine(
  bytes: Buffer,
  start: number,
  end: number,
  vocabulary: '2' | '3' = '2',
): { id: bigint; kind: RecordedCode } | undefined {
  if (end - start < OPEN.length + 1 + SENT_TAIL.length || !bytesAt(bytes, start, OPEN)) {
    return undefined;
  }
  let at = start + OPEN.length;
  const negative = bytes[at] === MINUS;
  if (negative) at++;
  const first = at;
  let value = 0;
  while (at < end && (bytes[at] as number) >= ZERO && (bytes[at] as number) <= NINE) value = value * 10 + ((bytes[at++] as number) - ZERO);
  const digits = at - first;
  // As the writer writes ids: no leading zero, no "-0"; and short enough to be exact as a number.
  if (digits === 0 || digits > 15 || (bytes[first] === ZERO && (digits > 1 || negative))) return undefined;
  const id = BigInt(negative ? -value : value);
  if (end - at === SENT_TAIL.length && bytesAt(bytes, at, SENT_TAIL)) return { id, kind: SENT };
  for (const { tail, kind } of STATUS_TAILS[vocabulary]) {
    if (end - at !== tail.length + 4 || !bytesAt(bytes, at, tail)) continue;
    const status = at + tail.length;
    for (let i = status; i < status + 3; i++) if ((bytes[i] as number) < ZERO || (bytes[i] as number) > NINE) return undefined;
    return bytes[end - 1] === 125 /* } */ ? { id, kind } : undefined;
  }
  return undefined;
}

/**
 * Whether `bytes` holds `expected` at `at` (the caller checked there is room): a loop, where
 * Buffer.compare's checks of its arguments were a third of reading a million-id journal.
 */
function bytesAt(bytes: Buffer, at: number, expected: Buffer): boolean {
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}
