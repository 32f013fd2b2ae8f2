import type { Context } from '../context.js';
import { ConfigError, Exit, type ExitCode, UsageError } from '../errors.js';
import type { GlobalOptions } from '../global-options.js';
import type { Sandbox } from '../sandbox/server.js';
import { normalizeToken } from '../token.js';

export const DEFAULT_SANDBOX_TOKEN = 'sandbox-token';

export interface SandboxCommandOptions {
  port: string;
  host: string;
  token: string;
  plants: string;
  global: GlobalOptions;
}

/**
 * Serves the spec on loopback until Ctrl-C / SIGTERM. The first stdout line is the
 * base URL and nothing else, so scripts can read it with `head -1`.
 */
export async function runSandbox(opts: SandboxCommandOptions, ctx: Context): Promise<ExitCode> {
  const port = wholeNumber(opts.port, '--port', 65_535);
  const plants = wholeNumber(opts.plants, '--plants', 10_000_000);
  const token = normalizeToken(opts.token, '--token');
  const { startSandbox } = await import('../sandbox/server.js');
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({ host: opts.host, port, token, plants, log: (line) => ctx.io.err(line) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(`cannot listen on ${opts.host}:${port} (${code}): pick another with --port (0 picks a free one)`);
  }
  ctx.io.out(sandbox.url);
  ctx.io.err(`Plant Store sandbox: plants 1..${plants}. Ctrl-C stops it. To use it:`);
  // A token chosen with --token is the user's to know; only the public default is echoed.
  const shownToken = opts.token === DEFAULT_SANDBOX_TOKEN ? DEFAULT_SANDBOX_TOKEN : '<your --token>';
  ctx.io.err(`  echo ${shownToken} | plantstore auth login --with-token --base-url ${sandbox.url}`);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sandbox.close();
  ctx.io.err('sandbox stopped');
  return Exit.ok;
}

function wholeNumber(raw: string, flag: string, max: number): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 0 && value <= max)) throw new UsageError(`invalid ${flag} '${raw}': give a whole number from 0 to ${max}`);
  return value;
}
