import type { CommunicatorEvidence } from "../../analyze/types.js";
import { formatBytes } from "../../checks/select.js";
import type { Finding } from "../../core/finding.js";
import { makeFinding, withConfidence } from "../../core/finding.js";
import { naturalCompare } from "../../core/natural.js";
import { type Problem, problem } from "../../core/result.js";
import type { NodeInventory } from "../../inventory/types.js";
import { NCCL_LOG_FINDINGS as F, NCCL_WARN_FINDINGS } from "./catalogue.js";
import { endsInit, fallsBack } from "./causes.js";
import { deviceFindings } from "./device-findings.js";
import {
  type DeviceEvidence,
  devicesOf,
  fellBackToSocket,
  hostCountOf,
  hostsEvidence,
  linkLayerOf,
  namedNetworks,
  networkOf,
  ranksOf,
} from "./evidence.js";
import { nicSpeedFindings, nicsPerNode } from "./nic-speeds.js";
import type { Connections, LogDevice, LogState, WarnAggregate } from "./state.js";

export type NcclLogVerdict = "rdma_gdr" | "rdma_partial_gdr" | "rdma_no_gdr" | "socket" | "init_failed" | "unknown";

/** `analyze` data for kind `nccl_log` (design.md contract, plus details). */
export type NcclLogData = {
  ncclVersions: string[];
  ranks: number;
  nNodes: number;
  network: string | null;
  /** Distinct WARN kinds left out of `warnings` because they repeat an earlier failure from another layer. */
  followOnWarnings: number;
  networks: Record<string, number>;
  devices: LogDevice[];
  oobInterfaces: string[];
  connections: Connections;
  /** Network connections per transport (`IB`, or a plugin's name such as `IBext`). */
  netTransports: Record<string, number>;
  warnings: { code: string; text: string; cause: string; fix: string; severity: string; count: number }[];
  verdict: NcclLogVerdict;
  processes: number;
  hosts: number;
  initComplete: number;
  env: Record<string, string>;
  lines: number;
  /** NIC ports per node and their usual speed as NCCL found them (`NET/IB: [d] … speed=`, NCCL ≥ 2.20); null without. */
  nics: { perNode: number; gbps: number } | null;
  /** The link layer of the RDMA devices NCCL listed (`IB`, `RoCE`, `mixed`); null when it listed none. */
  linkLayer: string | null;
  /** Which reading decided each fact (evidence.ts has the order of strength); null where none had a value. */
  evidence: {
    network: string | null;
    linkLayer: string | null;
    ncclVersions: string | null;
    ranks: string | null;
    /**
     * What proves a communicator completed its init (the verdict rests on it): `init_complete` (NCCL's own line),
     * `nccl_tests_rows` (result rows in the same input: each is a collective that ran), `runtime_lines` (lines only a
     * built communicator prints: `Destroyed comm`, `Destroy COMPLETE`, a failed work completion); null when nothing does.
     */
    communicator: CommunicatorEvidence | null;
    /**
     * nNodes, strongest first: `comm_lines` (NCCL's own count, `comm 0x… rank R nRanks N nNodes M …`, src/init.cc),
     * then `hosts` (distinct hosts of the log lines: only the hosts that logged), `pid_only_hosts` (records that show
     * `host:pid` alone, where none shows a whole `host:pid:tid`) or `launcher_hosts` (a launcher's `host: ` before
     * records that kept no host of their own: the wrapper's fact); null when none was seen.
     */
    nNodes?: "comm_lines" | "hosts" | "pid_only_hosts" | "launcher_hosts" | null;
    /**
     * devices, strongest first: `using_lines` (`NET/IB : Using [0]mlx5_0:1/IB …`, the list NCCL chose,
     * src/transport/net_ib.cc), then `device_lines` (one `NET/IB: [N] mlx5_0:1/IB …` line per device), then
     * `completion_warn` (the `hca mlx5_14` of a failed completion's WARN); null when none (evidence.ts, devicesOf).
     */
    devices?: DeviceEvidence | null;
  };
};

export const VERDICT_TEXT: Record<NcclLogVerdict, string> = {
  rdma_gdr: "RDMA with GPUDirect on every network connection",
  rdma_partial_gdr: "RDMA, but some network connections without GPUDirect",
  rdma_no_gdr: "RDMA without GPUDirect (through host memory)",
  socket: "TCP sockets — RDMA not used",
  init_failed: "NCCL initialisation failed",
  unknown: "no network verdict (no inter-node connection in the log)",
};

function counts(m: ReadonlyMap<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of m.values()) out[v] = (out[v] ?? 0) + 1;
  return out;
}

/**
 * A connection of the socket transport (or of the proxy that sets it up) failed: a connect refused or aborted, a peer
 * that closed its socket (misc/socket.cc `socketStartConnect` / `socketProgress`, https://github.com/NVIDIA/nccl-tests/issues/166).
 */
const SOCKET_FAILURES = ["SOCKET_CONNECT", "PEER_GONE"];

/** The strongest evidence that a communicator completed its init: NCCL's `Init COMPLETE`, else `ran` from outside. */
function communicatorOf(st: LogState, ran: CommunicatorEvidence | undefined): CommunicatorEvidence | null {
  if (st.initComplete > 0) return "init_complete";
  if (ran) return ran;
  // A launch's error chain proves a built communicator only where no init chain failed beside it.
  return st.commRan > 0 || (st.launchChainFailed > 0 && st.initChainFailed === 0) ? "runtime_lines" : null;
}

/**
 * The verdict. `init_failed` needs an error and no evidence that any communicator completed: `Init COMPLETE`, or
 * result rows of nccl-tests in the same input (a timed collective proves its communicator was built, whatever WARNs
 * were printed beside it). Warnings alone (a WARN of severity warning) never make it.
 */
function verdictOf(st: LogState, network: string | null, communicator: CommunicatorEvidence | null): NcclLogVerdict {
  const completed = communicator !== null;
  if (network === "Socket" || st.conn.socket > 0) {
    // Sockets were chosen, and their connections failed before any rank finished its init: the run never started.
    const failed =
      st.initChainFailed > 0 || [...st.warnings.keys()].some((id) => SOCKET_FAILURES.includes(id) || endsInit(id));
    return failed && !completed ? "init_failed" : "socket";
  }
  // Channels printed `via NET/IB/…/GDRDMA`, but registering the GPU buffers failed: the connections never carried
  // data, so the log does not prove GPUDirect works; the communicator failed to set up — unless result rows show
  // collectives that ran.
  if (communicator !== "nccl_tests_rows" && [...st.warnings.values()].some((w) => w.id === "GPU_MEM_REG_FAILED"))
    return "init_failed";
  // An error before any rank printed `Init COMPLETE`: the communicator was never built. Channel lines state which
  // transport NCCL meant to use, not that any byte moved over it (init.cc prints Init COMPLETE at the end of
  // ncclCommInitRank, https://github.com/NVIDIA/nccl/blob/master/src/init.cc).
  // The process died of a signal between a communicator's Init START and any Init COMPLETE: its init never finished.
  // So did one whose backtrace shows it dying inside NCCL's init (a frame of ncclCommInitRank's path and a signal line).
  const diedInInit = st.crashedInInit > 0 || (st.initFrames > 0 && st.crashLines > 0);
  if ((st.errorsBeforeInit > 0 || st.initChainFailed > 0 || diedInInit) && !completed) return "init_failed";
  if (st.conn.net > 0) {
    if (st.conn.netGdr === st.conn.net) return "rdma_gdr";
    return st.conn.netGdr > 0 ? "rdma_partial_gdr" : "rdma_no_gdr";
  }
  if (fellBackToSocket(st)) return "socket";
  if (!completed && initErrors(st).length > 0) return "init_failed";
  return "unknown";
}

/** The log's errors that could have ended an init (a framework's report of one too): all but the RDMA fallbacks. */
function initErrors(st: LogState): WarnAggregate[] {
  return [...st.warnings.values()].filter((w) => w.severity === "error" && !fallsBack(w.id));
}

/** Warnings as the user counts faults: follow-on WARNs drop out when another warning names the cause. */
function faultsOf(st: LogState): WarnAggregate[] {
  const all = [...st.warnings.values()];
  const primary = all.filter((w) => !w.followOn);
  return primary.length > 0 ? primary : all;
}

/** Turns the aggregates into the contract data, findings and problems. */
export function reportLog(
  st: LogState,
  inventory?: NodeInventory,
  ran?: CommunicatorEvidence,
): { data: NcclLogData; findings: Finding[]; problems: Problem[] } {
  const networks = namedNetworks(st);
  const versions = counts(st.versionOf);
  const net = networkOf(st, networks);
  const network = net.value;
  const linkLayer = linkLayerOf(st);
  const ranks = ranksOf(st);
  const communicator = communicatorOf(st, ran);
  const verdict = verdictOf(st, network, communicator);
  const faults = faultsOf(st);
  const { value: devices, decidedBy: devicesFrom } = devicesOf(st, linkLayer.value, network);
  const warnings = faults.map((w) => ({
    code: `NCCL_WARN_${w.id}`,
    text: w.samples[0] ?? "",
    cause: w.cause,
    fix: w.fix,
    severity: w.severity,
    count: w.count,
  }));
  const hostCount = hostCountOf(st);
  const data: NcclLogData = {
    ncclVersions: Object.keys(versions).sort(naturalCompare),
    ranks: ranks.value,
    nNodes: st.nNodes || hostCount,
    network,
    followOnWarnings: st.warnings.size - faults.length,
    networks,
    devices,
    oobInterfaces: [...st.oob.keys()],
    connections: { ...st.conn },
    netTransports: { ...(st.ibConns ? { IB: st.ibConns } : {}), ...Object.fromEntries(st.netNames) },
    warnings,
    verdict,
    processes: new Set([...st.versionOf.keys(), ...st.networkOf.keys()]).size,
    hosts: hostCount,
    initComplete: st.initComplete,
    env: Object.fromEntries(st.env),
    lines: st.lines,
    nics: nicsPerNode(st.nicSpeeds),
    linkLayer: linkLayer.value,
    evidence: {
      network: net.decidedBy,
      linkLayer: linkLayer.decidedBy,
      ncclVersions: st.versionOf.size > 0 ? "version_lines" : null,
      ranks: ranks.decidedBy,
      communicator,
      nNodes: st.nNodes > 0 ? "comm_lines" : hostCount > 0 ? hostsEvidence(st) : null,
      devices: devicesFrom,
    },
  };
  const findings = [
    ...withConfidence(verdictFindings(st, data), partialityOf(st, data)),
    ...warningFindings(faults, st, inventory),
    ...deviceFindings(st, data, inventory),
    ...nicSpeedFindings(st),
  ];
  return { data, findings, problems: problemsOf(st) };
}

/** Why the verdict is less than certain: the log is cut, or lacks the lines that state the network and the init. */
function partialityOf(st: LogState, d: NcclLogData): string[] {
  const why: string[] = [];
  if (st.cutLine !== null) why.push("the log ends in the middle of a line");
  if (d.network !== null && st.networkOf.size === 0)
    why.push("no `Using network` line: the network comes from the connection lines or device lists");
  if (st.initComplete === 0 && st.conn.net + st.conn.socket > 0)
    why.push("no `Init COMPLETE` line: the log may hold only part of the run");
  return why;
}

function verdictFindings(st: LogState, d: NcclLogData): Finding[] {
  const out: Finding[] = [];
  // An init that failed on sockets still says that RDMA was not chosen.
  if (d.verdict === "socket" || (d.verdict === "init_failed" && d.network === "Socket")) {
    const after = (st.warnings.get("NO_IB_DEVICE") ?? st.warnings.get("NO_LIBIBVERBS"))?.samples[0] ?? null;
    // Without `Using network` lines (old NCCL, partial pastes) the socket connections or device lists said it.
    const total = st.networkOf.size || Math.max(st.hosts.size, 1);
    const processes = st.networkOf.size ? (d.networks.Socket ?? 0) : total;
    out.push(makeFinding(F, "NCCL_LOG_SOCKET", "log", { processes, total, after }));
  }
  if (d.verdict === "rdma_no_gdr" || d.verdict === "rdma_partial_gdr") {
    const without = st.conn.net - st.conn.netGdr;
    const sample = st.gdrDisabledSamples[0] ?? null;
    const { netRecv, netRecvGdr } = st.conn;
    // NCCL prints no line when it turns GDR reads off, but it does print "GPU Direct RDMA Disabled for GPU … (distance
    // …)" / "… for HCA …" when GDR is off for a pair: then it is not the read choice.
    if (netRecv > 0 && netRecvGdr === netRecv && st.gdrDisabled === 0) {
      // Every receive has /GDRDMA: GPU memory registers for RDMA on this node. Sends without it are NCCL's own GDR
      // read choice: NCCL_NET_GDR_READ defaults to off before Ampere (compute capability < 8.0) without NVLink
      // between the GPUs (src/graph/paths.cc, ncclTopoCheckGdr, https://github.com/NVIDIA/nccl).
      out.push(makeFinding(F, "NCCL_LOG_GDR_READ_OFF", "log", { without, total: st.conn.net }));
    } else {
      out.push(makeFinding(F, "NCCL_LOG_GDR_MISSING", "log", { without, total: st.conn.net, sample }));
    }
  } else if (d.verdict === "init_failed") {
    const errors = [...st.warnings.values()].filter((w) => w.severity === "error");
    // On sockets, why RDMA was not chosen (no IB device) is not why the init failed.
    const fallback = (w: WarnAggregate) =>
      d.network === "Socket" && (w.id === "NO_IB_DEVICE" || w.id === "NO_LIBIBVERBS");
    const first = errors.find((w) => !fallback(w)) ?? errors[0];
    out.push(makeFinding(F, "NCCL_LOG_INIT_FAILED", "log", { first: first ? first.cause : null }));
  } else if (d.verdict === "unknown" && st.ncclLines > 0) {
    out.push(makeFinding(F, "NCCL_LOG_SINGLE_NODE", "log", {} as Record<string, never>));
  }
  if (st.ncclLines > 0)
    out.push(
      makeFinding(F, "NCCL_LOG_VERDICT", "log", {
        verdict: d.verdict,
        text: VERDICT_TEXT[d.verdict],
        facts: factsOf(d),
      }),
    );
  if (d.ncclVersions.length > 1) {
    out.push(makeFinding(F, "NCCL_LOG_MIXED_VERSIONS", "log", { versions: counts(st.versionOf) }));
  }
  return out;
}

function factsOf(d: NcclLogData): string {
  const parts = [
    d.ncclVersions.length ? `NCCL ${d.ncclVersions.join(", ")}` : null,
    d.ranks ? `${d.ranks} ranks` : null,
    d.nNodes ? `${d.nNodes} node${d.nNodes === 1 ? "" : "s"}` : null,
    d.network ? `network ${d.network}` : null,
    d.devices.length ? `devices ${d.devices.map((x) => (x.port ? `${x.name}:${x.port}` : x.name)).join(" ")}` : null,
    `${d.connections.net} network connections (${d.connections.netGdr} GPUDirect), ${d.connections.socket} socket, ${d.connections.p2p} P2P, ${d.connections.shm} SHM`,
  ];
  return parts.filter((p) => p !== null).join("; ");
}

/**
 * What the node model says of the process's locked-memory rights, for the ENOMEM causes: registration (MEMLOCK)
 * and queue-pair creation (QP_RESOURCES) fail for the memlock limit only where IPC_LOCK is absent and the limit is
 * small (capabilities(7): CAP_IPC_LOCK lifts RLIMIT_MEMLOCK for mlock and the verbs' page pinning). Null when the
 * model holds neither fact.
 */
export function memlockVerdict(inv: NodeInventory | undefined): string | null {
  const p = inv?.process;
  if (!p || (p.ipcLock === null && p.memlockSoft === null)) return null;
  const limit =
    p.memlockSoft === "unlimited" ? "unlimited" : p.memlockSoft === null ? "unknown" : formatBytes(p.memlockSoft);
  const facts = `${p.ipcLock === true ? "has" : p.ipcLock === false ? "lacks" : "may or may not have"} IPC_LOCK and its memlock limit is ${limit} (${inv!.source})`;
  if (p.ipcLock === true || p.memlockSoft === "unlimited") return `here not the memlock limit: the process ${facts}`;
  if (p.ipcLock === false && typeof p.memlockSoft === "number") return `here the memlock limit: the process ${facts}`;
  return `the process ${facts}`;
}

const MEMLOCK_CAUSES = new Set(["MEMLOCK", "QP_RESOURCES"]);

function warningFindings(faults: readonly WarnAggregate[], st: LogState, inv?: NodeInventory): Finding[] {
  const out: Finding[] = [];
  const memlock = memlockVerdict(inv);
  for (const w of faults) {
    const code = `NCCL_WARN_${w.id}`;
    const spec = NCCL_WARN_FINDINGS[code];
    if (!spec) continue;
    const forced = w.id === "GID_INDEX_INVALID" ? st.env.get("NCCL_IB_GID_INDEX") : undefined;
    const base = forced === undefined ? w.cause : `${w.cause} — here NCCL_IB_GID_INDEX was forced to ${forced}`;
    const cause = memlock !== null && MEMLOCK_CAUSES.has(w.id) ? `${base} — ${memlock}` : base;
    const evidence = { cause, fix: w.fix, count: w.count, sample: w.samples[0] ?? "", hosts: [...w.hosts] };
    out.push({
      code,
      severity: spec.severity,
      subject: w.hosts.size === 1 ? [...w.hosts][0]! : "log",
      message: spec.message(evidence as never, "log"),
      fix: spec.fix(evidence as never, "log"),
      evidence: { ...evidence, samples: w.samples },
    });
  }
  return out;
}

function problemsOf(st: LogState): Problem[] {
  const out: Problem[] = [];
  if (st.lines === 0) {
    out.push(
      problem("nccl_log.empty", "The input is empty: expected NCCL_DEBUG=INFO output.", {
        hint: "Run the job with NCCL_DEBUG=INFO and capture stdout.",
      }),
    );
    return out;
  }
  if (st.binaryLines > 0) {
    out.push(
      problem(
        "nccl_log.binary",
        `${st.binaryLines} line(s) hold binary data (control bytes or invalid UTF-8); they were skipped.`,
        {
          hint: "Pass the plain-text log (not a compressed or binary file).",
        },
      ),
    );
  }
  if (st.ncclLines === 0) {
    out.push(
      problem(
        "nccl_log.no_nccl_lines",
        `No NCCL line in ${st.lines} line(s): expected "host:pid:tid [dev] NCCL INFO …" lines.`,
        {
          hint: "Set NCCL_DEBUG=INFO (and NCCL_DEBUG_SUBSYS=INIT,NET) for the run.",
        },
      ),
    );
  }
  if (st.cutLine !== null) {
    out.push(
      problem(
        "nccl_log.cut_line",
        `The log ends in the middle of a line ("${st.cutLine.slice(0, 80)}"); it was still read.`,
        {
          line: st.lines,
          hint: "The capture was cut short: results cover what was written before.",
        },
      ),
    );
  }
  return out;
}
