/**
 * A value a user or a file supplied (a path, a profile name, an environment value, a
 * stored base URL, an id read from stdin), made safe to print on a terminal. Control
 * characters would let it move the cursor, retitle the window, rewrite the line or write
 * to the clipboard (OSC 52); bidi controls would show it in another order than it is. Each
 * is written as an escape instead of being dropped, so the user sees what is really there.
 * Server text is cleaned the same way (http/error-body.ts serverLine), and also cut to length.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function shown(text: string): string {
  return text.replace(UNSAFE, escaped);
}

// UNSAFE, and tabs and line breaks too: none of them belongs in a value that is one line by nature.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A one-line value (a setting as `config list` prints it) with every control and bidi character as an escape. */
export function shownOnOneLine(text: string): string {
  return text.replace(CONTROL, escaped);
}

/** The first control or bidi character of `text`, as an escape (`\x1b`, `\u202e`); undefined when it has none. */
export function firstControl(text: string): string | undefined {
  const at = text.search(CONTROL);
  return at < 0 ? undefined : escaped(text[at] as string);
}

function escaped(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Cuts by code point, never between the halves of a surrogate pair. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  return points.length > max ? `${points.slice(0, max).join('')}…` : text;
}

// What a JSON string may hold raw that is not one line, or not safe, for every reader: C1 controls
// (U+0085 is a line break to Python's splitlines, U+009B a CSI to some terminals), U+2028 and
// U+2029 (line breaks to JavaScript before ES2019 and to many NDJSON splitters), and the bidi
// controls. JSON.stringify escapes only what JSON requires (below U+0020).
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Serialized JSON with each such character written as its \u escape: the same value, one safe line. */
export function jsonOnOneLine(json: string): string {
  return json.replace(JSON_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
