import type { Finding } from "../core/finding.js";
import type { Problem } from "../core/result.js";
import type { NodeInventory } from "../inventory/types.js";

/** The kinds `analyze` recognises (design.md contract; extend, never rename). */
export type AnalyzeKindName =
  | "show_gids"
  | "ofed_info"
  | "nvidia_smi"
  | "nvidia_smi_xml"
  | "nvidia_smi_topo"
  | "ibv_devinfo"
  | "ibstat"
  | "ibdev2netdev"
  | "nccl_tests"
  | "nccl_log"
  | "mlnx_qos"
  | "ethtool_stats"
  | "perftest_bw"
  | "unknown";

export type AnalyzeOutcome = {
  data: unknown;
  findings: Finding[];
  problems: Problem[];
  /** One line for the text report ("9 devices, 36 GIDs; RoCE v2 IPv4 at index 3 on all"). */
  summary?: string;
  /**
   * Facts of this kind the input did not hold (an nvidia-smi paste cut after its header: `gpus`). The data holds what
   * was read; the entry is read in part, and `analyze` exits 2 for it as for an input not read at all.
   */
  unread?: string[];
};

export type AnalyzeContext = {
  /** A node model to judge against (from --example/--root/--snapshot), when given. */
  inventory?: NodeInventory;
  /** `--expect GBps` for nccl-tests. */
  expectGBps?: number;
  /** `--expect-gpus N` for nvidia-smi captures. */
  expectGpus?: number;
  /**
   * Evidence from another reading of the same input that a communicator completed its init: nccl-tests result rows
   * (each is a timed collective that ran). An NCCL log read beside them is judged with it.
   */
  communicatorRan?: CommunicatorEvidence;
  /** `--line-rate Gbps`: the NICs' port rate, for perftest bandwidth runs. */
  lineRateGbps?: number;
  /** Hosts a launcher's prefix named on the lines (pdsh's `host: `), removed before the parser read them. */
  launcherHosts?: string[];
  /**
   * The text is the inline quotes of a page's prose (`` `all_reduce_perf -g 1` ``), not whole lines: a command quoted so
   * shows no launcher even where one ran it.
   */
  inlineQuotes?: boolean;
};

/**
 * What proves a communicator completed its init, strongest first: NCCL's own `Init COMPLETE`, then measured rows, then
 * lines only a built communicator prints (`Destroyed comm`, `Destroy COMPLETE`, a work completion from the network).
 */
export type CommunicatorEvidence = "init_complete" | "nccl_tests_rows" | "runtime_lines";

/** A line-at-a-time analyser for inputs too large to hold (NCCL logs of many ranks). */
export type AnalyzeStream = {
  push(line: string): void;
  /** Raw text in chunks of any size (lines split by the stream): faster than push for big inputs. */
  write?(chunk: string): void;
  end(): AnalyzeOutcome;
};

/** One recognisable format. Registered in src/analyze/registry.ts. */
export type AnalyzerKind = {
  kind: Exclude<AnalyzeKindName, "unknown">;
  /** Confidence 0..1 that `head` (the first ~64 KiB of the input) is this format. */
  detect(head: string): number;
  analyze(text: string, ctx: AnalyzeContext): AnalyzeOutcome;
  /** Optional streaming path; used for inputs larger than a few MiB. */
  createStream?(ctx: AnalyzeContext): AnalyzeStream;
  /** A large file on disk, read by the analyser itself (e.g. in parallel parts); preferred over the stream. */
  analyzeFile?(path: string, ctx: AnalyzeContext): Promise<AnalyzeOutcome>;
  /** A large stream (standard input) as it arrives, undecoded, read by the analyser itself; preferred over the stream. */
  analyzeChunks?(chunks: AsyncIterable<Uint8Array | string>, ctx: AnalyzeContext): Promise<AnalyzeOutcome>;
};

/** One entry of `analyze -o json` (design.md contract). */
export type AnalyzeEntry = {
  file: string;
  kind: AnalyzeKindName;
  data: unknown;
  findings: Finding[];
  problems?: Problem[];
  /** Facts of the kind the input did not hold (see AnalyzeOutcome.unread): read in part, never a PASS. */
  unread?: string[];
  /** Per-line wrappers removed before parsing (Open MPI --tag-output, srun --label, pdsh/clush host:, kubectl --prefix/--timestamps, docker compose, syslog/journalctl, ts, torchrun, …: the names in src/core/line-prefixes.ts), with the ranks, tasks or hosts they named. Absent for a clean capture. */
  wrappers?: { removed: string[]; ranks?: number[]; tasks?: number[]; hosts?: string[] };
};
