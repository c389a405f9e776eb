import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { captureIo } from "./support/io.js";

describe("device-plugin --dry-run", () => {
  test("the A100 RoCE example node: 8 data HCAs served, exit 0", async () => {
    const io = captureIo();
    expect(await main(["device-plugin", "--example", "a100-8x-roce-seed", "--dry-run"], io)).toBe(0);
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
});
