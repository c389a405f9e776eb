/**
 * Calls that a busy API server may refuse for a while: 429 Too Many Requests (API priority and fairness) says how
 * long to wait in Retry-After. The wait is honoured, bounded (at most MAX_RETRY_WAIT_MS each, MAX_RETRIES times,
 * never past the caller's deadline), and cut short by an abort. And the call options that tie one request, its
 * body included, to an AbortSignal.
 */
import type { ConfigurationOptions } from "@kubernetes/client-node";
import { statusOf } from "./errors.js";

/** Retries of one call after 429 before its node is given up. */
export const MAX_RETRIES = 5;
/** The longest one wait may be, whatever Retry-After says (a server asking for an hour is not waited for). */
export const MAX_RETRY_WAIT_MS = 30_000;
/** The first wait when the server gives no Retry-After; doubled on each retry. */
export const FIRST_BACKOFF_MS = 500;

/** Waits `ms`, or less when `signal` aborts; the abort listener is removed either way (one per poll adds up). */
export const pollSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** The Retry-After header of a failed call in milliseconds (seconds or an HTTP date), or null when absent or junk. */
export function retryAfterHeaderMs(err: unknown, now = Date.now()): number | null {
  const headers = (err as { headers?: unknown } | null)?.headers;
  if (typeof headers !== "object" || headers === null) return null;
  const raw = (headers as Record<string, unknown>)["retry-after"];
  if (typeof raw !== "string") return null;
  const text = raw.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) && /[a-z]/i.test(text) ? Math.max(0, at - now) : null;
}

/**
 * How long to wait before retry number `attempt + 1` of a call that failed with `err`, or null when it is not to be
 * retried (not a 429, or retried MAX_RETRIES times already). Pure but for the clock.
 */
export function retryWaitMs(err: unknown, attempt: number, now = Date.now()): number | null {
  if (statusOf(err) !== 429 || attempt >= MAX_RETRIES) return null;
  const asked = retryAfterHeaderMs(err, now);
  const wait = asked ?? FIRST_BACKOFF_MS * 2 ** attempt;
  return Math.min(Math.max(wait, 0), MAX_RETRY_WAIT_MS);
}

export type RetryOptions = { signal?: AbortSignal | undefined; deadline?: number | undefined };

/** A 429 answer the retries did not get past: says how often it was retried. */
export class ThrottledError extends Error {
  readonly code = 429;
  constructor(
    readonly retries: number,
    override readonly cause: unknown,
  ) {
    super(
      `the API server kept answering 429 Too Many Requests (retried ${retries} time(s), honouring Retry-After up to ${MAX_RETRY_WAIT_MS / 1000} s each)`,
    );
    this.name = "ThrottledError";
  }
}

/** Runs `call`, retrying after 429 as retryWaitMs says; a wait that would pass the deadline is not started. */
export async function withRetry<T>(call: () => Promise<T>, o: RetryOptions = {}): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (statusOf(err) !== 429) throw err;
      const wait = retryWaitMs(err, attempt);
      const late = o.deadline !== undefined && wait !== null && Date.now() + wait > o.deadline;
      if (wait === null || late || o.signal?.aborted) throw new ThrottledError(attempt, err);
      await pollSleep(wait, o.signal);
      if (o.signal?.aborted) throw new ThrottledError(attempt + 1, err);
    }
  }
}

/**
 * Options for one client-node call that tie its request to `signal`: an abort ends the request, its response body
 * included (a log stream that stalls half way), with an AbortError.
 */
export function abortable(signal: AbortSignal): ConfigurationOptions {
  // The object-parameter API takes observable middleware: anything with toPromise() (client-node's rxjs stub).
  const observed = <C>(ctx: C) => ({ toPromise: () => Promise.resolve(ctx) });
  const middleware = {
    pre: (ctx: { setSignal(s: AbortSignal): void }) => {
      ctx.setSignal(signal);
      return observed(ctx);
    },
    post: observed,
  };
  return { middleware: [middleware], middlewareMergeStrategy: "append" } as unknown as ConfigurationOptions;
}
