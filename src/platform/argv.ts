/**
 * Whether `flag` was typed before `--` (after it, words are operands: `delete -- --json`
 * deletes nothing named --json). For the few flags read before commander parses the command
 * line: --json shapes even commander's own errors, --no-color colors nothing from the start.
 */
export function typedBeforeOperands(argv: readonly string[], flag: string): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes(flag);
}
