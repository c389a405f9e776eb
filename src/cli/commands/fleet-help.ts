/** What `fleet verify --help` and `fleet bench --help` teach. */

export const VERIFY_DESCRIPTION = `fleet verify runs \`kube-rdma collect -o - --root /host\` on each selected node in a short-lived pod (pinned with
spec.nodeName, host /sys, /proc, /dev/infiniband and /usr/bin read-only under /host, hostNetwork, tolerating every
taint),
reads each snapshot from the pod's log, deletes every pod it created (also on errors and Ctrl-C), and analyses
centrally: the per-node verify result, and fleet consistency — OFED, NVIDIA driver, HCA firmware, HCA count, data
port rates and the RoCE v2 GID index layout compared with the majority, naming the odd nodes.
Rails (the N-th data HCA of every node) are compared by subnet only when you say how they are addressed:
--rail-addressing l2 (one subnet per rail on every node) or routed (a subnet per NIC per node). Without it, rails
whose every NIC is on a /31 or /30 are routed as the nodes show; other differing rail subnets are reported as not
checked.
Nodes: --node (repeatable), -l SELECTOR, or by default every node with a GPU and an RDMA resource.
Nodes that time out or fail are listed (exit 1), never hidden. Needs deploy/fleet (namespace kube-rdma, RBAC:
nodes get/list; pods create/get/list/delete and pods/log get in that namespace) and the image from the Dockerfile.
A node whose agent (kube-rdma agent, deploy/agent) wrote a report within --max-age seconds is judged from that
report: no pod is started for it; the others are collected. Each node says where its result came from.
--save-snapshots DIR keeps each node's snapshot as DIR/NODE.json; --from-snapshots DIR analyses such a directory
later without a cluster (no pods, no API): the same report and exit codes, so fleet rules can be reproduced anywhere.

What the API server already says is answered at once: a node whose kubelet is not Ready gets no pod and fails with
its Ready condition; a collector pod with PodScheduled=False fails with the scheduler's reason, not at --timeout.
Nodes are listed 500 a page and kept as a few facts each, so 10,000 Node objects are never held at once.`;

export const BENCH_DESCRIPTION = `fleet bench finds the slow node, the slow rail (node + HCA) and the slow switch link in a handful of rounds of
2-node nccl-tests jobs. Round 1 pairs every node once: half of each leaf with a neighbour under the same leaf, the
rest with nodes spread over the other leaves, so every leaf's uplink is crossed many times. Later rounds re-test only
the suspects, side by side: each in a rail test (one 2-rank test per HCA, NCCL_IB_HCA==<hca>) with a node of its own
leaf that reached full speed — slow on every rail names the node, on one HCA the rail; proven-good nodes slow across
leaves name the leaf's uplink. Each result is compared per message size with the fleet median (MAD-based threshold,
% of the median and of line rate). Findings: FLEET_BAD_NODE, FLEET_BAD_RAIL, FLEET_BAD_UPLINK, FLEET_BAD_LINK (errors
when confirmed by two tests or by a rail test against a same-leaf partner), FLEET_SUSPECT and FLEET_FLAKY_LINK
(warnings, with the next test), FLEET_JOB_FAILED (jobs that never scheduled or failed, listed, never hidden), FLEET_NODES_UNTESTED (an error:
nodes that no job measured are never a pass). The
wall-time budget is printed before anything runs. Each test is an MPIJob (workers pinned to the two nodes, gang of
3 under Volcano) in namespace kube-rdma-bench, deleted when done (also on Ctrl-C); leaves come from Volcano HyperNodes,
node labels (network.topology/leaf, …, or --leaf-label) or are unknown. Needs the MPI operator, Volcano and
deploy/fleet/bench-rbac.yaml. --simulate N runs the same planner and diagnosis against a simulated fabric with
planted faults and prints {rounds, jobs, found, truth, budgetSeconds, simulatedSeconds} (exit 0).

Rail-optimised fabrics (--topology rail-optimised, or a YAML file with layout, units, rails, oversubscription,
spines, nodeModel): the fleet is cut into scalable units; NIC i of every node in a unit plugs into leaf i of that
unit, so two nodes of one unit talk rail to rail through one leaf, and two of different units cross
leaf → uplink → spine → leaf on the same rail, each flow hashed (ECMP on its UDP 5-tuple) onto one uplink and one
spine port. A leaf has downlinks ÷ oversubscription uplinks. The rail-aware plan: round 1 pairs every node with a
node of its own unit (no uplink crossed, nothing congested); then suspects run rail tests beside a spine sweep in
waves: proven-good nodes of different units, each rail's two flows steered by their source port onto an uplink and
a spine port not yet crossed, never two flows on one uplink in a wave, until every uplink and spine port is crossed
twice; a hop that slow tests blame alone is crossed again alone, and two such slow tests name it. Rail tests use the
NIC each GPU is nearest on PCIe (--node-model dgx-h100: mlx5_0,3,4,5,6,9,10,11), not the i-th name of a list.
Identifiers: nodes node-0042, NICs node-0042/rail3 (the NIC of GPU 3), leaf uplinks unit1/leaf3/uplink5 (leaf 3
= rail 3 of unit 1), spine ports spine2/port7; found and truth use the same names. Findings:
FLEET_BAD_LEAF_UPLINK, FLEET_BAD_SPINE_PORT, FLEET_NIC_DOWN, FLEET_HOPS_NOT_CLEARED (hops no test cleared). Faults: --bad-nodes, --bad-rails (one NIC), --bad-uplinks,
--bad-spine-ports, --flapping; congestion is not planted: it comes from flows sharing a link fairly.

On a cluster the hop tests need to know each flow's path. On InfiniBand the subnet manager's routes give it
exactly (the source port plays no part): on a host with the fabric's management access run
  ibnetdiscover > wiring.txt; dump_lfts.sh > lfts.txt
then kube-rdma fleet topology --from-ibnetdiscover wiring.txt > topology.yaml, and bench with
--topology topology.yaml --ib-wiring wiring.txt --ib-routes lfts.txt (--hcas in the same rail order). A flow the
tables cannot route (a LID missing, a port without a cable, a loop) keeps unknown hops and is said so. On RoCE the
NIC picks each flow's source port, so nothing here traces it: the node and NIC rounds run, and every leaf uplink
and spine port is listed as not cleared.`;
