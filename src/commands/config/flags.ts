import type { FlagReader } from '../../flags/flag.js';
import { COLOR, JSON_OUTPUT, PROFILE, QUIET } from '../../flags/global.js';

export const READ_GLOBALS = [PROFILE, JSON_OUTPUT, COLOR] as const;
export const WRITE_GLOBALS = [PROFILE, QUIET, COLOR] as const;
export const PATH_GLOBALS = [JSON_OUTPUT, COLOR] as const;

/** config get, config list. */
export type ReadFlags = FlagReader<(typeof READ_GLOBALS)[number]>;
/** config set, config unset. */
export type WriteFlags = FlagReader<(typeof WRITE_GLOBALS)[number]>;
/** config path. */
export type PathFlags = FlagReader<(typeof PATH_GLOBALS)[number]>;
