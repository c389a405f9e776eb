/**
 * What the data NICs may do on their PCIe link (Device Control, read from config space as root): the largest read
 * request, and relaxed ordering while GPUDirect RDMA is in use. Both are tuning facts, said as info with how to
 * measure: their effect depends on the platform.
 */
import type { Finding } from "../core/finding.js";
import type { Hca } from "../inventory/types.js";
import { finding } from "./catalogue.js";
import { compactNames, dataHcas } from "./select.js";
import type { Check } from "./types.js";

/** The MaxReadReq adapters' tuning guides set: the largest the PCI Express specification allows. */
export const TUNED_MAX_READ_REQUEST = 4096;

function grouped(hcas: readonly Hca[], key: (h: Hca) => number | null): Map<number, Hca[]> {
  const out = new Map<number, Hca[]>();
  for (const h of hcas) {
    const k = key(h);
    if (k !== null) out.set(k, [...(out.get(k) ?? []), h]);
  }
  return out;
}

const busIds = (hcas: readonly Hca[]) => hcas.map((h) => h.pciAddress ?? h.name);

export const nicPcieControlCheck: Check = {
  name: "nic-pcie-control",
  codes: ["NIC_MAX_READ_REQUEST_SMALL", "NIC_RELAXED_ORDERING_OFF"],
  run(inv) {
    const out: Finding[] = [];
    const hcas = dataHcas(inv).filter((h) => h.pcieControl);
    const small = grouped(hcas, (h) => {
      const bytes = h.pcieControl!.maxReadRequestBytes;
      return bytes < TUNED_MAX_READ_REQUEST ? bytes : null;
    });
    for (const [bytes, group] of [...small].sort((a, b) => a[0] - b[0])) {
      const subject = compactNames(group.map((h) => h.name));
      out.push(finding("NIC_MAX_READ_REQUEST_SMALL", subject, { bytes, busIds: busIds(group) }));
    }
    if (inv.gpuDirect.mechanism !== null) {
      const off = hcas.filter((h) => !h.pcieControl!.relaxedOrdering);
      if (off.length > 0) {
        const subject = compactNames(off.map((h) => h.name));
        out.push(finding("NIC_RELAXED_ORDERING_OFF", subject, { busIds: busIds(off) }));
      }
    }
    return out;
  },
};
