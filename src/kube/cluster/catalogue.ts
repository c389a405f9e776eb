import { defineCatalogue, type FindingSpec } from "../../core/finding.js";

type NodeE = { node: string };

/** Every `cluster` finding: code, words and the fix, written once. */
export const CLUSTER_FINDINGS = defineCatalogue({
  TOO_FEW_RDMA_GPU_NODES: {
    severity: "error",
    title: "fewer than 2 schedulable GPU + RDMA nodes",
    message: (e: { count: number; nodes: string[] }) =>
      `${e.count} schedulable node(s) offer both GPUs and an RDMA resource${e.nodes.length ? ` (${e.nodes.join(", ")})` : ""}; RDMA distributed training needs at least 2.`,
    fix: () =>
      "Make at least two GPU nodes with RDMA NICs Ready and schedulable, with the RDMA device plugin running on them " +
      "(kubectl get nodes -o custom-columns=NAME:.metadata.name,RDMA:.status.allocatable).",
  } satisfies FindingSpec<{ count: number; nodes: string[] }>,
  NODE_NO_RDMA_RESOURCE: {
    severity: "error",
    title: "GPU node without an RDMA resource",
    message: (e: NodeE & { usual: string }) =>
      `GPU node ${e.node} advertises no RDMA resource, while other GPU nodes have ${e.usual}; RDMA jobs cannot be scheduled there.`,
    fix: (e: NodeE & { usual: string }) =>
      `Check the RDMA device plugin pod on ${e.node} (kubectl -n kube-system get pods -o wide --field-selector spec.nodeName=${e.node}) ` +
      "and that OFED and the RDMA NICs are up on the node (kube-rdma verify on it).",
  } satisfies FindingSpec<NodeE & { usual: string }>,
  NO_RDMA_RESOURCE: {
    severity: "error",
    title: "no node advertises an RDMA resource",
    message: (e: { gpuNodes: number }) =>
      `none of the ${e.gpuNodes} GPU node(s) advertises an RDMA resource (rdma/hca or another provider's name).`,
    fix: () =>
      "Install an RDMA device plugin (kube-rdma's: the Install section of the README; or your platform's) and check " +
      "`kubectl get ds -A | grep rdma`.",
  } satisfies FindingSpec<{ gpuNodes: number }>,
  RDMA_ALLOCATABLE_ZERO: {
    severity: "error",
    title: "RDMA allocatable is 0",
    message: (e: NodeE & { resource: string; capacity: number }) =>
      `${e.node} has ${e.resource} capacity ${e.capacity} but allocatable 0: the kubelet sees no healthy device of the plugin (every unit Unhealthy, or the plugin is not running or not registered).`,
    fix: (e: NodeE & { resource: string }) =>
      `Look at the RDMA device plugin pod on ${e.node}: kubectl get pods -A -o wide --field-selector spec.nodeName=${e.node} | grep -i rdma, ` +
      `then its log (a port down makes units Unhealthy); restart it if it is not registered: kubectl delete pod <that pod>.`,
  } satisfies FindingSpec<NodeE & { resource: string; capacity: number }>,
  RDMA_ALLOCATABLE_DIFFERS: {
    severity: "warning",
    title: "RDMA allocatable differs between identical nodes",
    message: (e: NodeE & { resource: string; value: number; usual: number; group: string }) =>
      `${e.node} offers ${e.resource}=${e.value} while the other ${e.group} nodes offer ${e.usual}.`,
    fix: (e: NodeE) =>
      `Compare the device plugin configuration and logs on ${e.node} with a good node; restarting its RDMA device plugin pod re-registers the resource.`,
  } satisfies FindingSpec<NodeE & { resource: string; value: number; usual: number; group: string }>,
  GPU_ALLOCATABLE_LOW: {
    severity: "warning",
    title: "fewer allocatable GPUs than installed",
    message: (e: NodeE & { resource: string; capacity: number; allocatable: number }) =>
      `${e.node} has ${e.capacity} ${e.resource} but only ${e.allocatable} allocatable: the GPU device plugin marked some unhealthy.`,
    fix: (e: NodeE) => `Run kube-rdma verify (or nvidia-smi) on ${e.node} and look for Xid / ECC / row-remap errors.`,
  } satisfies FindingSpec<NodeE & { resource: string; capacity: number; allocatable: number }>,
  NODE_NOT_READY: {
    severity: "error",
    title: "GPU node not Ready",
    message: (e: NodeE & { reason: string }) => `GPU node ${e.node} is not Ready (${e.reason}).`,
    fix: (e: NodeE) => `kubectl describe node ${e.node}; check the kubelet and container runtime on it.`,
  } satisfies FindingSpec<NodeE & { reason: string }>,
  NODE_CORDONED: {
    severity: "warning",
    title: "GPU node cordoned",
    message: (e: NodeE) => `GPU node ${e.node} is cordoned (spec.unschedulable): no new pods land there.`,
    fix: (e: NodeE) => `If the node is healthy again: kubectl uncordon ${e.node}.`,
  } satisfies FindingSpec<NodeE>,
  NODE_TAINTED: {
    severity: "info",
    title: "GPU node tainted",
    message: (e: NodeE & { taints: string[] }) =>
      `GPU node ${e.node} has NoSchedule/NoExecute taints: ${e.taints.join(", ")}; jobs need matching tolerations.`,
    fix: (e: NodeE & { taints: string[] }) =>
      `Add tolerations for ${e.taints.join(", ")} to the job's pod templates, or remove the taint if it is stale.`,
  } satisfies FindingSpec<NodeE & { taints: string[] }>,
  RDMA_DEVICE_PLUGIN_MISSING: {
    severity: "error",
    title: "no RDMA device plugin DaemonSet",
    message: () =>
      "no RDMA device plugin DaemonSet was found (rdma-device-plugin, ack-rdma-dp-ds, rdma-shared-dp-ds…).",
    fix: () =>
      "Install an RDMA device plugin: kube-rdma's (kubectl apply -k deploy/overlays/default, see the README's Install " +
      "section) or your platform's, then check `kubectl get ds -A | grep rdma`.",
  } satisfies FindingSpec<Record<string, never>>,
  GPU_DEVICE_PLUGIN_MISSING: {
    severity: "warning",
    title: "no GPU device plugin DaemonSet",
    message: () => "no GPU device plugin DaemonSet was found (nvidia-device-plugin, cce-gpu-manager, amdgpu…).",
    fix: () =>
      "Install the GPU device plugin of your GPUs (or the GPU operator that ships it), then check `kubectl get ds -A | grep -i gpu`.",
  } satisfies FindingSpec<Record<string, never>>,
  DEVICE_PLUGIN_NOT_READY: {
    severity: "error",
    title: "device plugin pods not ready",
    message: (e: { daemonSet: string; desired: number; ready: number; nodes: string[] }) =>
      `DaemonSet ${e.daemonSet}: ${e.ready} of ${e.desired} pods ready${e.nodes.length ? `; not ready on ${e.nodes.join(", ")}` : ""}.`,
    fix: (e: { daemonSet: string; namespace: string; nodes: string[] }) =>
      `kubectl -n ${e.namespace} get pods -o wide -l app=${e.daemonSet.split("/").pop()} and read the failing pod's logs ` +
      `(kubectl -n ${e.namespace} logs POD --previous); an RDMA plugin started before OFED loaded must be restarted.`,
  } satisfies FindingSpec<{ daemonSet: string; namespace: string; desired: number; ready: number; nodes: string[] }>,
  DEVICE_PLUGIN_NOT_ON_NODE: {
    severity: "error",
    title: "device plugin not running on a GPU node",
    message: (e: NodeE & { daemonSet: string }) => `DaemonSet ${e.daemonSet} has no pod on GPU node ${e.node}.`,
    fix: (e: NodeE & { daemonSet: string }) =>
      `Check the DaemonSet's nodeSelector/tolerations against ${e.node}'s labels and taints (kubectl describe ds ${e.daemonSet.split("/").pop()}).`,
  } satisfies FindingSpec<NodeE & { daemonSet: string }>,
  VOLCANO_CRD_MISSING: {
    severity: "error",
    title: "Volcano CRDs missing",
    message: (e: { missing: string[] }) => `Volcano's CRDs are missing: ${e.missing.join(", ")}.`,
    fix: () =>
      "Install the Volcano scheduler (the volcano-development.yaml manifest of a Volcano release), or generate jobs for the scheduler you run: kube-rdma job --scheduler default|kueue|coscheduling.",
  } satisfies FindingSpec<{ missing: string[] }>,
  SCHEDULER_NOT_INSTALLED: {
    severity: "error",
    title: "the chosen gang scheduler is not installed",
    message: (e: { scheduler: string; crd: string; install: string }) =>
      `jobs are to use --scheduler ${e.scheduler}, but the cluster has no ${e.crd} CRD: their pods would stay Pending.`,
    fix: (e: { scheduler: string; crd: string; install: string }) =>
      `${e.install}; or generate the jobs for a scheduler the cluster has (kube-rdma job --scheduler …).`,
  } satisfies FindingSpec<{ scheduler: string; crd: string; install: string }>,
  VOLCANO_SCHEDULER_MISSING: {
    severity: "error",
    title: "Volcano scheduler not running",
    message: () => "no volcano-scheduler Deployment was found; jobs with schedulerName: volcano stay Pending.",
    fix: () => "Install or repair the Volcano scheduler (kubectl get deploy -A | grep volcano).",
  } satisfies FindingSpec<Record<string, never>>,
  COMPONENT_NOT_READY: {
    severity: "error",
    title: "component Deployment not ready",
    message: (e: { deployment: string; replicas: number; ready: number; role: string }) =>
      `${e.role} ${e.deployment}: ${e.ready} of ${e.replicas} replicas ready.`,
    fix: (e: { deployment: string; namespace: string }) =>
      `kubectl -n ${e.namespace} describe deploy ${e.deployment.split("/").pop()} and read its pods' logs.`,
  } satisfies FindingSpec<{ deployment: string; namespace: string; replicas: number; ready: number; role: string }>,
  TRAINING_CRD_MISSING: {
    severity: "error",
    title: "training-operator CRD missing",
    message: (e: { crd: string; kind: string; needed: string }) =>
      `the ${e.kind} CRD ${e.crd} is missing (${e.needed}).`,
    fix: () =>
      "Install the training operator (" +
      "kubectl apply -k github.com/kubeflow/training-operator/manifests/overlays/standalone; MPIJob v2beta1 comes with mpi-operator).",
  } satisfies FindingSpec<{ crd: string; kind: string; needed: string }>,
  TRAINING_OPERATOR_MISSING: {
    severity: "error",
    title: "training operator controller not running",
    message: () =>
      "the training-operator CRDs exist but no operator Deployment was found; PyTorchJobs would never start.",
    fix: () => "Install or repair the training operator controller (kubectl get deploy -A | grep -i operator).",
  } satisfies FindingSpec<Record<string, never>>,
  GANG_FLAG_MISSING: {
    severity: "warning",
    title: "operator does not gang-schedule with Volcano",
    message: (e: { deployment: string; operator: string; flag: string }) =>
      `${e.operator} ${e.deployment} runs without ${e.flag}: its jobs get no Volcano PodGroup, so their pods are ` +
      "scheduled one at a time and a partly placed job holds its GPUs waiting for the rest.",
    fix: (e: { deployment: string; flag: string }) =>
      `Add ${e.flag} to the operator's container args (kubectl -n ${e.deployment.split("/")[0]} edit deploy ` +
      `${e.deployment.split("/")[1] ?? e.deployment}); see https://www.kubeflow.org/docs/components/training/user-guides/job-scheduling/.`,
  } satisfies FindingSpec<{ deployment: string; operator: string; flag: string }>,
  RDMA_RESOURCE_NOT_DEFAULT: {
    severity: "info",
    title: "the nodes' RDMA resource is not job's default",
    message: (e: { resources: string[] }) =>
      `the GPU nodes advertise ${e.resources.join(", ")}, not rdma/hca (kube-rdma job's default); generated jobs would stay Pending.`,
    fix: (e: { resources: string[] }) => `Generate jobs with --rdma-resource ${e.resources[0]}.`,
  } satisfies FindingSpec<{ resources: string[] }>,
  TRAINER_CRD_MISSING: {
    severity: "warning",
    title: "Kubeflow Trainer v2 CRD missing",
    message: (e: { missing: string[] }) =>
      `Kubeflow Trainer v2 is partly installed: ${e.missing.join(", ")} missing; TrainJobs (kube-rdma job trainjob) need the TrainJob and (Cluster)TrainingRuntime CRDs.`,
    fix: () =>
      "Reinstall Kubeflow Trainer v2 (kubectl apply --server-side -k github.com/kubeflow/trainer/manifests/overlays/manager?ref=<release>).",
  } satisfies FindingSpec<{ missing: string[] }>,
  TRAINER_CONTROLLER_MISSING: {
    severity: "error",
    title: "Kubeflow Trainer v2 controller not running",
    message: () =>
      "the Kubeflow Trainer v2 CRDs exist but no trainer controller Deployment (kubeflow-trainer-controller-manager) was found; TrainJobs would never start.",
    fix: () =>
      "Install or repair Kubeflow Trainer v2's controller (kubectl get deploy -A | grep trainer-controller-manager); the v1 training operator does not run TrainJobs.",
  } satisfies FindingSpec<Record<string, never>>,
  SIDECAR_INJECTION: {
    severity: "warning",
    title: "namespace injects a service-mesh sidecar",
    message: (e: { namespace: string; by: string }) =>
      `namespace ${e.namespace} injects a service-mesh sidecar (${e.by}); a sidecar intercepts NCCL's bootstrap traffic and breaks multi-node jobs.`,
    fix: (e: { namespace: string }) =>
      `Run training jobs elsewhere, or disable injection per pod with the annotation sidecar.istio.io/inject: "false" ` +
      `(kube-rdma job does), or for the namespace: kubectl label ns ${e.namespace} istio-injection=disabled --overwrite.`,
  } satisfies FindingSpec<{ namespace: string; by: string }>,
});

export type ClusterCode = keyof typeof CLUSTER_FINDINGS;
