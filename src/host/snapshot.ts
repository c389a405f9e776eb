import { VERSION } from "../cli/version.js";
import { type FileGroups, groupFiles, ungroupFiles } from "./file-groups.js";
import { compactDirRuns, compactFileRuns, type DirRuns, expandDirRuns, expandFileRuns } from "./file-runs.js";
import { RecordingHostReader } from "./recording-reader.js";
import { snapshotSchemaProblems } from "./snapshot-schema.js";
import type { HostReader, Snapshot } from "./types.js";

/** Snapshot versions this kube-rdma reads (it writes the last). */
export const SNAPSHOT_VERSIONS: readonly number[] = [1, 2, 3];
/** The versions as a sentence says them: "1, 2 and 3". */
export const SNAPSHOT_VERSIONS_TEXT = `${SNAPSHOT_VERSIONS.slice(0, -1).join(", ")} and ${SNAPSHOT_VERSIONS.at(-1)}`;

/** Why a parsed JSON value is not a Snapshot this kube-rdma reads; each caller words it for its source. */
export type SnapshotDefect =
  | { defect: "kind"; kind: unknown }
  | { defect: "version"; version: unknown }
  | { defect: "invalid"; path: string; message: string };

/**
 * The first defect of `value` as a Snapshot (kind, version, then the first value the schema refuses, with its JSON
 * path), or null. Pure.
 */
export function snapshotDefect(value: unknown): SnapshotDefect | null {
  const s = value as Partial<Snapshot> | null;
  if (typeof s !== "object" || s === null || Array.isArray(s) || s.kind !== "kube-rdma/snapshot") {
    return { defect: "kind", kind: s?.kind };
  }
  if (!SNAPSHOT_VERSIONS.includes(s.schemaVersion as number)) return { defect: "version", version: s.schemaVersion };
  const [first] = snapshotSchemaProblems(value);
  return first ? { defect: "invalid", path: first.path, message: `${first.path}: ${first.message}` } : null;
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
  // Empty GID slots as runs (a third of the size), the other files grouped by directory (half the parse time):
  // `fleet` reads 10,000 of these at a time.
  const { files, fileRuns } = compactFileRuns(rec.record.files);
  const fileGroups = groupFiles(files);
  const { dirs, dirRuns } = compactDirRuns(rec.record.dirs);
  return {
    kind: "kube-rdma/snapshot",
    schemaVersion: 3,
    host,
    collectedAt: (opts.now?.() ?? new Date()).toISOString(),
    tool: `kube-rdma ${VERSION}`,
    root: opts.root ?? "/",
    ...rec.record,
    files: {},
    fileGroups,
    fileRuns,
    ...listingsOfGroups(dirs, fileGroups, dirRuns),
    dirRuns,
  };
}

/**
 * The snapshot in version 1's shape: every file in `files` under its path, every listing whole (runs and groups
 * written out). For tools that walk the tables (materialize) and for tests. Pure.
 */
export function expandSnapshot(snap: Snapshot): Snapshot {
  const { fileGroups, fileRuns, dirRuns, groupListings, ...rest } = snap;
  const dirs = { ...snap.dirs };
  for (const dir of groupListings ?? []) dirs[dir] ??= Object.keys(fileGroups?.[dir] ?? {});
  return {
    ...rest,
    schemaVersion: 1,
    files: expandFileRuns(ungroupFiles(snap.files, fileGroups), fileRuns),
    dirs: expandDirRuns(dirs, dirRuns),
  };
}

/**
 * Listings that hold exactly the names of their directory's file group move to `groupListings` (their names are
 * then stored once, as the group's keys). Pure.
 */
function listingsOfGroups(
  dirs: Record<string, string[]>,
  groups: FileGroups,
  runs: DirRuns,
): { dirs: Record<string, string[]>; groupListings: string[] } {
  const kept: Record<string, string[]> = {};
  const groupListings: string[] = [];
  for (const [dir, names] of Object.entries(dirs)) {
    const group = Object.hasOwn(groups, dir) ? groups[dir]! : undefined;
    const same = group !== undefined && !Object.hasOwn(runs, dir) && sameNames(names, Object.keys(group));
    if (same) groupListings.push(dir);
    else kept[dir] = names;
  }
  return { dirs: kept, groupListings };
}

/** Same names in the same order (a group's keys keep the order its files were read in: the listing's). */
function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((n, i) => n === b[i]);
}
