import { isLoopbackHost } from '../../config/base-url.js';
import type { Context } from '../../context.js';
import { ConfigError, Exit, type ExitCode } from '../../errors.js';
import type { Sandbox } from '../../sandbox/server.js';
import { errnoWords } from '../../text/errno.js';
import { DEFAULT_SANDBOX_TOKEN, SANDBOX_TOKEN_ENV, type SandboxOptions, type SandboxToken } from './flags.js';
import { describePressure } from './pressure-words.js';
import { watchedAtTerminal } from './terminal.js';

/**
 * Serves the spec until Ctrl-C / SIGTERM. The first stdout line is a base URL
 * plantstore accepts and nothing else, so scripts can read it with `head -1`.
 * The request log shows while someone watches at the terminal (terminal.ts), or always with
 * --log; --quiet leaves stderr to warnings and errors. `watched` is a seam for tests.
 */
export async function runSandbox(
  opts: SandboxOptions,
  ctx: Context,
  watched: () => boolean = watchedAtTerminal(ctx.io.stderrIsTTY),
): Promise<ExitCode> {
  const { port, plants, host, token, pressure, quiet } = opts;
  const { startSandbox, SANDBOX_NOT_FOUND_ERROR } = await import('../../sandbox/server.js');
  const log = opts.log ? (line: string) => ctx.io.err(line) : quiet ? undefined : (line: string) => watched() && ctx.io.err(line);
  let sandbox: Sandbox;
  try {
    sandbox = await startSandbox({ host, port, token: token.value, plants, pressure, ...(log ? { log } : {}) });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const fix =
      code === 'EADDRNOTAVAIL'
        ? 'pick an address of this machine with --host, such as 127.0.0.1'
        : 'pick another port with --port (0 picks a free one)';
    throw new ConfigError(`cannot listen on ${host}:${port}: ${errnoWords(code)}; ${fix}`, code);
  }
  const listening = describeListening(host, sandbox.url, token);
  ctx.io.out(listening.baseUrl);
  for (const line of listening.warnings) ctx.io.err(line);
  // Ctrl-C reaches only a sandbox in the terminal's foreground; elsewhere, say what does stop it.
  const stop = watched() ? 'Ctrl-C stops it.' : `kill ${process.pid} stops it.`;
  const serves = [describePlants(plants), ...describePressure(pressure)].join('; ');
  if (!quiet) ctx.io.err(`Plant Store sandbox: ${serves}. ${stop}${listening.usableByPlantstore ? ' To use it:' : ''}`);
  if (!quiet && listening.usableByPlantstore) {
    ctx.io.err(`  ${loginLine(token, listening.baseUrl, ctx)}`);
    // The sandbox's code for "no such plant": a --journal run killed and run again then settles the ids it left in flight.
    // Kept under 100 columns with its indent: a line that wraps is copied in two pieces.
    ctx.io.err(
      `  plantstore config set missing-error ${SANDBOX_NOT_FOUND_ERROR}   # its "no such plant": resumed journals count those done`,
    );
  }
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sandbox.close();
  if (!quiet) ctx.io.err('sandbox stopped');
  return Exit.ok;
}

// --plants 0 is for trying failures: every delete is refused as the API refuses (400).
function describePlants(count: number): string {
  if (count === 0) return 'no plants, so every DELETE of a valid id answers 400 (error 1)';
  return count === 1 ? 'plant 1' : `plants 1..${count}`;
}

/**
 * The line that logs plantstore in to the sandbox, safe to paste as printed: a variable's name
 * rather than its value (the user's own shell expands it), and never a masked `***`, which a
 * shell expands into file names. The public default token is printed as it is, unless output
 * masks it (it is also the user's PLANTSTORE_TOKEN): then the variable that holds it is named.
 * A --token value is never printed: the login then asks for it.
 */
export function loginLine(token: SandboxToken, baseUrl: string, ctx: Pick<Context, 'env' | 'io'>): string {
  const login = `plantstore auth login --with-token --base-url ${baseUrl}`;
  if (token.source === SANDBOX_TOKEN_ENV) return `echo "$${SANDBOX_TOKEN_ENV}" | ${login}`;
  if (token.value === DEFAULT_SANDBOX_TOKEN) {
    const line = `echo ${DEFAULT_SANDBOX_TOKEN} | ${login}`;
    if (ctx.io.mask(line) === line) return line;
    if (ctx.env['PLANTSTORE_TOKEN'] === token.value) return `echo "$PLANTSTORE_TOKEN" | ${login}`;
  }
  return `plantstore auth login --base-url ${baseUrl}   # then paste the sandbox's token`;
}

/** The loopback address that reaches a wildcard bind. */
const WILDCARD_LOOPBACK = new Map([
  ['0.0.0.0', '127.0.0.1'],
  ['[::]', '[::1]'],
]);

export interface Listening {
  /** The first stdout line: a URL plantstore will send the token to whenever there is one. */
  baseUrl: string;
  /** False when plantstore would refuse every URL of the sandbox (plain http to a non-loopback address). */
  usableByPlantstore: boolean;
  warnings: string[];
}

/**
 * What to print for a sandbox listening on `host` (its URL as the server formats it).
 * A wildcard bind serves loopback too, so the loopback URL is printed: plantstore
 * refuses plain http to any other address. A specific non-loopback address is not
 * reachable through loopback at all, so its own URL is printed, with why plantstore
 * will not use it. Either way the sandbox is open to the network, which is said.
 */
export function describeListening(host: string, url: string, token: SandboxToken): Listening {
  // As a URL writes it: '0' and '0x0' are 0.0.0.0, '0:0::0' is [::].
  const hostname = URL.parse(url)?.hostname ?? host;
  if (isLoopbackHost(hostname)) return { baseUrl: url, usableByPlantstore: true, warnings: [] };
  const port = /:(\d+)$/.exec(url)?.[1] ?? '';
  const publicToken =
    token.value === DEFAULT_SANDBOX_TOKEN
      ? `; its token is the public default ${DEFAULT_SANDBOX_TOKEN} (choose another with ${SANDBOX_TOKEN_ENV})`
      : '';
  const wildcard = WILDCARD_LOOPBACK.get(hostname);
  if (wildcard) {
    const baseUrl = `http://${wildcard}:${port}`;
    return {
      baseUrl,
      usableByPlantstore: true,
      warnings: [
        `warning: the sandbox listens on every interface (${host}): anyone who can reach this machine on port ${port} and knows the token can delete its plants${publicToken}`,
        `warning: from this machine use ${baseUrl} (the URL printed): plantstore sends a token over plain http only to loopback (127.0.0.1, ::1, localhost)`,
      ],
    };
  }
  return {
    baseUrl: url,
    usableByPlantstore: false,
    warnings: [
      `warning: the sandbox listens on ${host}, which is not a loopback address: anyone who can reach it on port ${port} and knows the token can delete its plants${publicToken}`,
      `warning: plantstore sends a token over plain http only to loopback, so it will refuse ${url}; to use the sandbox from plantstore on this machine, run it with --host 127.0.0.1 (the default), or --host 0.0.0.0 and the base URL http://127.0.0.1:${port}`,
    ],
  };
}
