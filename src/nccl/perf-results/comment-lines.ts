import type { PerfRun } from "./types.js";

/**
 * nccl-tests' own `#` lines (src/common.cu of https://github.com/NVIDIA/nccl-tests; rccl-tests' in ROCm/rccl-tests),
 * read as data: the banner's parts, a rank's line, the column header, the footers. Pure: the parser applies them.
 */
export type CommentLine =
  | { kind: "version"; version: string; body: string }
  | { kind: "program"; program: string; body: string }
  | { kind: "threads"; nThread: number | null; nGpus: number | null; validation: boolean | null; body: string }
  | { kind: "rank"; rank: PerfRun["ranks"][number] }
  | { kind: "columns"; columns: string[] }
  | { kind: "out_of_bounds"; count: number; ok: boolean }
  | { kind: "avg_busbw"; value: number | null }
  | { kind: "error"; text: string }
  /** A line of nccl-tests' own that states nothing read here (`# Using devices`, `#  (B)  (elements) …`). */
  | { kind: "known" };

const RANK_LINE =
  /^#?\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?(?:Pid\s+(\d+)\s+)?on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$/;
/** NCCL 1.x: `#   Rank  0 uses device  0 [0x04] Tesla K80` (one process, so no host). */
const OLD_RANK_LINE = /^#?\s*Rank\s+(\d+)\s+uses device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$/;
const KNOWN =
  /^(Using devices|Collective test concluded|\(B\)|out-of-place|Writing JSON|Blocking|Per-Iteration|Parallel Init|GPU memory usage|$)/;

/** What one `#` line of nccl-tests' says (`line` as printed, `#` and all), or null: not one of its lines. */
export function commentLine(line: string): CommentLine | null {
  const body = line.replace(/^#\s*/, "");
  // rccl-tests prints its own name (`rccl-tests version 2.18.3-HEAD:418cd5f rccl-headers=…`).
  const version = /^[nr]ccl-tests version (\S+)/.exec(body);
  if (version) return { kind: "version", version: version[1]!, body };
  const starting = /^Collective test starting: (\S+)/.exec(body);
  if (starting) return { kind: "program", program: starting[1]!, body };
  // `nThread 1 nGpus 8 …`; early rccl-tests printed `nThread: 1 nGpus: 8 …`, some `nThreads: 1 nGpus: 4 nRanks: 1 …`.
  if (body.startsWith("nThread ") || body.startsWith("nThread:") || body.startsWith("nThreads:")) {
    const t = /nThreads?:? (\d+) nGpus:? (\d+)/.exec(body);
    const v = /validation: (\d+)/.exec(body);
    return {
      kind: "threads",
      nThread: t ? Number(t[1]) : null,
      nGpus: t ? Number(t[2]) : null,
      validation: v ? v[1] !== "0" : null,
      body,
    };
  }
  const rank = RANK_LINE.exec(line);
  if (rank) {
    const [, r, pid, host, device, busId, gpu] = rank;
    return {
      kind: "rank",
      rank: {
        rank: Number(r),
        pid: pid === undefined ? null : Number(pid),
        host: host!,
        device: Number(device),
        busId: busId!,
        gpu: gpu!.trim(),
      },
    };
  }
  const old = OLD_RANK_LINE.exec(line);
  if (old) {
    const [, r, device, busId, gpu] = old;
    return {
      kind: "rank",
      rank: { rank: Number(r), pid: null, host: "", device: Number(device), busId: busId!, gpu: gpu!.trim() },
    };
  }
  if (/^(?:size\s+count|bytes\s+N)\s+type|^size\s+(?:count\s+)?time\s+algbw\s+busbw/.test(body))
    return { kind: "columns", columns: body.split(/\s+/) };
  const oob = /^Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)?/.exec(body);
  if (oob) return { kind: "out_of_bounds", count: Number(oob[1]), ok: oob[2] !== "FAILED" && oob[1] === "0" };
  const avg = /^Avg bus bandwidth\s*:\s*(\S+)/.exec(body);
  if (avg) {
    const v = Number(avg[1]);
    return { kind: "avg_busbw", value: Number.isFinite(v) ? v : null };
  }
  const error = /^error: (.*)$/.exec(body);
  if (error) return { kind: "error", text: error[1]! };
  return KNOWN.test(body.trim()) ? { kind: "known" } : null;
}

/**
 * Header and footer lines whose leading `#` Markdown ate (a pasted `# nThread …` renders as a heading). Gated by
 * the first letter so that the NCCL log lines of a run.log meet no regex here.
 */
const STRIPPED_FIRST = new Set([..."nrCURsOAo("]);
const STRIPPED =
  /^(?:nThreads?:? \d|[nr]ccl-tests version |Collective test starting:|Using devices|Rank\s+\d+\s.*\s(?:on\s+\S+\s+device|uses device)\s|size\s+count\s+type|bytes\s+N\s+type|Out of bounds values|Avg bus bandwidth|\(B\)|out-of-place)/;

/** A line of nccl-tests' own whose `#` was lost (read as `# line`). */
export function strippedHeader(line: string): boolean {
  return STRIPPED_FIRST.has(line[0]!) && STRIPPED.test(line);
}

/** A row's size and count, then more: what no `#` line of nccl-tests starts with (src/common.cu). */
const COMMENTED_ROW = /^\d+\s+\d+\s+\S/;

/** A `#` line's body (`#` cut) that is a row commented out with the rest of the output. */
export function commentedRow(body: string): boolean {
  return COMMENTED_ROW.test(body);
}
