import type { Severity } from "../../core/finding.js";

/** Aggregates of one NCCL log; bounded whatever the input size (counts, capped maps, a few samples per kind). */

export const MAX_SAMPLES = 3;
export const MAX_KEYS = 4096;

/** An RDMA or socket device of the log; `port` 0 and `linkLayer` null where the line that named it does not say. */
export type LogDevice = { name: string; port: number; linkLayer: "IB" | "RoCE" | "Socket" | null };
/** A device as the scanner keeps it: with NCCL's own index of it (`[N]` in its list), when a line gave one. */
export type IndexedDevice = LogDevice & { index?: number };

export type WarnAggregate = {
  id: string;
  severity: Severity;
  cause: string;
  fix: string;
  followOn: boolean;
  count: number;
  samples: string[];
  hosts: Set<string>;
};

export type Connections = {
  net: number;
  netGdr: number;
  /** Of `net`, the `[receive]` channel lines, and those of them with /GDRDMA (GPU memory registered for RDMA). */
  netRecv: number;
  netRecvGdr: number;
  p2p: number;
  shm: number;
  socket: number;
  other: number;
};

export class LogState {
  lines = 0;
  ncclLines = 0;
  binaryLines = 0;
  cutLine: string | null = null;
  /** Process key (`host:pid`, or a launcher tag for bare lines) → NCCL version. */
  readonly versionOf = new Map<string, string>();
  readonly networkOf = new Map<string, string>();
  /** Network → NCCL 2.4 `CUDA Dev 0[0], IB NIC distance : …` lines that named it. */
  readonly distanceNets = new Map<string, number>();
  /** Distinct device lists (`mlx5_1:1,mlx5_2:1`, `socket:eth0`) → lines that printed them. */
  readonly deviceLists = new Map<string, number>();
  readonly hosts = new Set<string>();
  /** The hosts are a launcher's (`host: ` before records that kept none of their own), added when the log ended. */
  launcherHosts = false;
  /** Hosts of records that showed `host:pid` alone (hosts.ts, pidOnly): counted only where `hosts` is empty. */
  readonly pidOnlyHosts = new Set<string>();
  /** Host → the `pid:tid` of the first record that named it (a host name cut at the start of a paste is told by it). */
  readonly hostFirstProcess = new Map<string, string>();
  readonly devices = new Map<string, IndexedDevice>();
  /** HCAs named by a failed completion's WARN (`… hca mlx5_14`, NCCL ≥ 2.22): weaker than the lists above. */
  readonly warnHcas = new Set<string>();
  /** `host\tmlx5_4:1` → the speed NCCL found for that port, in Mb/s (`NET/IB: [3] mlx5_4:uverbs4:1/RoCE … speed=200000`). */
  readonly nicSpeeds = new Map<string, number>();
  readonly oob = new Map<string, number>();
  readonly bootstrap = new Map<string, number>();
  readonly env = new Map<string, string>();
  readonly conn: Connections = { net: 0, netGdr: 0, netRecv: 0, netRecvGdr: 0, p2p: 0, shm: 0, socket: 0, other: 0 };
  /** Network connections by transport: the internal IB one counted apart (the common case), others by name. */
  ibConns = 0;
  readonly netNames = new Map<string, number>();
  readonly warnings = new Map<string, WarnAggregate>();
  readonly gdrDisabledSamples: string[] = [];
  gdrDisabled = 0;
  noDeviceFound = 0;
  /** WARNs from the IB transport or the verbs wrapper (net_ib.cc, ibvwrap, `Call to ibv_* failed`). */
  ibWarnings = 0;
  /** Return chains or WARNs from inside the socket transport (`transport/net_socket.cc:118 -> 2`). */
  socketTransport = 0;
  /**
   * Processes (process key → 1) past the bootstrap's set-up, in the network's: a `NET/Plugin` line, NCCL ≥ 2.7's
   * `Bootstrap : Using` (the bootstrap's own line), `NCCL_NET_PLUGIN set by environment`, RCCL's `External network
   * plugin … is unsupported`. Before 2.7 the bootstrap listed its interfaces as `NET/Socket : Using` first.
   */
  readonly netPhase = new Map<string, number>();
  /**
   * `NET/Socket : Using …` lists printed in a process's network set-up (netPhase): the socket network's own init,
   * which NCCL runs only when no network before it (an external plugin, IB) was enabled and assigned
   * (ncclNetInit's loop over the plugins in order, breaking at the first assigned: src/net.cc, src/plugin/net.cc).
   */
  socketNetLists = 0;
  /**
   * Network plugins NCCL loaded (`NET/Plugin: Loaded net plugin Libfabric (v12)`, name → lines) and those whose init
   * failed after (`Failed to initialize NET plugin Libfabric`): src/plugin/net/net_vN.cc and src/plugin/net.cc.
   */
  readonly loadedPlugins = new Map<string, number>();
  readonly failedPlugins = new Map<string, number>();
  /**
   * Plugins whose init NCCL reported done (`Initialized NET plugin Libfabric`, src/plugin/net.cc), and lines where a
   * plugin reported the devices its init found (aws-ofi-nccl's `NET/OFI Selected provider is efa, fabric is
   * efa-direct (found 16 nics)`, src/nccl_ofi_net.cpp in https://github.com/aws/aws-ofi-nccl).
   */
  readonly initializedPlugins = new Map<string, number>();
  pluginFoundDevices = 0;
  /** `… - Init START` lines: a communicator's init began. */
  initStarted = 0;
  /** The process died of a signal after an Init START and before any Init COMPLETE. */
  crashedInInit = 0;
  /** Lines of a process dying of a signal (core/crash-lines.ts), wherever they come. */
  crashLines = 0;
  /** Backtrace frames inside NCCL's communicator init (caller-lines.ts NCCL_INIT_FRAME). */
  initFrames = 0;
  /** Bootstrap failure traces (`bootstrap.cc:77 -> 2`). */
  bootstrapFailed = 0;
  initComplete = 0;
  /** Lines only a communicator that was built prints: `Destroyed comm`, `… Destroy COMPLETE`, `Got completion …`. */
  commRan = 0;
  /**
   * `init.cc:N -> code` return chains (an error returned through the communicator's init), or a framework's report
   * that the init call failed (`NCCL operation ncclCommInitRank(…) failed: …`), or a WARN from the setup of the
   * shared-memory or P2P transport, before any Init COMPLETE.
   */
  initChainFailed = 0;
  /**
   * `enqueue.cc:N -> code` return chains: an error returned through ncclEnqueueCheck, the entry of every collective
   * and point-to-point call, on a communicator already built. Not an init failure unless an init.cc chain says so
   * (ncclInitKernelsForDevice lives in enqueue.cc too, but its caller's init.cc line is the chain it ends in).
   */
  launchChainFailed = 0;
  /** Error WARNs (not follow-ons) seen before the first `Init COMPLETE` line of the log. */
  errorsBeforeInit = 0;
  readonly completedRanks = new Set<number>();
  nranks = 0;
  /** The ranks of the largest whole ring order line (`Channel 00/02 :    0   1   2`): weaker than `nranks`. */
  ringRanks = 0;
  nNodes = 0;
  localRanks = 0;
  unattributed = 0;
}

/** Adds to a capped counter map (new keys beyond the cap are dropped: memory stays bounded). */
export function bump(m: Map<string, number>, key: string, by = 1): void {
  const cur = m.get(key);
  if (cur !== undefined) m.set(key, cur + by);
  else if (m.size < MAX_KEYS) m.set(key, by);
}

export function setCapped<V>(m: Map<string, V>, key: string, value: V): void {
  if (m.has(key) || m.size < MAX_KEYS) m.set(key, value);
}

/** The capped union of two sets (insertion order: `a` first). */
function unionCapped<T>(a: Set<T>, b: Iterable<T>, cap: number): Set<T> {
  for (const v of b) {
    if (a.size >= cap) break;
    a.add(v);
  }
  return a;
}

/**
 * Folds `b` — the state of the lines that come right after `a`'s in the same log — into `a`, so that scanning a
 * file in parts (one per thread) gives the state one pass over the whole file gives: counts add, "first seen"
 * values keep `a`'s, "last seen" values take `b`'s, samples keep the first few in file order, caps still hold.
 * `b` may be a structured clone (from a worker thread): only its fields are read.
 */
export function mergeInto(a: LogState, b: LogState): LogState {
  a.lines += b.lines;
  a.ncclLines += b.ncclLines;
  a.binaryLines += b.binaryLines;
  a.cutLine = b.cutLine;
  for (const [k, v] of b.versionOf) {
    // Lines with no process prefix are numbered per part: renumber b's after a's.
    const key = k.startsWith("unattributed#") ? `unattributed#${a.unattributed + Number(k.slice(13))}` : k;
    setCapped(a.versionOf, key, v);
  }
  a.unattributed += b.unattributed;
  for (const [k, v] of b.networkOf) setCapped(a.networkOf, k, v);
  for (const [k, v] of b.distanceNets) bump(a.distanceNets, k, v);
  for (const [k, v] of b.deviceLists) bump(a.deviceLists, k, v);
  unionCapped(a.hosts, b.hosts, MAX_KEYS);
  unionCapped(a.pidOnlyHosts, b.pidOnlyHosts, MAX_KEYS);
  for (const [k, v] of b.hostFirstProcess) if (!a.hostFirstProcess.has(k)) setCapped(a.hostFirstProcess, k, v);
  for (const [k, v] of b.devices) if (!a.devices.has(k)) setCapped(a.devices, k, v);
  unionCapped(a.warnHcas, b.warnHcas, MAX_KEYS);
  for (const [k, v] of b.nicSpeeds) if (!a.nicSpeeds.has(k)) setCapped(a.nicSpeeds, k, v);
  for (const [k, v] of b.oob) bump(a.oob, k, v);
  for (const [k, v] of b.bootstrap) bump(a.bootstrap, k, v);
  for (const [k, v] of b.env) if (!a.env.has(k)) setCapped(a.env, k, v);
  for (const k of Object.keys(a.conn) as (keyof Connections)[]) a.conn[k] += b.conn[k];
  a.ibConns += b.ibConns;
  for (const [k, v] of b.netNames) bump(a.netNames, k, v);
  for (const [id, w] of b.warnings) {
    const mine = a.warnings.get(id);
    if (!mine) {
      a.warnings.set(id, { ...w, samples: [...w.samples], hosts: new Set(w.hosts) });
      continue;
    }
    mine.count += w.count;
    for (const s of w.samples) if (mine.samples.length < MAX_SAMPLES) mine.samples.push(s);
    unionCapped(mine.hosts, w.hosts, 64);
  }
  for (const s of b.gdrDisabledSamples) if (a.gdrDisabledSamples.length < MAX_SAMPLES) a.gdrDisabledSamples.push(s);
  a.gdrDisabled += b.gdrDisabled;
  a.noDeviceFound += b.noDeviceFound;
  // b's errors came before b's first Init COMPLETE; they came before the log's first only when a has none.
  if (a.initComplete === 0) a.errorsBeforeInit += b.errorsBeforeInit;
  if (a.initComplete === 0) a.initChainFailed += b.initChainFailed;
  a.ibWarnings += b.ibWarnings;
  a.bootstrapFailed += b.bootstrapFailed;
  a.socketTransport += b.socketTransport;
  for (const [k, v] of b.netPhase) if (!a.netPhase.has(k)) setCapped(a.netPhase, k, v);
  a.socketNetLists += b.socketNetLists;
  for (const [k, v] of b.loadedPlugins) bump(a.loadedPlugins, k, v);
  for (const [k, v] of b.failedPlugins) bump(a.failedPlugins, k, v);
  for (const [k, v] of b.initializedPlugins) bump(a.initializedPlugins, k, v);
  a.pluginFoundDevices += b.pluginFoundDevices;
  if (a.initComplete === 0) a.crashedInInit += b.crashedInInit;
  a.crashLines += b.crashLines;
  a.initFrames += b.initFrames;
  a.initStarted += b.initStarted;
  a.initComplete += b.initComplete;
  a.commRan += b.commRan;
  a.launchChainFailed += b.launchChainFailed;
  unionCapped(a.completedRanks, b.completedRanks, 1 << 20);
  a.nranks = Math.max(a.nranks, b.nranks);
  a.ringRanks = Math.max(a.ringRanks, b.ringRanks);
  a.nNodes = Math.max(a.nNodes, b.nNodes);
  a.localRanks = Math.max(a.localRanks, b.localRanks);
  return a;
}
