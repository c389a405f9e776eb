import { exitCodeFor } from "../../core/finding.js";
import { makeClients } from "../../kube/api/client.js";
import { loadKubeConfig } from "../../kube/api/config.js";
import { KUBECONFIG_OPTIONS, kubeOptionsFrom, NAMESPACE_OPTION } from "../../kube/api/options.js";
import { CLUSTER_READER_ROLE, readClusterObjects } from "../../kube/api/read-cluster.js";
import { evaluateCluster } from "../../kube/cluster/index.js";
import { CLUSTER_REPORT } from "../../report/kinds/cluster.js";
import { renderReport } from "../../report/registry.js";
import { OUTPUT_OPTION, STRICT_OPTION } from "../shared-options.js";
import { bool, type CommandSpec, str } from "../spec.js";

export const command: CommandSpec = {
  name: "cluster",
  noArguments: {
    hint: "It checks the cluster of the current kubeconfig context (--context NAME for another); run `kube-rdma cluster --help` for the options.",
  },
  summary: "Check the cluster for RDMA training: GPU+RDMA nodes, device plugins, Volcano, training operator",
  usage: "kube-rdma cluster [--kubeconfig FILE] [--context NAME] [-n NS] [-o text|json|yaml]",
  description: `
One pass over the Kubernetes API (read-only). It checks what RDMA training on Kubernetes needs (RDMA and GPU device plugins, a gang scheduler, a training operator):
  - at least 2 Ready, schedulable nodes with GPUs (nvidia.com/gpu, baidu.com/*_cgpu, amd.com/gpu) and an RDMA
    resource (rdma/hca, rdma/*, vke.volcengine.com/rdma, tke.cloud.tencent.com/rdma-hca, vpc.amazonaws.com/efa);
  - RDMA allocatable 0 while capacity is not (every unit Unhealthy, or the plugin not running or registered), or
    differing between nodes of the same instance type;
  - the RDMA and GPU device-plugin DaemonSets: desired vs ready, and which node's pod is not ready;
  - the gang scheduler the jobs use (--scheduler, default Volcano: its CRDs and scheduler Deployment; coscheduling
    or Kueue: their CRD);
  - the training operator (pytorchjobs/mpijobs/tfjobs/paddlejobs.kubeflow.org CRDs and its controller);
  - namespaces that inject a service-mesh sidecar (an error for the namespace given with -n).
Needs get/list on nodes, namespaces, daemonsets, deployments, pods and customresourcedefinitions (ClusterRole
kube-rdma-cluster-reader in deploy/cluster/rbac.yaml). Exit 0 pass, 1 errors found, 2 could not run (no access).`,
  options: [
    ...KUBECONFIG_OPTIONS,
    NAMESPACE_OPTION,
    {
      name: "scheduler",
      type: "string",
      valueName: "NAME",
      default: "volcano",
      description:
        "The scheduler the jobs use (as job --scheduler): volcano, coscheduling, kueue or default; only its presence is required",
    },
    OUTPUT_OPTION,
    STRICT_OPTION,
  ],
  examples: [
    ["kube-rdma cluster", "check the current kubeconfig context's cluster"],
    ["kube-rdma cluster --context prod -n training -o json", "JSON report; training must not inject sidecars"],
  ],
  async run({ values, io }) {
    const target = loadKubeConfig(kubeOptionsFrom(values, io.env));
    const clients = makeClients(target, CLUSTER_READER_ROLE);
    const objects = await readClusterObjects(clients);
    const namespace = str(values, "namespace");
    const { schedulerFor } = await import("../../kube/job/scheduler.js");
    const scheduler = schedulerFor(str(values, "scheduler") ?? "volcano");
    const ev = evaluateCluster(objects, { ...(namespace ? { namespace } : {}), scheduler });
    const strict = bool(values, "strict");
    const result = { ev, context: target.context, server: target.server, strict };
    io.stdout(await renderReport(CLUSTER_REPORT, result, str(values, "output") ?? "text"));
    return exitCodeFor(ev.findings, strict);
  },
};
