import { UsageError } from "./spec.js";

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1e3,
  m: 1e6,
  g: 1e9,
  t: 1e12,
  ki: 1024,
  mi: 1024 ** 2,
  gi: 1024 ** 3,
  ti: 1024 ** 4,
};

/**
 * A size as Kubernetes quantities write it: `1Gi`, `512Mi`, `64Ki` (powers of 1024), `1G`, `500M` (powers of
 * 1000), or plain bytes. `GiB`/`MB` spellings are accepted too. Throws UsageError naming the option.
 */
export function parseSize(text: string, option: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?)?b?\s*$/i.exec(text);
  const factor = m ? UNITS[(m[2] ?? "").toLowerCase()] : undefined;
  if (!m || factor === undefined) {
    throw new UsageError(
      `--${option} expects a size such as 1Gi, 512Mi or a number of bytes; got "${text}".`,
      "Units: Ki Mi Gi Ti (1024-based), K M G T (1000-based).",
    );
  }
  return Math.round(Number(m[1]) * factor);
}
