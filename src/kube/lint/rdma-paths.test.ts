/**
 * Which RDMA paths lint accepts, and when it may say a HCA is the management NIC. Manifests are written here in the
 * shapes of the sources cited beside each test (our own names and numbers).
 */
import { describe, expect, test } from "vitest";
import { lintManifestText } from "./index.js";

const job = (o: { annotations?: string; limits: string; resources?: string; env?: string; claims?: string }) =>
  `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: train}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 4
      template:
        metadata:
          annotations:
            sidecar.istio.io/inject: "false"
${o.annotations ?? ""}
        spec:
          schedulerName: volcano
${o.claims ?? ""}
          containers:
            - name: trainer
              image: example.org/train:1
${o.env ?? ""}
              securityContext: {capabilities: {add: [IPC_LOCK]}}
              resources:
                limits:
                  nvidia.com/gpu: 8
${o.limits}
${o.resources ?? ""}
              volumeMounts: [{name: shm, mountPath: /dev/shm}]
          volumes: [{name: shm, emptyDir: {medium: Memory, sizeLimit: 64Gi}}]
`;

const codes = (text: string) => lintManifestText(text, "job.yaml").findings.map((f) => `${f.severity}:${f.code}`);

describe("lint CONTAINER_NO_RDMA_RESOURCE: the Network Operator's documented GPUDirect paths are RDMA paths", () => {
  // SR-IOV RDMA VFs: SriovNetworkNodePolicy {isRdma: true, resourceName: sriov_resource}, the pod asks for
  // nvidia.com/sriov_resource and names the SriovNetwork in k8s.v1.cni.cncf.io/networks
  // (https://docs.nvidia.com/networking/display/kubernetes2570/quick-start/sriov-network-rdma.html).
  test("8 SR-IOV VFs (nvidia.com/sriov_rdma_vf: 8) with a Multus network annotation: no error, an info saying RDMA was not confirmed", () => {
    const c = codes(
      job({
        annotations: "            k8s.v1.cni.cncf.io/networks: sriov-rail-1,sriov-rail-2,sriov-rail-3,sriov-rail-4",
        limits: "                  nvidia.com/sriov_rdma_vf: 8",
      }),
    );
    expect(c).not.toContain("error:CONTAINER_NO_RDMA_RESOURCE");
    expect(c).toContain("info:RDMA_DEVICE_NOT_CONFIRMED");
  });

  // Host-device network: the PF itself moves into the pod, resource nvidia.com/hostdev
  // (https://docs.nvidia.com/networking/display/kubernetes2570/quick-start/host-device-rdma.html).
  test("a host-device network (nvidia.com/hostdev: 1 + networks annotation) is accepted the same way", () => {
    const c = codes(
      job({
        annotations: "            k8s.v1.cni.cncf.io/networks: hostdev-net",
        limits: "                  nvidia.com/hostdev: 1",
      }),
    );
    expect(c).not.toContain("error:CONTAINER_NO_RDMA_RESOURCE");
  });

  // Dynamic Resource Allocation: a container names the pod's resourceClaims in resources.claims
  // (https://kubernetes.io/docs/concepts/scheduling-eviction/dynamic-resource-allocation/).
  test("a DRA resource claim for the NIC is accepted, with the claim named in the info", () => {
    const f = lintManifestText(
      job({
        limits: "",
        resources: "                claims: [{name: rdma-nic}]",
        claims: "          resourceClaims: [{name: rdma-nic, resourceClaimTemplateName: rdma-nic-template}]",
      }),
      "job.yaml",
    ).findings;
    expect(f.map((x) => x.code)).not.toContain("CONTAINER_NO_RDMA_RESOURCE");
    expect(f.find((x) => x.code === "RDMA_DEVICE_NOT_CONFIRMED")?.message).toContain("rdma-nic");
  });

  test("a VF resource without any Multus network, or a GPU alone, is still the error (no RDMA device by any path)", () => {
    expect(codes(job({ limits: "                  nvidia.com/sriov_rdma_vf: 8" }))).toContain(
      "error:CONTAINER_NO_RDMA_RESOURCE",
    );
    expect(codes(job({ limits: "" }))).toContain("error:CONTAINER_NO_RDMA_RESOURCE");
  });

  test("nvidia.com/mig-1g.10gb is a GPU slice, not a network device", () => {
    expect(
      codes(
        job({
          annotations: "            k8s.v1.cni.cncf.io/networks: pod-net",
          limits: "                  nvidia.com/mig-1g.10gb: 1",
        }),
      ),
    ).toContain("error:CONTAINER_NO_RDMA_RESOURCE");
  });
});

describe("lint NCCL_IB_HCA_MANAGEMENT: mlx5_0 is not the management NIC by nature", () => {
  // DGX H100: mlx5_0 is the first compute (rail) ConnectX-7 port; the storage/in-band ports are other names
  // (NVIDIA DGX H100 User Guide, "Network Ports"; this project's node model in src/fabric/rail-nics.ts).
  const dgx = "=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11";
  const env = `              env:\n                - {name: NCCL_IB_HCA, value: "${dgx}"}`;

  test("a DGX H100 job listing its 8 compute rails (mlx5_0 among them), nothing known of the node: no warning", () => {
    expect(codes(job({ limits: "                  rdma/hca: 1", env }))).not.toContain(
      "warning:NCCL_IB_HCA_MANAGEMENT",
    );
  });

  test("the node's management HCA, when given (annotation or --management-hca), is named with where that came from", () => {
    const text = job({
      limits: "                  rdma/hca: 1",
      env,
      annotations: "            kube-rdma/management-hca: mlx5_0",
    });
    const f = lintManifestText(text, "job.yaml").findings.find((x) => x.code === "NCCL_IB_HCA_MANAGEMENT");
    expect(f?.message).toContain("kube-rdma/management-hca annotation");
    // The fix never proposes a list of other mlx5 names (on a DGX that swaps rails for storage NICs).
    expect(f?.fix).toContain("^=mlx5_0");
    expect(f?.fix).not.toMatch(/mlx5_1,|mlx5_8/);
    const byFlag = lintManifestText(job({ limits: "                  rdma/hca: 1", env }), "job.yaml", {
      managementHca: "mlx5_2",
      shmMinBytes: 1024 ** 3,
    }).findings;
    expect(byFlag.map((x) => x.code)).not.toContain("NCCL_IB_HCA_MANAGEMENT");
  });
});
