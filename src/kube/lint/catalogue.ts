import { defineCatalogue, type FindingSpec } from "../../core/finding.js";

type Where = { where: string };

/**
 * Every `lint` finding: the failure patterns of RDMA training jobs on Kubernetes (no RDMA resource, no IPC_LOCK, a
 * small /dev/shm, wrong NCCL variables, no gang scheduling).
 */
export const LINT_FINDINGS = defineCatalogue({
  // A container in a manifest (cluster's NO_RDMA_RESOURCE is the older code: no node advertises one).
  CONTAINER_NO_RDMA_RESOURCE: {
    severity: "error",
    title: "no RDMA resource",
    message: (e: Where & { gpus: string }) =>
      `${e.where} requests GPUs (${e.gpus}) for a multi-node job but no RDMA device by any documented path (an RDMA ` +
      "device plugin resource, an SR-IOV or host-device network resource with a Multus network, a resource claim), " +
      "is not privileged and mounts no /dev/infiniband: NCCL will find no IB device and fall back to sockets.",
    fix: () =>
      "Give the container an RDMA device: the RDMA resource of your device plugin in resources.limits (e.g. rdma/hca: " +
      '1; with a shared-mode plugin "1" gives the pod every data HCA), or an RDMA-capable SR-IOV/host-device network ' +
      "(its resource in limits and the network in the pod annotation k8s.v1.cni.cncf.io/networks), or a resource claim " +
      "for the NIC.",
  } satisfies FindingSpec<Where & { gpus: string }>,
  RDMA_DEVICE_NOT_CONFIRMED: {
    severity: "info",
    title: "RDMA device through a network or claim: not confirmed from the manifest",
    message: (e: Where & { via: string }) =>
      `${e.where} gets its NIC through ${e.via}; whether that device carries RDMA (an SR-IOV policy with isRdma, an ` +
      "RDMA-capable device class) is set outside this manifest and was not checked.",
    fix: () =>
      "Confirm inside a running pod: ls /dev/infiniband shows uverbs devices and kube-rdma verify --pod shows the HCAs; " +
      "an NCCL_DEBUG=INFO log says NET/IB, not NET/Socket.",
  } satisfies FindingSpec<Where & { via: string }>,
  SHM_MISSING: {
    severity: "error",
    title: "no memory-backed /dev/shm",
    message: (e: Where) =>
      `${e.where} mounts nothing at /dev/shm: the container runtime's default is 64 MiB, too small for NCCL's shared-memory transport between GPUs.`,
    fix: () => "Mount an emptyDir with medium: Memory (and a sizeLimit such as 32Gi) at /dev/shm.",
  } satisfies FindingSpec<Where>,
  SHM_NOT_MEMORY: {
    severity: "warning",
    title: "/dev/shm not memory-backed",
    message: (e: Where & { volume: string }) =>
      `${e.where} mounts volume ${e.volume} at /dev/shm, but it is not an emptyDir with medium: Memory.`,
    fix: () => "Use emptyDir: {medium: Memory, sizeLimit: 32Gi} for /dev/shm.",
  } satisfies FindingSpec<Where & { volume: string }>,
  NCCL_IB_DISABLED: {
    severity: "error",
    title: "NCCL_IB_DISABLE=1",
    message: (e: Where & { value?: string; reads?: string }) =>
      e.value === undefined || e.value === "1"
        ? `${e.where} sets NCCL_IB_DISABLE=1: NCCL is forbidden to use IB/RoCE and falls back to TCP sockets.`
        : `${e.where} sets NCCL_IB_DISABLE=${JSON.stringify(e.value)}, which NCCL reads as the integer ${e.reads} (any value but 0 disables): NCCL is forbidden to use IB/RoCE and falls back to TCP sockets.`,
    fix: () => 'Set NCCL_IB_DISABLE to "0" (or remove it).',
  } satisfies FindingSpec<Where & { value?: string; reads?: string }>,
  BAD_QUANTITY: {
    severity: "error",
    title: "not a Kubernetes quantity",
    message: (e: Where & { field: string; value: string }) =>
      `${e.where}: ${e.field} is ${e.value}, which is not a Kubernetes quantity: the API server refuses the object (or, for a device resource, the container gets nothing).`,
    fix: () =>
      "Write a quantity: a number with an optional suffix (1, 8, 500m, 32Gi, 1e3), as a string or a number, no spaces.",
  } satisfies FindingSpec<Where & { field: string; value: string }>,
  DUPLICATE_VOLUME_NAME: {
    severity: "error",
    title: "two volumes with one name",
    message: (e: Where & { volume: string; field: string; first: string }) =>
      `${e.where}: ${e.field} names volume ${JSON.stringify(e.volume)} again (first at ${e.first}): the API server refuses a pod whose volume names repeat, and a mount of that name is ambiguous.`,
    fix: () => "Give each volume its own name and point each volumeMount at the one it means.",
  } satisfies FindingSpec<Where & { volume: string; field: string; first: string }>,
  NCCL_NET_SOCKET: {
    severity: "error",
    title: "NCCL_NET=Socket",
    message: (e: Where) => `${e.where} sets NCCL_NET=Socket: NCCL will not use RDMA.`,
    fix: () => "Remove NCCL_NET (or set it to IB).",
  } satisfies FindingSpec<Where>,
  NCCL_IB_HCA_PREFIX: {
    severity: "warning",
    title: "NCCL_IB_HCA prefix also matches other HCAs",
    message: (e: Where & { value: string; entries: string[] }) =>
      `${e.where} sets NCCL_IB_HCA=${e.value}; without a leading "=" each entry is a prefix, so ${e.entries.map((x) => `${x} also matches ${x}0…${x}9`).join("; ")}.`,
    fix: (e: Where & { value: string; entries: string[] }) =>
      `Use the exact form: NCCL_IB_HCA==${e.value.replace(/^=/, "")}.`,
  } satisfies FindingSpec<Where & { value: string; entries: string[] }>,
  NCCL_IB_HCA_MANAGEMENT: {
    severity: "warning",
    title: "management NIC in NCCL_IB_HCA",
    message: (e: Where & { value: string; hca: string; source: string }) =>
      `${e.where} sets NCCL_IB_HCA=${e.value}, which selects ${e.hca}, the management (default-route) NIC per ` +
      `${e.source}; NCCL would send RDMA traffic over it.`,
    fix: (e: { hca: string }) =>
      `Exclude ${e.hca} (NCCL_IB_HCA=^=${e.hca}), or list the node's data HCAs (the RDMA ports nearest each GPU) as ` +
      "kube-rdma nccl-env derives them on the node; which mlx5_N is which depends on the node model.",
  } satisfies FindingSpec<Where & { value: string; hca: string; source: string }>,
  HOSTNETWORK_DNS: {
    severity: "error",
    title: "hostNetwork without ClusterFirstWithHostNet",
    message: (e: Where & { dnsPolicy: string }) =>
      `${e.where} uses hostNetwork with dnsPolicy ${e.dnsPolicy}: the pod resolves with the node's DNS and cannot find MASTER_ADDR or the worker services.`,
    fix: () => "Set dnsPolicy: ClusterFirstWithHostNet next to hostNetwork: true.",
  } satisfies FindingSpec<Where & { dnsPolicy: string }>,
  NOT_GANG_SCHEDULED: {
    severity: "warning",
    title: "multi-pod job not gang-scheduled",
    message: (e: Where & { pods: number; scheduler: string }) =>
      `${e.where} starts ${e.pods} pods with scheduler ${e.scheduler}: without gang scheduling some pods can run while others wait, holding GPUs and deadlocking NCCL's rendezvous.`,
    fix: () =>
      "Set schedulerName: volcano (or another gang scheduler) in every pod template (Volcano Job: spec.schedulerName).",
  } satisfies FindingSpec<Where & { pods: number; scheduler: string }>,
  GPU_COUNT_DIFFERS: {
    severity: "warning",
    title: "GPU counts differ between workers",
    message: (e: Where & { counts: string }) =>
      `${e.where} requests different GPU counts per pod (${e.counts}): --nproc_per_node / slotsPerWorker assume the same on every node.`,
    fix: () => "Request the same number of GPUs in every replica (usually all GPUs of a node).",
  } satisfies FindingSpec<Where & { counts: string }>,
  SIDECAR_NOT_DISABLED: {
    severity: "warning",
    title: "sidecar injection not disabled",
    message: (e: Where) =>
      `${e.where} does not disable service-mesh sidecar injection; in an injecting namespace the sidecar intercepts NCCL's bootstrap connections.`,
    fix: () => 'Add the pod annotation sidecar.istio.io/inject: "false".',
  } satisfies FindingSpec<Where>,
  IMAGE_LACKS_PROGRAM: {
    severity: "error",
    title: "a container runs a program its image does not carry",
    message: (e: Where & { program: string; image: string; expected: string }) =>
      `${e.where} runs \`${e.program}\` in ${e.image}, which does not carry it: the container fails to start ` +
      `(executable file not found in $PATH) and the pod never runs.`,
    fix: (e: Where & { program: string; image: string; expected: string }) =>
      `Run ${e.program} in an image that carries it (${e.expected}), or remove the container.`,
  } satisfies FindingSpec<Where & { program: string; image: string; expected: string }>,
  ENV_DROPPED_BY_LAUNCHER: {
    severity: "warning",
    title: "the training command starts through a program that drops the injected NCCL variables",
    message: (e: Where & { program: string; why: string }) =>
      `${e.where} starts training through \`${e.program}\`: ${e.why}, so NCCL_IB_HCA, NCCL_SOCKET_IFNAME and ` +
      "NCCL_IB_GID_INDEX injected into the container do not reach NCCL (a plain `sh -c` or torchrun passes them on).",
    fix: (e: Where & { program: string; why: string }) =>
      e.program === "sudo"
        ? "Drop sudo, or keep the environment: sudo --preserve-env=NCCL_IB_HCA,NCCL_SOCKET_IFNAME,NCCL_IB_GID_INDEX … (or sudo -E)."
        : e.program === "ssh"
          ? "Start the ranks in their own pods (MPIJob, PyTorchJob) instead of over ssh, or pass the variables on the remote command line (ssh host NCCL_IB_HCA=… cmd)."
          : "Start the program directly, or pass the NCCL variables explicitly (env -i NCCL_IB_HCA=… cmd); kube-rdma nccl-env prints them.",
  } satisfies FindingSpec<Where & { program: string; why: string }>,
  SOCKET_IFNAME_NOT_IN_POD: {
    severity: "error",
    title: "NCCL_SOCKET_IFNAME names an interface the pod does not have",
    message: (e: Where & { value: string; entries: string[]; podNames: string[] }) =>
      `${e.where} sets NCCL_SOCKET_IFNAME=${e.value}, but the pod is on the pod network (no hostNetwork): its interfaces are ${e.podNames.join(", ")} and Multus' net1, net2, …, so ${e.entries.join(", ")} cannot exist there (a node's interface name); NCCL fails at bootstrap with "no socket interface found".`,
    fix: () =>
      "Remove NCCL_SOCKET_IFNAME (NCCL picks the pod's interface), set it to the pod's own interface (=eth0, or the Multus name), or run the pod with hostNetwork: true if the node's interface is meant.",
  } satisfies FindingSpec<Where & { value: string; entries: string[]; podNames: string[] }>,
  MPI_RANKS_WITHOUT_NCCL_ENV: {
    severity: "warning",
    title: "mpirun ranks start without the NCCL variables",
    message: (e: Where & { variable: string }) =>
      `${e.where} starts the ranks with mpirun over ssh; they get only what mpirun forwards, and ${e.variable} is neither set on the launcher and forwarded with -x nor read from the worker. What the RDMA device plugin injects lands in the workers' PID 1 (sshd), which does not pass it to ssh sessions: NCCL then picks HCAs, GID index and bootstrap interface by itself (the management NIC and RoCE v1 GID 0 included).`,
    fix: () =>
      "Let each rank read its worker's NCCL variables: the worker saves them to a file before it becomes sshd, and each rank sources that file before the program (kube-rdma job mpi and volcano generate both); or set the NCCL variables on the launcher (kube-rdma nccl-env -o k8s) and forward each with -x NAME.",
  } satisfies FindingSpec<Where & { variable: string }>,
  TRAINJOB_RESOURCES_DROPPED: {
    severity: "error",
    title: "TrainJob resourcesPerNode drops the runtime's RDMA/GPU requests",
    message: (e: Where & { runtime: string; given: string; dropped: string[]; known: boolean }) =>
      `${e.where} sets trainer.resourcesPerNode (${e.given}); Kubeflow Trainer replaces the whole resources of the ${e.known ? "" : "referenced "}runtime ${e.runtime}'s node container with it, so ${e.dropped.join(", ")} ${e.known ? "that the runtime requests " : ""}${e.dropped.length === 1 ? "is" : "are"} dropped: the pods get no RDMA device (NCCL falls back to sockets) or no GPUs.`,
    fix: (e: Where & { dropped: string[] }) =>
      `Remove resourcesPerNode (the runtime's pod template carries the resources, as kube-rdma job trainjob generates), or list every resource in it, including ${e.dropped.join(", ")}.`,
  } satisfies FindingSpec<Where & { runtime: string; given: string; dropped: string[]; known: boolean }>,
  NO_POD_TEMPLATE: {
    severity: "error",
    title: "no pod template to lint",
    message: (e: Where & { field: string; found: string }) =>
      `${e.where} has ${e.found} at ${e.field}: none of its RDMA/NCCL settings could be checked, and no pod can start from it as written.`,
    fix: () =>
      "Give it a pod template (a mapping with spec.containers, each with a name and image), e.g. regenerate it with `kube-rdma job`; then lint again.",
  } satisfies FindingSpec<Where & { field: string; found: string }>,
  BAD_REPLICAS: {
    severity: "error",
    title: "a replica count that is not a whole number",
    message: (e: Where & { field: string; value: string; counted: number }) =>
      `${e.where} sets ${e.field} to ${e.value}: expected a whole number ≥ 0 of pods; the other checks counted it as ${e.counted}.`,
    fix: (e: Where & { field: string }) => `Set ${e.field} to the number of pods, e.g. 2.`,
  } satisfies FindingSpec<Where & { field: string; value: string; counted: number }>,
  UNKNOWN_KIND: {
    severity: "info",
    title: "kind not linted",
    message: (e: Where & { kind: string }) =>
      `${e.where}: kind ${e.kind} has no pod template kube-rdma knows; skipped.`,
    fix: () =>
      "Nothing to do; kube-rdma lints Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, PyTorchJob, MPIJob, TFJob, Volcano Job, and Kubeflow Trainer's TrainJob, ClusterTrainingRuntime and TrainingRuntime.",
  } satisfies FindingSpec<Where & { kind: string }>,
  PREFLIGHT_MEMBERS_MISMATCH: {
    severity: "error",
    title: "preflight waits for the wrong number of pods",
    message: (e: Where & { members: string; gpuPods: number }) =>
      `${e.where} waits for --members ${e.members}, but the job has ${e.gpuPods} GPU pods: the gang ` +
      "either never assembles (every pod times out) or compares before every pod is there.",
    fix: (e: Where & { members: string; gpuPods: number }) =>
      `Set --members ${e.gpuPods} (the replicas of every GPU replica type), or regenerate with \`kube-rdma job … --preflight\`.`,
  } satisfies FindingSpec<Where & { members: string; gpuPods: number }>,
  PREFLIGHT_DEVICES_DIFFER: {
    severity: "warning",
    title: "preflight requests other devices than training",
    message: (e: Where & { preflight: string; training: string }) =>
      `${e.where} requests ${e.preflight} while the training container requests ${e.training}: it inspects ` +
      "other devices than the ones training gets.",
    fix: () =>
      "Give the init container the training container's GPU and RDMA requests (the kubelet hands an init container's devices on to the app containers).",
  } satisfies FindingSpec<Where & { preflight: string; training: string }>,
  PREFLIGHT_NO_SERVICE_ACCOUNT: {
    severity: "warning",
    title: "preflight runs without a service account that may use its ConfigMap",
    message: (e: Where) =>
      `${e.where} runs under the namespace's default service account, which usually may not get and patch ` +
      "ConfigMaps: every pod's preflight then fails with 403 Forbidden.",
    fix: () =>
      "Set serviceAccountName to the job's <job>-preflight account with its Role and RoleBinding (kube-rdma job --preflight writes them; deploy/preflight/rbac.yaml shows the rules).",
  } satisfies FindingSpec<Where>,
  TRAINJOB_RUNTIME_NOT_IN_INPUT: {
    severity: "warning",
    title: "TrainJob whose runtime was not linted",
    message: (e: Where & { runtime: string }) =>
      `${e.where} runs on ${e.runtime}, which is not in the input: its pod template (the RDMA resource, IPC_LOCK, /dev/shm, the NCCL variables) was not checked.`,
    fix: (e: Where & { runtime: string; get: string }) =>
      `Lint the runtime and the job as one input: \`{ kubectl get ${e.get} -o yaml; echo ---; cat job.yaml; } | kube-rdma lint -\` (kube-rdma job trainjob writes both in one file).`,
  } satisfies FindingSpec<Where & { runtime: string; get: string }>,
});
