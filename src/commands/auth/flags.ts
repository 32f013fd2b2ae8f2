import { Flag, type FlagReader } from '../../flags/flag.js';
import { BASE_URL, COLOR, JSON_OUTPUT, PROFILE, QUIET, TOKEN_FILE } from '../../flags/global.js';

export const WITH_TOKEN = Flag.switch({ key: 'withToken', flags: '--with-token', help: 'read the token from standard input' });

export const LOGIN_GLOBALS = [PROFILE, BASE_URL, JSON_OUTPUT, QUIET, COLOR] as const;
export const LOGOUT_GLOBALS = [PROFILE, QUIET, COLOR] as const;
export const STATUS_GLOBALS = [PROFILE, BASE_URL, JSON_OUTPUT, COLOR, TOKEN_FILE] as const;
export const TOKEN_GLOBALS = [PROFILE, COLOR, TOKEN_FILE] as const;

export type LoginFlags = FlagReader<typeof WITH_TOKEN | (typeof LOGIN_GLOBALS)[number]>;
export type LogoutFlags = FlagReader<(typeof LOGOUT_GLOBALS)[number]>;
export type StatusFlags = FlagReader<(typeof STATUS_GLOBALS)[number]>;
export type TokenFlags = FlagReader<(typeof TOKEN_GLOBALS)[number]>;
