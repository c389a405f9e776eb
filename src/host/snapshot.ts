import { VERSION } from "../cli/version.js";
import { compactDirRuns, compactFileRuns } from "./file-runs.js";
import { RecordingHostReader } from "./recording-reader.js";
import type { HostReader, Snapshot } from "./types.js";

/** Snapshot versions this kube-rdma reads (it writes the last). */
export const SNAPSHOT_VERSIONS: readonly number[] = [1, 2];

/** Why a parsed JSON value is not a Snapshot this kube-rdma reads; each caller words it for its source. */
export type SnapshotDefect =
  | { defect: "kind"; kind: unknown }
  | { defect: "version"; version: unknown }
  | { defect: "table"; message: string };

/** The first defect of `value` as a Snapshot (kind, version, then every table a reader touches), or null. Pure. */
export function snapshotDefect(value: unknown): SnapshotDefect | null {
  const s = value as Partial<Snapshot> | null;
  if (typeof s !== "object" || s === null || s.kind !== "kube-rdma/snapshot") return { defect: "kind", kind: s?.kind };
  if (!SNAPSHOT_VERSIONS.includes(s.schemaVersion as number)) return { defect: "version", version: s.schemaVersion };
  for (const k of ["files", "dirs", "links", "errors", "fsSizes", "commands"] as const) {
    if (typeof s[k] !== "object" || s[k] === null) {
      return { defect: "table", message: `the "${k}" table is missing or not an object` };
    }
  }
  if (s.fileRuns !== undefined && !Array.isArray(s.fileRuns)) {
    return { defect: "table", message: `"fileRuns" is not a list` };
  }
  if (s.dirRuns !== undefined && (typeof s.dirRuns !== "object" || s.dirRuns === null)) {
    return { defect: "table", message: `"dirRuns" is not an object` };
  }
  return null;
}

/**
 * Reads everything the node model needs through a recording reader and returns it as a versioned Snapshot:
 * `--snapshot FILE` then gives the same inventory (and findings) on any machine.
 */
export async function collectSnapshot(
  reader: HostReader,
  opts: { root?: string; now?: () => Date } = {},
): Promise<Snapshot> {
  const { readFacts } = await import("../inventory/read.js");
  const rec = new RecordingHostReader(reader);
  const facts = await readFacts(rec);
  const host = facts.hostname.ok ? facts.hostname.value.trim() : "unknown";
  return {
    kind: "kube-rdma/snapshot",
    schemaVersion: 2,
    host,
    collectedAt: (opts.now?.() ?? new Date()).toISOString(),
    tool: `kube-rdma ${VERSION}`,
    root: opts.root ?? "/",
    ...rec.record,
    // Empty GID slots as runs: a third of the size, parsed ~5× faster by `fleet` (10,000 nodes at a time).
    ...compactFileRuns(rec.record.files),
    ...compactDirRuns(rec.record.dirs),
  };
}
