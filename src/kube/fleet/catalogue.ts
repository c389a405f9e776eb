import { defineCatalogue, type FindingSpec } from "../../core/finding.js";

type RailMismatch = {
  node: string;
  rail: number;
  hca: string;
  subnet: string | null;
  expected: string;
  expectedNodes: number;
  nodes: number;
  otherRail: number | null;
};

type RailLayout = { rails: number; nodes: number; layout: string; shared: boolean; mismatched: string[] };

type Odd = { node: string; attribute: string; value: string; majority: string; majorityNodes: number; nodes: number };

const differs = (title: string, fix: (e: Odd) => string): FindingSpec<Odd> => ({
  severity: "warning",
  title,
  message: (e) =>
    `${e.node}: ${e.attribute} is ${e.value}, while ${e.majorityNodes} of ${e.nodes} nodes have ${e.majority}.`,
  fix,
});

/** Fleet-level findings: nodes that differ from the majority, and nodes that could not be read. */
export const FLEET_FINDINGS = defineCatalogue({
  FLEET_OFED_DIFFERS: differs(
    "OFED differs from the fleet",
    (e) => `Install ${e.majority} on ${e.node} (ofed_info -s), or upgrade the fleet together.`,
  ),
  FLEET_DRIVER_DIFFERS: differs(
    "GPU driver differs from the fleet",
    (e) => `Align the NVIDIA driver on ${e.node} with ${e.majority}; mixed drivers give mixed CUDA/NCCL behaviour.`,
  ),
  FLEET_FIRMWARE_DIFFERS: differs(
    "HCA firmware differs from the fleet",
    (e) => `Flash the HCAs of ${e.node} to ${e.majority} (mlxfwmanager) to match the fleet.`,
  ),
  FLEET_HCA_COUNT_DIFFERS: differs(
    "HCA count differs from the fleet",
    (e) => `Check ${e.node} for a missing/dead HCA (kube-rdma verify on it; lspci | grep Mellanox).`,
  ),
  FLEET_MTU_DIFFERS: differs(
    "RoCE MTU differs from the fleet",
    (e) =>
      `Give the data NICs of ${e.node} the fleet's MTU (${e.majority}: \`ip link set <netdev> mtu …\`, persisted in ` +
      "the node's network config, and the same on its switch ports): a RoCE connection runs at the smaller active " +
      "MTU of its two ends, so every connection with this node sends smaller packets.",
  ),
  FLEET_PORT_RATES_DIFFER: differs(
    "port rates differ from the fleet",
    (e) =>
      `Check cables/transceivers and switch ports of ${e.node}; a port trained below the fleet's rate slows every ring it is in.`,
  ),
  FLEET_GID_LAYOUT_DIFFERS: differs(
    "RoCE v2 GID index layout differs from the fleet",
    (e) =>
      `A single NCCL_IB_GID_INDEX cannot fit ${e.node}; fix its addresses (extra IPv6/IPv4 on a data NIC) or let NCCL pick (NCCL_IB_GID_INDEX unset with NCCL ≥ 2.21).`,
  ),
  RAIL_SUBNET_MISMATCH: {
    severity: "error",
    title: "rail on another subnet than the fleet's",
    message: (e: RailMismatch) =>
      `${e.node}: rail ${e.rail} (${e.hca}) is on ${e.subnet ?? "no IPv4 subnet"}, while ${e.expectedNodes} of ` +
      `${e.nodes} nodes have rail ${e.rail} on ${e.expected}` +
      (e.otherRail !== null
        ? ` (${e.subnet} is rail ${e.otherRail}'s subnet: cabled or addressed on the wrong rail)`
        : "") +
      `. The rails were declared L2 (--rail-addressing l2: one subnet per rail on every node), so ${e.hca} on ${e.node} ` +
      `is cabled or addressed off rail ${e.rail} and cannot reach its peers' rail ${e.rail} within one subnet.`,
    fix: (e: RailMismatch) =>
      `Check ${e.hca}'s cable and switch port on ${e.node} and its address (\`ip -4 addr\`, the CNI/netplan config): ` +
      `rail ${e.rail} must be on ${e.expected}. If the rails are routed (a subnet per NIC per node), rerun with ` +
      "--rail-addressing routed instead.",
  } satisfies FindingSpec<RailMismatch>,
  RAIL_ADDRESSING_NOT_CHECKED: {
    severity: "info",
    title: "rail subnets differ between nodes; not judged without the rail addressing",
    message: (e: { nodes: number; differing: string[]; rails: number[] }) =>
      `Rail subnets differ between the ${e.nodes} nodes (rail(s) ${e.rails.join(", ")}; nodes off the most common ` +
      `subnet: ${e.differing.join(", ")}). Whether that is wrong depends on how the rails are addressed, which no ` +
      "host shows: on routed rails every NIC has its own per-node subnet by design; on L2 rails a different subnet " +
      "means a NIC on the wrong rail. Rail subnets were not checked.",
    fix: () =>
      "Rerun with --rail-addressing l2 (one subnet per rail on every node: differences become errors) or " +
      "--rail-addressing routed (a subnet per NIC per node: subnets are not compared). Either way, fleet bench " +
      "measures whether the rails reach each other.",
  } satisfies FindingSpec<{ nodes: number; differing: string[]; rails: number[] }>,
  FLEET_RAIL_LAYOUT_ROUTED: {
    severity: "info",
    title: "routed rails: subnets not compared",
    message: (e: { rails: number; nodes: number; from?: "declared" | "seen" }) =>
      `${e.rails} rail(s) across ${e.nodes} node(s), ` +
      (e.from === "seen"
        ? "routed: every data NIC is on a /31 or /30, a point-to-point link to its leaf (RFC 3021)"
        : "declared routed (a subnet per NIC per node)") +
      ": subnets differ by design and were not compared between nodes.",
    fix: () =>
      "A NIC cabled to the wrong leaf does not show in its address on routed rails: fleet bench measures each rail " +
      "between nodes and names one that is slow or unreachable.",
  } satisfies FindingSpec<{ rails: number; nodes: number; from?: "declared" | "seen" }>,
  FLEET_RAIL_LAYOUT: {
    severity: "info",
    title: "rail layout and NCCL_CROSS_NIC",
    message: (e: RailLayout) =>
      `${e.rails} rail(s) across ${e.nodes} node(s): ${e.layout}.` +
      (e.shared ? " Some rails share a subnet: the fabric is not separated into rails." : "") +
      (e.mismatched.length ? ` Nodes off their rails: ${e.mismatched.join(", ")}.` : ""),
    fix: (e: RailLayout) =>
      e.shared
        ? "Rails share subnets (a flat fabric): leave NCCL_CROSS_NIC at its default (2) or set 1, so NCCL may pair any NICs."
        : e.mismatched.length
          ? `Fix or cordon ${e.mismatched.join(", ")} first: with a rail off its subnet, NCCL_CROSS_NIC=0 makes that rail unreachable from the others.`
          : "Each rail is on its own subnet on every node (rail-optimized): set NCCL_CROSS_NIC=0 so rings and trees stay on one rail.",
  } satisfies FindingSpec<RailLayout>,
  NODE_COLLECT_FAILED: {
    severity: "error",
    title: "node could not be verified",
    // A reason that is a sentence already ends with its own period: "(0 bytes of log).." read as a typo.
    message: (e: { node: string; reason: string }) =>
      `${e.node} could not be verified: ${e.reason.replace(/\.$/, "")}.`,
    fix: (e: { node: string }) =>
      `kubectl describe node ${e.node}; rerun with --node ${e.node} and a longer --timeout, or run kube-rdma verify on the node itself.`,
  } satisfies FindingSpec<{ node: string; reason: string }>,
  SNAPSHOT_INVALID: {
    severity: "error",
    title: "node's snapshot is damaged",
    message: (e: { node: string; path: string; reason: string }) =>
      `${e.node}: its collector's snapshot cannot be read: ${e.reason}.`,
    fix: (e: { node: string; path: string }) =>
      e.path === "$"
        ? `The collector's log is not one whole snapshot. Rerun with --node ${e.node} (a longer --timeout if the pod was killed); if it repeats, read the pod's log or run \`kube-rdma collect\` on ${e.node}.`
        : `The value at ${e.path} is not what docs/snapshot.schema.json allows. Rerun with --node ${e.node} and a collector image (--image) of this kube-rdma's version; if it repeats, run \`kube-rdma collect\` on ${e.node} and look at that value.`,
  } satisfies FindingSpec<{ node: string; path: string; reason: string }>,
});

export type FleetCode = keyof typeof FLEET_FINDINGS;
