import { fail, ok, type ParseResult, problem } from "../../core/result.js";
import { SNAPSHOT_VERSIONS_TEXT, snapshotDefect } from "../../host/snapshot.js";
import type { Snapshot } from "../../host/types.js";

/** The snapshot a collector pod printed (`kube-rdma collect -o -`), from its log. Pure. */
export function parseSnapshotLog(text: string, node: string): ParseResult<Snapshot> {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) {
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
  let value: unknown;
  try {
    // The usual log is exactly the JSON: parse it without copying 300+ KB.
    value = JSON.parse(start === 0 && end >= text.trimEnd().length - 1 ? text : text.slice(start, end + 1));
  } catch (err) {
    return fail(problem("fleet.bad_snapshot", `the snapshot from ${node} is not valid JSON: ${String(err)}.`));
  }
  const bad = snapshotDefect(value);
  if (bad?.defect === "version") {
    return fail(
      problem(
        "fleet.bad_snapshot",
        `the collector on ${node} wrote snapshot schemaVersion ${String(bad.version)}; this kube-rdma reads ${SNAPSHOT_VERSIONS_TEXT}.`,
        { hint: "Run fleet verify with a collector image (--image) of the same kube-rdma version as this command." },
      ),
    );
  }
  if (bad?.defect === "kind") {
    return fail(
      problem(
        "fleet.bad_snapshot",
        `the log of ${node}'s collector is JSON but not a kube-rdma snapshot (kind ${String(bad.kind)}).`,
      ),
    );
  }
  if (bad) return fail(problem("fleet.bad_snapshot", `the snapshot from ${node} is damaged: ${bad.message}.`));
  return ok(value as Snapshot);
}
