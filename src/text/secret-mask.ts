// Finds a secret in text that is about to be shown, in every form an echo could
// give it: as is, in any letter case, percent-encoded (a redirect's query string),
// as HTML character references (an error page's <title>), as \u and \/ escapes, and
// base64-encoded at any byte alignment (a header or cookie that wraps it).
//
// Tokens are RFC 6750 b64tokens (see token.ts), so every character is ASCII and
// the patterns below stay simple.

export type Mask = (text: string) => string;

export const MASK = '***';

/** Character references an HTML page may use for the punctuation a b64token holds. */
const NAMED_ENTITIES: Record<string, string> = {
  '.': 'period',
  _: 'lowbar',
  '+': 'plus',
  '/': 'sol',
  '=': 'equals',
};

/** A pattern matching every encoded form of `secret` this module knows. */
export function secretPattern(secret: string): RegExp {
  const characters = Array.from(secret, characterForms).join('');
  const encoded = base64Forms(secret);
  return new RegExp([characters, ...encoded].join('|'), 'gi');
}

/** A mask that replaces every form of each secret with ***; the identity when there is none. */
export function createMask(secrets: Iterable<string>): Mask {
  const patterns = Array.from(secrets, secretPattern);
  if (patterns.length === 0) return (text) => text;
  return (text) => {
    for (const pattern of patterns) text = text.replace(pattern, MASK);
    return text;
  };
}

// One character as itself, %XX, &#xXX;, &#NN;, a named reference, \u00XX, or for '/' the
// JSON escape \/ (PHP's json_encode writes every '/' so, and standard base64 tokens have them).
function characterForms(char: string): string {
  const code = char.charCodeAt(0);
  const hex = code.toString(16).padStart(2, '0');
  const forms = [escapeRegExp(char), `%${hex}`, `&#x0*${hex};?`, `&#0*${code};?`, `\\\\u00${hex}`];
  const named = NAMED_ENTITIES[char];
  if (named) forms.push(`&${named};`);
  if (char === '/') forms.push('\\\\/');
  return `(?:${forms.join('|')})`;
}

/**
 * base64(secret) as patterns. A secret inside a longer encoded value starts at
 * any of three byte offsets; the groups it shares with its neighbours hold up to
 * two of its bytes each, so a whole base64 group on either side goes too.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
    const whole = Math.floor(padded.length / 3) * 4;
    for (const alphabet of ['base64', 'base64url'] as const) {
      const stable = padded.toString(alphabet).slice(offset === 0 ? 0 : 4, whole);
      // Too short a fragment would match unrelated text.
      if (stable.length < 8) continue;
      const group = alphabet === 'base64' ? '[A-Za-z0-9+/]' : '[A-Za-z0-9_-]';
      const head = offset === 0 ? '' : `(?:${group}{4})?`;
      forms.add(`${head}${escapeRegExp(stable)}${group}{0,4}=*`);
    }
  }
  return [...forms];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
