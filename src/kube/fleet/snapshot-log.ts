import { fail, ok, type ParseResult, problem } from "../../core/result.js";
import { SNAPSHOT_VERSIONS_TEXT, snapshotDefect } from "../../host/snapshot.js";
import { MAX_SNAPSHOT_BYTES } from "../../host/snapshot-schema.js";

/** The problem code of a snapshot that arrived but cannot be read (not JSON, wrong kind or version, a bad value). */
export const SNAPSHOT_INVALID_PROBLEM = "snapshot.invalid";

import type { Snapshot } from "../../host/types.js";

/** The snapshot a collector pod printed (`kube-rdma collect -o -`), from its log. Pure. */
export function parseSnapshotLog(text: string, node: string): ParseResult<Snapshot> {
  if (text.length > MAX_SNAPSHOT_BYTES) {
    return invalid("$", `${text.length} characters of log, more than a snapshot can be (${MAX_SNAPSHOT_BYTES})`);
  }
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0) {
    return fail(
      problem(
        "fleet.no_snapshot",
        `the collector pod on ${node} printed no snapshot JSON (${text.length} bytes of log).`,
        {
          hint: `Read the pod's log; the collector image must contain kube-rdma (${text.trim().split("\n").slice(-1)[0]?.slice(0, 160) ?? ""}).`,
        },
      ),
    );
  }
  if (end < start) return invalid("$", "not JSON (the snapshot ends before its closing brace: truncated?)");
  let value: unknown;
  try {
    // The usual log is exactly the JSON: parse it without copying 300+ KB.
    value = JSON.parse(start === 0 && end >= text.trimEnd().length - 1 ? text : text.slice(start, end + 1));
  } catch (err) {
    if (!text.trimEnd().endsWith("}")) {
      // The log stops inside the snapshot (an inner brace was the last one): the collector was killed mid-write or
      // its log was cut, which says more than the parser's "Expected ',' at position 150".
      return invalid(
        "$",
        `the log ends mid-snapshot after ${text.length} bytes (the collector was killed while writing, or its log was cut)`,
      );
    }
    return invalid("$", `not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const bad = snapshotDefect(value);
  if (bad?.defect === "version") {
    return invalid(
      "$.schemaVersion",
      `schemaVersion ${String(bad.version)}; this kube-rdma reads ${SNAPSHOT_VERSIONS_TEXT} (run fleet verify with a collector image of the same version)`,
    );
  }
  if (bad?.defect === "kind") {
    return invalid("$.kind", `JSON but not a kube-rdma snapshot (kind ${JSON.stringify(bad.kind) ?? "missing"})`);
  }
  if (bad) return invalid(bad.path, bad.message.slice(bad.path.length + 2));
  return ok(value as Snapshot);
}

/** A snapshot that arrived damaged: `path` is the JSON path of the bad value (`$` for the whole log). */
function invalid(path: string, message: string): ParseResult<Snapshot> {
  return fail(problem(SNAPSHOT_INVALID_PROBLEM, `${path}: ${message}`, { path }));
}
