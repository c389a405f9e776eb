import { kubectlPrefixAt } from "../../core/line-prefixes.js";
import { composeServiceAt, grepPrefixAt } from "../../core/service-prefixes.js";
import { intAfter } from "./line.js";
import { bump, type LogState, setCapped } from "./state.js";
import { addWarning } from "./warnings.js";

/** The facts of single INFO messages that need no memory of the lines before: versions, settings, sizes. */

const TIME_STAMP = /\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d/;
// ANSI colour and cursor sequences (ECMA-48 CSI).
const COLOUR = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * The NCCL version of `NCCL version …` at `at` (or `given`), for the process its line's prefix `key` names (a time
 * stamp, a bar or a container names none: each such banner counts on its own).
 */
export function noteVersion(st: LogState, s: string, at: number, end: number, key: string, given?: string): void {
  // A fork's banner adds its own name and version after NCCL's (`NCCL version 2.12.12.MSCCL.0.7.3+cuda11.7`): the
  // NCCL version is the first three numbers, what every version rule compares.
  const v = given ?? /^NCCL version (\d+\.\d+\.\d+)/.exec(s.slice(at, end))?.[1];
  if (v === undefined) return;
  // A launcher's tag (`[1,0]<stdout>:`, `0: `) names the process; a time stamp does not.
  const raw = key.replace(COLOUR, "").trim();
  // grep -H's file name names a file, not a process: what follows it may.
  const file = grepPrefixAt(raw, 0, raw.length);
  const tag = file > 0 ? raw.slice(file).trim() : raw;
  // A prefix with no letter or digit (C comment stars, a bar) names no process either, nor does kubectl's
  // `[pod/NAME/CONTAINER]` (one container runs several processes).
  // docker compose's `service-1  |` names a container, not a process.
  const anonymous =
    TIME_STAMP.test(tag) ||
    !/[A-Za-z0-9]/.test(tag) ||
    kubectlPrefixAt(tag, 0, tag.length) >= 0 ||
    composeServiceAt(tag, 0, tag.length) >= 0;
  const k = (anonymous ? "" : tag) || `unattributed#${st.unattributed++}`;
  setCapped(st.versionOf, k, v);
}

/** `NCCL_IB_HCA set by environment to mlx5_0`: the setting, first value kept. */
export function envLine(st: LogState, s: string, msg: number, end: number): void {
  const m = /^(NCCL_\w+) set (?:by environment )?to (.*)$/.exec(s.slice(msg, end));
  if (m && !st.env.has(m[1]!)) setCapped(st.env, m[1]!, m[2]!.trim().replace(/\.$/, ""));
  // RDMA turned off by the job itself: the socket verdict gets its cause.
  if (m && m[1] === "NCCL_IB_DISABLE" && /^1\b/.test(m[2]!.trim())) addWarning(st, s.slice(msg, end), "");
}

/** `comm 0x… rank 3 nRanks 16 nNodes 2 localRanks 8 …`: the communicator's size. */
export function commSummary(st: LogState, s: string, msg: number, end: number): void {
  if (s.startsWith("Destroy COMPLETE", end - 16)) st.commRan++;
  const nn = intAfter(s, " nNodes ", msg, end);
  if (nn > st.nNodes) st.nNodes = nn;
  const lr = intAfter(s, " localRanks ", msg, end);
  if (lr > st.localRanks) st.localRanks = lr;
  // NCCL < 2.9 printed `comm 0x… rank 1 nranks 4` (no nRanks) when the communicator was made.
  let nr = intAfter(s, " nRanks ", msg, end);
  if (nr < 0) nr = intAfter(s, " nranks ", msg, end);
  if (nr > st.nranks) st.nranks = nr;
}

/** `… rank 3 nranks 16 … - Init COMPLETE`: a rank whose communicator was built. */
export function initComplete(st: LogState, s: string, msg: number, end: number): void {
  st.initComplete++;
  // A line cut to its ranks starts with `rank` (bare-messages.ts).
  const rank = s.startsWith("rank ", msg) ? intAfter(s, "rank ", msg, end) : intAfter(s, " rank ", msg - 1, end);
  const nranks = intAfter(s, " nranks ", msg, end);
  if (rank < 0 || nranks < 0) return;
  if (nranks > st.nranks) st.nranks = nranks;
  if (st.completedRanks.size < 1 << 20) st.completedRanks.add(rank);
}

/**
 * NCCL 2.4's `CUDA Dev 2[6], IB NIC distance :  SOC`: the distances from the GPU to the NICs of the network in use,
 * named by ncclNetName() (`"CUDA Dev %d[%d], %s NIC distance : "`, src/transport/net.cc at v2.4.8-1 in
 * https://github.com/NVIDIA/nccl): the network NCCL chose, as `Using network` names it in later versions.
 */
export function nicDistance(st: LogState, s: string, msg: number, end: number): void {
  const m = /^CUDA Dev \d+\[\d+\], ([A-Za-z][\w ./-]*?) NIC distance :/.exec(s.slice(msg, end));
  if (m) bump(st.distanceNets, m[1]!);
}
