/**
 * Cluster objects in the exact shapes the API returns, for the seed's system (seed-context §2): two 8×A100 nodes
 * with `nvidia.com/gpu: 8` and `rdma/hca: 1k`, the CCE RDMA device plugin and GPU device plugin DaemonSets in
 * kube-system, Volcano (CRDs + scheduler) and the training operator (CRDs + controller).
 */

import { emptySnapshotBody } from "../../../src/host/recording-reader.js";
import type { Obj } from "./fake-api.js";

export type NodeSpec = {
  name: string;
  gpus?: number;
  gpuResource?: string;
  /** RDMA capacity (`1k`), or null for none. */
  rdma?: string | null;
  /** Allocatable when it differs from capacity. */
  rdmaAllocatable?: string;
  rdmaResource?: string;
  ready?: boolean;
  unschedulable?: boolean;
  taints?: Obj[];
  instanceType?: string;
  labels?: Record<string, string>;
};

export function node(s: NodeSpec): Obj {
  const gpuRes = s.gpuResource ?? "nvidia.com/gpu";
  const rdmaRes = s.rdmaResource ?? "rdma/hca";
  const base = {
    cpu: "128",
    "ephemeral-storage": "1966874236Ki",
    "hugepages-1Gi": "0",
    "hugepages-2Mi": "0",
    memory: "1056545444Ki",
    pods: "110",
  };
  const capacity: Obj = { ...base };
  const allocatable: Obj = { ...base, cpu: "127600m", memory: "1046059684Ki" };
  if (s.gpus) {
    capacity[gpuRes] = String(s.gpus);
    allocatable[gpuRes] = String(s.gpus);
  }
  if (s.rdma !== null && s.rdma !== undefined) {
    capacity[rdmaRes] = s.rdma;
    allocatable[rdmaRes] = s.rdmaAllocatable ?? s.rdma;
  }
  const ready = s.ready ?? true;
  return {
    metadata: {
      name: s.name,
      labels: {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": s.name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type":
          s.instanceType ?? (s.gpus ? "bcc.lgn5.c128m1024.8a100.8re" : "bcc.g5.c16m64"),
        ...(s.labels ?? {}),
      },
      annotations: { "node.alpha.kubernetes.io/ttl": "0" },
      creationTimestamp: "2026-11-02T08:14:21Z",
    },
    spec: {
      podCIDR: "172.16.0.0/24",
      providerID: `cce://${s.name}`,
      ...(s.unschedulable ? { unschedulable: true } : {}),
      ...(s.taints ? { taints: s.taints } : {}),
    },
    status: {
      capacity,
      allocatable,
      conditions: [
        {
          type: "MemoryPressure",
          status: "False",
          lastHeartbeatTime: "2026-12-02T09:00:00Z",
          lastTransitionTime: "2026-11-02T08:14:21Z",
          reason: "KubeletHasSufficientMemory",
          message: "kubelet has sufficient memory available",
        },
        {
          type: "Ready",
          status: ready ? "True" : "False",
          lastHeartbeatTime: "2026-12-02T09:00:00Z",
          lastTransitionTime: "2026-11-02T08:15:01Z",
          reason: ready ? "KubeletReady" : "KubeletNotReady",
          message: ready ? "kubelet is posting ready status" : "container runtime network not ready",
        },
      ],
      addresses: [
        { type: "InternalIP", address: "10.0.60.3" },
        { type: "Hostname", address: s.name },
      ],
      nodeInfo: {
        machineID: "f0c1",
        systemUUID: "f0c1",
        bootID: "b007",
        kernelVersion: "5.10.0-136.12.0.86.x86_64",
        osImage: "CentOS Linux 7 (Core)",
        containerRuntimeVersion: "containerd://1.6.20",
        kubeletVersion: "v1.26.9",
        kubeProxyVersion: "v1.26.9",
        operatingSystem: "linux",
        architecture: "amd64",
      },
    },
  };
}

function container(name: string, image: string): Obj {
  return {
    name,
    image,
    imagePullPolicy: "IfNotPresent",
    resources: {},
    terminationMessagePath: "/dev/termination-log",
  };
}

export type DaemonSetSpec = { name: string; namespace?: string; image: string; desired: number; ready: number };

export function daemonSet(s: DaemonSetSpec): Obj {
  return {
    metadata: { name: s.name, namespace: s.namespace ?? "kube-system", generation: 1, labels: { app: s.name } },
    spec: {
      selector: { matchLabels: { app: s.name } },
      template: {
        metadata: { labels: { app: s.name } },
        spec: { containers: [container(s.name, s.image)], restartPolicy: "Always", dnsPolicy: "ClusterFirst" },
      },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
    },
    status: {
      currentNumberScheduled: s.desired,
      numberMisscheduled: 0,
      desiredNumberScheduled: s.desired,
      numberReady: s.ready,
      observedGeneration: 1,
      updatedNumberScheduled: s.desired,
      numberAvailable: s.ready,
      ...(s.desired > s.ready ? { numberUnavailable: s.desired - s.ready } : {}),
    },
  };
}

export type DeploymentSpec = {
  name: string;
  namespace: string;
  image: string;
  replicas?: number;
  ready?: number;
  /** The container's command (the operator's binary and flags). */
  command?: string[];
};

export function deployment(s: DeploymentSpec): Obj {
  const replicas = s.replicas ?? 1;
  const ready = s.ready ?? replicas;
  return {
    metadata: { name: s.name, namespace: s.namespace, generation: 1, labels: { app: s.name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: s.name } },
      template: {
        metadata: { labels: { app: s.name } },
        spec: {
          containers: [{ ...container(s.name, s.image), ...(s.command ? { command: s.command } : {}) }],
          restartPolicy: "Always",
          dnsPolicy: "ClusterFirst",
        },
      },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
    },
    status: {
      observedGeneration: 1,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: ready,
      availableReplicas: ready,
      ...(replicas > ready ? { unavailableReplicas: replicas - ready } : {}),
    },
  };
}

/** A pod owned by a DaemonSet/Deployment, on a node, Ready or not (CrashLoopBackOff). */
export function ownedPod(owner: Obj, nodeName: string, ready: boolean, suffix: string): Obj {
  const name = `${owner.metadata.name}-${suffix}`;
  const image = owner.spec.template.spec.containers[0].image;
  return {
    metadata: {
      name,
      namespace: owner.metadata.namespace,
      labels: { ...owner.spec.selector.matchLabels },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: owner.spec.updateStrategy ? "DaemonSet" : "ReplicaSet",
          name: owner.metadata.name,
          uid: `uid-${owner.metadata.name}`,
          controller: true,
        },
      ],
    },
    spec: { nodeName, containers: [container(owner.metadata.name, image)], restartPolicy: "Always" },
    status: {
      phase: "Running",
      conditions: [
        { type: "Initialized", status: "True" },
        { type: "Ready", status: ready ? "True" : "False" },
        { type: "ContainersReady", status: ready ? "True" : "False" },
        { type: "PodScheduled", status: "True" },
      ],
      hostIP: "10.0.60.3",
      podIP: "172.16.0.12",
      containerStatuses: [
        {
          name: owner.metadata.name,
          ready,
          restartCount: ready ? 0 : 7,
          image,
          imageID: "",
          started: ready,
          state: ready
            ? { running: { startedAt: "2026-11-02T08:20:00Z" } }
            : { waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s restarting failed container" } },
        },
      ],
    },
  };
}

export function namespace(name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}) {
  return {
    metadata: {
      name,
      labels: { "kubernetes.io/metadata.name": name, ...labels },
      ...(Object.keys(annotations).length ? { annotations } : {}),
    },
    spec: { finalizers: ["kubernetes"] },
    status: { phase: "Active" },
  };
}

export function crd(name: string, versions: string[]): Obj {
  const [plural, ...groupParts] = name.split(".");
  const kind = { pytorchjobs: "PyTorchJob", mpijobs: "MPIJob", tfjobs: "TFJob", paddlejobs: "PaddleJob" }[plural!];
  return {
    metadata: { name },
    spec: {
      group: groupParts.join("."),
      names: {
        plural,
        singular: plural!.replace(/s$/, ""),
        kind: kind ?? plural![0]!.toUpperCase() + plural!.slice(1, -1),
        listKind: `${kind ?? "Item"}List`,
      },
      scope: plural === "queues" ? "Cluster" : "Namespaced",
      versions: versions.map((v, i) => ({
        name: v,
        served: true,
        storage: i === 0,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      })),
    },
    status: {
      acceptedNames: { plural, kind: kind ?? plural },
      storedVersions: [versions[0]],
      conditions: [{ type: "Established", status: "True", reason: "InitialNamesAccepted" }],
    },
  };
}

export type SeedClusterChanges = {
  nodes?: Obj[];
  dropCrds?: string[];
  rdmaPluginNotReadyOn?: string;
  noVolcanoScheduler?: boolean;
  extraNamespaces?: Obj[];
  /** Kubeflow Trainer v2 beside the v1 operator: its 3 CRDs and controller, or the CRDs alone. */
  trainerV2?: "installed" | "crds-only";
};

/** The seed's cluster: one CPU node, two GPU+RDMA nodes and the four components, all healthy. */
export function seedCluster(changes: SeedClusterChanges = {}): Record<string, Obj[]> {
  const nodes = changes.nodes ?? [
    node({ name: "cce-master-0" }),
    node({ name: "gpu-a100-1", gpus: 8, rdma: "1k" }),
    node({ name: "gpu-a100-2", gpus: 8, rdma: "1k" }),
  ];
  const gpuNodes = nodes.filter((n) => n.status.capacity["nvidia.com/gpu"]).map((n) => n.metadata.name as string);
  const rdmaDs = daemonSet({
    name: "rdma-device-plugin",
    image: "registry.baidubce.com/cce-plugin-pro/rdma-device-plugin:v0.1.21",
    desired: gpuNodes.length,
    ready: gpuNodes.length - (changes.rdmaPluginNotReadyOn ? 1 : 0),
  });
  const gpuDs = daemonSet({
    name: "nvidia-device-plugin-daemonset",
    image: "nvcr.io/nvidia/k8s-device-plugin:v0.14.5",
    desired: gpuNodes.length,
    ready: gpuNodes.length,
  });
  const scheduler = deployment({
    name: "volcano-scheduler",
    namespace: "volcano-system",
    image: "docker.io/volcanosh/vc-scheduler:v1.9.0",
  });
  const operator = deployment({
    name: "training-operator",
    namespace: "kubeflow",
    image: "kubeflow/training-operator:v1-855e096",
    // Gang scheduling with Volcano, as the Kubeflow job-scheduling guide configures it.
    command: ["/manager", "--gang-scheduler-name=volcano"],
  });
  const trainer = deployment({
    name: "kubeflow-trainer-controller-manager",
    namespace: "kubeflow-system",
    image: "ghcr.io/kubeflow/trainer/trainer-controller-manager:v2.3.0",
  });
  const deployments = [
    ...(changes.noVolcanoScheduler ? [] : [scheduler]),
    operator,
    ...(changes.trainerV2 === "installed" ? [trainer] : []),
  ];
  const pods = [
    ...gpuNodes.map((n, i) => ownedPod(rdmaDs, n, n !== changes.rdmaPluginNotReadyOn, `x${i}k2f`)),
    ...gpuNodes.map((n, i) => ownedPod(gpuDs, n, true, `p${i}q8z`)),
    ...deployments.map((d) => ownedPod(d, "cce-master-0", true, "6c9f7b-4kq2x")),
  ];
  const allCrds = [
    crd("jobs.batch.volcano.sh", ["v1alpha1"]),
    crd("podgroups.scheduling.volcano.sh", ["v1beta1"]),
    crd("queues.scheduling.volcano.sh", ["v1beta1"]),
    crd("pytorchjobs.kubeflow.org", ["v1"]),
    crd("mpijobs.kubeflow.org", ["v2beta1"]),
    crd("tfjobs.kubeflow.org", ["v1"]),
    crd("paddlejobs.kubeflow.org", ["v1"]),
    ...(changes.trainerV2
      ? [
          crd("trainjobs.trainer.kubeflow.org", ["v1alpha1"]),
          crd("clustertrainingruntimes.trainer.kubeflow.org", ["v1alpha1"]),
          crd("trainingruntimes.trainer.kubeflow.org", ["v1alpha1"]),
        ]
      : []),
  ];
  return {
    nodes,
    daemonsets: [rdmaDs, gpuDs],
    deployments,
    pods,
    namespaces: [
      namespace("default"),
      namespace("kube-system"),
      namespace("volcano-system"),
      namespace("kubeflow"),
      ...(changes.extraNamespaces ?? []),
    ],
    customresourcedefinitions: allCrds.filter((c) => !changes.dropCrds?.includes(c.metadata.name)),
  };
}

/** A collector pod's log: an empty snapshot of its node, in the shape `kube-rdma collect -o -` prints. */
export function emptySnapshotLog(host: string): string {
  return JSON.stringify({
    kind: "kube-rdma/snapshot",
    schemaVersion: 1,
    host,
    collectedAt: "2026-12-02T10:00:00.000Z",
    tool: "kube-rdma 0.1.0",
    root: "/host",
    ...emptySnapshotBody(),
  });
}
