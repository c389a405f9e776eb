import type { Finding } from "../core/finding.js";
import { makeFinding } from "../core/finding.js";
import type { NcclDistance, NodeInventory } from "../inventory/types.js";
import { NCCL_ENV_FINDINGS as F } from "./catalogue.js";
import { type DataPort, selectDataPorts } from "./data-ports.js";
import { type EnvEntry, selectGid } from "./gid-select.js";
import { DEFAULT_NETWORK_MODE, type NetworkMode, socketIfnameFor } from "./network-mode.js";
import { DEFAULT_NCCL_ENV_PROFILE, type NcclEnvProfile, profileEntries } from "./profiles.js";
import { derivedTrafficClass } from "./traffic-class.js";
import { formatNcclVersion, hasFifoTrafficClass, type NcclVersion, parseNcclVersion } from "./version.js";

export type NcclEnvOptions = {
  /** `X.Y` or `X.Y.Z` of the NCCL the jobs use; unknown = variables that work on every release. */
  ncclVersion?: string;
  /** `NCCL_IB_TC` (0–255), only when asked. */
  trafficClass?: number;
  /** `NCCL_IB_FIFO_TC` (0–255, NCCL ≥ 2.22.3): the class of NCCL's short control messages, only when asked. */
  fifoTrafficClass?: number;
  /** Restrict to these HCAs (e.g. the device plugin's allocation). */
  hcas?: string[];
  /** Host network (the node's interface names) or pod network (default: never a host interface name). */
  network?: NetworkMode;
  /**
   * Set NCCL_NET_GDR_LEVEL=PHB when a GPU reaches its nearest data NIC only through the host bridge. Off by default:
   * NCCL ≥ 2.12 (PXN) sends such a GPU's traffic through a GPU near the NIC over NVLink, often faster than GPUDirect
   * across a host bridge; raising the level is a choice to measure, not a default.
   */
  raiseGdrLevel?: boolean;
  /** Which platform tuning goes beside the derived variables (see profiles.ts); default `derived`. */
  profile?: NcclEnvProfile;
};

export type NcclEnvResult = {
  env: Record<string, string>;
  /** Why each variable has its value; also why a variable is deliberately left unset (NCCL_SOCKET_IFNAME on the
   * pod network), then it has a reason and no value. */
  reasons: Record<string, string>;
  findings: Finding[];
  /** The HCAs in NCCL_IB_HCA, natural order. */
  dataHcas: string[];
};

export { PLATFORM_IB_TIMEOUT, PLATFORM_QPS_PER_CONNECTION } from "./profiles.js";

/**
 * Derives the NCCL variables for a node and explains each one. Pure and cheap: the device plugin calls it in every
 * Allocate. Nothing is emitted that NCCL would pick correctly by itself, except the platform defaults.
 */
export function deriveNcclEnv(inv: NodeInventory, opts: NcclEnvOptions = {}): NcclEnvResult {
  const findings: Finding[] = [];
  const version = versionOption(opts.ncclVersion, findings);
  const selection = selectDataPorts(inv, opts.hcas);
  findings.push(...selection.findings);
  const entries: EnvEntry[] = [];
  const ports = selection.ports;
  if (ports.length === 0) {
    findings.push(makeFinding(F, "NCCL_NO_DATA_HCA", "node", { skipped: selection.skipped }));
  } else {
    entries.push(hcaEntry(ports, selection.skipped));
  }
  const unset: Record<string, string> = {};
  const socket = socketIfnameFor(inv, opts.network ?? DEFAULT_NETWORK_MODE);
  if (socket?.value) entries.push({ name: "NCCL_SOCKET_IFNAME", value: socket.value, reason: socket.reason });
  else if (socket) unset.NCCL_SOCKET_IFNAME = socket.reason;
  else findings.push(makeFinding(F, "NCCL_NO_SOCKET_IF", "node", {} as Record<string, never>));
  if (ports.length > 0) {
    const gid = selectGid(ports, version);
    entries.push(...gid.entries);
    findings.push(...gid.findings);
    entries.push(...profileEntries(opts.profile ?? DEFAULT_NCCL_ENV_PROFILE, { ports, version, unset }));
    const gdr = gdrLevel(inv, ports, opts.raiseGdrLevel === true);
    if (gdr.entry) entries.push(gdr.entry);
    findings.push(...gdr.findings);
  }
  const tc =
    opts.trafficClass !== undefined
      ? trafficClassEntry(opts.trafficClass, findings)
      : ports.length > 0
        ? derivedTrafficClass(inv, ports)
        : null;
  if (tc) entries.push(withFifoNote(tc, opts.fifoTrafficClass !== undefined));
  if (opts.fifoTrafficClass !== undefined && ports.length > 0) {
    const fifo = fifoTrafficClassEntry(opts.fifoTrafficClass, version, findings);
    if (fifo) entries.push(fifo);
  }
  const env: Record<string, string> = {};
  const reasons: Record<string, string> = { ...unset };
  for (const e of entries) {
    env[e.name] = e.value;
    reasons[e.name] = e.reason;
  }
  const dataHcas = [...new Set(ports.map((p) => p.hca.name))];
  return { env, reasons, findings, dataHcas };
}

function versionOption(text: string | undefined, findings: Finding[]): NcclVersion | null {
  if (text === undefined) return null;
  const v = parseNcclVersion(text);
  if (!v) {
    findings.push(
      makeFinding(F, "NCCL_BAD_OPTION", "nccl-version", {
        option: "--nccl-version",
        value: text,
        expected: "X.Y or X.Y.Z, e.g. 2.18 or 2.21.5",
      }),
    );
  }
  return v;
}

function hcaEntry(ports: readonly DataPort[], skipped: readonly string[]): EnvEntry {
  const tokens = ports.map((p) => p.token);
  const names = [...new Set(ports.map((p) => p.hca.name))];
  const multi = ports.some((p) => p.token.includes(":"));
  const left = skipped.length ? `; left out: ${skipped.join(", ")} (see findings)` : "";
  return {
    name: "NCCL_IB_HCA",
    value: `=${tokens.join(",")}`,
    reason:
      `the ${names.length} data HCA${names.length === 1 ? "" : "s"} with an active port (${rangeText(tokens)}); ` +
      `leading "=" = exact names (a bare mlx5_1 would also match mlx5_10–mlx5_19)` +
      `${multi ? "; ports named because an HCA has several" : ""}${left}`,
  };
}

function rangeText(tokens: readonly string[]): string {
  return tokens.length > 4 ? `${tokens[0]}, ${tokens[1]}, …, ${tokens[tokens.length - 1]}` : tokens.join(", ");
}

const DISTANCE_RANK: Record<NcclDistance, number> = { PIX: 0, PXB: 1, PHB: 2, SYS: 3 };

/** NCCL_NET_GDR_LEVEL only when some GPU's nearest data NIC is beyond NCCL's default PXB (tech-spec §2.4). */
function gdrLevel(
  inv: NodeInventory,
  ports: readonly DataPort[],
  raise: boolean,
): { entry: EnvEntry | null; findings: Finding[] } {
  if (inv.gpuDirect.mechanism === null || inv.gpus.length === 0) return { entry: null, findings: [] };
  const data = new Set(ports.map((p) => p.hca.name));
  const nearest = new Map<number, NcclDistance>();
  for (const path of inv.paths) {
    if (!data.has(path.hca)) continue;
    const cur = nearest.get(path.gpu);
    if (cur === undefined || DISTANCE_RANK[path.distance] < DISTANCE_RANK[cur]) nearest.set(path.gpu, path.distance);
  }
  const at = (d: NcclDistance) => [...nearest].filter(([, v]) => v === d).map(([g]) => `GPU${g}`);
  const phb = at("PHB");
  const sys = at("SYS");
  const findings: Finding[] = [];
  if (sys.length) findings.push(makeFinding(F, "NCCL_GDR_FAR", sys.join(","), { gpus: sys }));
  if (phb.length === 0) return { entry: null, findings };
  if (!raise) {
    findings.push(makeFinding(F, "NCCL_GDR_LEVEL_PHB_POSSIBLE", phb.join(","), { gpus: phb }));
    return { entry: null, findings };
  }
  findings.push(makeFinding(F, "NCCL_GDR_LEVEL_RAISED", phb.join(","), { gpus: phb, level: "PHB" }));
  return {
    entry: {
      name: "NCCL_NET_GDR_LEVEL",
      value: "PHB",
      reason:
        `${phb.join(", ")} ${phb.length === 1 ? "reaches its" : "reach their"} nearest data NIC through the CPU host ` +
        "bridge (PHB); NCCL's default level PXB would send that traffic through host memory instead of GPUDirect RDMA",
    },
    findings,
  };
}

/** An IP ToS byte (0–255); otherwise an NCCL_BAD_OPTION finding for `--option` with an example. */
function isTosByte(tc: number, option: string, example: string, findings: Finding[]): boolean {
  if (Number.isInteger(tc) && tc >= 0 && tc <= 255) return true;
  findings.push(
    makeFinding(F, "NCCL_BAD_OPTION", option, {
      option: `--${option}`,
      value: String(tc),
      expected: `an integer 0–255 (the IP ToS byte; ${example})`,
    }),
  );
  return false;
}

function trafficClassEntry(tc: number | undefined, findings: Finding[]): EnvEntry | null {
  if (tc === undefined) return null;
  if (!isTosByte(tc, "traffic-class", "DSCP 26 = 104, DSCP 26 with ECN bits = 106", findings)) return null;
  return {
    name: "NCCL_IB_TC",
    value: String(tc),
    reason:
      `asked for with --traffic-class: the RoCE v2 IP ToS byte, DSCP ${tc >> 2}; it must select the switches' ` +
      "lossless (PFC/ECN) queue",
  };
}

/** NCCL's control messages ride NCCL_IB_TC's class unless NCCL_IB_FIFO_TC (NCCL ≥ 2.22.3) moves them. */
function withFifoNote(tc: EnvEntry, fifoGiven: boolean): EnvEntry {
  if (fifoGiven) return tc;
  return {
    ...tc,
    reason:
      `${tc.reason}; NCCL's short control messages (credit returns) use the same class unless NCCL_IB_FIFO_TC ` +
      "(NCCL 2.22.3 or later, --fifo-traffic-class) moves them to a high-priority queue of the fabric",
  };
}

// NCCL_IB_FIFO_TC: "the InfiniBand traffic class for control messages … short RDMA write operations which control
// credit return", since 2.22.3 (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-fifo-tc).
function fifoTrafficClassEntry(tc: number, version: NcclVersion | null, findings: Finding[]): EnvEntry | null {
  if (!isTosByte(tc, "fifo-traffic-class", "the control messages' queue, e.g. 192 = DSCP 48", findings)) return null;
  if (version !== null && !hasFifoTrafficClass(version)) {
    findings.push(
      makeFinding(F, "NCCL_FIFO_TC_IGNORED", "fifo-traffic-class", { version: formatNcclVersion(version) }),
    );
  }
  return {
    name: "NCCL_IB_FIFO_TC",
    value: String(tc),
    reason:
      `asked for with --fifo-traffic-class: NCCL's short control messages (credit returns) use ToS ${tc} (DSCP ` +
      `${tc >> 2}), so congestion in the data queue does not delay them; the fabric must give that DSCP a ` +
      "high-priority queue (NCCL 2.22.3 or later)",
  };
}
