/** A problem met while reading or parsing: data, never thrown. */
export type Problem = {
  /** Stable dotted code, e.g. `ofed_info.unrecognised`, `host.read_failed`. */
  code: string;
  /** One sentence: what failed, what was expected, what was found. */
  message: string;
  /** File or command the problem is about, when there is one. */
  path?: string;
  /** 1-based line in the input, when known. */
  line?: number;
  /** What to do next (a command to run, a flag to pass). */
  hint?: string;
};

export type ParseResult<T> = { ok: true; value: T; problems: Problem[] } | { ok: false; problems: Problem[] };

/** The problems of a clean result: one shared, frozen empty list (parsers return thousands of clean results). */
const NO_PROBLEMS: Problem[] = Object.freeze([]) as unknown as Problem[];

export function ok<T>(value: T, problems: Problem[] = NO_PROBLEMS): ParseResult<T> {
  return { ok: true, value, problems };
}

export function fail<T = never>(...problems: Problem[]): ParseResult<T> {
  return { ok: false, problems };
}

export function problem(code: string, message: string, extra: Omit<Problem, "code" | "message"> = {}): Problem {
  return { code, message, ...extra };
}
