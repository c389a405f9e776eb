import type { AnalyzeKindName, AnalyzerKind } from "./types.js";

/** Bytes of an input that detection looks at. */
export const DETECT_HEAD_BYTES = 64 * 1024;
/** Below this score an input is `unknown`. */
export const DETECT_THRESHOLD = 0.5;

export type Detection = {
  kind: AnalyzeKindName;
  analyzer: AnalyzerKind | null;
  score: number;
  /** Every registered kind's score, for `--explain`-style messages and tests. */
  scores: Partial<Record<AnalyzeKindName, number>>;
};

/** Scores every registered kind on `head` and picks the best one over the threshold; `unknown` otherwise. */
export function detectKind(head: string, analyzers: readonly AnalyzerKind[]): Detection {
  const text = head.length > DETECT_HEAD_BYTES ? head.slice(0, DETECT_HEAD_BYTES) : head;
  const scores: Detection["scores"] = {};
  let best: AnalyzerKind | null = null;
  let bestScore = 0;
  for (const a of analyzers) {
    const raw = a.detect(text);
    const score = Number.isFinite(raw) ? Math.min(1, Math.max(0, raw)) : 0;
    scores[a.kind] = score;
    if (score > bestScore) {
      best = a;
      bestScore = score;
    }
  }
  if (!best || bestScore < DETECT_THRESHOLD) return { kind: "unknown", analyzer: null, score: bestScore, scores };
  return { kind: best.kind, analyzer: best, score: bestScore, scores };
}

/** How to capture each format, for the message an unknown input gets. */
export const CAPTURE_HINTS: Record<Exclude<AnalyzeKindName, "unknown">, string> = {
  show_gids: "show_gids > gids.txt   (or: kube-rdma gids > gids.txt)",
  ofed_info: "ofed_info -s > ofed.txt",
  nvidia_smi: "nvidia-smi > nvidia-smi.txt",
  nvidia_smi_xml: "nvidia-smi -q -x > nvidia-smi.xml",
  nvidia_smi_topo: "nvidia-smi topo -m > topo.txt",
  ibv_devinfo: "ibv_devinfo -v > devinfo.txt",
  ibstat: "ibstat > ibstat.txt   (ibstatus works too)",
  ibdev2netdev: "ibdev2netdev -v > ibdev2netdev.txt",
  nccl_tests: "all_reduce_perf -b 8 -e 8G -f 2 -g 1 2>&1 | tee allreduce.txt",
  nccl_log: "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH <your job> 2>&1 | tee nccl.log",
  mlnx_qos: "mlnx_qos -i eth1 > qos-eth1.txt",
  ethtool_stats: "ethtool -S eth1 > stats-eth1.txt",
  perftest_bw: "ib_write_bw -d mlx5_1 -x 3 --report_gbits -s 1048576 PEER_IP > write-bw-mlx5_1.txt",
};

/** How to capture each kind, one line each (`analyze --help`). */
export function captureHintLines(): string[] {
  return Object.entries(CAPTURE_HINTS).map(([k, how]) => `  ${k.padEnd(16)} ${how}`);
}

/** The message for an input no format recognised: the kinds known, and where to see how to capture each. */
export function unknownKindMessage(analyzers: readonly AnalyzerKind[]): { message: string; hint: string } {
  const kinds = analyzers.map((a) => a.kind);
  return {
    message: `Not a format kube-rdma recognises (known: ${kinds.join(", ")}).`,
    // One line: text reports keep every value on one line (lineSafe); the list lives in `analyze --help`.
    hint: "Capture one of them as `kube-rdma analyze --help` shows (one command per kind), or force a kind with --kind K.",
  };
}
