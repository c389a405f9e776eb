import { Ajv } from "ajv";
import { describe, expect, test } from "vitest";
import { parse as parseYaml } from "yaml";
import { captureIo } from "../../test/support/io.js";
import { portOf, seedGids, seedInventory, setGids } from "../checks/testing/seed-inventory.js";
import { VERIFY_REPORT_SCHEMA } from "../checks/testing/verify-schema.js";
import { UsageError } from "./spec.js";
import { checkOptionsFromFlags, writeVerifyReport } from "./verify-output.js";

const flags = (extra: Record<string, string | boolean | number> = {}) => ({
  output: "text",
  "shm-min": "1Gi",
  ...extra,
});

function brokenNode() {
  const inv = seedInventory();
  Object.assign(portOf(inv, "mlx5_3"), { state: "DOWN", physState: "Disabled" });
  Object.assign(portOf(inv, "mlx5_4").counters, { symbol_error: 12 });
  inv.ofed = { status: "absent", flavor: null, version: null, raw: null };
  return inv;
}

describe("verify's report", () => {
  test("the seed node prints the node summary the operator checks by hand, and PASS (exit 0)", async () => {
    const io = captureIo();
    expect(await writeVerifyReport(seedInventory(), checkOptionsFromFlags(flags()), flags(), io)).toBe(0);
    expect(io.out).toMatch(/^kube-rdma verify: cce-a100-roce-01/);
    expect(io.out).toMatch(/OFED\s+MLNX_OFED 5\.8-1\.1\.2\.1/);
    expect(io.out).toMatch(/NVIDIA\s+driver 470\.141\.03, CUDA 11\.4/);
    expect(io.out).toMatch(/GPUs\s+8 × NVIDIA A100-SXM4-80GB/);
    expect(io.out).toMatch(/Management\s+mlx5_0 on eth0 \(default route\), 25 Gb\/s/);
    expect(io.out).toMatch(/Data NICs\s+8: mlx5_1\.\.mlx5_8 on eth1\.\.eth8, RoCE, 200 Gb\/s/);
    expect(io.out).toMatch(/GID index\s+RoCE v2 IPv4 at index 3 on every data HCA/);
    expect(io.out.trimEnd().split("\n").at(-1)).toBe("PASS: 0 error(s), 0 warning(s), 0 info; node cce-a100-roce-01");
  });

  test("a broken node groups errors, warnings and info, each with a fix line, and ends FAIL (exit 1)", async () => {
    const io = captureIo();
    expect(await writeVerifyReport(brokenNode(), {}, flags(), io)).toBe(1);
    const out = io.out;
    const errors = out.indexOf("Errors (1)");
    const warnings = out.indexOf("Warnings (1)");
    const info = out.indexOf("Info (1)");
    expect(errors).toBeGreaterThan(0);
    expect(warnings).toBeGreaterThan(errors);
    expect(info).toBeGreaterThan(warnings);
    expect(out).toMatch(/PORT_DOWN\s+mlx5_3\s+mlx5_3 port 1 is 1: DOWN/);
    expect(out).toMatch(/fix: Bring the link up: `ip link set eth3 up`;/);
    expect(out.trimEnd().split("\n").at(-1)).toMatch(/^FAIL: 1 error\(s\), 1 warning\(s\), 1 info; node /);
  });

  test("warnings alone exit 0 and say WARN; --strict makes them FAIL with exit 1", async () => {
    const inv = seedInventory();
    Object.assign(portOf(inv, "mlx5_4").counters, { link_downed: 1 });
    const io = captureIo();
    expect(await writeVerifyReport(inv, {}, flags(), io)).toBe(0);
    expect(io.out).toMatch(/\nWARN: 0 error\(s\), 1 warning\(s\)/);
    const strict = captureIo();
    expect(await writeVerifyReport(inv, {}, flags({ strict: true }), strict)).toBe(1);
    expect(strict.out).toMatch(/\nFAIL: 0 error\(s\), 1 warning\(s\)/);
  });

  test("-o json follows the design contract: schemaVersion 1, host, inventory, findings, summary", async () => {
    const io = captureIo();
    await writeVerifyReport(brokenNode(), {}, flags({ output: "json" }), io);
    const report = JSON.parse(io.out);
    const validate = new Ajv({ strict: false }).compile(VERIFY_REPORT_SCHEMA);
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(report.summary).toMatchObject({ status: "fail", errors: 1, warnings: 1 });
    expect(report.findings.map((f: { severity: string }) => f.severity)).toEqual(["error", "warning", "info"]);
    expect(report.findings[0]).toMatchObject({ code: "PORT_DOWN", subject: "mlx5_3" });
  });

  test("-o yaml carries the same report", async () => {
    const inv = seedInventory();
    setGids(portOf(inv, "mlx5_5"), seedGids(5).slice(0, 2));
    const io = captureIo();
    expect(await writeVerifyReport(inv, {}, flags({ output: "yaml" }), io)).toBe(1);
    const report = parseYaml(io.out);
    expect(report.schemaVersion).toBe(1);
    expect(report.findings[0]).toMatchObject({ code: "NO_ROCEV2_GID", subject: "mlx5_5", severity: "error" });
  });
});

describe("verify's options", () => {
  test("--pod, --expect-gpus, --expect-gpu-model and --shm-min become check options", () => {
    expect(
      checkOptionsFromFlags(flags({ pod: true, "expect-gpus": 8, "expect-gpu-model": "A100", "shm-min": "512Mi" })),
    ).toEqual({ pod: true, expectGpus: 8, expectGpuModel: "A100", shmMinBytes: 512 * 1024 ** 2 });
  });

  test("a fractional or negative GPU count and a bad size are usage errors", () => {
    expect(() => checkOptionsFromFlags(flags({ "expect-gpus": 7.5 }))).toThrow(UsageError);
    expect(() => checkOptionsFromFlags(flags({ "expect-gpus": -1 }))).toThrow(/whole number/);
    // An empty model is inside every GPU name: it would pass without comparing anything.
    expect(() => checkOptionsFromFlags(flags({ "expect-gpu-model": " " }))).toThrow(/--expect-gpu-model expects text/);
    expect(() => checkOptionsFromFlags(flags({ "shm-min": "big" }))).toThrow(/--shm-min expects a size/);
  });
});
