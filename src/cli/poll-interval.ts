import { num, type OptionValues, UsageError } from "./spec.js";

/** The most a pod-status poll may wait: longer would also overflow Node's 32-bit timer (which then fires at once). */
export const MAX_POLL_INTERVAL_MS = 60_000;

/**
 * `--poll-interval MS` of the commands that watch pods through the API server. 0 or a negative number polled the
 * API server in a tight loop, and so did 1e10 (a timer that long fires after 1 ms).
 */
export function pollIntervalMs(values: OptionValues, fallback = 1000): number {
  const ms = num(values, "poll-interval") ?? fallback;
  if (!(ms >= 1 && ms <= MAX_POLL_INTERVAL_MS)) {
    throw new UsageError(
      `--poll-interval expects milliseconds from 1 to ${MAX_POLL_INTERVAL_MS} (default 1000); got ${ms}.`,
    );
  }
  return ms;
}
