// Human output with its variable parts named, so an inline snapshot holds the exact wording and
// nothing that changes from run to run: how long the run took, the test's temporary folder, a port.

/**
 * `text` with each timing (`in 0.4s`, a log line's `0.3ms`, the JSON summary's `"seconds":0.4`) as `<t>`, and each value of `named` replaced by its
 * key: normalize(stderr, { '<dir>': dir() }).
 */
export function normalize(text: string, named: Record<string, string> = {}): string {
  let out = text
    .replace(/ in \d+\.\ds\b/g, ' in <t>s')
    .replace(/ \d+\.\dms\b/g, ' <t>ms')
    .replace(/"seconds":\d+(\.\d+)?/g, '"seconds":<t>');
  for (const [name, value] of Object.entries(named)) out = out.split(value).join(name);
  return out;
}

/** normalize(), and each port (in a URL, or `port 8080`) as `<port>`: a server listening on port 0 has a new one each run. */
export function withoutPorts(text: string, named: Record<string, string> = {}): string {
  return normalize(text, named)
    .replace(/(\/\/(?:[\w.-]+|\[[\w:]+\])):\d+/g, '$1:<port>')
    .replace(/\bport \d+/g, 'port <port>');
}
