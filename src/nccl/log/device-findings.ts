/**
 * Findings on the devices an NCCL log used, against the node's inventory when one is given: a management or bond NIC
 * in NCCL's list, settings that differ from what `nccl-env` derives, data HCAs NCCL left out.
 */
import type { Finding } from "../../core/finding.js";
import { makeFinding } from "../../core/finding.js";
import type { NodeInventory } from "../../inventory/types.js";
import { deriveNcclEnv } from "../env.js";
import { impossibleOnPodNetwork, networkModeOfLog, podInterfaceNames, socketIfnameEntries } from "../network-mode.js";
import { NCCL_LOG_FINDINGS as F } from "./catalogue.js";
import type { NcclLogData } from "./report.js";
import type { LogState } from "./state.js";

/** NCCL's device list against what `nccl-env` would choose on this node. */
export function deviceFindings(st: LogState, d: NcclLogData, inv?: NodeInventory): Finding[] {
  const out: Finding[] = [];
  const variants = [...st.deviceLists.keys()].filter((v) => v !== "" && !v.startsWith("socket:"));
  if (variants.length > 1)
    out.push(makeFinding(F, "NCCL_LOG_DEVICE_LISTS_DIFFER", "log", { variants: variants.slice(0, 4) }));
  const rdma = d.devices.filter((x) => x.linkLayer !== "Socket");
  if (rdma.length === 0) return out;
  if (!inv) {
    if (st.localRanks > 0 && rdma.length > st.localRanks && rdma.length % 2 === 1) {
      out.push(makeFinding(F, "NCCL_LOG_EXTRA_NIC", "log", { devices: rdma.length, localRanks: st.localRanks }));
    }
    return out;
  }
  // The log's NCCL_SOCKET_IFNAME is judged in the network the job ran on: a pod's eth0 is right on the pod network
  // even where the node's default route is bond0; on the host network the node's default-route interface is.
  const usedIfname = st.env.get("NCCL_SOCKET_IFNAME");
  const logged = [...st.bootstrap.keys(), ...d.oobInterfaces];
  const network = networkModeOfLog([...logged, ...socketIfnameEntries(usedIfname ?? "")], inv);
  const env = deriveNcclEnv(inv, { network });
  const fitsThePod = (value: string) => impossibleOnPodNetwork(value, podInterfaceNames(undefined)).length === 0;
  const hcaVar = env.env.NCCL_IB_HCA ?? null;
  const byName = new Map(inv.hcas.map((h) => [h.name, h]));
  for (const dev of new Set(rdma.map((x) => x.name))) {
    const h = byName.get(dev);
    if (!h) continue;
    if (h.role === "management" || inv.roles.managementHca === dev) {
      out.push(makeFinding(F, h.isBond ? "NCCL_LOG_BOND_NIC" : "NCCL_LOG_MGMT_NIC", dev, { device: dev, hcaVar }));
    } else if (h.isBond && h.role !== "data") {
      out.push(makeFinding(F, "NCCL_LOG_BOND_NIC", dev, { device: dev, hcaVar }));
    }
  }
  for (const name of ["NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_SOCKET_IFNAME"]) {
    const used = st.env.get(name);
    const derived = env.env[name] ?? null;
    if (name === "NCCL_SOCKET_IFNAME" && network.kind === "pod" && used !== undefined && fitsThePod(used)) continue;
    if (used !== undefined && used !== derived) {
      out.push(makeFinding(F, "NCCL_LOG_ENV_DIFFERS", name, { name, used, derived }));
    }
  }
  // A WARN names only the HCA of one failed transfer: the others are not shown unused by it.
  if (d.evidence.devices === "completion_warn") return out;
  const listed = new Set(rdma.map((x) => x.name));
  const missing = env.dataHcas.filter((h) => !listed.has(h));
  if (missing.length) out.push(makeFinding(F, "NCCL_LOG_NIC_UNUSED", missing.join(","), { devices: missing }));
  return out;
}
