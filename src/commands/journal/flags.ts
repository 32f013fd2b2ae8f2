import { Flag, type FlagReader } from '../../flags/flag.js';
import { COLOR, JSON_OUTPUT } from '../../flags/global.js';

/** Neither command reads a token, a base URL, a profile or the network: only the files. */
export const JOURNAL_GLOBALS = [JSON_OUTPUT, COLOR] as const;

export type JournalFlags = FlagReader<(typeof JOURNAL_GLOBALS)[number]>;

/** `journal status --watch`: read the journals again every second, as runs write them. */
export const WATCH = Flag.switch({
  key: 'watch',
  flags: '-w, --watch',
  help: 'read the journals again every second while runs write them: totals, rate and time left, a block redrawn at a terminal, a line (or a --json object) per change elsewhere; ends by itself, exit 0, when the job is finished, and on Ctrl-C',
});

export type JournalStatusFlags = FlagReader<(typeof JOURNAL_GLOBALS)[number] | typeof WATCH>;

/** What `plantstore journal status|failed FILE…` was asked. */
export interface JournalOptions {
  /** One journal, or the shards of one job, summed. */
  files: string[];
  json: boolean;
  /** `journal status --watch`. */
  watch?: boolean;
}

export function journalOptions(flags: JournalFlags, files: string[]): JournalOptions {
  return { files, json: flags.value(JSON_OUTPUT) };
}

export function journalStatusOptions(flags: JournalStatusFlags, files: string[]): JournalOptions {
  return { ...journalOptions(flags, files), watch: flags.value(WATCH) };
}
