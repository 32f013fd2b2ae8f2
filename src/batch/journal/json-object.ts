// A journal line read as JSON: an object, or nothing. Shared by the readers of every format
// (format.ts, records.ts), which must agree on what a line that is not an object is.

/** `text` as a JSON object, or undefined when it is not one (not JSON, or an array, a string, null…). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Whether `text` is a JSON object. */
export const isJsonObject = (text: string): boolean => parseJsonObject(text) !== undefined;
