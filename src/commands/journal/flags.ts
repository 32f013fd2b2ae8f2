import type { FlagReader } from '../../flags/flag.js';
import { COLOR, JSON_OUTPUT } from '../../flags/global.js';

/** Neither command reads a token, a base URL, a profile or the network: only the files. */
export const JOURNAL_GLOBALS = [JSON_OUTPUT, COLOR] as const;

export type JournalFlags = FlagReader<(typeof JOURNAL_GLOBALS)[number]>;

/** What `plantstore journal status|failed FILE…` was asked. */
export interface JournalOptions {
  /** One journal, or the shards of one job, summed. */
  files: string[];
  json: boolean;
}

export function journalOptions(flags: JournalFlags, files: string[]): JournalOptions {
  return { files, json: flags.value(JSON_OUTPUT) };
}
