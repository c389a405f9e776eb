/** Words for RDMA fabric findings: ports, rates, GIDs, firmware, counters, bonds. */
import { defineCatalogue } from "../core/finding.js";

/** A finding about a table as a whole, read without a port (a pasted show_gids with no rows). */
type NoPort = { hca: null };

/** What `portEvidence` supplies for every port finding. */
type PortEvidence = { hca: string; port: string; portNumber: number; netdev: string | null; linkLayer: string };

type RateEvidence = PortEvidence & {
  rateGbps: number;
  rateText: string | null;
  usualGbps: number;
  usualCount: number;
  /** Set when the slower port is the management NIC (named by the node model, or guessed from a capture). */
  management?: "named" | "guessed";
};

type MtuEvidence = {
  /** `mlx5_4 port 1`. */
  port: string;
  activeMtu: number;
  usual: number;
  /** verify reads the netdev's MTU (the RoCE active MTU follows it); analyze reads ibv_devinfo's active_mtu. */
  netdev?: string | null;
  netdevMtu?: number | null;
};

type GidIndexEvidence = {
  index: number;
  usual: number;
  usualHcas: string;
  atUsual: string;
  netdev: string | null;
  port: string;
};

type FirmwareEvidence = {
  fwVer: string;
  usualFw: string;
  hcaType: string;
  usualHcas: string;
  pciAddress: string | null;
};

const counterList = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");

export const FABRIC_CATALOGUE = defineCatalogue({
  HCA_UNREADABLE: {
    severity: "error",
    title: "RDMA device whose directory cannot be read",
    message: (e: { hca: string; path: string; code: string; message: string }) =>
      `${e.hca} is listed in /sys/class/infiniband but ${e.path} cannot be read (${e.code}: ${e.message}): its ports, ` +
      "link state and role (data or management NIC) are unknown, so it is not counted among the data NICs and the node cannot be judged ready.",
    fix: (e: { hca: string; path: string }) =>
      `Look at the device by hand (\`ls -l ${e.path}\`, \`readlink -f /sys/class/infiniband/${e.hca}\`, \`ibv_devinfo -d ${e.hca}\`): ` +
      "a symlink loop or a damaged --root tree or snapshot is to be fixed; in a pod, mount the host's /sys read-only and pass --root.",
  },
  PORT_STATE_UNREADABLE: {
    severity: "error",
    title: "Data port whose link state cannot be read",
    message: (e: PortEvidence & { unreadable: string[] }) =>
      `${e.port}: ${e.unreadable.join(", ")} could not be read, so nothing shows that this data NIC's link is up; ` +
      "a port is judged ready only on what the kernel says (state 4: ACTIVE, phys_state 5: LinkUp, a rate).",
    fix: (e: PortEvidence) =>
      `Read the port by hand (\`cat /sys/class/infiniband/${e.hca}/ports/${e.portNumber}/{state,phys_state,rate}\`, ` +
      `\`ibv_devinfo -d ${e.hca}\`): run kube-rdma as root, or mount the host's /sys read-only into the pod and pass --root; ` +
      "an error from the driver there is the fault to fix.",
  },
  PORT_DOWN: {
    severity: "error",
    title: "Data port not active",
    message: (e: PortEvidence & { state: string; physState: string | null; operstate: string | null }) =>
      `${e.port} is ${e.state}${e.physState ? ` / ${e.physState}` : ""}` +
      (e.netdev ? ` (netdev ${e.netdev} ${e.operstate ?? "state unknown"})` : "") +
      ": this data NIC carries no RDMA traffic. NCCL drops ports that are not ACTIVE before it applies NCCL_IB_HCA, " +
      "so jobs run on the other ports (slower, or with peers unreachable on a rail-only fabric with " +
      "NCCL_CROSS_NIC=0); only when no listed port is active does NCCL find no IB device and fall back to sockets." +
      (e.state === "2: INIT" ? " INIT means the link is up but no subnet manager has configured the port." : ""),
    fix: (e: PortEvidence & { state: string }) =>
      e.linkLayer === "Ethernet"
        ? `Bring the link up: \`ip link set ${e.netdev ?? "<netdev>"} up\`; then check cable, optics and the switch ` +
          `port (\`ethtool ${e.netdev ?? "<netdev>"}\`, \`ibv_devinfo -d ${e.hca}\`) and rerun verify.`
        : `Check the cable and the switch port (\`ibstat ${e.hca}\`)` +
          (e.state === "2: INIT" ? "; start or fix the subnet manager (opensm / UFM)." : "."),
  },
  PORT_NOT_LINKUP: {
    severity: "error",
    title: "Data port physical state not LinkUp",
    message: (e: PortEvidence & { physState: string }) =>
      `${e.port} is 4: ACTIVE but its physical state is ${e.physState}, not 5: LinkUp: the link is retraining or flapping.`,
    fix: (e: PortEvidence) =>
      `Check optics and cable (\`mlxlink -d ${e.hca}\` from MFT` +
      (e.netdev ? `, \`ethtool -S ${e.netdev} | grep -iE 'err|discard'\`` : "") +
      "); reseat or replace the cable.",
  },
  MTU_MISMATCH: {
    severity: "warning",
    title: "Active MTU lower than on the other ports",
    message: (e: MtuEvidence) =>
      `${e.port} runs with an active MTU of ${e.activeMtu}` +
      (e.netdev && e.netdevMtu ? ` (its netdev ${e.netdev} has MTU ${e.netdevMtu})` : "") +
      `, the other data ports ${e.usual}.`,
    fix: (e: MtuEvidence, s: string) =>
      `On RoCE the active MTU follows the netdev's MTU (1500 → 1024, 4200/9000 → 4096): set the same MTU on ${e.netdev ?? `${s}'s netdev`} ` +
      "as on the others (and on its switch port); smaller packets cost bandwidth on that rail.",
  },
  RATE_MISMATCH: {
    severity: "error",
    title: "Data port slower than its peers",
    message: (e: RateEvidence) =>
      `${e.port} runs at ${e.rateGbps} Gb/s${e.rateText ? ` ("${e.rateText}")` : ""} while ${e.usualCount} ` +
      `${e.management ? "" : "data "}port(s) run at ${e.usualGbps} Gb/s` +
      (e.management === "named"
        ? ": it is the management NIC (per the node model), which is usually slower."
        : e.management === "guessed"
          ? ": likely the management NIC, which is usually slower."
          : ": collectives go at the pace of the slowest rail, so this node slows every job it joins."),
    fix: (e: RateEvidence) =>
      e.management
        ? `Nothing to do if ${e.hca} is the management/bootstrap NIC; keep it out of NCCL_IB_HCA.`
        : `Check the cable/optics and the switch port speed (${e.netdev ? `\`ethtool ${e.netdev}\`, ` : ""}` +
          `\`mlxlink -d ${e.hca}\`); a port trained on fewer lanes (2X of 4X) usually means a bad cable or lane: reseat ` +
          "or replace it.",
  },
  NO_ROCEV2_GID: {
    severity: "error",
    title: "No routable RoCE v2 GID",
    message: (e: PortEvidence & { content: "link_local_only" | "v1_only" }) =>
      `${e.port} has no RoCE v2 GID with an IPv4 or global IPv6 address: ` +
      (e.content === "link_local_only"
        ? `its table holds only link-local fe80:: GIDs, so ${e.netdev ?? "its netdev"} has no IP address. `
        : "its routable addresses appear only as RoCE v1 GIDs. ") +
      "NCCL cannot route RoCE v2 traffic through it.",
    fix: (e: PortEvidence & { content: "link_local_only" | "v1_only" }) =>
      e.content === "link_local_only"
        ? `Give ${e.netdev ?? "the netdev"} its data-network address back (\`ip addr show ${e.netdev ?? ""}\`, the ` +
          `CNI/netplan config); then \`kube-rdma gids ${e.hca}\` shows a v2 row with the address.`
        : `Check that the firmware/driver create RoCE v2 GIDs (\`ibv_devinfo -v -d ${e.hca}\`); update OFED/firmware.`,
  },
  GID_TABLE_EMPTY: {
    severity: "error",
    title: "Empty GID table",
    message: (e: (PortEvidence & { tableLength: number }) | NoPort) =>
      e.hca === null
        ? "the GID table read lists no GID at all (n_gids_found=0 or no rows): no RDMA port has even a link-local GID."
        : `${e.port} has no configured GID in its ${e.tableLength}-slot table, not even the default link-local one: ` +
          (e.linkLayer === "Ethernet"
            ? "the HCA is not bound to a netdev, so RoCE cannot address it."
            : "the port has no GUID-based GID, so it is not initialised."),
    fix: (e: PortEvidence | NoPort) =>
      `Check \`rdma link show${e.hca ? ` ${e.hca}` : ""}\` and \`ls /sys/class/infiniband/${e.hca ?? "*"}/ports/*/gid_attrs/ndevs/\`; reload ` +
      "the driver (`modprobe -r mlx5_ib && modprobe mlx5_ib`) or reboot.",
  },
  GID_LINK_LOCAL_ONLY: {
    severity: "info",
    title: "Link-local GIDs only (non-data NIC)",
    message: (e: PortEvidence & { role: string }) =>
      `${e.port} (${e.role} NIC) holds only link-local fe80:: GIDs: fine for TCP bootstrap, but it cannot carry ` +
      "routable RoCE v2 traffic.",
    fix: (e: PortEvidence) =>
      `Nothing to do unless it should carry RDMA; then give ${e.netdev ?? "its netdev"} an IP address.`,
  },
  // NCCL ≥ 2.21 picks the RoCE GID per HCA when NCCL_IB_GID_INDEX is unset (NCCL_IB_ADDR_FAMILY / NCCL_IB_ADDR_RANGE,
  // https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-addr-family): then a differing index
  // does no harm. It breaks a fixed NCCL_IB_GID_INDEX and NCCL < 2.21 (which defaults to index 0). The host does not
  // know the image's NCCL, so verify warns; preflight, which does, makes it an error where it breaks.
  GID_INDEX_DIFFERS: {
    severity: "warning",
    title: "RoCE v2 IPv4 GID index differs between HCAs",
    message: (e: GidIndexEvidence, subject: string) =>
      `${subject}'s RoCE v2 IPv4 GID sits at index ${e.index}, but at index ${e.usual} on ${e.usualHcas}: one ` +
      `NCCL_IB_GID_INDEX cannot fit every HCA (index ${e.usual} on ${subject} holds ${e.atUsual}). NCCL 2.21 and ` +
      "later find the GID per HCA by themselves when NCCL_IB_GID_INDEX is not set; an older NCCL, or a platform " +
      "that sets the variable, uses the wrong GID on this HCA.",
    fix: (e: GidIndexEvidence) =>
      "Make the address layout uniform (the same address families and aliases on every data netdev" +
      (e.netdev ? `, e.g. \`ip addr show ${e.netdev}\` for the extra address` : "") +
      "), or do not set NCCL_IB_GID_INDEX and let NCCL ≥ 2.21 pick the RoCE v2 IPv4 GID per HCA, steered with " +
      "NCCL_IB_ADDR_FAMILY=AF_INET and NCCL_IB_ADDR_RANGE=<data network CIDR>.",
  },
  GID_TABLE_SPARSE: {
    severity: "warning",
    title: "Holes in the GID table",
    message: (e: PortEvidence & { index: number; holes: number[]; uniform: boolean }) =>
      `${e.port} has empty slot(s) ${e.holes.join(", ")} before its RoCE v2 IPv4 GID at index ${e.index}` +
      (e.holes.includes(3)
        ? ": the folklore NCCL_IB_GID_INDEX=3 points at an empty slot here and NCCL fails to connect."
        : ": the folklore NCCL_IB_GID_INDEX=3 does not match this table."),
    fix: (e: PortEvidence & { index: number; holes: number[]; uniform: boolean }) =>
      (e.uniform
        ? `Set NCCL_IB_GID_INDEX=${e.index} for this node (it is the same on every data HCA), or better `
        : "Fix the differing indices first (see GID_INDEX_DIFFERS), or ") +
      "leave NCCL_IB_GID_INDEX unset with NCCL ≥ 2.21 and NCCL_IB_ADDR_FAMILY=AF_INET; `kube-rdma nccl-env` derives " +
      "the value. Holes come from addresses removed or links toggled while a GID was in use; a reboot compacts them.",
  },
  FW_MISMATCH: {
    severity: "warning",
    title: "Firmware differs between data HCAs",
    message: (e: FirmwareEvidence, subject: string) =>
      `${subject} (${e.hcaType}) runs firmware ${e.fwVer} while ${e.usualHcas} (${e.hcaType}) run ${e.usualFw}: ` +
      "mixed firmware behaves differently between rails (link training, congestion control, counters).",
    fix: (e: FirmwareEvidence, subject: string) =>
      `Update it to the fleet's version (\`mlxfwmanager -u -d ${e.pciAddress ?? subject}\` from MFT, or ` +
      `\`mlnx_fw_updater\` with OFED), then \`mlxfwreset\` or reboot; check with \`ibv_devinfo -d ${subject} | grep fw_ver\`.`,
  },
  PORT_ERROR_COUNTERS: {
    severity: "warning",
    title: "Link error counters",
    message: (e: PortEvidence & { counters: Record<string, number>; sinceSeconds?: number }) =>
      `${e.port} ${e.sinceSeconds === undefined ? "has non-zero link error counters" : "counted link errors"}: ` +
      `${counterList(e.counters)} ` +
      (e.sinceSeconds === undefined
        ? "(since they were last cleared, usually at boot)"
        : `in the last ${Math.round(e.sinceSeconds)} s`) +
      ": a marginal cable or optic, or a link that went down.",
    fix: (e: PortEvidence) =>
      "See whether they grow: rerun `kube-rdma verify` after a job, or watch " +
      `\`cat /sys/class/infiniband/${e.hca}/ports/${e.portNumber}/counters/symbol_error\`; if they do, reseat or ` +
      `replace the cable (\`mlxlink -d ${e.hca} -c\` shows the bit error rate).`,
  },
  ROCE_COUNTERS: {
    severity: "warning",
    title: "RoCE transport error counters",
    message: (e: PortEvidence & { counters: Record<string, number>; sinceSeconds?: number }) =>
      `${e.port} has RoCE transport error counters: ${counterList(e.counters)}` +
      `${e.sinceSeconds === undefined ? "" : ` (grown in the last ${Math.round(e.sinceSeconds)} s)`}: packets were lost or reordered and ` +
      "had to be retransmitted, usually a lossy fabric (PFC/ECN not configured end to end).",
    fix: (e: PortEvidence) =>
      `Check lossless settings (\`mlnx_qos -i ${e.netdev ?? "<netdev>"}\` for PFC on the RoCE priority, ` +
      `\`ethtool -S ${e.netdev ?? "<netdev>"} | grep -E 'pause|discard'\`) and watch growth with ` +
      `\`rdma statistic show link ${e.hca}/${e.portNumber}\` during a job.`,
  },
  // mlx5 hw_counters: out_of_buffer = "drops occurred due to lack of WQE for the associated QPs" (NVIDIA,
  // "Understanding mlx5 Linux Counters and Status Parameters",
  // https://enterprise-support.nvidia.com/s/article/understanding-mlx5-linux-counters-and-status-parameters).
  // Two counters share the name: the RDMA Q counter hw_counters/out_of_buffer counts packets dropped because the
  // QPs' receive WQEs were not posted in time (responder not ready: RNR), and the netdev's ethtool rx_out_of_buffer
  // counts the Ethernet receive rings' drops, where ring size and IRQ affinity matter (NVIDIA, "Understanding mlx5
  // Linux Counters and Status Parameters",
  // https://enterprise-support.nvidia.com/s/article/understanding-mlx5-linux-counters-and-status-parameters;
  // kernel Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst).
  RX_OUT_OF_BUFFER: {
    severity: "warning",
    title: "Received packets dropped: no receive buffer posted",
    // verify reads hw_counters/out_of_buffer of a port; analyze reads `ethtool -S`'s rx_out_of_buffer (no port known).
    message: (e: Partial<PortEvidence> & { drops: number; sinceSeconds?: number; counter?: string }) => {
      const ethtool = (e.counter ?? "out_of_buffer").startsWith("rx_");
      const when =
        e.sinceSeconds === undefined
          ? " since the counters were last cleared"
          : ` in the last ${Math.round(e.sinceSeconds)} s`;
      return (
        `${e.port ?? "The NIC"} dropped ${e.drops} received packet${e.drops === 1 ? "" : "s"} because no receive ` +
        `buffer was posted (${e.counter ?? "out_of_buffer"})${when}: ` +
        (ethtool
          ? "the netdev's Ethernet receive rings were full: the host did not keep up with what arrived (busy or " +
            "throttled CPU cores, rings too small)."
          : "this RDMA counter counts packets that arrived for a queue pair with no receive work request posted in " +
            "time (the application did not re-post receives fast enough: RNR); the sender retries.")
      );
    },
    fix: (e: Partial<PortEvidence> & { counter?: string }) =>
      (e.counter ?? "out_of_buffer").startsWith("rx_")
        ? "Take two captures during a job to see it grow; if it does, check the NIC's interrupt affinity and CPU " +
          "load on its NUMA node, and the receive ring size (`ethtool -g`)."
        : `Watch it grow during a job (\`kube-rdma verify --watch 30\`, or \`cat /sys/class/infiniband/${e.hca ?? "<hca>"}/` +
          `ports/${e.portNumber ?? 1}/hw_counters/out_of_buffer\`); if it does, find the RDMA process on that port ` +
          "(`rdma resource show qp`) and whether it is starved of CPU or posts too few receives; NIC ring size and " +
          "IRQ affinity concern the ethtool counter rx_out_of_buffer, not this one.",
  },
  // DCQCN: the notification point (receiver) sends a CNP for ECN-marked RoCE v2 packets (np_cnp_sent,
  // np_ecn_marked_roce_packets), the reaction point (sender) lowers its rate for each CNP it handles (rp_cnp_handled)
  // (same NVIDIA counters article; DCQCN, Zhu et al., SIGCOMM 2015).
  ROCE_CONGESTION_SEEN: {
    severity: "info",
    title: "RoCE congestion control acted",
    message: (e: PortEvidence & { counters: Record<string, number>; sinceSeconds?: number; perSecond?: string }) =>
      `${e.port}: ${counterList(e.counters)}` +
      (e.sinceSeconds === undefined
        ? " since the counters were last cleared"
        : ` in the last ${Math.round(e.sinceSeconds)} s (${e.perSecond})`) +
      ": switches marked packets with ECN and the senders slowed down. That is congestion control working, not an " +
      "error; a rate that climbs while bandwidth falls means a congested link or an incast pattern.",
    fix: () =>
      "Compare the rate on every node during a job (`kube-rdma verify --watch 30`): one port with far more CNPs than " +
      "its peers points at its switch port or uplink.",
  },
  BOND_PRESENT: {
    severity: "info",
    title: "RoCE LAG (bond) device",
    message: (e: { bond: string | null; slaves: string[]; role: string }, subject: string) =>
      `${subject} is a RoCE LAG device${e.bond ? ` on ${e.bond}` : ""}` +
      `${e.slaves.length ? ` (slaves ${e.slaves.join(", ")})` : ""}: one HCA for the bonded ports; it is a ${e.role} NIC here.`,
    fix: (_e: unknown, subject: string) =>
      `Nothing to do. Name ${subject} (not the slave ports' HCAs) in NCCL_IB_HCA when it carries data; ` +
      "`kube-rdma nccl-env` does.",
  },
  // The kernel derives a RoCE port's active MTU from its netdev's (iboe_get_mtu, include/rdma/ib_addr.h): 1500 →
  // 1024. NCCL uses the port's active MTU (NCCL_IB_MTU unset), so every message goes in 1 KiB packets.
  ROCE_MTU_LOW: {
    severity: "warning",
    title: "RoCE active MTU below 4096",
    // netdevMtus null: read from ibv_devinfo (analyze), which does not print the netdev's MTU.
    message: (e: { ports: string; activeMtu: number; netdevMtus: string | null }) =>
      `The RoCE data ports ${e.ports} run with an active MTU of at most ${e.activeMtu}${e.netdevMtus === null ? "" : ` (netdev MTU ${e.netdevMtus})`}, ` +
      "below RoCE's 4096: NCCL sends in packets of that size, so the NICs handle up to four times the packets for " +
      "the same bytes, and header overhead and packet-rate limits cost bandwidth on every rail.",
    fix: () =>
      "Set MTU 9000 (or at least 4200: 4096 plus 96 bytes of RoCE headers) on every data netdev (`ip link set dev IF " +
      "mtu 9000`, persisted in the network configuration) and the same or larger on the switch ports, then check " +
      "`ibv_devinfo -d <hca> | grep active_mtu` shows 4096.",
  },
  // An iWARP device's connections are set up by the kernel through rdma_cm (its QP state machine lives in the
  // kernel: https://github.com/linux-rdma/rdma-core/pull/156; Open MPI's iWARP transport does rdmacm-only setup:
  // https://github.com/open-mpi/ompi/pull/5192). NCCL's IB transport moves QPs to RTR itself with a GID/LID address.
  IWARP_DEVICE: {
    severity: "error",
    title: "iWARP device among the data NICs",
    // `seen`: how a capture said it (analyze of ibv_devinfo: `transport: iWARP (1)`), instead of sysfs node_type.
    message: (e: { nodeType: string; driver: string | null; seen?: string }, subject: string) =>
      `${subject} is an iWARP device (${e.seen ?? `node_type ${e.nodeType}`}${e.driver ? `, ${e.driver}` : ""}): iWARP sets up its connections ` +
      "only through rdma_cm, while NCCL's IB transport connects its queue pairs itself with a RoCE or InfiniBand " +
      "address, so NCCL cannot use it and falls back to TCP sockets or fails to connect.",
    fix: (_e: unknown, subject: string) =>
      `Confirm with \`cat /sys/class/infiniband/${subject}/node_type\` and \`ibv_devinfo -d ${subject} | grep transport\` ` +
      "(iWARP). Switch the NIC to RoCE where it can (Intel E810 irdma: `roce_ena=1` module parameter, or " +
      `\`devlink dev param set … name enable_roce value true\`), or exclude it: \`NCCL_IB_HCA=^=${subject}\`.`,
  },
  // rdma_cm's default ToS applies to connections made through rdma_cm (configfs-rdma_cm ABI); NCCL's IB transport
  // creates and connects its QPs with verbs (net_ib: ibv_modify_qp with NCCL_IB_TC as the GRH traffic class).
  CMA_TOS_NOT_NCCL: {
    severity: "warning",
    title: "rdma_cm ToS set, but NCCL does not use rdma_cm",
    message: (e: { hca: string; tos: number; priority: number }) =>
      `${e.hca} has rdma_cm's default RoCE ToS set to ${e.tos} (DSCP ${e.tos >> 2}; ` +
      `/sys/kernel/config/rdma_cm/${e.hca}/ports/1/default_roce_tos) and no global traffic class: NCCL connects its ` +
      `queue pairs without rdma_cm, so its RoCE traffic keeps NCCL_IB_TC (default 0, DSCP 0, priority ${e.priority} ` +
      "here), not the class the fabric's QoS was set up for.",
    fix: (e: { hca: string; tos: number }) =>
      `Set NCCL_IB_TC=${e.tos} in the jobs (\`kube-rdma nccl-env --traffic-class ${e.tos}\`), or give the HCA a ` +
      `global traffic class every QP uses (MLNX_OFED: \`echo ${e.tos} > /sys/class/infiniband/${e.hca}/tc/1/traffic_class\`).`,
  },
  // A subnet has one master SM, whose LID every port of it reports as sm_lid (sysfs ports/N/sm_lid); ports reporting
  // different SM LIDs are in separate subnets, which hosts cannot cross without IB routers. Adaptive routing is
  // enabled per SL in the SM's configuration, which no host file shows.
  IB_SUBNETS_DIFFER: {
    severity: "info",
    title: "InfiniBand data ports in several subnets",
    message: (e: { groups: string; count: number }) =>
      `The InfiniBand data ports report ${e.count} different subnet managers (sm_lid: ${e.groups}): they are ` +
      "separate subnets, so a port reaches only ports of its own subnet on other nodes. That is right for " +
      "rail-isolated fabrics (one subnet per rail) only when every node wires rail N to subnet N and NCCL keeps " +
      "each rail to itself.",
    fix: () =>
      "If the rails are meant to be one fabric, check the cabling and the SM (`sminfo`, `ibstat`); if they are " +
      "one subnet per rail, run jobs with NCCL_CROSS_NIC=0. Adaptive routing and the SL it is enabled on are set in " +
      "the SM (opensm's ar/sl settings or UFM), which a node cannot read: check them there (`ibdiagnet`).",
  },
  // carrier_changes counts every link up and down of a netdev (Documentation/ABI/testing/sysfs-class-net): growth
  // between two readings is a flap, whatever the RDMA counters say.
  CARRIER_FLAPPING: {
    severity: "error",
    title: "Data netdev link went down and up",
    message: (e: { netdev: string; hca: string; changes: number; seconds: number }) =>
      `${e.netdev} (${e.hca}) changed its carrier ${e.changes} time(s) in the last ${e.seconds} s ` +
      `(/sys/class/net/${e.netdev}/carrier_changes): the link went down and up, and every NCCL connection on this ` +
      "rail stalls or fails meanwhile.",
    fix: (e: { netdev: string; hca: string }) =>
      `Read the PHY counters: \`ethtool -S ${e.netdev} | grep -E 'link_down_events_phy|rx_crc_errors_phy|rx_symbol_err_phy|fec'\` ` +
      `and \`mlxlink -d ${e.hca} -c\` (FEC corrected/uncorrectable, BER); check the cable, optics and switch port, ` +
      "and drain the node until the counter stands still (`kube-rdma verify --watch 60`).",
  },
});
