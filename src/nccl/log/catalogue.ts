import { type Catalogue, defineCatalogue, type FindingSpec } from "../../core/finding.js";
import { LOG_CAUSES } from "./causes.js";

/** Findings of the NCCL log analyser. */
export const NCCL_LOG_FINDINGS = defineCatalogue({
  NCCL_LOG_VERDICT: {
    severity: "info",
    title: "What NCCL did",
    message: (e: { verdict: string; text: string; facts: string }) => `Verdict ${e.verdict}: ${e.text} (${e.facts}).`,
    fix: () => "See the other findings for what to change; none means nothing to do.",
  },
  NCCL_LOG_SOCKET: {
    severity: "error",
    title: "NCCL fell back to TCP sockets",
    message: (e: { processes: number; total: number; after: string | null }) =>
      `NCCL used TCP sockets, not RDMA (${e.processes} of ${e.total} processes chose network Socket${e.after ? `, after "${e.after}"` : ""}).`,
    fix: () =>
      "Fix the first WARN/INFO cause listed; check the pod has the RDMA resource, /dev/infiniband and IPC_LOCK, and use `kube-rdma nccl-env` for NCCL_IB_HCA. Set NCCL_NET=IB to fail fast instead of falling back.",
  },
  NCCL_LOG_GDR_MISSING: {
    severity: "warning",
    title: "Network connections without GPUDirect RDMA",
    message: (e: { without: number; total: number; sample: string | null }) =>
      `${e.without} of ${e.total} network connections run without GPUDirect RDMA (no /GDRDMA), receive side ` +
      `included: data bounces through host memory${e.sample ? ` (NCCL: "${e.sample}")` : ""}.`,
    fix: () =>
      "Load nvidia_peermem (or use DMA-BUF with the open GPU driver), and check the GPU↔NIC PCIe distance is within NCCL_NET_GDR_LEVEL (`kube-rdma verify`).",
  },
  NCCL_LOG_GDR_READ_OFF: {
    severity: "info",
    title: "GPUDirect on every receive; sends through host memory (NCCL's GDR read choice)",
    message: (e: { without: number; total: number }) =>
      `${e.without} of ${e.total} network connections, all of them sends, run without /GDRDMA while every receive ` +
      "has it: GPU memory registers for RDMA on this node. NCCL turns GPUDirect reads (sends) off by default on " +
      "GPUs before Ampere without NVLink between them (NCCL_NET_GDR_READ).",
    fix: () =>
      "Nothing is broken. To try GPUDirect on sends too, set NCCL_NET_GDR_READ=1 and compare the bandwidth; on " +
      "PCIe-only pre-Ampere systems host-memory sends are often as fast.",
  },
  NCCL_LOG_INIT_FAILED: {
    severity: "error",
    title: "NCCL initialisation failed",
    message: (e: { first: string | null }) =>
      `No rank reached "Init COMPLETE"${e.first ? `; first error: ${e.first}` : ""}.`,
    fix: () => "Fix the first error cause listed; the later ones are usually consequences.",
  },
  NCCL_LOG_MIXED_VERSIONS: {
    severity: "warning",
    title: "Ranks run different NCCL versions",
    message: (e: { versions: Record<string, number> }) =>
      `Ranks run different NCCL versions (${Object.entries(e.versions)
        .map(([v, n]) => `${v} on ${n}`)
        .join(", ")}); NCCL requires the same version on every rank.`,
    fix: () => "Use one container image (one NCCL) for every worker.",
  },
  NCCL_LOG_DEVICE_LISTS_DIFFER: {
    severity: "warning",
    title: "Ranks use different NIC lists",
    message: (e: { variants: string[] }) =>
      `Processes chose different network devices: ${e.variants.map((v) => `[${v}]`).join(" vs ")}.`,
    fix: () => "Give every node the same NCCL_IB_HCA from `kube-rdma nccl-env`, and check for down ports.",
  },
  NCCL_LOG_MGMT_NIC: {
    severity: "warning",
    title: "Management NIC in NCCL's device list",
    message: (e: { device: string }) =>
      `NCCL uses ${e.device}, the management NIC: its slower link throttles the rings that land on it.`,
    fix: (e: { hcaVar: string | null }) =>
      `Set NCCL_IB_HCA${e.hcaVar ? `=${e.hcaVar}` : " to the data HCAs"} (exact form, from \`kube-rdma nccl-env\`).`,
  },
  NCCL_LOG_BOND_NIC: {
    severity: "warning",
    title: "Bond device in NCCL's device list",
    message: (e: { device: string }) => `NCCL uses the bond ${e.device}, which is not this node's data path.`,
    fix: (e: { hcaVar: string | null }) =>
      `Set NCCL_IB_HCA${e.hcaVar ? `=${e.hcaVar}` : " to the data HCAs"} (from \`kube-rdma nccl-env\`).`,
  },
  NCCL_LOG_NIC_UNUSED: {
    severity: "warning",
    title: "Data HCA missing from NCCL's device list",
    message: (e: { devices: string[] }) =>
      `NCCL did not list ${e.devices.join(", ")}, data HCA${e.devices.length === 1 ? "" : "s"} of this node: those rails carry nothing.`,
    fix: () => "Check the ports are ACTIVE and NCCL_IB_HCA names them (`kube-rdma verify`, `kube-rdma nccl-env`).",
  },
  NCCL_LOG_ENV_DIFFERS: {
    severity: "warning",
    title: "The job's NCCL variable differs from this node's",
    message: (e: { name: string; used: string; derived: string | null }) =>
      `The job set ${e.name}=${e.used}, but this node calls for ${e.derived === null ? "leaving it unset" : `${e.name}=${e.derived}`}.`,
    fix: (e: { name: string; derived: string | null }) =>
      e.derived === null
        ? `Unset ${e.name} (see \`kube-rdma nccl-env\`).`
        : `Set ${e.name}=${e.derived} (from \`kube-rdma nccl-env\`), or let the device plugin inject it.`,
  },
  NCCL_LOG_NIC_SLOW: {
    severity: "warning",
    title: "A NIC port NCCL uses is slower than the others",
    message: (e: {
      slow: { host: string; device: string; gbps: number }[];
      slowCount: number;
      usualGbps: number;
      ports: number;
    }) => {
      const named = e.slow
        .slice(0, 6)
        .map((n) => `${n.device}${n.host ? ` on ${n.host}` : ""} at ${n.gbps} Gb/s`)
        .join(", ");
      const more = e.slowCount > 6 ? ` and ${e.slowCount - 6} more` : "";
      return (
        `NCCL found ${named}${more}, while ${e.ports - e.slowCount} of the ${e.ports} ports it uses run at ` +
        `${e.usualGbps} Gb/s: every ring through a slower port runs at that port's speed.`
      );
    },
    fix: () =>
      "On that node run `kube-rdma verify` (RATE_MISMATCH names the port, its rate and width) or `ibstat <hca>`; " +
      "reseat or replace the cable or optic and check the switch port. Until then leave the port out with " +
      "NCCL_IB_HCA (exact form, from `kube-rdma nccl-env`).",
  },
  NCCL_LOG_EXTRA_NIC: {
    severity: "info",
    title: "More NICs than local GPUs",
    message: (e: { devices: number; localRanks: number }) =>
      `NCCL lists ${e.devices} NICs for ${e.localRanks} GPUs per node: is a management NIC in the list?`,
    fix: () =>
      "Check the list against the node's data HCAs: run `kube-rdma nccl-env` there and set NCCL_IB_HCA to what it prints.",
  },
  NCCL_LOG_SINGLE_NODE: {
    severity: "info",
    title: "No network connection in the log",
    message: () => "The log shows no inter-node connection (one node, or the channel lines were not logged).",
    fix: () => "For a network verdict run across ≥ 2 nodes with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET).",
  },
});

/** One catalogue entry per known WARN cause: codes `NCCL_WARN_<id>`. */
type WarnEvidence = { cause: string; fix: string; count: number; sample: string; hosts: string[] };
export const NCCL_WARN_FINDINGS: Catalogue = Object.fromEntries(
  LOG_CAUSES.map((c): [string, FindingSpec<never>] => [
    `NCCL_WARN_${c.id}`,
    {
      severity: c.severity,
      title: c.cause,
      message: ((e: WarnEvidence) => {
        const where = e.hosts.length ? ` on ${e.hosts.slice(0, 4).join(", ")}${e.hosts.length > 4 ? ", …" : ""}` : "";
        return `${e.cause} (${e.count}×${where}: "${e.sample}").`;
      }) as never,
      fix: ((e: WarnEvidence) => e.fix) as never,
    },
  ]),
);
