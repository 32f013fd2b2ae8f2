import { maskedBaseUrl } from '../../config/base-url.js';
import { isProfileName } from '../../config/file.js';
import { DEFAULT_PROFILE, profileNames } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { Exit, type ExitCode } from '../../errors.js';
import { shownOnOneLine } from '../../text/shown.js';
import type { ListOptions } from './flags.js';
import { hideStoredToken } from './stored-token.js';

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
  // Not listed, since --profile could not name them; but said, or the list would look whole.
  const skipped = config.profileNames().filter((name) => !isProfileName(name));
  const listed = names.includes(DEFAULT_PROFILE) ? names : [DEFAULT_PROFILE, ...names];
  // Every stored token first: a base URL listed below may hold one (`…/bot<token>`).
  for (const name of listed) hideStoredToken(config.profile(name).token, ctx);
  const rows: ProfileRow[] = listed.map((name) => {
    const stored = config.profile(name);
    return {
      name,
      current: name === opts.profile,
      baseUrl: shownBaseUrl(stored['base-url'], ctx.io.mask),
      token: stored['token-command'] ? 'command' : stored.token ? 'stored' : null,
    };
  });
  const overrides = ['PLANTSTORE_TOKEN', 'PLANTSTORE_TOKEN_FILE', 'PLANTSTORE_TOKEN_COMMAND', 'PLANTSTORE_BASE_URL'].filter(
    (name) => ctx.env[name],
  );
  if (opts.json) {
    ctx.io.outObject({ path: config.path, profiles: rows, skipped, environment: overrides });
    if (skipped.length > 0) ctx.io.err(skippedNote(skipped, config.path));
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
  if (skipped.length > 0) ctx.io.err(skippedNote(skipped, config.path));
  for (const name of overrides) ctx.io.err(`note: ${name} is set: it is used instead of what the profiles say`);
  return Exit.ok;
}

/** A stored base URL as listed: a password, query values and any stored token masked; text that is no URL as it is, tokens masked. */
function shownBaseUrl(raw: string | undefined, mask: (text: string) => string): string | null {
  if (raw === undefined) return null;
  return maskedBaseUrl(raw, mask) ?? mask(raw);
}

/** Names shown in the note at most; the count says how many there are. */
const NAMES_SHOWN = 5;

function skippedNote(skipped: readonly string[], file: string): string {
  const listed = skipped
    .slice(0, NAMES_SHOWN)
    .map((name) => `'${shownOnOneLine(name.length > 70 ? `${name.slice(0, 64)}…` : name)}'`)
    .join(', ');
  const more = skipped.length > NAMES_SHOWN ? ` and ${skipped.length - NAMES_SHOWN} more` : '';
  const one = skipped.length === 1;
  const count = one ? '1 profile' : `${skipped.length} profiles`;
  const names = one ? 'its name is not a profile name' : 'their names are not profile names';
  return `note: ${count} in ${shownOnOneLine(file)} not listed (${listed}${more}): ${names} (letters, digits, '-' and '_', at most 64, starting with a letter or digit), which --profile cannot select; rename ${one ? 'it' : 'them'} in the file by hand`;
}
