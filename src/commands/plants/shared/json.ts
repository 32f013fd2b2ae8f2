// A result's --json line, for every verb on a plant. Ids are int64: written as bare JSON numbers
// with their exact digits, which JSON.stringify cannot do for values past 2^53, so a line is
// assembled by hand around the id. Every other field is already JSON (a verb's own, or failureJson's).

/** `{"id":<digits>,<fields>}`: `fields` is JSON text, without braces ("" for none). */
export function idLine(id: string, fields: string): string {
  return fields === '' ? `{"id":${id}}` : `{"id":${id},${fields}}`;
}
