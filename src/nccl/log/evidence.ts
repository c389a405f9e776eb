import { naturalCompare } from "../../core/natural.js";
import { fallsBack } from "./causes.js";
import type { LogDevice, LogState } from "./state.js";

/**
 * The network and link layer of an NCCL log, each from every piece of evidence the log holds, in order of strength:
 * the first reading that has a value decides, and says which it was (`evidence` in the `analyze` data). A weaker
 * reading never overrides a stronger one; "unknown" (null) only when no reading has a value.
 *
 * Network, strongest first (what NCCL prints: src/init.cc, src/transport/net_ib.cc, src/transport/net_socket.cc,
 * src/bootstrap.cc in https://github.com/NVIDIA/nccl):
 * 1. `using_network`: `Using network IB` (`Using internal Network IB` before NCCL 2.4) — NCCL's own choice.
 * 2. `nic_distance`: NCCL 2.4's `CUDA Dev 0[0], IB NIC distance :  PIX`, which names the network in use
 *    (ncclNetName(), src/transport/net.cc at v2.4.8-1).
 * 3. `connections`: the channel connections, `via NET/IB/0/GDRDMA`, `via NET/Socket/1`.
 * 4. `rdma_device_list`: an RDMA device list, `NET/IB : Using [0]mlx5_0:1/IB`, or one device per line
 *    (`NET/IB: [0] mlx5_1:1/IB`, `NET/IB: [3] mlx5_4:uverbs4:1/RoCE … speed=`).
 * 5. `socket_fallback`: a `NET/Socket : Using …` list after no usable RDMA device (`NET/IB : No device found`, no
 *    libibverbs) or with IB turned off (`NCCL_IB_DISABLE set by environment to 1`), or printed in a process's network
 *    set-up (after its `NET/Plugin`, `Bootstrap : Using` or plugin lines: the socket network's own init, which NCCL
 *    runs only when no network before it was assigned; LogState.socketNetLists).
 * 6. `ib_warnings`: WARNs of the IB transport or the verbs wrapper (`transport/net_ib.cc:…`, `Call to ibv_* failed`,
 *    `NET/IB : Got async event`, `NET/IB : Got completion … status=12`), or its own note that it opened an HCA
 *    without GPUDirect (`NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'`), unless the log says RDMA is
 *    unavailable.
 * 7. `socket_transport`: a return chain or WARN from inside the socket transport (`transport/net_socket.cc:118 -> 2`),
 *    with no RDMA device listed: sockets carried the connections.
 * 8. `bootstrap_failure`: the bootstrap's socket connection failed (`Connect to … failed`, `bootstrap.cc:… -> 2`)
 *    before any IB line: the run never got past sockets.
 * 9. `loaded_plugin`: the one network plugin NCCL loaded (`NET/Plugin: Loaded net plugin Libfabric (v12)`,
 *    src/plugin/net/net_vN.cc) and whose init is shown done (`Initialized NET plugin Libfabric`, src/plugin/net.cc, or
 *    the plugin's own report of the devices it found), none saying it failed (`Failed to initialize NET plugin …`):
 *    the load line prints `ncclNet->name`, the name `Using network` prints (src/init.cc). A load line alone says
 *    nothing: NCCL tries the next network when a plugin's init fails, and a paste cut there would name the wrong one. Not a name that calls itself
 *    a plugin (`NCCL RDMA Plugin v8`): such a loader replaces its own table at init and is used under another name
 *    (`IBext_v8` or UCX: src/p2p_plugin.c in https://github.com/Mellanox/nccl-rdma-sharp-plugins).
 *
 * Link layer, strongest first:
 * 1. `device_suffix`: the RDMA devices NCCL listed (`/IB` or `/RoCE` after each device); `mixed` when they differ.
 * 2. `gid_in_warnings`: an IPv4-mapped GID in a WARN of the IB transport (`localGid ::ffff:10.20.3.7`,
 *    `local GID ::ffff:…`): such a GID is a RoCE v2 GID built from the port's IPv4 address; an InfiniBand GID is the
 *    subnet prefix and the port GUID (src/transport/net_ib.cc prints the GIDs of a failed completion or QP change).
 */
export type NetworkEvidence =
  | "using_network"
  | "nic_distance"
  | "connections"
  | "rdma_device_list"
  | "socket_fallback"
  | "ib_warnings"
  | "socket_transport"
  | "bootstrap_failure"
  | "loaded_plugin";

export type Decided<T> = { value: T; decidedBy: NetworkEvidence | "device_suffix" | "gid_in_warnings" | null };

const rdmaList = (st: LogState) => [...st.deviceLists.keys()].some((k) => k !== "" && !k.startsWith("socket:"));
const socketList = (st: LogState) => [...st.deviceLists.keys()].some((k) => k.startsWith("socket:"));
const rdmaDevices = (st: LogState) =>
  [...st.devices.values()].filter((d) => d.linkLayer === "IB" || d.linkLayer === "RoCE");

/** The log says RDMA is unavailable: no device, no libibverbs, or IB turned off (the causes that fall back). */
const noRdma = (st: LogState) => [...st.warnings.keys()].some(fallsBack);

/** NCCL found no usable RDMA device (no device, no libibverbs, or IB turned off) and listed sockets instead. */
export function fellBackToSocket(st: LogState): boolean {
  return (noRdma(st) || st.socketNetLists > 0) && !rdmaList(st) && socketList(st);
}

function fromConnections(st: LogState): string | null {
  const names = [...(st.ibConns > 0 ? ["IB"] : []), ...st.netNames.keys(), ...(st.conn.socket > 0 ? ["Socket"] : [])];
  if (names.length === 0) return null;
  return names.length === 1 ? names[0]! : "mixed";
}

/**
 * The network a `Using network …` line names: letters, digits, `_ . / -` and spaces (`IB`, `IBext_v8`, `AWS Libfabric`),
 * up to whatever a wrapper put after it on the same line — a JSON export's closing quote and fields
 * (`IB", "timestamp": …`), an escaped newline (`IB\ngpu-b:…`): one network, not as many as there were lines.
 */
function networkName(raw: string): string {
  return /^[A-Za-z][\w ./-]*/.exec(raw.trim())?.[0].trim() ?? raw.trim();
}

/** Network → the processes whose `Using network` line named it. */
export function namedNetworks(st: LogState): Record<string, number> {
  const out: Record<string, number> = {};
  // A record with no process of its own (no `host:pid:tid`, no launcher's tag: key "") is the weaker reading where
  // records with one name a network: a page's quote of the line it expected (`* NCCL INFO Using network AWS
  // Libfabric` under a log that used Socket, shape seen in a blog post committed to a public repository, index-file
  // 24563078160), or a line a collector cut.
  const attributed = [...st.networkOf.keys()].some((k) => k !== "");
  for (const [key, raw] of st.networkOf) {
    if (key === "" && attributed) continue;
    const name = networkName(raw);
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

/** The network from the `Using network` lines (`counts`: network → processes that printed it), else the evidence. */
export function networkOf(st: LogState, counts: Record<string, number>): Decided<string | null> {
  const said = Object.keys(counts);
  if (said.length > 0) return { value: said.length === 1 ? said[0]! : "mixed", decidedBy: "using_network" };
  const distance = [...st.distanceNets.keys()];
  if (distance.length > 0) return { value: distance.length === 1 ? distance[0]! : "mixed", decidedBy: "nic_distance" };
  const conn = fromConnections(st);
  if (conn !== null) return { value: conn, decidedBy: "connections" };
  if (rdmaList(st) || rdmaDevices(st).length > 0) return { value: "IB", decidedBy: "rdma_device_list" };
  if (fellBackToSocket(st)) return { value: "Socket", decidedBy: "socket_fallback" };
  // A verbs-wrapper WARN saying the library is missing (`lib wrapper not initialized`) is no sign that IB was used.
  if (st.ibWarnings > 0 && !noRdma(st)) return { value: "IB", decidedBy: "ib_warnings" };
  if (st.socketTransport > 0) return { value: "Socket", decidedBy: "socket_transport" };
  if (st.bootstrapFailed > 0 && st.warnings.has("SOCKET_CONNECT"))
    return { value: "Socket", decidedBy: "bootstrap_failure" };
  const plugin = loadedPlugin(st);
  if (plugin !== null) return { value: plugin, decidedBy: "loaded_plugin" };
  return { value: null, decidedBy: null };
}

/** A plugin's name that calls itself a plugin, with a version (`NCCL RDMA Plugin v8`): a loader, not a network. */
const LOADER_NAME = /\bplugin v?\d+$/i;

/** A plugin's own WARN that its init failed (`NET/OFI aws-ofi-nccl initialization failed`). */
const PLUGIN_INIT_FAILED = /initiali[sz](?:e|ing|ation)\b.{0,40}\bfail|\bfail\w*\s+initiali[sz]/i;

/**
 * The one network plugin loaded and not failed, when it names a network (item 9 above); else null. No plugin names
 * the network once NCCL said none initialised (`Failed to initialize any NET plugin`, the NET_PLUGIN cause) or the
 * plugin said its own init failed.
 */
function loadedPlugin(st: LogState): string | null {
  if (st.warnings.has("NET_PLUGIN")) return null;
  if (st.warnings.get("NET_PLUGIN_ERROR")?.samples.some((s) => PLUGIN_INIT_FAILED.test(s))) return null;
  const live = [...st.loadedPlugins.keys()].filter((n) => !st.failedPlugins.has(n));
  if (live.length !== 1 || LOADER_NAME.test(live[0]!)) return null;
  return st.initializedPlugins.has(live[0]!) || st.pluginFoundDevices > 0 ? live[0]! : null;
}

/** An IPv4-mapped GID (`::ffff:10.20.3.7`, or uncompressed `…:ffff:0a14:0307`) after a GID label in a WARN. */
const MAPPED_GID = /\b(?:local|remote)\s?Gids?\s*:?\s*(?:[0:]*:ffff:(?:\d{1,3}\.){3}\d{1,3}\b|(?:0000:){5}ffff:)/i;

/** `IB`, `RoCE` or `mixed` from the RDMA devices NCCL listed, else RoCE from a WARN's GIDs; null when neither. */
export function linkLayerOf(st: LogState): Decided<string | null> {
  const layers = new Set(rdmaDevices(st).map((d) => d.linkLayer));
  if (layers.size > 0) return { value: layers.size === 1 ? [...layers][0]! : "mixed", decidedBy: "device_suffix" };
  const roceGid = [...st.warnings.values()].some((w) => w.samples.some((s) => MAPPED_GID.test(s)));
  return roceGid ? { value: "RoCE", decidedBy: "gid_in_warnings" } : { value: null, decidedBy: null };
}

/** What named the hosts hostCountOf counts: the records' whole prefixes, `host:pid` alone, or a launcher's prefix. */
export function hostsEvidence(st: LogState): "hosts" | "pid_only_hosts" | "launcher_hosts" {
  if (st.launcherHosts) return "launcher_hosts";
  return st.hosts.size > 0 ? "hosts" : "pid_only_hosts";
}

const unquoted = (h: string): string => h.replace(/^[`'"*]+|[`'"*]+$/g, "");

/**
 * Hosts counted by name (those of whole `host:pid:tid` prefixes, or where no record shows one, those of `host:pid`
 * alone; a host name cut at the start of a paste is not one, see cutHosts): a character no host name holds (RFC 1123:
 * letters, digits, `-`, `.`) at either end is the
 * paste's Markdown (a code span's backtick glued to the first line, https://github.com/NVIDIA/nccl/issues/1105), not
 * another host.
 */
export function hostCountOf(st: LogState): number {
  const names = new Set([...(st.hosts.size > 0 ? st.hosts : st.pidOnlyHosts)].map(unquoted));
  for (const h of cutHosts(st)) names.delete(h);
  return names.size;
}

/**
 * Host names cut at the start (a paste that starts mid-line: `m-ds-v25-0` for `llm-ds-v25-0`): another host's name
 * ends with it and that host's first record came from the same process and thread (`pid:tid`). One process on two
 * hosts is not what NCCL prints (src/debug.cc: `"%s:%d:%d"`, hostname, pid, tid).
 */
export function cutHosts(st: LogState): string[] {
  const byProcess = new Map<string, string[]>();
  for (const [quoted, proc] of st.hostFirstProcess) {
    if (!proc.includes(":")) continue;
    const h = unquoted(quoted);
    const same = byProcess.get(proc);
    if (same === undefined) byProcess.set(proc, [h]);
    else if (!same.includes(h)) same.push(h);
  }
  const cut: string[] = [];
  for (const same of byProcess.values())
    for (const h of same) if (same.some((g) => g.length > h.length && g.endsWith(h))) cut.push(h);
  return cut;
}

/**
 * The communicator's rank count, strongest first:
 * 1. `init_complete`: the ranks NCCL said completed their init (`… rank 3 nranks 8 … - Init COMPLETE`), or the count
 *    such a line states, whichever is larger.
 * 2. `comm_lines`: the count NCCL states (`comm 0x… rank 3 nRanks 8 …`, `ncclCommInitRank … nranks 8`, NCCL 2.3's
 *    `rank 0 nranks 4`, a collective's trace `[nranks=8]`; src/init.cc, src/enqueue.cc).
 * 3. `ring_lists`: the ranks of a whole ring order line (`Channel 00/02 :    0   1   2`, src/graph/rings.cc): each
 *    ring lists every rank once. Used only when no line states the count.
 */
export function ranksOf(st: LogState): {
  value: number;
  decidedBy: "init_complete" | "comm_lines" | "ring_lists" | null;
} {
  const stated = Math.max(st.nranks, st.completedRanks.size);
  if (stated > 0) return { value: stated, decidedBy: st.completedRanks.size > 0 ? "init_complete" : "comm_lines" };
  if (st.ringRanks > 0) return { value: st.ringRanks, decidedBy: "ring_lists" };
  return { value: 0, decidedBy: null };
}

export type DeviceEvidence = "using_lines" | "device_lines" | "completion_warn";

/**
 * The devices of the log, in NCCL's own order (the `[N]` index its list and its per-device lines give each, which
 * follows the devices' PCI order, not their names': `[0]mlx5_1 [1]mlx5_3 [2]mlx5_0`), by name where no index was
 * printed. Strongest first: `using_lines` (`NET/IB : Using [0]mlx5_0:1/IB …`, the list NCCL chose,
 * src/transport/net_ib.cc), `device_lines` (one `NET/IB: [N] mlx5_0:1/IB …` line per device), then `completion_warn`
 * (the `hca mlx5_14` a failed completion's WARN ends with, NCCL ≥ 2.22: one device the run used, its port unsaid and
 * its link layer the log's, from the WARN's GIDs). A WARN's HCA is used only when no line lists devices.
 *
 * A socket interface (`NET/Socket : Using [0]ib0:…`) is a device of the run only where sockets carried data: the
 * network is Socket or mixed (a socket list alone decides no network, so it names no device either). NCCL 2.4.2–2.4.7
 * initialised the socket transport for the bootstrap before any other (`// Always initialize sockets as we use it for
 * bootstrap`, initNet in src/init.cc at v2.4.7-1, init.cu at v2.4.2-1), so every process printed its socket list even
 * when it went on to use IB; from 2.4.8 the bootstrap prints its own `Bootstrap : Using` line and a `NET/Socket` list
 * means the socket transport was chosen.
 */
export function devicesOf(
  st: LogState,
  linkLayer: string | null,
  network: string | null,
): { value: LogDevice[]; decidedBy: DeviceEvidence | null } {
  const sockets = network === "Socket" || network === "mixed";
  const listed = [...st.devices.values()]
    .filter((d) => sockets || d.linkLayer !== "Socket")
    .sort(
      (a, b) =>
        (a.index ?? Number.MAX_SAFE_INTEGER) - (b.index ?? Number.MAX_SAFE_INTEGER) ||
        naturalCompare(`${a.name}:${a.port}`, `${b.name}:${b.port}`),
    )
    .map(({ index: _index, ...d }) => d);
  if (listed.length > 0) return { value: listed, decidedBy: st.deviceLists.size > 0 ? "using_lines" : "device_lines" };
  if (st.warnHcas.size === 0) return { value: [], decidedBy: null };
  const layer: LogDevice["linkLayer"] = linkLayer === "IB" || linkLayer === "RoCE" ? linkLayer : null;
  const named = [...st.warnHcas].sort(naturalCompare).map((name) => ({ name, port: 0, linkLayer: layer }));
  return { value: named, decidedBy: "completion_warn" };
}
