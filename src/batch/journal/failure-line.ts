/**
 * A failure line exactly as the journal writes it (records.ts; format 2's as delete's --json wrote it), read without
 * JSON.parse: a run that stops early (a budget, a revoked token) leaves a million of them, and
 * JSON.parse was most of the time to read such a journal. The pattern accepts only valid JSON
 * (no leading zeros, only JSON's escapes, no raw control characters), so what it accepts gives
 * the fields JSON.parse would; any other line is parsed whole, as before.
 */
const NUMBER = '(0|[1-9][0-9]*)';
const STRING = '"(?:[^"\\\\\\u0000-\\u001f]|\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4}))*"';
const FAILURE_LINE = new RegExp(
  `^\\{"id":(?:0|-?[1-9][0-9]*),"deleted":false,"status":(?:${NUMBER}|null),"error":(?:(-?(?:0|[1-9][0-9]*))|null),"message":${STRING},"exit":${NUMBER}(,"attempted":false|,"uncertain":true)?\\}$`,
);

/** The fields a failure line's readers use (the message left out), or undefined when `text` is not of the writer's shape. */
export function failureFields(text: string): Record<string, unknown> | undefined {
  const match = FAILURE_LINE.exec(text);
  if (match === null) return undefined;
  const [, status, error, exit, tail] = match;
  const fields: Record<string, unknown> = {
    deleted: false,
    status: status === undefined ? null : Number(status),
    error: error === undefined ? null : Number(error),
    exit: Number(exit),
  };
  if (tail === ',"attempted":false') fields['attempted'] = false;
  else if (tail === ',"uncertain":true') fields['uncertain'] = true;
  return fields;
}

// Format 3's failure lines (records.ts): one shape for failed, in flight and not sent.
const STATE_FAILURE_LINE = new RegExp(
  `^\\{"id":(?:0|-?[1-9][0-9]*),"state":"(failed|in-flight|not-sent)","status":(?:${NUMBER}|null),"error":(?:(-?(?:0|[1-9][0-9]*))|null),"message":${STRING},"exit":${NUMBER}\\}$`,
);

/** A format-3 failure line's fields (the message left out), or undefined when `text` is not of the writer's shape. */
export function stateFailureFields(text: string): Record<string, unknown> | undefined {
  const match = STATE_FAILURE_LINE.exec(text);
  if (match === null) return undefined;
  const [, state, status, error, exit] = match;
  return {
    state,
    status: status === undefined ? null : Number(status),
    error: error === undefined ? null : Number(error),
    exit: Number(exit),
  };
}
