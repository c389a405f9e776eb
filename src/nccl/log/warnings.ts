import { causeOf } from "./causes.js";
import { hostOf, indexInLine, intAfter, processKey } from "./line.js";
import { type LogState, MAX_KEYS, MAX_SAMPLES } from "./state.js";

/** `transport/net_ib.cc:95 NCCL WARN`, `misc/ibvwrap.cc:190 NCCL WARN Call to ibv_modify_qp failed`, `NET/IB : Got async event`. */
const IB_ACTIVITY = /\bnet_ib\.cc:|\bibvwrap\.cc?:|\bNCCL WARN NET\/IB\b|\bCall to ibv_\w+ failed/;

/** The sources of the transports NCCL sets up inside a node during init (src/transport/shm.cc, p2p.cc, include/shm.h). */
const TRANSPORT_SETUP = /(?:^|[\s/])(?:shm\.h|shm\.cc|shmutils\.cc|p2p\.cc|transport\.cc):\d+ (?:NCCL )?WARN\b/;

/** A WARN record of line `s[start, end)`: its host's record starts at `p`, its message at `msg`. */
export function warnRecord(st: LogState, s: string, start: number, p: number, msg: number, end: number): void {
  const sp = indexInLine(s, " ", p, end);
  const key = processKey(s, p, sp < 0 ? end : sp, end);
  // A WARN raised where the transports inside a node are set up (shared memory, P2P) before any Init COMPLETE: the
  // communicator's init failed there (`include/shm.h:42 NCCL WARN Cuda failure 'invalid argument'` after the rings'
  // lines, shape seen at https://github.com/pytorch/pytorch/issues/23534).
  if (st.initComplete === 0 && TRANSPORT_SETUP.test(s.slice(p, msg))) st.initChainFailed++;
  // A return chain through init.cc printed as a WARN (a fork that raises its chains' level, `[host][pid:tid][0]
  // [init.cc:1815] NCCL WARN init.cc:1815 -> 5`, shape seen at https://github.com/OpenRLHF/OpenRLHF/issues/795):
  // NCCL's own INFO chain through init.cc, the same failure of the communicator's init.
  else if (st.initComplete === 0 && INIT_CHAIN_WARN.test(s.slice(msg, Math.min(end, msg + 80)))) st.initChainFailed++;
  // A WARN from the IB transport or the verbs wrapper: NCCL was using (or opening) IB devices.
  if (IB_ACTIVITY.test(s.slice(p, end))) st.ibWarnings++;
  else if (indexInLine(s, "net_socket.c", p, msg) >= 0) st.socketTransport++;
  // A failed work completion (`NET/IB : Got completion from peer … with error 12`, net_ib.cc) comes from a transfer
  // a collective posted: the communicator had been built and was running.
  if (indexInLine(s, "Got completion ", msg, end) >= 0) {
    st.commRan++;
    completionHca(st, s.slice(msg, end));
  }
  // The bootstrap root's `mismatch in info from procs, nranks %d vs %d, …` (src/bootstrap.cc, the root's own count
  // first): the size of the communicator being built.
  if (s.startsWith(ROOT_MISMATCH, msg)) {
    const nr = intAfter(s, " nranks ", msg, end);
    if (nr > st.nranks) st.nranks = nr;
  }
  addWarning(st, s.slice(msg, end), hostOf(key), s.slice(start, end));
}

const ROOT_MISMATCH = "Bootstrap Root : mismatch in info from procs, nranks ";

/** A WARN whose message is a return chain through init.cc with a non-zero result (`init.cc:2103 -> 3`). */
const INIT_CHAIN_WARN = /^(?:\S*\/)?init\.cc?:\d+ -> [1-9]/;

/**
 * XLA's report of a failed communicator init: `NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: …`
 * (https://github.com/openxla/xla/pull/7201; shape in https://github.com/jax-ml/jax/issues/4950).
 */
const INIT_CALL_FAILED = /\bNCCL operation ncclCommInit\w*\(.*\) failed: /;

/** NCCL's IB transport quoted by an application (`Last error: NET/IB : Got completion from peer … with error 12`). */
const QUOTED_IB = /\bNET\/IB ?: Got (?:completion|async event)\b/;

/**
 * An application's report that an NCCL call failed: the whole line is the warning. When it quotes NCCL's last WARN
 * (PyTorch's `ncclRemoteError … Last error: NET/IB : Got completion …`, https://github.com/tatsu-lab/stanford_alpaca/issues/207)
 * that WARN is the same evidence as on its own line: IB was in use, and a failed completion means the communicator ran.
 */
export function failureLine(st: LogState, s: string, start: number, end: number): void {
  const text = s.slice(start, end).trim();
  if (QUOTED_IB.test(text)) st.ibWarnings++;
  // The report names the init call that failed: before any Init COMPLETE, the communicator was never built.
  if (st.initComplete === 0 && INIT_CALL_FAILED.test(text)) st.initChainFailed++;
  if (text.includes("Got completion ")) {
    st.commRan++;
    completionHca(st, text);
  }
  addWarning(st, text, "");
}

/**
 * The HCA of a failed work completion: since NCCL 2.22 the WARN ends `… (Send) localGid … remoteGids… hca mlx5_14`
 * (`"NET/IB: Got completion from peer %s with status=%d … %s%s%s%s hca %s"`, src/transport/net_ib.cc at v2.22.3-1,
 * src/transport/net_ib/p2p.cc at v2.29.7-1, in https://github.com/NVIDIA/nccl): the device the failed transfer used.
 */
function completionHca(st: LogState, text: string): void {
  const m = /\bGot completion from peer .*? hca ([A-Za-z0-9][\w.-]*)/.exec(text);
  if (m && st.warnHcas.size < MAX_KEYS) st.warnHcas.add(m[1]!);
}

/** Counts a warning under its cause, with a sample and the host it came from. */
export function addWarning(st: LogState, text: string, host: string, sample = text): void {
  const cause = causeOf(text, sample);
  let agg = st.warnings.get(cause.id);
  if (!agg) {
    agg = {
      id: cause.id,
      severity: cause.severity,
      cause: cause.cause,
      fix: cause.fix,
      followOn: cause.followOn === true,
      count: 0,
      samples: [],
      hosts: new Set(),
    };
    st.warnings.set(cause.id, agg);
  }
  agg.count++;
  if (cause.ran === true) st.commRan++;
  if (st.initComplete === 0 && cause.severity === "error" && cause.followOn !== true && cause.fallsBack !== true) {
    st.errorsBeforeInit++;
  }
  if (agg.samples.length < MAX_SAMPLES) agg.samples.push(sample.length > 400 ? `${sample.slice(0, 400)}…` : sample);
  if (host && agg.hosts.size < 64) agg.hosts.add(host);
}
