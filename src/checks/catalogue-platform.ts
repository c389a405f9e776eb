/** Words for the PCIe-ACS, IOMMU, lossless-RoCE and link-flap findings, and for a check that could not run. */
import { defineCatalogue } from "../core/finding.js";

type AcsEvidence = {
  bridge: string;
  portType: string | null;
  control: string;
  redirects: string[];
  pairs: string[];
  /** The user's answer to `--vm-host`; null: not given. */
  vmHost?: boolean | null;
};

type LosslessEvidence = {
  hca: string;
  netdev: string;
  priority: number;
  trafficClass: number;
  trafficClassSource: "hca" | "nccl-default";
  reasons: string[];
  /** PFC on NCCL's priority as read (mlnx_qos); absent in older evidence: read from `reasons`. */
  pfc?: "on" | "off" | "unknown";
};

type QosDiffEvidence = {
  hca: string;
  netdev: string;
  setting: string;
  value: string;
  usual: string;
  usualNetdevs: string;
  priority: number;
};

type FlapEvidence = {
  hca: string;
  netdev: string | null;
  seconds: number;
  linkDowned: number;
  linkErrorRecovery: number;
};

type HcaPcieEvidence = {
  busId: string;
  currentWidth: number;
  maxWidth: number;
  currentGen: number | null;
  maxGen: number | null;
  linkGbps: number;
  portGbps: number | null;
  widthDegraded: boolean;
};

const genText = (g: number | null) => (g === null ? "Gen?" : `Gen${g}`);

export const PLATFORM_CATALOGUE = defineCatalogue({
  HCA_PCIE_DEGRADED: {
    severity: "error",
    title: "NIC PCIe link degraded",
    message: (e: HcaPcieEvidence, subject: string) =>
      `${subject} (${e.busId}) trained its PCIe link at ${genText(e.currentGen)} x${e.currentWidth} of ` +
      `${genText(e.maxGen)} x${e.maxWidth}: about ${e.linkGbps} Gb/s between the NIC and the host` +
      (e.portGbps === null
        ? "."
        : e.linkGbps < e.portGbps
          ? `, less than its ${e.portGbps} Gb/s port: every transfer through this rail is capped there, GPUDirect included.`
          : ` for its ${e.portGbps} Gb/s port: enough for now, but a NIC does not narrow its link to save power, so the slot or riser is at fault.`),
    fix: (e: HcaPcieEvidence) =>
      `Check the trained link (\`lspci -vv -s ${e.busId} | grep -E 'LnkCap|LnkSta'\`); ` +
      (e.widthDegraded
        ? "reseat the NIC or its riser, check it sits in an x16 slot (the BIOS may have bifurcated the slot), then " +
          "reboot to retrain; if it stays narrow, RMA the card or the riser."
        : `the link runs ${genText(e.currentGen)} at full width: the slot or the platform offers no faster generation. ` +
          `Move the NIC to a ${genText(e.maxGen)} slot (a server of that generation), or plan for ${e.linkGbps} Gb/s on this rail.`),
  },
  // Device Control's Max_Read_Request_Size bounds each DMA read a NIC issues to send data; NVIDIA's PCIe note for its
  // adapters raises it to 4096 with setpci ("Understanding PCIe Configuration for Maximum Performance",
  // https://enterprise-support.nvidia.com/s/article/understanding-pcie-configuration-for-maximum-performance).
  NIC_MAX_READ_REQUEST_SMALL: {
    severity: "info",
    title: "NIC PCIe read requests are small",
    message: (e: { bytes: number; busIds: string[] }, subject: string) =>
      `${subject} may issue PCIe read requests of at most ${e.bytes} bytes (MaxReadReq): every send reads GPU or host ` +
      "memory in more, smaller requests, which can cap bandwidth at large messages; adapters' tuning guides use 4096.",
    fix: (e: { busIds: string[] }) =>
      `See it with \`lspci -vvv -s ${e.busIds[0]} | grep MaxReadReq\`; raise it (BIOS setting, or ` +
      `\`setpci -s ${e.busIds[0]} CAP_EXP+8.w=5000:7000\` for 4096) and compare nccl-tests bandwidth before and after.`,
  },
  // NCCL_IB_PCI_RELAXED_ORDERING (default 2: used when available) registers memory with relaxed ordering, which "can
  // greatly help the performance of InfiniBand networks in virtualized environments"
  // (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-pci-relaxed-ordering); the NIC may
  // emit relaxed-ordered writes only with Device Control's Enable Relaxed Ordering bit set (PCI Express Base Spec).
  NIC_RELAXED_ORDERING_OFF: {
    severity: "info",
    title: "NIC relaxed ordering is off",
    message: (e: { busIds: string[] }, subject: string) =>
      `${subject} ${e.busIds.length === 1 ? "has" : "have"} relaxed ordering disabled in PCIe Device Control: NCCL's ` +
      "relaxed-ordered memory registrations then write strictly in order, which costs GPUDirect bandwidth on some " +
      "platforms (virtual machines, some CPUs); the kernel also turns it off on purpose for root ports with a known erratum.",
    fix: (e: { busIds: string[] }) =>
      `See it with \`lspci -vvv -s ${e.busIds[0]} | grep RlxdOrd\`; unless the platform disables it on purpose, ` +
      "enable it (BIOS or hypervisor setting) and compare nccl-tests bandwidth.",
  },
  PCIE_ACS_REDIRECT: {
    severity: "error",
    title: "PCIe ACS redirects GPU↔NIC traffic",
    message: (e: AcsEvidence) =>
      `PCIe bridge ${e.bridge}${e.portType ? ` (${e.portType.replace("_", " ")})` : ""} has ACS ` +
      `${e.redirects.join(", ")} enabled (ACS Control ${e.control}): peer-to-peer traffic between ` +
      `${e.pairs.join(", ")} is sent up to the root complex instead of across the switch, so GPUDirect RDMA runs ` +
      "slowly or hangs (NCCL stalls at start-up or reports far lower bus bandwidth).",
    // NCCL troubleshooting, "PCI Access Control Services (ACS)": disable ACS on bare metal; "Virtual machines require
    // ACS to function, hence disabling ACS is not an option. To run with maximum performance inside virtual machines,
    // ATS needs to be enabled in network adapters." (docs/userguide/source/troubleshooting/gpu_troubleshooting.rst,
    // https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html)
    fix: (e: AcsEvidence) => {
      const bare =
        'disable ACS on the PCIe switch ports: in the BIOS turn off "ACS" / "PCIe ACS control", or at boot clear it ' +
        `with \`setpci -s ${e.bridge} ECAP_ACS+0x6.w=0000\` (as root; lost at reboot — run it from a systemd unit on ` +
        "every GPU node)";
      const vms =
        "keep ACS (virtual machines need it for isolation) and enable ATS on the NICs instead (`mlxconfig -d <dev> " +
        "set ATS_ENABLED=true`, and in the hypervisor), so peer-to-peer traffic is translated once and then goes " +
        "across the switch";
      if (e.vmHost === false) return `This host passes no devices to VMs: ${bare}. Then rerun \`kube-rdma verify\`.`;
      if (e.vmHost === true) return `This host passes devices to VMs: ${vms}. Then rerun \`kube-rdma verify\`.`;
      return (
        `On bare metal, ${bare}. On a host that passes devices to virtual machines, ${vms}. Which one this host is ` +
        "cannot be seen from it: say so with --vm-host yes|no."
      );
    },
  },
  IOMMU_TRANSLATED: {
    severity: "warning",
    title: "IOMMU in translated mode",
    message: (e: { reason: string; units: string[]; cmdline: string | null }) =>
      `The IOMMU translates DMA (${e.reason}${e.units.length ? `; units ${e.units.join(", ")}` : ""}): every ` +
      "GPUDirect RDMA and NIC transfer walks the IOMMU's page tables, which costs bandwidth and can break " +
      "peer-to-peer between GPU and NIC.",
    fix: () =>
      "Boot with `iommu=pt` (passthrough) on the kernel command line (add it to GRUB_CMDLINE_LINUX in " +
      "/etc/default/grub, `update-grub` or `grub2-mkconfig`, reboot), or disable the IOMMU in the BIOS where no VM " +
      "needs it. `cat /proc/cmdline` and `cat /sys/kernel/iommu_groups/*/type` show the result.",
  },
  // The usual lossless RoCE setup gives RDMA its own class: DSCP 26 → priority 3 with PFC and ECN on priority 3,
  // CNPs on their own DSCP (48), and NCCL_IB_TC=106 (DSCP 26 << 2 | ECT) so NCCL's traffic lands there
  // (NVIDIA, "RoCE configuration for ConnectX / lossless fabric": https://enterprise-support.nvidia.com/s/article/lossless-roce-configuration-for-linux-drivers-in-dscp-based-qos-mode
  // and NCCL_IB_TC, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-tc). ECN-only
  // (DCQCN without PFC, "lossy RoCE") is a valid design whose cost is retransmission under loss.
  ROCE_NOT_LOSSLESS: {
    severity: "warning",
    title: "RoCE traffic is not lossless",
    message: (e: LosslessEvidence) =>
      `${e.netdev} (${e.hca}): NCCL's RoCE traffic uses priority ${e.priority} ` +
      `(traffic class ${e.trafficClass}${e.trafficClassSource === "hca" ? ", the HCA's global tclass" : ", NCCL_IB_TC unset"}, ` +
      `DSCP ${e.trafficClass >> 2}), and ${e.reasons.join("; ")}. ` +
      (e.reasons.some((r) => r.startsWith("ECN"))
        ? e.pfc !== "on"
          ? "Without ECN (DCQCN) nothing slows senders down before queues overflow" +
            (e.pfc === "unknown"
              ? " (PFC on this priority could not be read): without PFC packets are dropped and retransmitted; with it, pause frames are the only back-pressure (head-of-line blocking, congestion spreading)."
              : ": packets are dropped and retransmitted, and all-reduce bandwidth collapses under load.")
          : "PFC keeps the class from dropping, but without ECN (DCQCN) pause frames are the only back-pressure: a congested port pauses its upstream links, which blocks every flow behind them (head-of-line blocking), spreads the congestion through the fabric and can end in pause storms."
        : "With ECN (DCQCN) but no PFC this is a lossy RoCE design: valid when the switches mark ECN the same way, but every drop costs a retransmission (NCCL_IB_TIMEOUT) and heavy loss ends in completion status 12."),
    fix: (e: LosslessEvidence) =>
      "Give RDMA its own lossless class on the NICs and the switches alike: DSCP 26 → priority 3, PFC and ECN on " +
      `priority 3 (\`mlnx_qos -i ${e.netdev} --trust dscp --pfc 0,0,0,1,0,0,0,0\`, ` +
      `\`echo 1 > /sys/class/net/${e.netdev}/ecn/roce_np/enable/3\` and \`…/roce_rp/enable/3\`), CNPs on their own DSCP ` +
      "(48), and NCCL_IB_TC=106 in the jobs (DSCP 26 with ECN capable; kube-rdma nccl-env --traffic-class 106). " +
      "An ECN-only (lossy) fabric needs ECN on NCCL's priority at least.",
  },
  ROCE_QOS_DIFFERS: {
    severity: "warning",
    title: "RoCE QoS differs between data NICs",
    message: (e: QosDiffEvidence) =>
      `${e.netdev} (${e.hca}) has ${e.setting} ${e.value} while ${e.usualNetdevs} have ${e.usual}: its RoCE ` +
      `traffic (priority ${e.priority}) does not get the treatment the other rails get, so one rail is lossy or ` +
      "lands in another switch queue and slows every collective.",
    fix: (e: QosDiffEvidence) =>
      `Configure ${e.netdev} like the other data NICs (\`mlnx_qos -i ${e.netdev}\`, ` +
      `\`cat /sys/class/infiniband/${e.hca}/tc/1/traffic_class\`, the ecn/ switches under /sys/class/net/${e.netdev}); ` +
      "apply the same QoS script to every NIC at boot.",
  },
  // ib_core netns_mode: in exclusive mode rdma_dev_access_netns() lets a namespace reach only the devices moved into it
  // (Linux drivers/infiniband/core/device.c; iproute2 rdma-system(8): `rdma system set netns shared|exclusive`).
  RDMA_NETNS_EXCLUSIVE: {
    severity: "warning",
    title: "RDMA devices are namespace-exclusive",
    message: (e: { hcas: number }) =>
      `The kernel's RDMA network-namespace mode is exclusive (ib_core netns_mode=N): a pod on the pod network sees ` +
      `the node's ${e.hcas} HCA${e.hcas === 1 ? "" : "s"} only after one is moved into the pod's namespace. Handing a pod /dev/infiniband alone then gives it ` +
      "devices it cannot find: NCCL sees no IB device and falls back to TCP sockets.",
    fix: () =>
      "Intended only when an RDMA CNI moves each HCA (or VF) into its pod's namespace, as SR-IOV setups do. " +
      "Otherwise switch to shared mode: `rdma system set netns shared` on the host, and `options ib_core " +
      "netns_mode=1` in /etc/modprobe.d to keep it after a reboot.",
  },
  PORT_FLAPPING: {
    severity: "error",
    title: "Data port flapping",
    message: (e: FlapEvidence) =>
      `${e.hca}${e.netdev ? ` (${e.netdev})` : ""} lost its link ${e.linkDowned} time(s) and went through ` +
      `${e.linkErrorRecovery} link error recoveries in the last ${e.seconds} s: every flap stalls or kills the ` +
      "NCCL connections on this rail.",
    fix: (e: FlapEvidence) =>
      `Check the cable, optics and switch port of ${e.hca} (\`mlxlink -d ${e.hca}\`, the switch's port log); ` +
      "reseat or replace the cable; drain the node until the counters stop moving (`kube-rdma verify --watch 60`).",
  },
  // Several NICs on one subnet: with the default arp_ignore=0 / arp_announce=0 any NIC answers ARP for any local
  // address and sources ARP from any of them, and rp_filter=1 drops replies that arrive on another NIC than the route
  // (https://docs.kernel.org/networking/ip-sysctl.html). RoCE resolves the peer's MAC from the route of the source
  // IP (rdma_resolve_ip), so a wrong answer or a dropped reply ends in ibv_modify_qp ETIMEDOUT (110).
  MULTI_NIC_ARP: {
    severity: "warning",
    title: "Data NICs sharing a subnet without per-NIC ARP",
    message: (e: { netdev: string; hca: string; subnet: string; others: string; problems: string[] }) =>
      `${e.netdev} (${e.hca}) shares ${e.subnet} with ${e.others}, and ${e.problems.join("; ")}: another NIC may ` +
      `answer ARP for ${e.netdev}'s address or a reply may be dropped, so RoCE connections to this rail resolve the ` +
      "wrong MAC or time out (ibv_modify_qp error 110).",
    fix: (e: { netdev: string }) =>
      `Set \`sysctl -w net.ipv4.conf.${e.netdev}.arp_ignore=1 net.ipv4.conf.${e.netdev}.arp_announce=2 ` +
      `net.ipv4.conf.${e.netdev}.rp_filter=2\` (and in /etc/sysctl.d to keep it; conf.all counts too: the larger ` +
      "value wins) on every data NIC that shares a subnet, or give each rail its own subnet.",
  },
  MULTI_NIC_NO_SOURCE_ROUTE: {
    severity: "warning",
    title: "Data NIC sharing a subnet without a source route",
    message: (e: { netdev: string; ip: string; subnet: string; others: string }) =>
      `${e.netdev} (${e.ip}) shares ${e.subnet} with ${e.others}, and no \`ip rule\` sends traffic from ${e.ip} ` +
      "to a table of its own: the main table's first route for the subnet decides the egress NIC for every source " +
      "address, so RoCE address resolution for this rail goes out of another NIC.",
    fix: (e: { netdev: string; ip: string; subnet: string }) =>
      `Add a table per rail: \`ip route add ${e.subnet} dev ${e.netdev} src ${e.ip} table ${e.netdev}\` and ` +
      `\`ip rule add from ${e.ip} table ${e.netdev}\` (persist them in the network configuration), then check ` +
      `with \`ip route get <peer> from ${e.ip}\`.`,
  },
});
