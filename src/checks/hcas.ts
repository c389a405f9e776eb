/** RDMA devices: at least one data HCA, its verbs device, bonds, and firmware consistency. */
import { naturalCompare } from "../core/natural.js";
import type { Hca } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import { compactNames, dataHcas, groupsByCount } from "./select.js";
import type { Check } from "./types.js";

export const rdmaHcaCheck: Check = {
  name: "rdma-hca",
  codes: ["NO_RDMA_HCA", "HCA_UNREADABLE"],
  run(inv) {
    if (inv.hcas.length === 0) return [finding("NO_RDMA_HCA", "node", { hcas: [] })];
    // A device listed in /sys/class/infiniband whose directory cannot be read may be a data NIC: never dropped silently.
    const unreadable = inv.hcas.flatMap((h) =>
      h.unreadable ? [finding("HCA_UNREADABLE", h.name, { hca: h.name, ...h.unreadable })] : [],
    );
    if (dataHcas(inv).length > 0) return unreadable;
    if (unreadable.length > 0) return unreadable;
    const names = inv.hcas.map((h) => h.name).sort(naturalCompare);
    return [finding("NO_RDMA_HCA", "node", { hcas: names }, "warning")];
  },
};

export const uverbsCheck: Check = {
  name: "uverbs",
  codes: ["NO_UVERBS"],
  run(inv, opts) {
    if (inv.hcas.length === 0) return [];
    const present = new Set(inv.devices.infiniband);
    if (![...present].some((d) => d.startsWith("uverbs"))) {
      return [finding("NO_UVERBS", "/dev/infiniband", { hcas: inv.hcas.length, uverbs: [] })];
    }
    // A pod may be handed a subset of the HCAs on purpose (exclusive device-plugin mode): a warning there.
    const severity = opts.pod ? "warning" : "error";
    return dataHcas(inv)
      .filter((h) => h.uverbs.length > 0 && !h.uverbs.some((u) => present.has(u)))
      .map((h) => finding("NO_UVERBS", h.name, { hcas: inv.hcas.length, uverbs: h.uverbs }, severity));
  },
};

export const bondCheck: Check = {
  name: "bond",
  codes: ["BOND_PRESENT"],
  run(inv) {
    return inv.hcas
      .filter((h) => h.isBond)
      .sort((a, b) => naturalCompare(a.name, b.name))
      .map((h) => {
        const bond = inv.netdevs.find((n) => h.netdevs.includes(n.name) && n.bondSlaves.length > 0);
        return finding("BOND_PRESENT", h.name, {
          bond: bond?.name ?? h.netdevs[0] ?? null,
          slaves: bond?.bondSlaves ?? [],
          role: h.role,
        });
      });
  },
};

/** `20.35.1012` vs `20.31.1014`: numeric, part by part. */
export function compareFirmware(a: string, b: string): number {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0 && Number.isFinite(d)) return d;
  }
  return a.localeCompare(b);
}

export const firmwareCheck: Check = {
  name: "firmware",
  codes: ["FW_MISMATCH"],
  run(inv) {
    const byType = new Map<string, Hca[]>();
    for (const h of dataHcas(inv)) {
      if (h.fwVer === null) continue;
      const type = h.hcaType ?? "unknown type";
      byType.set(type, [...(byType.get(type) ?? []), h]);
    }
    return [...byType.entries()].flatMap(([hcaType, hcas]) => {
      // Ties go to the newer firmware: the older ones are the ones to update.
      const groups = groupsByCount(
        hcas,
        (h) => h.fwVer!,
        (a, b) => compareFirmware(b, a),
      );
      const [usual, ...odd] = groups;
      if (!usual || odd.length === 0) return [];
      const usualHcas = compactNames(usual[1].map((h) => h.name));
      return odd.flatMap(([fwVer, list]) =>
        list.map((h) =>
          finding("FW_MISMATCH", h.name, { fwVer, usualFw: usual[0], hcaType, usualHcas, pciAddress: h.pciAddress }),
        ),
      );
    });
  },
};
