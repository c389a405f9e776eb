import type { V1DaemonSet, V1Deployment, V1Namespace, V1Node, V1Pod } from "@kubernetes/client-node";
import { type Finding, makeFinding } from "../../core/finding.js";
import { naturalCompare } from "../../core/natural.js";
import { type Scheduler, schedulerFor, schedulerRequirement } from "../job/scheduler.js";
import { isGpuResource, isRdmaResource, pickResources } from "../resources.js";
import { CLUSTER_FINDINGS as C } from "./catalogue.js";
import {
  type ComponentKind,
  classifyDaemonSet,
  classifyDeployment,
  TRAINER_CRDS,
  TRAINING_CRDS,
  VOLCANO_CRDS,
} from "./components.js";
import { volcanoGangFlag } from "./gang-flags.js";
import type { ClusterObjects, CrdPresence } from "./types.js";

export type ResourceAmount = { resource: string; capacity: number; allocatable: number };

export type NodeSummary = {
  name: string;
  ready: boolean;
  schedulable: boolean;
  taints: string[];
  instanceType: string | null;
  gpu: ResourceAmount | null;
  rdma: ResourceAmount[];
};

export type ComponentSummary = {
  kind: ComponentKind;
  /** `namespace/name` of the DaemonSet or Deployment. */
  name: string;
  desired: number;
  ready: number;
  /** GPU nodes where its pod is missing or not Ready (device plugins only). */
  notReadyOn: string[];
};

export type ClusterEvaluation = {
  nodes: NodeSummary[];
  components: ComponentSummary[];
  crds: CrdPresence[];
  findings: Finding[];
};

export type ClusterEvaluateOptions = {
  /** The namespace jobs will run in: a sidecar-injecting one is an error, others a warning. */
  namespace?: string;
  /** The scheduler jobs will use (`job --scheduler`): Volcano is checked only when it is volcano (the default). */
  scheduler?: Scheduler;
};

function amounts(node: V1Node, keep: (n: string) => boolean): ResourceAmount[] {
  const cap = pickResources(node.status?.capacity, keep);
  const alloc = pickResources(node.status?.allocatable, keep);
  return [...new Set([...Object.keys(cap), ...Object.keys(alloc)])].sort().map((resource) => ({
    resource,
    capacity: cap[resource] ?? 0,
    allocatable: alloc[resource] ?? 0,
  }));
}

const HARD_TAINT = new Set(["NoSchedule", "NoExecute"]);
const condition = (node: V1Node, type: string) => node.status?.conditions?.find((c) => c.type === type);

export function summarizeNode(node: V1Node): NodeSummary {
  const ready = condition(node, "Ready");
  return {
    name: node.metadata?.name ?? "?",
    ready: ready?.status === "True",
    schedulable: !node.spec?.unschedulable,
    taints: (node.spec?.taints ?? [])
      .filter((t) => HARD_TAINT.has(t.effect))
      .map((t) => `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`),
    instanceType:
      node.metadata?.labels?.["node.kubernetes.io/instance-type"] ??
      node.metadata?.labels?.["beta.kubernetes.io/instance-type"] ??
      null,
    gpu: amounts(node, isGpuResource)[0] ?? null,
    rdma: amounts(node, isRdmaResource),
  };
}

/** The value most nodes share; ties go to the larger value. */
function majority(values: number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]![0];
}

function evaluateNodes(nodes: NodeSummary[]): Finding[] {
  const out: Finding[] = [];
  const gpuNodes = nodes.filter((n) => n.gpu !== null && n.gpu.capacity > 0);
  const withRdma = gpuNodes.filter((n) => n.rdma.some((r) => r.capacity > 0 || r.allocatable > 0));
  if (gpuNodes.length > 0 && withRdma.length === 0) {
    out.push(makeFinding(C, "NO_RDMA_RESOURCE", "cluster", { gpuNodes: gpuNodes.length }));
  }
  const usualRdma = withRdma[0]?.rdma.map((r) => r.resource).join(", ") ?? "";
  // The names the nodes really advertise (Network Operator: rdma/rdma_shared_device_a, SR-IOV nvidia.com/…).
  const advertised = [
    ...new Set(withRdma.flatMap((n) => n.rdma.filter((r) => r.allocatable > 0).map((r) => r.resource))),
  ].sort();
  if (advertised.length > 0 && !advertised.includes("rdma/hca")) {
    out.push(makeFinding(C, "RDMA_RESOURCE_NOT_DEFAULT", "cluster", { resources: advertised }));
  }
  for (const n of gpuNodes) {
    if (!n.ready)
      out.push(makeFinding(C, "NODE_NOT_READY", n.name, { node: n.name, reason: "Ready condition not True" }));
    if (!n.schedulable) out.push(makeFinding(C, "NODE_CORDONED", n.name, { node: n.name }));
    if (n.taints.length) out.push(makeFinding(C, "NODE_TAINTED", n.name, { node: n.name, taints: n.taints }));
    if (n.gpu && n.gpu.allocatable < n.gpu.capacity) {
      out.push(makeFinding(C, "GPU_ALLOCATABLE_LOW", n.name, { node: n.name, ...n.gpu }));
    }
    if (withRdma.length > 0 && !withRdma.includes(n)) {
      out.push(makeFinding(C, "NODE_NO_RDMA_RESOURCE", n.name, { node: n.name, usual: usualRdma }));
    }
    for (const r of n.rdma) {
      if (r.capacity > 0 && r.allocatable === 0) {
        out.push(
          makeFinding(C, "RDMA_ALLOCATABLE_ZERO", n.name, {
            node: n.name,
            resource: r.resource,
            capacity: r.capacity,
          }),
        );
      }
    }
  }
  // "Identical" nodes: same instance type and GPU resource/count. Allocatable RDMA should then be equal.
  const groups = new Map<string, NodeSummary[]>();
  for (const n of withRdma) {
    const key = `${n.instanceType ?? "?"}|${n.gpu?.resource}|${n.gpu?.capacity}`;
    groups.set(key, [...(groups.get(key) ?? []), n]);
  }
  for (const [key, members] of groups) {
    if (members.length < 3) continue;
    for (const resource of new Set(members.flatMap((m) => m.rdma.map((r) => r.resource)))) {
      const value = (m: NodeSummary) => m.rdma.find((r) => r.resource === resource)?.allocatable ?? 0;
      const usual = majority(members.map(value));
      for (const m of members) {
        const v = value(m);
        if (v !== usual && v !== 0) {
          out.push(
            makeFinding(C, "RDMA_ALLOCATABLE_DIFFERS", m.name, {
              node: m.name,
              resource,
              value: v,
              usual,
              group: key.split("|")[0]!,
            }),
          );
        }
      }
    }
  }
  const eligible = withRdma.filter(
    (n) => n.ready && n.schedulable && n.rdma.some((r) => r.allocatable > 0) && (n.gpu?.allocatable ?? 0) > 0,
  );
  if (eligible.length < 2) {
    out.push(
      makeFinding(C, "TOO_FEW_RDMA_GPU_NODES", "cluster", {
        count: eligible.length,
        nodes: eligible.map((n) => n.name),
      }),
    );
  }
  return out;
}

const podReady = (p: V1Pod) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
const fullName = (o: { metadata?: { namespace?: string; name?: string } }) =>
  `${o.metadata?.namespace ?? "default"}/${o.metadata?.name ?? "?"}`;

function ownedBy(pods: V1Pod[], owner: V1DaemonSet | V1Deployment): V1Pod[] {
  const labels = owner.spec?.selector.matchLabels ?? {};
  return pods.filter(
    (p) =>
      p.metadata?.namespace === owner.metadata?.namespace &&
      Object.entries(labels).every(([k, v]) => p.metadata?.labels?.[k] === v),
  );
}

function evaluateDaemonSets(objects: ClusterObjects, gpuNodes: NodeSummary[]) {
  const components: ComponentSummary[] = [];
  const findings: Finding[] = [];
  for (const kind of ["rdma-device-plugin", "gpu-device-plugin"] as const) {
    const sets = objects.daemonSets.filter((d) => classifyDaemonSet(d) === kind);
    if (sets.length === 0 && gpuNodes.length > 0) {
      findings.push(
        makeFinding(
          C,
          kind === "rdma-device-plugin" ? "RDMA_DEVICE_PLUGIN_MISSING" : "GPU_DEVICE_PLUGIN_MISSING",
          "cluster",
          {},
        ),
      );
    }
    const relevant = kind === "rdma-device-plugin" ? gpuNodes.filter((n) => n.rdma.length > 0) : gpuNodes;
    for (const ds of sets) {
      const pods = ownedBy(objects.pods, ds);
      const name = fullName(ds);
      const desired = ds.status?.desiredNumberScheduled ?? 0;
      const ready = ds.status?.numberReady ?? 0;
      const notReadyOn = pods
        .filter((p) => !podReady(p))
        .map((p) => p.spec?.nodeName ?? "?")
        .sort(naturalCompare);
      components.push({ kind, name, desired, ready, notReadyOn });
      if (ready < desired || notReadyOn.length) {
        findings.push(
          makeFinding(C, "DEVICE_PLUGIN_NOT_READY", name, {
            daemonSet: name,
            namespace: ds.metadata?.namespace ?? "default",
            desired,
            ready,
            nodes: notReadyOn,
          }),
        );
      }
      if (sets.length === 1) {
        const onNodes = new Set(pods.map((p) => p.spec?.nodeName));
        for (const n of relevant) {
          if (!onNodes.has(n.name)) {
            findings.push(makeFinding(C, "DEVICE_PLUGIN_NOT_ON_NODE", n.name, { node: n.name, daemonSet: name }));
          }
        }
      }
    }
  }
  return { components, findings };
}

function evaluateControllers(objects: ClusterObjects, scheduler: Scheduler) {
  const components: ComponentSummary[] = [];
  const findings: Finding[] = [];
  const crd = (name: string) => objects.crds.find((c) => c.name === name);
  const volcano = scheduler.gang === "volcano";
  const missingVolcano = VOLCANO_CRDS.filter((n) => crd(n)?.present === false);
  if (volcano && missingVolcano.length)
    findings.push(makeFinding(C, "VOLCANO_CRD_MISSING", "volcano", { missing: missingVolcano }));
  const need = schedulerRequirement(scheduler);
  if (!volcano && need && crd(need.crd)?.present === false) {
    findings.push(
      makeFinding(C, "SCHEDULER_NOT_INSTALLED", scheduler.name, {
        scheduler: scheduler.name,
        crd: need.crd,
        install: need.install,
      }),
    );
  }
  const needed: Record<string, [string, string, "error" | "warning" | "info"]> = {
    "pytorchjobs.kubeflow.org": ["PyTorchJob", "kube-rdma job pytorch uses it", "error"],
    "mpijobs.kubeflow.org": ["MPIJob", "kube-rdma job mpi / nccl-tests use MPIJob v2beta1", "warning"],
    "tfjobs.kubeflow.org": ["TFJob", "only TensorFlow jobs need it", "info"],
    "paddlejobs.kubeflow.org": ["PaddleJob", "only PaddlePaddle jobs need it", "info"],
  };
  for (const name of TRAINING_CRDS) {
    if (crd(name)?.present !== false) continue;
    const [kind, why, severity] = needed[name]!;
    findings.push(makeFinding(C, "TRAINING_CRD_MISSING", name, { crd: name, kind, needed: why }, severity));
  }
  const trainerPresent = TRAINER_CRDS.filter((n) => crd(n)?.present);
  const trainerMissing = TRAINER_CRDS.filter((n) => crd(n)?.present === false);
  if (trainerPresent.length && trainerMissing.length) {
    findings.push(makeFinding(C, "TRAINER_CRD_MISSING", "trainer", { missing: trainerMissing }));
  }
  for (const role of ["volcano-scheduler", "training-operator", "trainer-controller"] as const) {
    const deps = objects.deployments.filter((d) => classifyDeployment(d) === role);
    for (const d of deps) {
      const name = fullName(d);
      const replicas = d.spec?.replicas ?? 1;
      const ready = d.status?.readyReplicas ?? 0;
      components.push({ kind: role, name, desired: replicas, ready, notReadyOn: [] });
      const gang = role === "training-operator" && volcano ? volcanoGangFlag(d) : null;
      if (gang && !gang.set) {
        findings.push(
          makeFinding(C, "GANG_FLAG_MISSING", name, { deployment: name, operator: gang.operator, flag: gang.flag }),
        );
      }
      if (ready < replicas) {
        findings.push(
          makeFinding(C, "COMPONENT_NOT_READY", name, {
            deployment: name,
            namespace: d.metadata?.namespace ?? "default",
            replicas,
            ready,
            role,
          }),
        );
      }
    }
    if (deps.length) continue;
    if (role === "volcano-scheduler") {
      if (volcano) findings.push(makeFinding(C, "VOLCANO_SCHEDULER_MISSING", "volcano", {}));
    } else if (role === "trainer-controller") {
      if (trainerPresent.length) findings.push(makeFinding(C, "TRAINER_CONTROLLER_MISSING", "trainer", {}));
    } else if (TRAINING_CRDS.some((n) => crd(n)?.present)) {
      findings.push(makeFinding(C, "TRAINING_OPERATOR_MISSING", "training-operator", {}));
    }
  }
  return { components, findings };
}

/** How a namespace asks for a sidecar: Istio label/revision, Linkerd or Kuma annotation/label; null if it does not. */
export function sidecarInjection(ns: V1Namespace): string | null {
  const labels = ns.metadata?.labels ?? {};
  const ann = ns.metadata?.annotations ?? {};
  if (labels["istio-injection"] === "enabled") return "label istio-injection=enabled";
  if (labels["istio.io/rev"] && labels["istio-injection"] !== "disabled")
    return `label istio.io/rev=${labels["istio.io/rev"]}`;
  if (ann["linkerd.io/inject"] === "enabled") return "annotation linkerd.io/inject=enabled";
  if (labels["kuma.io/sidecar-injection"] === "enabled" || ann["kuma.io/sidecar-injection"] === "enabled") {
    return "kuma.io/sidecar-injection=enabled";
  }
  return null;
}

/** Pure evaluation of one pass over the API. */
export function evaluateCluster(objects: ClusterObjects, opts: ClusterEvaluateOptions = {}): ClusterEvaluation {
  const nodes = objects.nodes.map(summarizeNode).sort((a, b) => naturalCompare(a.name, b.name));
  const gpuNodes = nodes.filter((n) => n.gpu !== null && n.gpu.capacity > 0);
  const ds = evaluateDaemonSets(objects, gpuNodes);
  const ctl = evaluateControllers(objects, opts.scheduler ?? schedulerFor("volcano"));
  const sidecars: Finding[] = [];
  for (const ns of objects.namespaces) {
    const by = sidecarInjection(ns);
    const name = ns.metadata?.name ?? "?";
    if (by) {
      sidecars.push(
        makeFinding(
          C,
          "SIDECAR_INJECTION",
          `namespace/${name}`,
          { namespace: name, by },
          name === opts.namespace ? "error" : "warning",
        ),
      );
    }
  }
  return {
    nodes,
    components: [...ds.components, ...ctl.components],
    crds: objects.crds,
    findings: [...evaluateNodes(nodes), ...ds.findings, ...ctl.findings, ...sidecars],
  };
}
