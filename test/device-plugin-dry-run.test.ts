import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";

describe("device-plugin --dry-run", () => {
  test("the A100 RoCE example node: 8 data HCAs served, exit 0", async () => {
    const io = captureIo();
    expect(await main(["device-plugin", "--example", "a100-8x-roce", "--dry-run"], io)).toBe(0);
    expect(io.out).toContain("HCAs served: mlx5_1");
    expect(io.err).toBe("");
  });

  test("a node with no RDMA device would advertise nothing: said on stderr, exit 1 (pods asking for rdma/hca would never schedule)", async () => {
    const io = captureIo();
    const root = mkdtempSync(join(tmpdir(), "kube-rdma-no-hca-"));
    expect(await main(["device-plugin", "--root", root, "--dry-run"], io)).toBe(1);
    expect(io.out).toContain("HCAs served: none");
    expect(io.err).toMatch(/no HCA would be served on .*: the node has no RDMA device/);
    expect(io.err).toContain("Pods requesting rdma/hca would never be scheduled here");
  });

  test("a node whose /dev/infiniband lost every uverbs device (ib_uverbs not loaded): the preview does not list them as given; shared mode hands out rdma_cm only, exit 1 with the fix", async () => {
    const io = captureIo();
    expect(await main(["device-plugin", "--example", "no-uverbs", "--dry-run", "-o", "json"], io)).toBe(1);
    const preview = JSON.parse(io.out);
    expect(preview.allocate.devices.map((d: { host_path: string }) => d.host_path)).toEqual([
      "/dev/infiniband/rdma_cm",
    ]);
    expect(preview.allocate.missing).toContain("/dev/infiniband/uverbs5");
    expect(preview.allocate.refused).toBeNull();
    expect(io.err).toContain("/dev/infiniband/uverbs1");
    expect(io.err).toContain("modprobe ib_uverbs");
  });

  test("the same node in exclusive mode: the text says the kubelet's Allocate would be refused, exit 1", async () => {
    const io = captureIo();
    expect(await main(["device-plugin", "--example", "no-uverbs", "--dry-run", "--mode", "exclusive"], io)).toBe(1);
    expect(io.out).toMatch(/Allocate\(mlx5_1,.*\) would be refused: the verbs device of mlx5_1, .* no longer exists/);
    expect(io.out).not.toContain("NCCL_IB_HCA");
    expect(io.out).toContain("missing on the host, left out: /dev/infiniband/uverbs8");
    // Advertised Unhealthy, as the serving plugin's health poll does: the kubelet must not place pods on them.
    expect(io.out).toContain("mlx5_3 (no /dev/infiniband/uverbs3) numa0");
    expect(io.out).toContain("Advertised: 8 units, 0 healthy");
  });

  test("a node whose mlx5_5 lost its IPv4 address: the variables it would inject leave mlx5_5 out of NCCL_IB_HCA, and the preview says why (error NCCL_NO_ROCEV2_IPV4_GID with the fix), exit 1 as nccl-env", async () => {
    const io = captureIo();
    expect(await main(["device-plugin", "--example", "no-rocev2-gid", "--dry-run"], io)).toBe(1);
    expect(io.out).toContain("NCCL_IB_HCA==mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_6,mlx5_7,mlx5_8");
    expect(io.out).toContain("ERROR NCCL_NO_ROCEV2_IPV4_GID (mlx5_5): mlx5_5 has no RoCE v2 GID with an IPv4 address");
    expect(io.out).toContain("  fix: Give mlx5_5's netdev its IPv4 address back");
    expect(io.err).toContain("come from a node with 1 error(s): NCCL_NO_ROCEV2_IPV4_GID (mlx5_5)");
    const json = captureIo();
    expect(await main(["device-plugin", "--example", "no-rocev2-gid", "--dry-run", "-o", "json"], json)).toBe(1);
    expect(JSON.parse(json.out).allocate.envFindings).toEqual([
      expect.objectContaining({ code: "NCCL_NO_ROCEV2_IPV4_GID", severity: "error", subject: "mlx5_5" }),
    ]);
  });

  test("leaving that HCA out with --config, or a port that is down (a warning), still exits 0", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-dp-config-"));
    const config = join(dir, "hcas.yaml");
    writeFileSync(config, "excludeNames: [mlx5_5]\n");
    const io = captureIo();
    expect(await main(["device-plugin", "--example", "no-rocev2-gid", "--dry-run", "--config", config], io)).toBe(0);
    expect(io.out).not.toContain("ERROR");
    const down = captureIo();
    expect(await main(["device-plugin", "--example", "port-down", "--dry-run"], down)).toBe(0);
    expect(down.out).toContain("WARNING NCCL_HCA_SKIPPED (mlx5_3)");
  });

  test("--command-timeout -1 is refused as verify refuses it (device-plugin passed it on unchecked), exit 2", async () => {
    const io = captureIo();
    const argv = ["device-plugin", "--example", "a100-8x-roce", "--dry-run", "--command-timeout", "-1"];
    expect(await main(argv, io)).toBe(2);
    expect(io.err).toContain("--command-timeout must be a positive number of seconds; got -1.");
  });
});
