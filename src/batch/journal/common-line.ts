// Recorded's codes (format.ts), written out: format.ts reads this module, which reads nothing of it.
const DONE = 1;
const ABSENT = 2;
const SENT = 5;
type RecordedCode = typeof DONE | typeof ABSENT | typeof SENT;

const OPEN = Buffer.from('{"id":');
/** In a journal whose ids carry values, what follows the id: its value's print, 16 hex digits, then the line as in any other. */
const PRINT_OPEN = Buffer.from(',"valuePrint":"');
const PRINT_DIGITS = 16;
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
 * then reads; what this accepts, parseResultLine reads the same way. `valued`: the journal's ids
 * carry values, and each line the print of its value after the id (records.ts), read as two halves.
 */
export function parseCommonLine(
  bytes: Buffer,
  start: number,
  end: number,
  vocabulary: '2' | '3' = '2',
  valued = false,
): { id: bigint; kind: RecordedCode; hi?: number; lo?: number } | undefined {
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
  if (!valued) return tailOf(bytes, at, end, vocabulary, id);
  if (end - at < PRINT_OPEN.length + PRINT_DIGITS + 1 || !bytesAt(bytes, at, PRINT_OPEN)) return undefined;
  at += PRINT_OPEN.length;
  const hi = hexAt(bytes, at);
  const lo = hexAt(bytes, at + 8);
  at += PRINT_DIGITS;
  if (hi < 0 || lo < 0 || bytes[at] !== 34 /* " */) return undefined;
  const line = tailOf(bytes, at + 1, end, vocabulary, id);
  return line && { id, kind: line.kind, hi, lo };
}

/** The rest of a line from the comma after its id (and print): a sent line, or a done or absent line of `vocabulary`. */
function tailOf(bytes: Buffer, at: number, end: number, vocabulary: '2' | '3', id: bigint): { id: bigint; kind: RecordedCode } | undefined {
  if (end - at === SENT_TAIL.length && bytesAt(bytes, at, SENT_TAIL)) return { id, kind: SENT };
  for (const { tail, kind } of STATUS_TAILS[vocabulary]) {
    if (end - at !== tail.length + 4 || !bytesAt(bytes, at, tail)) continue;
    const status = at + tail.length;
    for (let i = status; i < status + 3; i++) if ((bytes[i] as number) < ZERO || (bytes[i] as number) > NINE) return undefined;
    return bytes[end - 1] === 125 /* } */ ? { id, kind } : undefined;
  }
  return undefined;
}

/** 8 lowercase hex digits at `at` as a number (the writer's only), or -1. */
function hexAt(bytes: Buffer, at: number): number {
  let value = 0;
  for (let i = at; i < at + 8; i++) {
    const byte = bytes[i] as number;
    const digit = byte >= ZERO && byte <= NINE ? byte - ZERO : byte >= 97 && byte <= 102 ? byte - 87 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * Whether `bytes` holds `expected` at `at` (the caller checked there is room): a loop, where
 * Buffer.compare's checks of its arguments were a third of reading a million-id journal.
 */
function bytesAt(bytes: Buffer, at: number, expected: Buffer): boolean {
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}
