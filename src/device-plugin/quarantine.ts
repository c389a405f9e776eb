/**
 * Quarantine of one HCA, not the node: the node agent writes the HCAs its checks found in error to a small JSON file
 * (`agent --quarantine-file`, an emptyDir shared with the device plugin in the same pod); the plugin
 * (`--quarantine-file`) stops handing those HCAs to new pods while the node keeps serving the others: in exclusive
 * mode their units are Unhealthy; in shared mode they are withdrawn from every unit (their verbs devices leave the
 * Allocate answer and NCCL_IB_HCA) and the units' health is judged over the other HCAs. A file older than its max age is ignored (an agent that died must not fence HCAs forever).
 * Pure: the caller reads and writes the file.
 */
import type { Finding } from "../core/finding.js";

export const QUARANTINE_SCHEMA_VERSION = 1;
/** A quarantine file is a few hundred bytes; anything larger is not one. */
export const QUARANTINE_MAX_BYTES = 64 * 1024;

export type QuarantineFile = {
  schemaVersion: typeof QUARANTINE_SCHEMA_VERSION;
  node: string;
  /** When the agent wrote it (RFC 3339). */
  generatedAt: string;
  hcas: { hca: string; codes: string[] }[];
};

/** The HCAs the error findings name (subject `mlx5_3` or `mlx5_3/1`), among the HCAs the node has. */
export function quarantineOf(
  node: string,
  findings: readonly Finding[],
  hcaNames: readonly string[],
  now: Date,
): QuarantineFile {
  const known = new Set(hcaNames);
  const codes = new Map<string, Set<string>>();
  for (const f of findings) {
    if (f.severity !== "error") continue;
    const hca = f.subject.split("/")[0] ?? "";
    if (!known.has(hca)) continue;
    const set = codes.get(hca) ?? new Set<string>();
    set.add(f.code);
    codes.set(hca, set);
  }
  return {
    schemaVersion: QUARANTINE_SCHEMA_VERSION,
    node,
    generatedAt: now.toISOString(),
    hcas: [...codes].map(([hca, c]) => ({ hca, codes: [...c].sort() })),
  };
}

export type QuarantineRead = { ok: true; byHca: Map<string, string[]> } | { ok: false; why: string };

const NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
const CODE = /^[A-Z][A-Z0-9_]{0,79}$/;

/** The file's text → the quarantined HCAs and their codes, or why it is not used (damaged, stale). */
export function readQuarantine(text: string, now: Date, maxAgeSeconds: number): QuarantineRead {
  if (text.length > QUARANTINE_MAX_BYTES) return { ok: false, why: `larger than ${QUARANTINE_MAX_BYTES} bytes` };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false, why: "not JSON" };
  }
  const q = v as Partial<QuarantineFile> | null;
  if (typeof q !== "object" || q === null || q.schemaVersion !== QUARANTINE_SCHEMA_VERSION || !Array.isArray(q.hcas)) {
    return { ok: false, why: `not a quarantine file (schemaVersion ${QUARANTINE_SCHEMA_VERSION} with hcas[])` };
  }
  const at = typeof q.generatedAt === "string" ? Date.parse(q.generatedAt) : Number.NaN;
  if (!Number.isFinite(at)) return { ok: false, why: "generatedAt is not a time" };
  const age = (now.getTime() - at) / 1000;
  if (age > maxAgeSeconds)
    return { ok: false, why: `stale: written ${Math.round(age)} s ago (max ${maxAgeSeconds} s)` };
  const byHca = new Map<string, string[]>();
  for (const e of q.hcas as unknown[]) {
    const entry = e as { hca?: unknown; codes?: unknown };
    if (typeof entry?.hca !== "string" || !NAME.test(entry.hca) || !Array.isArray(entry.codes)) {
      return { ok: false, why: "an hcas[] entry is not {hca, codes}" };
    }
    const codes = entry.codes.filter((c): c is string => typeof c === "string" && CODE.test(c));
    byHca.set(entry.hca, codes);
  }
  return { ok: true, byHca };
}
