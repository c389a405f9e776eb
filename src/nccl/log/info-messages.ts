import { commSummary } from "./info-facts.js";
import { indexInLine, intAfter, keep, processKey } from "./line.js";
import { enterNetPhase } from "./net-lines.js";
import { locatedWarnIn, splitPoint } from "./record.js";
import { bump, type LogState, MAX_SAMPLES, setCapped } from "./state.js";

/**
 * The INFO messages read for the facts they state alone, with no memory of the lines before and nothing of the
 * scanner's (hosts, channels): communicator sizes and builds, return chains, the network chosen, the bootstrap's
 * interface, GPU Direct RDMA switched off. `p` is where the record's prefix starts, `k` the space before `NCCL`, `msg`
 * where the message starts; the line ends at `lineEnd`.
 */
const ELIDED_COMM = /^comm (?:\.{3}|…) rank \d/;

export function infoMessage(st: LogState, s: string, p: number, k: number, msg: number, lineEnd: number): void {
  let end = lineEnd;
  const c = s.charCodeAt(msg);
  // `%s comm %p rank %d nranks %d cudaDev %d …- Init START` (src/init.cc), `%s` the API that made the communicator:
  // `ncclCommInitRank`, `ncclCommInitRankConfig`, `ncclCommSplit` (v2.18 on: `… parent %p color %d key %d`),
  // `ncclCommShrink`; also for a failed init.
  // From 2.28 the line starts with the rank: `[Rank %d] %s comm %p rank %d nranks %d … - Init START` (init.cc).
  if ((c === 110 /* n */ && s.startsWith("ncclComm", msg)) || (c === 91 /* [ */ && s.startsWith("[Rank ", msg))) {
    const nr = intAfter(s, " nranks ", msg, end);
    if (nr > st.nranks) st.nranks = nr;
    if (s.startsWith("Init START", end - 10)) st.initStarted++;
    return;
  }
  // `Init timings: rank 5 nranks 8 total 2.46 (kernels …)` (NCCL 2.22) and `Init timings - ncclCommInitRank: rank 5
  // nranks 8 total …` (2.23 on), src/init.cc of v2.22.3-1 and v2.23.4-1 (https://github.com/NVIDIA/nccl): the
  // communicator's size, when a paste kept only these lines.
  if (c === 73 /* I */ && s.startsWith("Init timings", msg)) {
    const nr = intAfter(s, " nranks ", msg, end);
    if (nr > st.nranks) st.nranks = nr;
    return;
  }
  // ncclRegister's `register comm %p buffer %p size %zi` (src/register/register.cc): a buffer registered with a
  // communicator the program holds (ncclCommRegister, or a collective's own registration): the communicator was built.
  if (c === 114 /* r */ && s.startsWith("register comm 0x", msg)) {
    st.commRan++;
    return;
  }
  // NCCL 2.3: `rank 0 nranks 4` once per rank.
  if (c === 114 /* r */ && s.startsWith("rank ", msg)) {
    const nr = intAfter(s, " nranks ", msg, end);
    if (nr > st.nranks) st.nranks = nr;
    return;
  }
  // The pointer may be elided in a page's quote (`comm ... rank 0 nRanks 2 nNodes 2`).
  if (c === 99 /* c */ && (s.startsWith("comm 0x", msg) || ELIDED_COMM.test(s.slice(msg, msg + 24)))) {
    commSummary(st, s, msg, end);
    return;
  }
  // A return chain from inside the socket transport (`transport/net_socket.cu:118 -> 2`): sockets carried the data.
  if (c === 116 /* t */ && s.startsWith("transport/net_socket.c", msg)) {
    if (indexInLine(s, " -> ", msg, end) > 0) st.socketTransport++;
    return;
  }
  // A return chain through init.cc (`init.cc:1303 -> 2`, include/checks.h) before any Init COMPLETE: the
  // communicator's init failed, even where no WARN was printed (or kept in the paste).
  if (c === 105 /* i */ && s.startsWith("init.c", msg)) {
    const arrow = indexInLine(s, " -> ", msg, end);
    if (arrow > 0 && arrow - msg < 20 && st.initComplete === 0 && !s.startsWith("0", arrow + 4)) st.initChainFailed++;
    return;
  }
  // A return chain through enqueue.cc (`enqueue.cc:2229 -> 1`): a collective's launch failed, on a communicator that
  // init had built (src/enqueue.cc, ncclEnqueueCheck, https://github.com/NVIDIA/nccl/blob/master/src/enqueue.cc).
  if (c === 101 /* e */ && s.startsWith("enqueue.c", msg)) {
    const arrow = indexInLine(s, " -> ", msg, end);
    if (arrow > 0 && arrow - msg < 22 && !s.startsWith("0", arrow + 4)) st.launchChainFailed++;
    return;
  }
  // A return chain out of the proxy's progress thread (`proxy.cc:874 -> 6 [Progress Thread]`: ncclProxyProgress prints
  // it as it stops, src/proxy.cc in https://github.com/NVIDIA/nccl): the thread that moves a built communicator's
  // network operations (connections are set up by the proxy's service thread), so the communicator ran.
  if (c === 112 /* p */ && s.startsWith("proxy.c", msg) && s.endsWith("[Progress Thread]", end)) {
    if (indexInLine(s, " -> ", msg, end) > 0) st.commRan++;
    return;
  }
  // ncclCommDestroy of NCCL < 2.13 (`Destroyed comm 0x… rank 4`): the communicator had been built.
  if (c === 68 /* D */ && s.startsWith("Destroyed comm ", msg)) {
    st.commRan++;
    return;
  }
  if (c === 85 /* U */ && (s.startsWith("Using network ", msg) || s.startsWith("Using internal Network ", msg))) {
    const key = processKey(s, p, k);
    // NCCL < 2.4 said `Using internal Network IB`.
    const n = s.charCodeAt(msg + 6) === 105 /* i */ ? msg + 23 : msg + 14;
    // A short line another rank wrote into (`Using network IBhost:12:34 [1] NCCL INFO …`): the value ends at its host.
    const marker = indexInLine(s, "] NCCL ", n, end);
    const glued = locatedWarnIn(s, n, marker >= 0 ? marker : end);
    if (glued >= 0 || marker >= 0) end = splitPoint(s, msg, glued >= 0 ? glued : marker, st.hosts, s.slice(p, k));
    const net =
      end - n === 2 && s.startsWith("IB", n)
        ? "IB"
        : end - n === 6 && s.startsWith("Socket", n)
          ? "Socket"
          : s.slice(n, end).trim();
    if (st.networkOf.get(key) !== net) {
      // The record's host is already among the hosts (noteHost): the key may hold a fork's bracket or nothing.
      setCapped(st.networkOf, keep(key), keep(net));
    }
    return;
  }
  // `Failed to initialize NET plugin Libfabric` (src/plugin/net.cc): the plugin NCCL loaded is not the network.
  if (c === 70 /* F */ && s.startsWith("Failed to initialize NET plugin ", msg)) {
    const name = s.slice(msg + 32, end).trim();
    if (name !== "") bump(st.failedPlugins, keep(name));
    return;
  }
  // `Initialized NET plugin Libfabric` (src/plugin/net.cc): its init found devices; NCCL assigns the first such.
  if (c === 73 /* I */ && s.startsWith("Initialized NET plugin ", msg)) {
    const name = s.slice(msg + 23, end).trim();
    if (name !== "") bump(st.initializedPlugins, keep(name));
    return;
  }
  // `Assigned NET plugin IB to comm` (src/plugin/net.cc in https://github.com/NVIDIA/nccl, recent releases): the name
  // of the network plugin the communicator was given, `ncclNet->name`, the same name `Using network` prints.
  if (c === 65 /* A */ && s.startsWith("Assigned NET plugin ", msg)) {
    const n = msg + 20;
    const to = indexInLine(s, " to comm", n, end);
    if (to > n) {
      const key = processKey(s, p, k);
      const net = s.slice(n, to);
      if (st.networkOf.get(key) !== net) setCapped(st.networkOf, keep(key), keep(net));
    }
    return;
  }
  // `bootstrapSplit: comm %p parent %p rank %d nranks %d color %d key %d prev %d next %d - DONE` (src/bootstrap.cc,
  // each rank of a communicator made by ncclCommSplit; a TRACE of NCCL_BOOTSTRAP in today's source, seen as INFO in
  // pasted logs): the new communicator's size.
  if (c === 98 /* b */ && s.startsWith("bootstrapSplit:", msg)) {
    const nr = intAfter(s, " nranks ", msg, end);
    if (nr > st.nranks) st.nranks = nr;
    return;
  }
  // `bootstrap.cc:77 -> 2`: the bootstrap (always over sockets) failed.
  if (c === 98 /* b */ && s.startsWith("bootstrap.cc:", msg)) {
    if (indexInLine(s, " -> ", msg, end) > 0) st.bootstrapFailed++;
    return;
  }
  if (c === 66 /* B */ && s.startsWith("Bootstrap", msg)) {
    const m = /Using (?:\[\d+\])?([^:\s]+):/.exec(s.slice(msg, end));
    if (m) bump(st.bootstrap, m[1]!);
    enterNetPhase(st, processKey(s, p, k));
    return;
  }
  // RCCL's `External network plugin /path/librccl-net-X.so is unsupported` (its plugin loader): the network's set-up.
  if (c === 69 /* E */ && s.startsWith("External network plugin ", msg)) {
    enterNetPhase(st, processKey(s, p, k));
    return;
  }
  if (c === 71 /* G */ && s.startsWith("GPU Direct RDMA Disabled", msg)) {
    st.gdrDisabled++;
    if (st.gdrDisabledSamples.length < MAX_SAMPLES) st.gdrDisabledSamples.push(s.slice(msg, end));
  }
}

/** A collective's trace line (`Broadcast: opCount 7 … [nranks=8] …`): its communicator's rank count. */
export function collTrace(st: LogState, s: string, msg: number, end: number): boolean {
  let i = msg;
  while (i < end && i - msg < 24 && s.charCodeAt(i) !== 58 /* : */) i++;
  if (!s.startsWith(": opCount ", i)) return false;
  const nr = intAfter(s, "[nranks=", i, end);
  if (nr > st.nranks) st.nranks = nr;
  return true;
}
