/**
 * Variations of the A100 RoCE example node for the PCIe, IOMMU, lossless-RoCE and link-flap checks. Its second switch sits below root
 * port 0000:68:02.0: upstream port 0000:69:00.0, downstream ports 0000:6a:00.0 (GPU2), 0000:6a:01.0 (mlx5_3),
 * 0000:6a:02.0 (mlx5_4), 0000:6a:03.0 (GPU3).
 */
import type { HostSpec } from "./builder.js";
import { ACS_REDIRECTING, configSpaceHex } from "./pci-config-space.js";
import { seedSpec } from "./seed.js";
import type { HostDiff } from "./tree.js";

/** A diff over the A100 RoCE example node; `later` is applied on top for the second reading of `verify --watch`. */
export type SeedVariation = { description: string; diff: HostDiff; later?: HostDiff };

const SWITCH2_DOWN_MLX5_3 = "/sys/devices/pci0000:68/0000:68:02.0/0000:69:00.0/0000:6a:01.0";
const MLX5_3_FUNCTION = `${SWITCH2_DOWN_MLX5_3}/0000:70:00.0`;
const ecn = (netdev: string, value: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (let p = 0; p < 8; p++) {
    out[`/sys/class/net/${netdev}/ecn/roce_np/enable/${p}`] = `${value}\n`;
    out[`/sys/class/net/${netdev}/ecn/roce_rp/enable/${p}`] = `${value}\n`;
  }
  return out;
};
const counters = (ibdev: string, downed: number, recovery: number) => ({
  [`/sys/class/infiniband/${ibdev}/ports/1/counters/link_downed`]: `${downed}\n`,
  [`/sys/class/infiniband/${ibdev}/ports/1/counters/link_error_recovery`]: `${recovery}\n`,
});

export const FABRIC_DIFFS: Record<string, SeedVariation> = {
  "acs-redirect": {
    description:
      "the PCIe switch port above mlx5_3 (0000:6a:01.0) has ACS source validation and P2P request/completion redirect on",
    diff: {
      set: {
        [`${SWITCH2_DOWN_MLX5_3}/config`]: configSpaceHex({
          vendorId: 0x1000,
          deviceId: 0xc010,
          portType: 6,
          acsControl: ACS_REDIRECTING,
        }),
      },
    },
  },
  "nic-pcie-x8": {
    description:
      "mlx5_3 (0000:70:00.0) trained its PCIe link at Gen4 x8 of x16 (a riser fault): about 126 Gb/s for a 200 Gb/s port",
    diff: { set: { [`${MLX5_3_FUNCTION}/current_link_width`]: "8\n" } },
  },
  "iommu-translated": {
    description: "booted with intel_iommu=on and no iommu=pt: the IOMMU translates every DMA",
    diff: {
      set: {
        "/proc/cmdline":
          "BOOT_IMAGE=/boot/vmlinuz-5.4.0-126-generic root=UUID=3f1c9a2e-8d41-4b7a-9c55-0e2d6b1f7a10 ro intel_iommu=on\n",
      },
    },
  },
  "roce-no-ecn": {
    description: "eth3 (mlx5_3) has ECN (DCQCN) off for every priority, as notification and as reaction point",
    diff: { set: ecn("eth3", "0") },
  },
  "roce-tc-differs": {
    description: "mlx5_4 has a global traffic class 106 (DSCP 26) while the other data HCAs have none",
    diff: { set: { "/sys/class/infiniband/mlx5_4/tc/1/traffic_class": "Global tclass=106\n" } },
  },
  "port-flapping": {
    description:
      "mlx5_6 loses its link during a `verify --watch` interval (link_downed 3 → 5, link_error_recovery 7 → 12)",
    diff: { set: counters("mlx5_6", 3, 7) },
    later: { set: counters("mlx5_6", 5, 12) },
  },
};

/**
 * The A100 RoCE example node with rail 3 (mlx5_4, the fourth data HCA) addressed on 25.11.129.98/27 instead of the fleet's
 * 25.11.128.96/27: a node cabled or addressed off its rail. Alone it passes; `fleet verify` names it.
 */
export function rail3OtherSubnetSpec(): HostSpec {
  const s = seedSpec();
  s.hostname = "cce-a100-roce-rail3";
  for (const sw of s.switches) {
    sw.nics = sw.nics.map((nic) => (nic.ibdev === "mlx5_4" ? { ...nic, ipv4: ["25.11.129.98"] } : nic));
  }
  return s;
}
