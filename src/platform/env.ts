/** The process environment as commands read it: never written, any variable may be missing. */
export type Env = Readonly<Record<string, string | undefined>>;
