import { afterEach, describe, expect, test } from "vitest";
import { captureIo } from "../../../test/support/io.js";
import { deployment, node, seedCluster } from "../../../test/support/kube/cluster-fixtures.js";
import { type FakeApi, type Obj, startFakeApi } from "../../../test/support/kube/fake-api.js";
import { main } from "../../cli/main.js";
import { isRdmaResource } from "../resources.js";
import { flagValue, volcanoGangFlag } from "./gang-flags.js";

let api: FakeApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

type Finding = { code: string; severity: string; subject: string; fix: string; message: string };

async function findings(objects: Record<string, Obj[]>): Promise<Finding[]> {
  api = await startFakeApi(objects);
  const io = captureIo();
  await main(["cluster", "--kubeconfig", api.kubeconfig, "-o", "json"], io);
  return (JSON.parse(io.out) as { findings: Finding[] }).findings;
}

/**
 * The operators' gang flags as the Kubeflow job-scheduling guide gives them
 * (https://www.kubeflow.org/docs/components/training/user-guides/job-scheduling/): training-operator
 * `--gang-scheduler-name=volcano`, mpi-operator `--gang-scheduling=volcano`; neither is on by default.
 */
describe("cluster: the operators create Volcano PodGroups only with their gang flag", () => {
  const withOperators = (ops: Obj[]) => {
    const objects = seedCluster();
    objects.deployments = [...(objects.deployments ?? []).filter((d) => !/operator/.test(d.metadata.name)), ...ops];
    return objects;
  };
  const op = (name: string, image: string, command: string[]) =>
    deployment({ name, namespace: "kubeflow", image, command });

  test("a training operator started as its standalone manifest (/manager, no flag) → GANG_FLAG_MISSING warning", async () => {
    const f = await findings(
      withOperators([op("training-operator", "kubeflow/training-operator:v1-855e096", ["/manager"])]),
    );
    const gang = f.filter((x) => x.code === "GANG_FLAG_MISSING");
    expect(gang.map((x) => [x.severity, x.subject])).toEqual([["warning", "kubeflow/training-operator"]]);
    expect(gang[0]!.message).toContain("--gang-scheduler-name=volcano");
    expect(gang[0]!.fix).toContain("kubectl -n kubeflow edit deploy training-operator");
  });

  test("an MPI operator without --gang-scheduling=volcano is named too; with the flags set, nothing", async () => {
    const f = await findings(
      withOperators([
        op("training-operator", "kubeflow/training-operator:v1-855e096", [
          "/manager",
          "--gang-scheduler-name",
          "volcano",
        ]),
        op("mpi-operator", "mpioperator/mpi-operator:0.6.0", ["/opt/mpi-operator", "-alsologtostderr"]),
      ]),
    );
    expect(f.filter((x) => x.code === "GANG_FLAG_MISSING").map((x) => x.subject)).toEqual(["kubeflow/mpi-operator"]);
    const ok = volcanoGangFlag(
      op("mpi-operator", "mpioperator/mpi-operator:0.6.0", ["/opt/mpi-operator", "--gang-scheduling=volcano"]) as never,
    );
    expect(ok).toEqual({ operator: "mpi-operator", flag: "--gang-scheduling=volcano", set: true });
  });

  test("flags as Go's flag package takes them: -name, --name=value, --name value; another scheduler is not Volcano", () => {
    expect(flagValue(["/manager", "-gang-scheduler-name=volcano"], "gang-scheduler-name")).toBe("volcano");
    expect(flagValue(["/manager", "--gang-scheduler-name", "volcano"], "gang-scheduler-name")).toBe("volcano");
    expect(flagValue(["/manager", "--enable-gang-scheduling"], "enable-gang-scheduling")).toBe("");
    const plugins = volcanoGangFlag(
      op("training-operator", "kubeflow/training-operator:v1", [
        "/manager",
        "--gang-scheduler-name=scheduler-plugins",
      ]) as never,
    );
    expect(plugins?.set).toBe(false);
    const legacy = volcanoGangFlag(
      op("training-operator", "kubeflow/training-operator:v1", ["/manager", "--enable-gang-scheduling=true"]) as never,
    );
    expect(legacy?.set).toBe(true);
  });
});

describe("cluster: the RDMA resource the nodes really advertise", () => {
  test("NVIDIA Network Operator's shared device (rdma/rdma_shared_device_a): named, with the job flag to use it", async () => {
    const nodes = ["gpu-01", "gpu-02"].map((name) =>
      node({ name, gpus: 8, rdma: "63", rdmaResource: "rdma/rdma_shared_device_a" }),
    );
    const f = await findings(seedCluster({ nodes }));
    const r = f.find((x) => x.code === "RDMA_RESOURCE_NOT_DEFAULT");
    expect(r?.message).toContain("rdma/rdma_shared_device_a");
    expect(r?.fix).toBe("Generate jobs with --rdma-resource rdma/rdma_shared_device_a.");
  });

  test("the default rdma/hca: nothing to say", async () => {
    const f = await findings(seedCluster());
    expect(f.map((x) => x.code)).not.toContain("RDMA_RESOURCE_NOT_DEFAULT");
  });

  test("SR-IOV RDMA VFs under nvidia.com/ are RDMA resources; GPUs and MIG slices are not", () => {
    for (const r of ["nvidia.com/sriov_rdma_vf", "nvidia.com/mlnxnics", "nvidia.com/hca_shared_devices_a"]) {
      expect(isRdmaResource(r), r).toBe(true);
    }
    for (const r of ["nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "nvidia.com/gpu.shared"]) {
      expect(isRdmaResource(r), r).toBe(false);
    }
  });
});
