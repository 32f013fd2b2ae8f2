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
  return text.replace(UNSAFE, (char) => {
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Cuts by code point, never between the halves of a surrogate pair. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  return points.length > max ? `${points.slice(0, max).join('')}…` : text;
}
