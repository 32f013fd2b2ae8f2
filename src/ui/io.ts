import type { Chalk } from 'chalk';
import { MIN_TOKEN_CHARS } from '../config/token.js';
import type { Env } from '../platform/env.js';
import { createMask, type Mask } from '../text/secret-mask.js';
import { jsonOnOneLine } from '../text/shown.js';

/** The few styles plantstore uses; plain functions when a stream gets no color. */
export interface Style {
  /** The stream's color level (0: none), as colorLevel decided it. chalk instances carry it too. */
  readonly level: number;
  green(text: string): string;
  red(text: string): string;
  dim(text: string): string;
}

/** chalk's class, handed in only when some stream may be colored: plain runs never load chalk. */
export type ChalkClass = typeof Chalk;

const PLAIN: Style = { level: 0, green: (text) => text, red: (text) => text, dim: (text) => text };

/** Where a command writes. Commands never touch process.stdout or console directly. */
export interface IO {
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  /** Writes one line to stdout. Every secret registered with redact(), in any encoding, is replaced by ***. */
  out(line: string): void;
  /** Writes help on stdout: as out(), with the commands it names as the user can paste them (`npx plantstore …` under npx). */
  outHelp(text: string): void;
  /**
   * Writes one JSON line to stdout as is. Masking a serialized line could break
   * it (a token `2024` would turn `"id":2024` into `"id":***`), so the caller
   * masks the strings that can carry server text with mask() before serializing.
   */
  outJson(line: string): void;
  /** Serializes an object whose every string is masked first, and writes it with outJson. */
  outObject(value: Record<string, unknown>): void;
  /** Replaces every registered secret in a piece of text: for values about to be serialized. */
  mask(text: string): string;
  /** Writes one line to stdout as is: only for `auth token`, whose whole point is to print it. */
  outUnredacted(line: string): void;
  /**
   * Registers a secret that must never be printed. Scrubbing here, at the last step,
   * covers messages from every layer, including ones we did not write.
   */
  redact(secret: string): void;
  /**
   * Registers a token from a token command. Unlike redact(), only the newest LEASED_MASKED stay
   * masked here: the transport masks every token an attempt still carries in what the server
   * says, and a day of one-minute tokens must not cost 1,440 patterns on every line printed.
   */
  redactLeased(token: string): void;
  /** Writes one line to stderr. */
  err(line: string): void;
  /** Writes to stderr without a line break: prompts. */
  errText(text: string): void;
  /** The width of the terminal stderr is, read now (a resize changes it); undefined when it is not a terminal. */
  errColumns(): number | undefined;
  /** Styles for text bound for stdout / stderr; plain when that stream gets no color. */
  outStyle(): Style;
  errStyle(): Style;
  /** --no-color is only known once argv is parsed. */
  disableColor(): void;
  /**
   * A promise while a reader of stdout or stderr is slower than we write: a
   * command producing many lines waits on it before producing more.
   */
  backlog(): Promise<void> | undefined;
  /** The program's command names, as it registers them: what a hint under npx may name (npxHints). */
  nameCommands(names: readonly string[]): void;
}

/**
 * Color rules, strongest first: --no-color, FORCE_COLOR, NO_COLOR, TERM=dumb,
 * then color only when the stream is a terminal.
 */
export function colorLevel(isTTY: boolean, env: Env, disabledByFlag: boolean): 0 | 1 | 2 | 3 {
  if (disabledByFlag) return 0;
  const force = env['FORCE_COLOR'];
  if (force !== undefined) {
    if (force === '0' || force === 'false') return 0;
    const level = Number(force);
    return level === 2 || level === 3 ? level : 1;
  }
  if (env['NO_COLOR']) return 0;
  if (env['TERM'] === 'dumb') return 0;
  return isTTY ? 1 : 0;
}

/** How many of a token command's newest tokens the last-step mask holds. */
export const LEASED_MASKED = 2;

interface Sink {
  write(text: string): unknown;
  isTTY?: boolean;
  readonly columns?: number | undefined;
  /** See IO.backlog; only the real stdout has one. */
  backlog?(): Promise<void> | undefined;
}

/**
 * Under `npx plantstore` (npm sets npm_command=exec), `plantstore` is not on the PATH: a hint
 * that names a command must say `npx plantstore …` for the user to paste it. The rule is on the
 * words that follow, so it holds for every hint of every layer: one of the program's command
 * names (`commands`, as the program registers them: IO.nameCommands) or an option after
 * "plantstore", never the "plantstore: " that starts an error line.
 */
export function npxHints(line: string, commands: readonly string[]): string {
  return line.replace(hintedCommand(commands), '$1npx plantstore ');
}

/** The pattern of a hint naming one of `commands` or an option. */
function hintedCommand(commands: readonly string[]): RegExp {
  const names = commands.map((name) => name.replace(/[^\w-]/g, '')).filter((name) => name.length > 0);
  const command = names.length === 0 ? '' : `(?:${names.join('|')})\\b|`;
  return new RegExp(`(^|[^\\w/.-])plantstore (?=${command}--[a-z])`, 'g');
}

export function createIO(stdout: Sink, stderr: Sink, stdinIsTTY: boolean, env: Env, chalk?: ChalkClass): IO {
  // The program's command names, once it has them (nameCommands): until then only an option is a hint.
  // The pattern is built when they are named, not per line.
  let hinted = hintedCommand([]);
  const hint = env['npm_command'] === 'exec' ? (line: string) => line.replace(hinted, '$1npx plantstore ') : (line: string) => line;
  let disabledByFlag = false;
  const secrets = new Set<string>();
  const leased: string[] = [];
  let scrub: Mask = (text) => text;
  const rebuild = (): void => {
    scrub = createMask(new Set([...secrets, ...leased]));
  };
  const styles = new Map<Sink, Style>();
  const styleFor = (sink: Sink): Style => {
    let style = styles.get(sink);
    if (!style) {
      const level = colorLevel(sink.isTTY === true, env, disabledByFlag);
      style = level === 0 || chalk === undefined ? PLAIN : new chalk({ level });
      styles.set(sink, style);
    }
    return style;
  };
  return {
    stdoutIsTTY: stdout.isTTY === true,
    stderrIsTTY: stderr.isTTY === true,
    stdinIsTTY,
    out: (line) => void stdout.write(`${scrub(line)}\n`),
    outHelp: (text) => void stdout.write(`${hint(scrub(text))}\n`),
    outJson: (line) => void stdout.write(`${line}\n`),
    outObject: (value) =>
      void stdout.write(
        `${jsonOnOneLine(JSON.stringify(value, (_key, field: unknown) => (typeof field === 'string' ? scrub(field) : field)))}\n`,
      ),
    mask: (text) => scrub(text),
    outUnredacted: (line) => void stdout.write(`${line}\n`),
    err: (line) => void stderr.write(`${hint(scrub(line))}\n`),
    errText: (text) => void stderr.write(scrub(text)),
    errColumns: () => (stderr.isTTY === true ? stderr.columns : undefined),
    redact: (secret) => {
      // A very short "secret" would shred ordinary words; such a token is refused before use anyway.
      if (secret.length < MIN_TOKEN_CHARS || secrets.has(secret)) return;
      secrets.add(secret);
      rebuild();
    },
    redactLeased: (token) => {
      if (token.length < MIN_TOKEN_CHARS || leased.includes(token)) return;
      leased.push(token);
      if (leased.length > LEASED_MASKED) leased.shift();
      rebuild();
    },
    outStyle: () => styleFor(stdout),
    errStyle: () => styleFor(stderr),
    disableColor: () => {
      disabledByFlag = true;
      styles.clear();
    },
    backlog: () => stdout.backlog?.(),
    nameCommands: (names) => {
      hinted = hintedCommand(names);
    },
  };
}

/**
 * After a signal, how long the process waits for a reader that stopped reading (a paused
 * `| less`, a stuck log shipper) to take what is queued: Node would wait for as long as it
 * takes, and Kubernetes and CI then send SIGKILL.
 */
export const READER_GRACE_MS = 1000;

/**
 * After a signal, the longest a stream of lines waits for a reader in all, however steadily it
 * reads: well within the 10 s CI runners give before SIGKILL (GitHub Actions), for a report that
 * on a reader keeping up takes a fraction of a second even at a million lines.
 */
export const READER_BUDGET_MS = 5000;

/**
 * For a command streaming many lines: undefined while it may write on; otherwise a promise
 * of whether to go on once the reader has caught up. After `interrupt` fired, a reader that
 * takes nothing for READER_GRACE_MS, or is still behind READER_BUDGET_MS after the first wait,
 * is given nothing more (false): the run is ending.
 */
export function readerCaughtUp(
  io: IO,
  interrupt: AbortSignal,
  now: () => number = performance.now.bind(performance),
): Promise<boolean> | undefined {
  const backlog = io.backlog();
  if (backlog === undefined) return undefined;
  if (!interrupt.aborted) return backlog.then(() => true);
  let budgetEndsAt = budgetEnds.get(interrupt);
  if (budgetEndsAt === undefined) {
    budgetEndsAt = now() + READER_BUDGET_MS;
    budgetEnds.set(interrupt, budgetEndsAt);
  }
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<boolean>((resolve) => {
    const waitMs = Math.min(READER_GRACE_MS, Math.ceil(budgetEndsAt - now()));
    timer = setTimeout(() => resolve(false), Math.max(0, waitMs));
  });
  return Promise.race([backlog.then(() => true), grace]).finally(() => clearTimeout(timer));
}

/** When the budget after each interrupt ends, once a stream has waited after it. */
const budgetEnds = new WeakMap<AbortSignal, number>();

export interface TestIO extends IO {
  stdout(): string;
  stderr(): string;
}

/** Buffers instead of terminals, no color: what tests assert on. */
export function createTestIO(options: { stdinIsTTY?: boolean; env?: Env; chalk?: ChalkClass } = {}): TestIO {
  let out = '';
  let err = '';
  const io = createIO(
    { write: (t: string) => (out += t) },
    { write: (t: string) => (err += t) },
    options.stdinIsTTY ?? false,
    options.env ?? {},
    options.chalk,
  );
  return { ...io, stdout: () => out, stderr: () => err };
}
