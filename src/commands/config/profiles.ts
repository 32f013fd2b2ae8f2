import { DEFAULT_PROFILE, profileNames } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode } from '../../errors.js';
import { shownOnOneLine } from '../../text/shown.js';
import type { ListOptions } from './flags.js';

/** Where a profile's token comes from, never the token: as `auth status` words it, shorter. */
type TokenKind = 'stored' | 'command' | null;

interface ProfileRow {
  name: string;
  current: boolean;
  baseUrl: string | null;
  token: TokenKind;
}

const TOKEN_WORDS: Readonly<Record<'stored' | 'command' | 'none', string>> = {
  stored: 'stored',
  command: 'token command',
  none: 'none',
};

/**
 * `plantstore config profiles`: every profile with its base URL and where its token comes
 * from, the selected one marked, as kubectl's `config get-contexts` lists contexts.
 * `default` is listed even before anything is stored in it: it always exists.
 */
export async function runProfiles(opts: ListOptions, ctx: Context): Promise<ExitCode> {
  const config = ctx.config();
  const names = profileNames(config);
  const rows: ProfileRow[] = (names.includes(DEFAULT_PROFILE) ? names : [DEFAULT_PROFILE, ...names]).map((name) => {
    const stored = config.profile(name);
    return {
      name,
      current: name === opts.profile,
      baseUrl: stored['base-url'] ?? null,
      token: stored['token-command'] ? 'command' : stored.token ? 'stored' : null,
    };
  });
  const overrides = ['PLANTSTORE_TOKEN', 'PLANTSTORE_TOKEN_FILE', 'PLANTSTORE_TOKEN_COMMAND', 'PLANTSTORE_BASE_URL'].filter(
    (name) => ctx.env[name],
  );
  if (opts.json) {
    ctx.io.outObject({ path: config.path, profiles: rows, environment: overrides });
    return Exit.ok;
  }
  const table = [
    ['CURRENT', 'NAME', 'BASE URL', 'TOKEN'],
    ...rows.map((row) => [
      row.current ? '*' : '',
      row.name,
      row.baseUrl === null ? 'not set' : shownOnOneLine(row.baseUrl),
      TOKEN_WORDS[row.token ?? 'none'],
    ]),
  ];
  const widths = [0, 1, 2].map((column) => Math.max(...table.map((cells) => (cells[column] ?? '').length)));
  for (const cells of table) {
    ctx.io.out(cells.map((cell, column) => (column < 3 ? cell.padEnd((widths[column] ?? 0) + 2) : cell)).join(''));
  }
  // Said on stderr: stdout stays the table, for scripts that cut it.
  for (const name of overrides) ctx.io.err(`note: ${name} is set: it is used instead of what the profiles say`);
  return Exit.ok;
}
