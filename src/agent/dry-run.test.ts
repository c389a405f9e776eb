import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../test/support/examples.js";
import { captureIo } from "../../test/support/io.js";
import { runChecks } from "../checks/index.js";
import { main } from "../cli/main.js";
import { listExamples } from "../examples/index.js";
import { SnapshotHostReader } from "../host/index.js";
import { readInventory } from "../inventory/index.js";
import { REPORT_DATA_KEY } from "./report.js";
import { parseReport } from "./validate.js";

async function dryRun(example: string, ...more: string[]) {
  const io = captureIo();
  const code = await main(
    ["agent", "--once", "--dry-run", "--example", example, "--node-name", "gpu-n1", "-o", "json", ...more],
    io,
  );
  return { code, out: JSON.parse(io.out), err: io.err };
}

describe("agent --once --dry-run: what the agent would write, without a cluster", () => {
  test("the A100 RoCE example node → RDMAReady True, no events, a report that fleet verify can read", async () => {
    const { code, out } = await dryRun("a100-8x-roce");
    expect(code).toBe(0);
    expect(out.condition).toMatchObject({ type: "RDMAReady", status: "True", reason: "RDMAChecksPassed" });
    expect(out.statusPatch.status.conditions).toEqual([out.condition]);
    expect(out.events).toEqual([]);
    expect(out.configMap.metadata).toMatchObject({ name: "kube-rdma-node-gpu-n1", namespace: "kube-rdma" });
    const parsed = parseReport(out.configMap.data[REPORT_DATA_KEY]);
    expect(parsed.ok && parsed.report.values.OFED).toBe("MLNX_OFED 5.8-1.1.2.1");
    expect(parsed.ok && parsed.report.rails).toHaveLength(8);
    expect(out.taint).toBeNull();
  });

  test("the node with mlx5_3's port down → RDMAReady False, reason PORT_DOWN, a Warning event naming mlx5_3 and the fix", async () => {
    const { code, out } = await dryRun("port-down");
    expect(code).toBe(1);
    expect(out.condition).toMatchObject({ status: "False", reason: "PORT_DOWN" });
    expect(out.condition.message).toMatch(/mlx5_3 port 1/);
    expect(out.condition.message).toMatch(/Fix: .*ip link set eth3 up/);
    expect(out.condition.message).not.toMatch(/\n/);
    expect(out.events).toEqual([expect.objectContaining({ type: "Warning", reason: "PORT_DOWN", subject: "mlx5_3" })]);
  });

  test("--taint previews the taint (a fresh fleet has room for it)", async () => {
    const { out } = await dryRun("port-down", "--taint");
    expect(out.taint).toEqual({ action: "taint" });
  });

  test("without a node name it says how to give one (exit 2)", async () => {
    const io = captureIo();
    expect(await main(["agent", "--once", "--dry-run", "--example", "a100-8x-roce"], { ...io, env: {} })).toBe(2);
    expect(io.err).toMatch(/--node-name NAME or \$NODE_NAME/);
  });

  test("--nvidia-lib-dir without libnvidia-ml.so.1 in it is refused with what to mount (exit 2)", async () => {
    const io = captureIo();
    const args = ["agent", "--once", "--dry-run", "--example", "a100-8x-roce", "--node-name", "n"];
    expect(await main([...args, "--nvidia-lib-dir", "/nonexistent/lib"], io)).toBe(2);
    expect(io.err).toMatch(/has no libnvidia-ml\.so\.1: expected the NVIDIA driver's library directory/);
  });

  test("--nvidia-lib-dir puts the driver's library directory first on LD_LIBRARY_PATH for nvidia-smi", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-nvml-"));
    writeFileSync(join(dir, "libnvidia-ml.so.1"), "");
    const before = process.env.LD_LIBRARY_PATH;
    try {
      const io = captureIo();
      const args = ["agent", "--once", "--dry-run", "--example", "a100-8x-roce", "--node-name", "n"];
      expect(await main([...args, "--nvidia-lib-dir", dir], io)).toBe(0);
      expect(process.env.LD_LIBRARY_PATH?.split(":")[0]).toBe(dir);
    } finally {
      if (before === undefined) delete process.env.LD_LIBRARY_PATH;
      else process.env.LD_LIBRARY_PATH = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("--dry-run without --once is refused: a dry loop would print forever", async () => {
    const io = captureIo();
    expect(await main(["agent", "--dry-run", "--example", "a100-8x-roce", "--node-name", "n"], io)).toBe(2);
    expect(io.err).toMatch(/give --once/);
  });

  // Every example node: the condition agrees with `verify` on the same node — False exactly when verify finds an
  // error, its reason the first error's code (else the first warning's, else RDMAChecksPassed). A check that could
  // not run (CHECK_SKIPPED) names no reason while another finding does, and never hides a pass: the reason then
  // says the checks passed and which did not run.
  test.each(listExamples().map((e) => e.name))("example %s: the condition agrees with verify", async (name) => {
    const inv = await readInventory(new SnapshotHostReader(exampleSnapshot(name), name));
    const findings = runChecks(inv);
    const firstError = findings.find((f) => f.severity === "error");
    const firstWarning = findings.find((f) => f.severity === "warning" && f.code !== "CHECK_SKIPPED");
    const skipped = findings.filter((f) => f.severity === "warning" && f.code === "CHECK_SKIPPED");
    const passed =
      skipped.length === 0
        ? "RDMAChecksPassed"
        : skipped.some((f) => f.subject === "nvidia-smi")
          ? "RDMAChecksPassedGPUChecksNotRun"
          : "RDMAChecksPassedSomeNotRun";
    const { code, out } = await dryRun(name);
    expect(out.condition.status).toBe(firstError ? "False" : "True");
    expect(out.condition.reason).toBe(firstError?.code ?? firstWarning?.code ?? passed);
    expect(code).toBe(firstError ? 1 : 0);
    expect(out.events.map((e: { reason: string }) => e.reason)).toEqual(
      findings.filter((f) => f.severity === "error").map((f) => f.code),
    );
    expect(parseReport(out.configMap.data[REPORT_DATA_KEY]).ok).toBe(true);
  });
});
