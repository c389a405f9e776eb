/**
 * Where the node side of kube-rdma runs and what its two DaemonSets share on each node. One home for both manifests
 * (src/agent/manifests.ts, src/device-plugin/manifests.ts).
 *
 * Placement: only RDMA GPU nodes. A node qualifies when it carries both labels the NVIDIA operators publish —
 * `nvidia.com/gpu.present=true` (GPU Feature Discovery, GPU Operator:
 * https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-feature-discovery.html) and
 * `feature.node.kubernetes.io/pci-15b3.present=true` (Node Feature Discovery's PCI vendor label, published for a
 * Mellanox/NVIDIA NIC when NFD's deviceClassWhitelist includes network classes, as the Network Operator configures it:
 * https://kubernetes-sigs.github.io/node-feature-discovery/stable/usage/features.html#pci) — or the label an admin sets
 * by hand, `kubectl label node NODE kube-rdma.io/rdma-gpu-node=true`. CPU nodes get neither pod: no RDMAReady=False
 * report from a node that was never meant to have RDMA, and no share of the taint budget.
 */

export const RDMA_GPU_NODE_LABEL = "kube-rdma.io/rdma-gpu-node";
export const GPU_PRESENT_LABEL = "nvidia.com/gpu.present";
export const NFD_MELLANOX_LABEL = "feature.node.kubernetes.io/pci-15b3.present";

/** The DaemonSets' node affinity: (GPU and Mellanox NIC labels) or the hand-set label. */
export function rdmaGpuNodeAffinity(): Record<string, unknown> {
  const is = (key: string) => ({ key, operator: "In", values: ["true"] });
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [is(GPU_PRESENT_LABEL), is(NFD_MELLANOX_LABEL)] },
          { matchExpressions: [is(RDMA_GPU_NODE_LABEL)] },
        ],
      },
    },
  };
}

/**
 * The host directory the agent writes its HCA quarantine to and the device plugin reads it from (the two DaemonSets
 * are separate pods, so an emptyDir cannot join them). Root-owned (the kubelet creates it), so the agent runs as
 * uid 0 with every capability dropped, as the device plugin does.
 */
export const NODE_STATE_DIR = "/var/lib/kube-rdma";
export const QUARANTINE_FILE = `${NODE_STATE_DIR}/quarantine.json`;
export const NODE_STATE_VOLUME = "kube-rdma-state";

/**
 * Metrics: both DaemonSets run on the host network, so a listener on 0.0.0.0 would be open on every interface of the
 * node (the data NICs included) without authentication. They listen on the node's 127.0.0.1 by default; the optional
 * overlay deploy/overlays/metrics moves them to the node's own address (status.hostIP, the one the kubelet reports)
 * and adds the Services and PodMonitors Prometheus scrapes them through.
 */
export const PLUGIN_METRICS_PORT = 9465;
export const AGENT_METRICS_PORT = 9466;
