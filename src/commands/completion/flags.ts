import { Flag, type FlagReader } from '../../flags/flag.js';
import { COLOR } from '../../flags/global.js';

/** Hidden: what the scripts call to complete --profile. */
export const LIST_PROFILES = Flag.switch({
  key: 'listProfiles',
  flags: '--list-profiles',
  help: 'print profile names (used by the scripts)',
  hidden: true,
});

export const COMPLETION_GLOBALS = [COLOR] as const;

export type CompletionFlags = FlagReader<typeof LIST_PROFILES | (typeof COMPLETION_GLOBALS)[number]>;
