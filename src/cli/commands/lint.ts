import { exitCodeFor } from "../../core/finding.js";
import { DEFAULT_LINT_OPTIONS, type LintFileResult, lintManifestText } from "../../kube/lint/index.js";
import { parseQuantity } from "../../kube/resources.js";
import { LINT_REPORT } from "../../report/kinds/lint.js";
import { renderReport } from "../../report/registry.js";
import { readTextCapped } from "../input.js";
import { OUTPUT_OPTION, STRICT_OPTION } from "../shared-options.js";
import { bool, type CommandSpec, type Io, str, UsageError } from "../spec.js";

/** Manifest streams larger than this are refused (a rendered chart is a few MiB at most). */
const MANIFEST_CAP_BYTES = 16 * 1024 * 1024;

function readInput(file: string, io: Io): Promise<string> {
  return readTextCapped(
    file,
    io,
    MANIFEST_CAP_BYTES,
    "Pass manifest files (multi-document YAML), or - to read standard input; split a very large stream into parts.",
  );
}

export const command: CommandSpec = {
  name: "lint",
  summary: "Lint job manifests for RDMA/NCCL failure patterns",
  usage: "kube-rdma lint FILE… [-o text|json|yaml]   (- reads standard input)",
  description: `
Reads multi-document YAML (also a v1 List) and checks every pod template inside Pod, Deployment, StatefulSet,
DaemonSet, ReplicaSet, Job, CronJob, PyTorchJob, MPIJob, TFJob, Volcano Job and Kubeflow Trainer's
ClusterTrainingRuntime/TrainingRuntime (a TrainJob is checked against the runtime in the same input) for the
patterns that make RDMA training slow or broken: no RDMA resource, no IPC_LOCK (and not privileged), no
memory-backed or a small /dev/shm, NCCL_IB_DISABLE=1, NCCL_NET=Socket, a prefix NCCL_IB_HCA (mlx5_1 also matches
mlx5_10…19), the management NIC in NCCL_IB_HCA, hostNetwork without dnsPolicy ClusterFirstWithHostNet, several pods
without a gang scheduler, GPU counts that differ between workers, sidecar injection not disabled, training started
through sudo, ssh, env -i or su - (which drop the injected NCCL variables), a container that runs kube-rdma in an
image that does not carry it, an NCCL_SOCKET_IFNAME the pod cannot have, MPI ranks
started without NCCL_IB_HCA, and a TrainJob whose resourcesPerNode drops the runtime's RDMA or GPU request. Each
finding names the file, document, object, container and field path.
Exit 0 clean (warnings allowed), 1 errors found, 2 unreadable input or invalid YAML (with line and column).`,
  options: [
    {
      name: "management-hca",
      type: "string",
      valueName: "HCA",
      description:
        "The nodes' management (default-route) HCA, which must not be in NCCL_IB_HCA (kube-rdma verify names it on a node; it depends on the node model). Unset: only a pod's kube-rdma/management-hca annotation names one",
    },
    { name: "shm-min", type: "string", valueName: "SIZE", default: "1Gi", description: "Smallest acceptable /dev/shm" },
    OUTPUT_OPTION,
    STRICT_OPTION,
  ],
  examples: [
    ["kube-rdma lint job.yaml", "lint a manifest"],
    ["kube-rdma job pytorch --nodes 2 | kube-rdma lint -", "lint generated YAML from standard input"],
    ["helm template chart/ | kube-rdma lint - -o json", "lint a rendered chart, JSON report"],
  ],
  async run({ values, positionals, io }) {
    if (positionals.length === 0) throw new UsageError("lint needs at least one FILE (or - for standard input).");
    const shmMinBytes = parseQuantity(str(values, "shm-min") ?? "1Gi");
    if (shmMinBytes === null)
      throw new UsageError(`--shm-min must be a quantity such as 1Gi; got "${str(values, "shm-min")}".`);
    const opts = { ...DEFAULT_LINT_OPTIONS, managementHca: str(values, "management-hca") ?? null, shmMinBytes };
    const results: LintFileResult[] = [];
    for (const file of positionals) {
      results.push(lintManifestText(await readInput(file, io), file === "-" ? "<stdin>" : file, opts));
    }
    const strict = bool(values, "strict");
    const findings = results.flatMap((r) => r.findings);
    const problems = results.flatMap((r) => r.problems);
    io.stdout(await renderReport(LINT_REPORT, { results, strict }, str(values, "output") ?? "text"));
    if (problems.length) return 2;
    return exitCodeFor(findings, strict);
  },
};
