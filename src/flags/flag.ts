import { Option } from 'commander';
import { completes, type Values } from '../completion/tree.js';
import type { ProfileKey } from '../config/file.js';
import type { Sourced } from '../config/resolve.js';

export type { Sourced };

import { badValue } from '../errors.js';
import type { Env } from '../platform/env.js';

/**
 * Where a value came from. `source` is what messages and `auth status` print:
 * "--timeout", "PLANTSTORE_TIMEOUT", "profile 'work' in /home/me/.config/…".
 */
export interface Origin {
  source: string;
  /** Typed on this command line: a bad value is a usage error (exit 2), anywhere else a configuration error (exit 3). */
  onCommandLine: boolean;
}

/** Turns the text of a flag, variable or profile setting into a value, or throws a CliError that says how to fix it. */
export type Parse<T> = (raw: string, origin: Origin) => T;

interface FlagSpec<K extends string, T> {
  /** The name commander stores the value under: `maxRetryWait` for `--max-retry-wait`. */
  key: K;
  /** Commander's syntax: `--timeout <seconds>`, `-q, --quiet`. */
  flags: string;
  /** One line for --help; where else the value may come from is added to it. */
  help: string;
  /** The variable read when the flag is absent. For a switch, `NAME=1` turns it on. */
  env?: string;
  /** What the variable is, in the Environment section of `plantstore --help`; without it the section leaves the variable out. */
  envHelp?: string;
  /** The value is a secret, which other users see in `ps` when it is a flag: help says to prefer the variable. */
  preferEnv?: boolean;
  /** Whether an empty variable counts (and is parsed) rather than being read as unset. */
  emptyEnvCounts?: boolean;
  /** The profile setting read when neither the flag nor the variable is set. */
  profileKey?: ProfileKey;
  /** The value when no source has one, with how --help writes it. */
  default?: { value: T; help: string };
  /** What shell completion offers for the value. */
  completes?: Values;
  /** Left out of --help and completion. */
  hidden?: boolean;
}

/**
 * One option of the command line, declared once: its syntax, help, variable,
 * profile key, parser and default. Commander parses the command line from it;
 * a command reads its value through a FlagReader, which applies the one order
 * every value follows: flag, then variable, then profile, then default.
 */
export class Flag<K extends string = string, T = unknown, R = T | undefined> {
  /** Never set: carries the resolved type for FlagReader.value. */
  declare readonly resolved: R;

  private constructor(
    readonly spec: FlagSpec<K, T>,
    readonly parse: Parse<T> | undefined,
  ) {}

  /**
   * A flag with a value (`--timeout <seconds>`). Its default is written as it would be
   * typed (`'30'`) and parsed like any value, so --help shows what the user would type
   * and the value cannot disagree with it. With a default, reading it never yields undefined.
   */
  static valued<const K extends string, T>(spec: ValuedSpec<K, T> & { default: string }, parse: Parse<T>): Flag<K, T, T>;
  static valued<const K extends string, T>(spec: ValuedSpec<K, T>, parse: Parse<T>): Flag<K, T, T | undefined>;
  static valued<const K extends string, T>({ default: raw, ...spec }: ValuedSpec<K, T>, parse: Parse<T>): Flag<K, T, T | undefined> {
    if (raw === undefined) return new Flag(spec, parse);
    const value = parse(raw, { source: `the default of ${spec.flags}`, onCommandLine: false });
    return new Flag({ ...spec, default: { value, help: typeof value === 'string' ? `"${raw}"` : raw } }, parse);
  }

  /**
   * A switch (`--json`): true when given, or when its variable is 1. A negated one
   * (`--no-color`, stored as `color`) is true unless given, as commander stores it.
   */
  static switch<const K extends string>(spec: Omit<FlagSpec<K, boolean>, 'default' | 'profileKey'>): Flag<K, boolean, boolean> {
    const negated = /(^|[\s,])--no-/.test(spec.flags);
    return new Flag<K, boolean, boolean>({ ...spec, default: { value: negated, help: '' } }, undefined);
  }

  get key(): K {
    return this.spec.key;
  }

  /** The long spelling, as messages name it: `--max-retry-wait`. */
  get long(): string {
    return /--[\w-]+/.exec(this.spec.flags)?.[0] ?? this.spec.key;
  }

  /** The commander option, with where else the value comes from added to its help. */
  option(): Option {
    const option = new Option(this.spec.flags, `${this.spec.help}${this.helpSuffix()}`);
    if (this.spec.hidden) option.hideHelp();
    // A mismatch would make every read of this flag come back empty.
    if (option.attributeName() !== this.spec.key) {
      throw new Error(`flag ${this.spec.flags} is stored as ${option.attributeName()}, not ${this.spec.key}`);
    }
    declaredBy.set(option, this);
    return this.spec.completes ? completes(option, this.spec.completes) : option;
  }

  /** The line of the Environment section in --help, when the flag has a variable worth listing. */
  environmentHelp(): readonly [string, string] | undefined {
    const { env, envHelp } = this.spec;
    if (env === undefined || envHelp === undefined) return undefined;
    return [this.parse === undefined ? `${env}=1` : env, envHelp];
  }

  private helpSuffix(): string {
    const { env, profileKey } = this.spec;
    if (this.parse === undefined) return env ? ` (also ${env}=1)` : '';
    const parts = [
      ...(env ? [`${this.spec.preferEnv ? 'prefer env' : 'env'} ${env}`] : []),
      ...(profileKey ? [`profile key ${profileKey}`] : []),
      ...(this.spec.default?.help ? [`default ${this.spec.default.help}`] : []),
    ];
    return parts.length === 0 ? '' : ` (${parts.join('; ')})`;
  }
}

/** A valued flag as declared: its default as text, the way a user would type it. */
type ValuedSpec<K extends string, T> = Omit<FlagSpec<K, T>, 'default'> & { default?: string };

// biome-ignore lint/suspicious/noExplicitAny: any flag, whatever it holds
export type AnyFlag = Flag<string, any, any>;

const declaredBy = new WeakMap<Option, AnyFlag>();

/** The Flag a commander option was made from, if any. */
export function flagOf(option: Option): AnyFlag | undefined {
  return declaredBy.get(option);
}

/** A profile's stored settings and how to name them in messages. */
export interface ProfileSettings {
  settings: Partial<Record<ProfileKey, string>>;
  source: string;
  /** Throws when the setting may not be used as stored (config/trust.ts), before it is. */
  check?: (key: ProfileKey) => void;
}

export interface FlagSources {
  /** What commander parsed for the command: its own options and the program's. */
  parsed: Readonly<Record<string, unknown>>;
  env: Env;
  /** The selected profile's settings; called only when a flag with a profile key is read without flag or variable. */
  profile?: () => ProfileSettings;
  /**
   * Told when a flag's variable is set but empty, which reads as unset: `fallback` is where the
   * value came from instead (a profile, or undefined for the default or none).
   */
  emptyVariable?: (flag: AnyFlag, variable: string, fallback: string | undefined) => void;
}

/**
 * The values of the flags a command declares, each resolved on first read, so
 * a bad value is reported where the command first needs it (ids are checked
 * before the timeout, as always). Reading a flag the command did not declare is
 * a type error: what a command reads is what its help lists.
 */
export class FlagReader<F extends AnyFlag> {
  private readonly cache = new Map<AnyFlag, Sourced<unknown> | undefined>();

  constructor(private readonly sources: FlagSources) {}

  /** The value, or the default (undefined when there is none). */
  value<G extends F>(flag: G): G['resolved'] {
    return (this.sourced(flag)?.value ?? flag.spec.default?.value) as G['resolved'];
  }

  /** The value and where it came from; undefined when no source has one (defaults are not a source). */
  sourced<G extends F>(flag: G): Sourced<Exclude<G['resolved'], undefined>> | undefined {
    if (!this.cache.has(flag)) this.cache.set(flag, this.resolve(flag));
    return this.cache.get(flag) as Sourced<Exclude<G['resolved'], undefined>> | undefined;
  }

  /** The value typed on this command line only, for a command that acts on what was typed (auth login --base-url stores it). */
  given<G extends F>(flag: G): Sourced<Exclude<G['resolved'], undefined>> | undefined {
    const given = this.sources.parsed[flag.key];
    if (typeof given !== 'string' || flag.parse === undefined) return undefined;
    return parsed(flag.parse, given, { source: flag.long, onCommandLine: true });
  }

  private resolve(flag: AnyFlag): Sourced<unknown> | undefined {
    const { key, env, emptyEnvCounts, profileKey } = flag.spec;
    const long = flag.long;
    const given = this.sources.parsed[key];
    if (flag.parse === undefined) {
      if (given !== undefined) return { value: given, source: long };
      return env && this.sources.env[env] === '1' ? { value: true, source: `${env}=1` } : undefined;
    }
    if (typeof given === 'string') return parsed(flag.parse, given, { source: long, onCommandLine: true });
    const fromEnv = env === undefined ? undefined : this.sources.env[env];
    if (fromEnv !== undefined && (fromEnv !== '' || emptyEnvCounts)) {
      return parsed(flag.parse, fromEnv, { source: env as string, onCommandLine: false });
    }
    const fromProfile = this.fromProfile(flag, profileKey);
    if (fromEnv === '' && env !== undefined) this.sources.emptyVariable?.(flag, env, fromProfile?.source);
    return fromProfile;
  }

  private fromProfile(flag: AnyFlag, profileKey: ProfileKey | undefined): Sourced<unknown> | undefined {
    if (!profileKey || !this.sources.profile || flag.parse === undefined) return undefined;
    const profile = this.sources.profile();
    const stored = profile.settings[profileKey];
    if (stored === undefined) return undefined;
    profile.check?.(profileKey);
    return parsed(flag.parse, stored, { source: profile.source, onCommandLine: false });
  }
}

function parsed<T>(parse: Parse<T>, raw: string, origin: Origin): Sourced<T> {
  return { value: parse(raw, origin), source: origin.source };
}

/** "invalid --timeout 'x': give a number of seconds…", as a usage error from the command line, else a configuration error. */
export function invalid(raw: string, origin: Origin, advice: string): Error {
  return problem(origin, `invalid ${origin.source} '${raw}': ${advice}`);
}

/** The error class a bad value from `origin` deserves. */
export function problem(origin: Origin, message: string): Error {
  return badValue(message, origin.onCommandLine);
}
