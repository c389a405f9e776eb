/**
 * Every job kind on every example host: the manifests lint clean, validate against the published CRDs, and no pod
 * on the pod network carries a host interface name in NCCL_SOCKET_IFNAME.
 */
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { listExamples } from "../src/examples/index.js";
import { lintManifestText } from "../src/kube/lint/index.js";
import { captureIo } from "./support/io.js";
import { expectGeneratedValid, parseDocs, podTemplates } from "./support/kube/generated.js";

// biome-ignore lint/suspicious/noExplicitAny: manifests are inspected as plain JSON.
type Any = any;

const KINDS: string[][] = [
  ["pytorch"],
  ["mpi", "--", "python", "train.py"],
  ["volcano", "--", "python", "train.py"],
  ["nccl-tests"],
  ["nccl-tests", "--kind", "volcano"],
  ["trainjob"],
];

/** An nccl-tests image for CUDA 11.4, for the nodes whose driver no published nccl-tests image fits. */
const OLD_DRIVER_IMAGE = "registry.example/nccl-tests:11.4.3-devel-ubuntu20.04";

async function job(example: string, kind: string[]) {
  const [name, ...rest] = kind;
  const run = async (extra: string[]) => {
    const io = captureIo();
    const code = await main(["job", name!, "--example", example, ...extra, ...rest], io);
    return { code, out: io.out, err: io.err };
  };
  const r = await run([]);
  if (r.code === 2 && name === "nccl-tests") {
    expect(r.err).toMatch(/runs CUDA ≤ \d+\.\d+ .*--skip-driver-check/s);
    return run(["--image", OLD_DRIVER_IMAGE]);
  }
  return r;
}

describe.each(listExamples().map((e) => e.name))("job on the example host %s", (example) => {
  test("pytorch, mpi, volcano, nccl-tests (MPIJob and Volcano) and trainjob: lint-clean, valid, no host interface in a pod-network pod", async () => {
    // The job exits as `nccl-env` does for its node: 1 when the derivation has an error the job would inherit.
    const ncclEnvCode = await main(["nccl-env", "--example", example], captureIo());
    for (const kind of KINDS) {
      const label = `${example}: job ${kind.join(" ")}`;
      const r = await job(example, kind);
      expect(r.code, `${label}\n${r.err}`).toBe(ncclEnvCode);
      expectGeneratedValid(r.out, label);
      for (const d of parseDocs(r.out)) {
        for (const t of podTemplates(d)) {
          expect(t.spec.hostNetwork, label).toBeUndefined();
          for (const c of t.spec.containers) {
            expect(
              (c.env ?? []).find((e: Any) => e.name === "NCCL_SOCKET_IFNAME"),
              label,
            ).toBeUndefined();
          }
        }
      }
    }
  }, 120_000);
});

describe("lint knows the management HCA of the node a job was generated for", () => {
  test("ib-8x-hdr (management on a non-RDMA eth0): NCCL_IB_HCA with mlx5_0 is right there; on an unannotated pod nothing is guessed, and --management-hca names it", async () => {
    const r = await job("ib-8x-hdr", ["pytorch"]);
    expect(r.out).toMatch(/kube-rdma\/management-hca: none/);
    expectGeneratedValid(r.out, "ib-8x-hdr");
    const bare = r.out.replaceAll(/\n\s+kube-rdma\/management-hca: none/g, "");
    // mlx5_0 is a data rail on this node (and on a DGX H100): without the fact, lint does not call it management.
    expect(lintManifestText(bare, "bare.yaml").findings.map((f) => f.code)).not.toContain("NCCL_IB_HCA_MANAGEMENT");
    const told = lintManifestText(bare, "bare.yaml", { managementHca: "mlx5_0", shmMinBytes: 1024 ** 3 });
    expect(told.findings.map((f) => f.code)).toContain("NCCL_IB_HCA_MANAGEMENT");
  });

  test("bond-management: the pods say mlx5_bond_0, and an NCCL_IB_HCA naming it is flagged", async () => {
    const r = await job("bond-management", ["pytorch"]);
    expect(r.out).toMatch(/kube-rdma\/management-hca: mlx5_bond_0/);
    const bad = r.out.replace("value: =mlx5_2,", "value: =mlx5_bond_0,mlx5_2,");
    const f = lintManifestText(bad, "bad.yaml").findings.find((x) => x.code === "NCCL_IB_HCA_MANAGEMENT");
    expect(f?.message).toMatch(/selects mlx5_bond_0/);
  });
});
