/** PCIe ACS on the GPU↔NIC paths, and the IOMMU mode: both decide whether GPUDirect RDMA goes peer to peer. */
import type { Finding } from "../core/finding.js";
import { memoSplitPciPath, splitPciPath } from "../inventory/topology.js";
import type { NodeInventory, PcieBridge } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import { dataHcas } from "./select.js";
import type { Check } from "./types.js";

/** The bridges a peer-to-peer transfer between two functions crosses below the point where their paths meet. */
export function bridgesBetween(a: string, b: string, split: typeof splitPciPath = splitPciPath): string[] {
  const pa = split(a);
  const pb = split(b);
  if (!pa || !pb || pa.root !== pb.root) return [];
  const ua = pa.chain.slice(0, -1);
  const ub = pb.chain.slice(0, -1);
  let common = 0;
  while (common < ua.length && common < ub.length && ua[common] === ub[common]) common++;
  // Meeting only at the host bridge: the transfer goes through the root complex anyway.
  if (common === 0) return [];
  return [...new Set([...ua.slice(common), ...ub.slice(common)])];
}

/** GPU↔data-NIC pairs under a shared switch (PIX/PXB), by the bridges their transfers cross. */
function pairsByBridge(inv: NodeInventory): Map<string, string[]> {
  const hcaPath = new Map(dataHcas(inv).map((h) => [h.name, h.pciPath]));
  const gpuPath = new Map(inv.gpus.map((g) => [g.index, g.pciPath]));
  const out = new Map<string, string[]>();
  const split = memoSplitPciPath();
  for (const p of inv.paths) {
    if (p.distance !== "PIX" && p.distance !== "PXB") continue;
    const a = gpuPath.get(p.gpu);
    const b = hcaPath.get(p.hca);
    if (!a || !b) continue;
    for (const bridge of bridgesBetween(a, b, split)) {
      const list = out.get(bridge) ?? [];
      list.push(`GPU${p.gpu}↔${p.hca}`);
      out.set(bridge, list);
    }
  }
  return out;
}

const ROOT_FIX =
  "Run verify as root (or the DaemonSet with CAP_SYS_ADMIN and the host's /sys mounted): the kernel shows a PCI " +
  "function's config space beyond its first 64 bytes only to root. `sudo lspci -vvv -s BDF | grep -A2 ACSCtl` " +
  "shows the same by hand.";

export const acsCheck: Check = {
  name: "pcie-acs",
  codes: ["PCIE_ACS_REDIRECT", "CHECK_SKIPPED"],
  run(inv, opts) {
    if (!inv.bridges) return [];
    const byAddress = new Map<string, PcieBridge>(inv.bridges.map((b) => [b.address, b]));
    const out: Finding[] = [];
    const unreadable: string[] = [];
    for (const [address, pairs] of [...pairsByBridge(inv)].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const bridge = byAddress.get(address);
      if (!bridge || bridge.config === "header_only" || bridge.config === "unreadable") {
        unreadable.push(address);
        continue;
      }
      if (!bridge.acs || bridge.acs.redirects.length === 0 || bridge.portType === "root_port") continue;
      out.push(
        finding("PCIE_ACS_REDIRECT", address, {
          bridge: address,
          portType: bridge.portType,
          control: `0x${bridge.acs.control.toString(16).padStart(4, "0")}`,
          redirects: bridge.acs.redirects,
          pairs,
          vmHost: opts.vmHost ?? null,
        }),
      );
    }
    if (unreadable.length > 0) {
      const headerOnly = unreadable.some((a) => byAddress.get(a)?.config === "header_only");
      out.push(
        finding("CHECK_SKIPPED", "pcie-acs", {
          checks: "PCIe ACS",
          why:
            `the config space of ${unreadable.length} PCIe bridge(s) between GPUs and data NICs ` +
            `(${unreadable.join(", ")}) ` +
            (headerOnly
              ? "could only be read in its first 64 bytes (not root); the ACS capability lies beyond them"
              : "could not be read"),
          fix: ROOT_FIX,
        }),
      );
    }
    return out;
  },
};

export const iommuCheck: Check = {
  name: "iommu",
  codes: ["IOMMU_TRANSLATED", "CHECK_SKIPPED"],
  run(inv) {
    const io = inv.iommu;
    if (!io || inv.gpus.length === 0 || dataHcas(inv).length === 0) return [];
    if (io.mode === "translated") {
      return [finding("IOMMU_TRANSLATED", "node", { reason: io.reason, units: io.units, cmdline: io.cmdline })];
    }
    if (io.mode === "unknown") {
      return [
        finding("CHECK_SKIPPED", "iommu", {
          checks: "IOMMU mode",
          why: io.reason,
          fix: "Give verify the host's /proc and /sys (`--root /host` in a pod); `cat /proc/cmdline` and `ls /sys/kernel/iommu_groups` show it by hand.",
        }),
      ];
    }
    return [];
  },
};
