import type { V1Node } from "@kubernetes/client-node";
import { describe, expect, test } from "vitest";
import { chooseNcclTestsImage } from "../job/images.js";
import { benchResources, driverOfNode } from "./node-resources.js";

/**
 * Node shapes: `status.allocatable` quantities as the kubelet reports extended resources (strings), and the driver
 * labels NVIDIA GPU Feature Discovery puts on GPU nodes — `nvidia.com/cuda.driver-version.full` and its
 * `.major`/`.minor`/`.revision` parts, and the older `nvidia.com/cuda.driver.major`/`.minor`/`.rev` — as listed
 * under "Generated Labels" in https://github.com/NVIDIA/k8s-device-plugin/tree/main/docs/gpu-feature-discovery.
 * Host names, counts and versions are our own.
 */
function gpuNode(name: string, allocatable: Record<string, string>, labels: Record<string, string> = {}): V1Node {
  return { metadata: { name, labels }, status: { allocatable: { cpu: "95", memory: "1000Gi", ...allocatable } } };
}

describe("what a bench job asks of the nodes, read from the nodes", () => {
  test("a shared RDMA pool (more units than HCAs): one unit per worker; the GPU count is the allocatable one", () => {
    const nodes = ["h-a1", "h-a2"].map((n) => gpuNode(n, { "nvidia.com/gpu": "4", "rdma/hca": "1k" }));
    const r = benchResources(nodes, 4);
    expect(r).toMatchObject({ gpuResource: "nvidia.com/gpu", gpusPerNode: 4, rdmaResource: "rdma/hca", rdmaCount: 1 });
  });

  test("one unit per HCA (an exclusive plugin, SR-IOV VFs): as many units as rails per worker", () => {
    const nodes = ["h-b1", "h-b2"].map((n) => gpuNode(n, { "nvidia.com/gpu": "8", "nvidia.com/sriov_rdma_vf": "8" }));
    expect(benchResources(nodes, 8)).toMatchObject({ rdmaResource: "nvidia.com/sriov_rdma_vf", rdmaCount: 8 });
  });

  test("nodes with different GPU counts: each job asks for the fewest, and says so", () => {
    const nodes = [
      gpuNode("h-c1", { "nvidia.com/gpu": "8", "rdma/hca": "1k" }),
      gpuNode("h-c2", { "nvidia.com/gpu": "6", "rdma/hca": "1k" }),
    ];
    const r = benchResources(nodes, 8);
    if (typeof r === "string") throw new Error(r);
    expect(r.gpusPerNode).toBe(6);
    expect(r.notes.join("\n")).toMatch(/fewest, 6/);
    expect(benchResources(nodes, 8, { gpus: 8 })).toMatch(/only 6 allocatable nvidia.com\/gpu/);
  });

  test("what cannot work is refused with what to do: no GPUs, no common RDMA resource, fewer units than rails", () => {
    expect(benchResources([gpuNode("h-d1", { "rdma/hca": "1k" }), gpuNode("h-d2", { "rdma/hca": "1k" })], 8)).toMatch(
      /none of the selected nodes has an allocatable GPU resource/,
    );
    const mixed = [
      gpuNode("h-e1", { "nvidia.com/gpu": "8", "rdma/hca": "1k" }),
      gpuNode("h-e2", { "nvidia.com/gpu": "8", "rdma/rdma_shared_device_a": "1k" }),
    ];
    expect(benchResources(mixed, 8)).toMatch(/no RDMA resource in common/);
    expect(benchResources(mixed, 8, { rdmaResource: "rdma/hca" })).toMatch(/h-e2 advertises no allocatable rdma\/hca/);
    const few = ["h-f1", "h-f2"].map((n) => gpuNode(n, { "nvidia.com/gpu": "8", "nvidia.com/sriov_rdma_vf": "4" }));
    expect(benchResources(few, 8)).toMatch(/4 allocatable .*fewer than the 8 rails/);
  });

  test("the driver from GPU Feature Discovery labels, new and old names; the oldest node's is the one checked", () => {
    expect(driverOfNode(gpuNode("x", {}, { "nvidia.com/cuda.driver-version.full": "570.133.20" }))).toBe("570.133.20");
    expect(
      driverOfNode(
        gpuNode(
          "x",
          {},
          {
            "nvidia.com/cuda.driver.major": "535",
            "nvidia.com/cuda.driver.minor": "183",
            "nvidia.com/cuda.driver.rev": "06",
          },
        ),
      ),
    ).toBe("535.183.06");
    expect(driverOfNode(gpuNode("x", {}, {}))).toBeNull();
    const res = { "nvidia.com/gpu": "8", "rdma/hca": "1k" };
    const r = benchResources(
      [
        gpuNode("h-g1", res, { "nvidia.com/cuda.driver-version.full": "580.82.07" }),
        gpuNode("h-g2", res, { "nvidia.com/cuda.driver-version.full": "550.163.01" }),
      ],
      8,
    );
    if (typeof r === "string") throw new Error(r);
    expect(r.driver?.driverVersion).toBe("550.163.01");
    // The check `job nccl-tests` makes: a CUDA 13 image on an R550 driver is refused, naming the override.
    const choice = chooseNcclTestsImage({
      driver: r.driver,
      image: "ghcr.io/coreweave/nccl-tests:13.0.2-devel-ubuntu22.04-nccl2.29.2-1-d73ec07",
      skipDriverCheck: false,
    });
    expect(choice.ok).toBe(false);
    // Without --image the newest image that driver runs is chosen.
    const picked = chooseNcclTestsImage({ driver: r.driver, skipDriverCheck: false });
    expect(picked.ok && picked.image).toMatch(/:12\.\d/);
  });
});
