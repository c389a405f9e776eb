/**
 * `fleet verify --from-snapshots DIR`: the fleet report from snapshots saved earlier (`--save-snapshots DIR` writes
 * DIR/NODE.json), without a cluster. Each file is analysed as a collector's log would be, then the fleet rules run
 * across them: the same report, JSON and exit codes as a live run, reproducible anywhere.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { exitCodeFor } from "../../core/finding.js";
import {
  type analyseInThread,
  analyseInThreadWith,
  buildFleetReport,
  type CollectOutcome,
  createAnalysisPool,
  defaultAnalysisThreads,
} from "../../kube/fleet/index.js";
import type { NodeAnalysis } from "../../kube/fleet/node-analyser.js";
import { FLEET_VERIFY_REPORT } from "../../report/kinds/fleet-verify.js";
import { renderReport } from "../../report/registry.js";
import { vmHostOf } from "../shared-options.js";
import { bool, type CommandContext, num, str, strs, UsageError } from "../spec.js";

/** A snapshot larger than this is not one `collect` writes (the schema's limit is 64 MiB). */
const MAX_SNAPSHOT_BYTES = 64 * 2 ** 20;

/** Options that need a cluster or a collector run: refused with --from-snapshots rather than silently ignored. */
const CLUSTER_ONLY = ["selector", "image", "max-age", "dry-run", "save-snapshots", "kubeconfig", "context"] as const;

/** The snapshot files of DIR (`NODE.json`, as --save-snapshots names them), node name → path, in name order. */
async function snapshotFiles(dir: string, cwd: string): Promise<Map<string, string>> {
  const path = resolve(cwd, dir);
  const names = await readdir(path).catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(
      `--from-snapshots ${dir}: cannot read the directory (${err.code ?? err.message}).`,
      "Name the directory `kube-rdma fleet verify --save-snapshots DIR` wrote (one NODE.json per node).",
    );
  });
  const files = names.filter((n) => n.endsWith(".json") && n.length > ".json".length).sort();
  if (files.length === 0) {
    throw new UsageError(
      `--from-snapshots ${dir}: no NODE.json snapshot in the directory.`,
      "Save snapshots with `kube-rdma fleet verify --save-snapshots DIR`, or one node's with `kube-rdma collect -o DIR/NODE.json`.",
    );
  }
  return new Map(files.map((f) => [f.slice(0, -".json".length), join(path, f)]));
}

/** One file as a collector's log: its analysis, or why not (unreadable, too large, not a snapshot). */
async function analyseFile(
  node: string,
  path: string,
  handle: (log: string, node: string) => ReturnType<typeof analyseInThread>,
): Promise<CollectOutcome<NodeAnalysis>> {
  const size = await stat(path).then(
    (s) => (s.isFile() ? s.size : -1),
    () => -1,
  );
  if (size < 0) return { node, ok: false, reason: `${path} is not a readable file`, pod: null };
  if (size > MAX_SNAPSHOT_BYTES) {
    return { node, ok: false, reason: `${path} is ${size} bytes, larger than any snapshot (64 MiB)`, pod: null };
  }
  const text = await readFile(path, "utf8").catch(() => null);
  if (text === null) return { node, ok: false, reason: `${path} could not be read`, pod: null };
  const o = await handle(text, node);
  if (o.ok) return { node, ok: true, result: o.value, pod: "" };
  return { node, ok: false, reason: o.reason, pod: null, ...(o.invalidAt ? { invalidAt: o.invalidAt } : {}) };
}

export async function fleetFromSnapshots({ values, io }: Pick<CommandContext, "values" | "io">): Promise<number> {
  const dir = str(values, "from-snapshots") ?? "";
  for (const name of CLUSTER_ONLY) {
    if (values[name] !== undefined && values[name] !== false) {
      throw new UsageError(
        `--from-snapshots reads saved snapshots without a cluster; --${name} has no meaning with it.`,
        "Drop it, or run `kube-rdma fleet verify` against the cluster instead.",
      );
    }
  }
  const files = await snapshotFiles(dir, io.cwd);
  const wanted = [...new Set(strs(values, "node"))];
  const missing = wanted.filter((n) => !files.has(n));
  if (missing.length) {
    throw new UsageError(
      `--from-snapshots ${dir} has no snapshot of ${missing.join(", ")} (expected ${missing.map((n) => `${n}.json`).join(", ")}).`,
      `It holds: ${[...files.keys()].join(", ")}.`,
    );
  }
  const nodes = wanted.length ? wanted : [...files.keys()];
  const threads = num(values, "analysis-threads") ?? defaultAnalysisThreads(nodes.length);
  const checkOptions = vmHostOf(values);
  const pool = threads > 0 ? createAnalysisPool(threads, undefined, checkOptions) : null;
  let outcomes: CollectOutcome<NodeAnalysis>[];
  try {
    const handle = pool?.handle ?? analyseInThreadWith(checkOptions);
    outcomes = await Promise.all(nodes.map((n) => analyseFile(n, files.get(n)!, handle)));
  } finally {
    await pool?.close();
  }
  const strict = bool(values, "strict");
  const addressing = str(values, "rail-addressing");
  const report = buildFleetReport(outcomes, strict, addressing === "l2" || addressing === "routed" ? addressing : null);
  const result = {
    report,
    strict,
    context: "",
    run: {
      id: "",
      namespace: "",
      image: "",
      podsDeleted: 0,
      podsLeft: [],
      interrupted: false,
      collected: outcomes.length,
      fromSnapshots: resolve(io.cwd, dir),
    },
  };
  io.stdout(await renderReport(FLEET_VERIFY_REPORT, result, str(values, "output") ?? "text"));
  return exitCodeFor(report.findings, strict);
}
