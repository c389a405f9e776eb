/**
 * OFED as installed and as running. `ofed_info -s` says what is installed; /sys/module says which mlx5 driver the
 * kernel runs: OFED's modules need its compat layer mlx_compat and carry its version less the last part
 * (`modinfo mlx5_core` shows `version: 5.8-1.1.2` under MLNX_OFED 5.8-1.1.2.1 — the shape weka/tools'
 * install/scripts.d/ta/195_ofed.sh compares; mlx_compat named as an OFED-only module in
 * https://github.com/Mellanox/doca-driver-build/pull/369), the inbox driver has neither.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { captureIo } from "../../test/support/io.js";
import { main } from "../cli/main.js";
import { collectSnapshot, openReader } from "../host/index.js";
import type { Snapshot } from "../host/types.js";
import { loadedMatchesInstalled } from "../inventory/build-ofed.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";

type Finding = { code: string; severity: string; subject: string; message: string; fix: string };

async function verifyExample(example: string) {
  const inv = await readInventory(await openReader({ example }));
  return { inv, findings: runChecks(inv, {}) as Finding[] };
}

async function verifySnapshot(snap: Snapshot): Promise<{ code: number; out: string; findings: Finding[] }> {
  const file = join(mkdtempSync(join(tmpdir(), "kr-ofed-")), "node.json");
  writeFileSync(file, JSON.stringify(snap));
  const json = captureIo();
  const code = await main(["verify", "--snapshot", file, "-o", "json"], json);
  const text = captureIo();
  await main(["verify", "--snapshot", file], text);
  return { code, out: text.out, findings: (JSON.parse(json.out) as { findings: Finding[] }).findings };
}

const seedSnapshot = async () => collectSnapshot(await openReader({ example: "a100-8x-roce" }));

describe("which mlx5 driver runs, against the OFED installed", () => {
  test("the A100 RoCE example node runs the MLNX_OFED 5.8-1.1.2.1 it has installed (mlx5_core 5.8-1.1.2): no finding", async () => {
    const { inv, findings } = await verifyExample("a100-8x-roce");
    expect(inv.ofed.loadedDriver).toEqual({ from: "ofed", version: "5.8-1.1.2" });
    expect(findings).toEqual([]);
  });

  test("a node whose OFED comes from the Network Operator's driver container → info OFED_TOOLS_ABSENT, not 'inbox rdma-core'", async () => {
    const { inv, findings } = await verifyExample("ofed-driver-container");
    expect(inv.ofed).toMatchObject({ status: "absent", loadedDriver: { from: "ofed", version: "24.10-1.1.4" } });
    expect(findings.map((f) => [f.code, f.severity, f.subject])).toEqual([["OFED_TOOLS_ABSENT", "info", "ofed_info"]]);
    expect(findings[0]!.message).toMatch(/mlx5_core 24\.10-1\.1\.4/);
    expect(findings[0]!.message).toMatch(/Network Operator's driver container/);
    expect(findings[0]!.message).not.toMatch(/inbox/);
    expect(findings[0]!.fix).toMatch(/kubectl exec -n nvidia-network-operator/);
  });

  test("a node updated to a kernel OFED was not rebuilt for → warning OFED_NOT_RUNNING on mlx5_core; NO_GPUDIRECT's fix starts with OFED", async () => {
    const { inv, findings } = await verifyExample("ofed-not-loaded");
    expect(inv.ofed.loadedDriver).toEqual({ from: "inbox", version: null });
    expect(findings.map((f) => [f.code, f.severity, f.subject]).sort()).toEqual([
      ["NO_GPUDIRECT", "error", "node"],
      ["OFED_NOT_RUNNING", "warning", "mlx5_core"],
    ]);
    const notRunning = findings.find((f) => f.code === "OFED_NOT_RUNNING")!;
    expect(notRunning.message).toMatch(
      /MLNX_OFED 5\.8-1\.1\.2\.1 is installed .* inbox mlx5 driver \(mlx5_core without/,
    );
    expect(notRunning.fix).toMatch(/openibd restart/);
    expect(notRunning.fix).toMatch(/--add-kernel-support/);
    expect(findings.find((f) => f.code === "NO_GPUDIRECT")!.fix).toMatch(/^This kernel runs the inbox mlx5 driver/);
  });

  test("OFED upgraded on disk, the old OFED's mlx5_core 5.4-3.5.8 still loaded → OFED_NOT_RUNNING naming both versions", async () => {
    const snap = await seedSnapshot();
    snap.fileGroups!["/sys/module/mlx5_core"] = { version: "5.4-3.5.8\n" };
    const { code, out, findings } = await verifySnapshot(snap);
    expect(code).toBe(0);
    const f = findings.filter((x) => x.code === "OFED_NOT_RUNNING");
    expect(f).toHaveLength(1);
    expect(f[0]!.message).toMatch(/MLNX_OFED 5\.8-1\.1\.2\.1 is installed .* runs mlx5_core 5\.4-3\.5\.8/);
    expect(f[0]!.message).toMatch(/Network Operator's driver container, which loads its own/);
    expect(f[0]!.fix).toMatch(/^Where the Network Operator's driver container runs .*\/openibd restart/);
    expect(out).toMatch(/OFED +MLNX_OFED 5\.8-1\.1\.2\.1, but the kernel runs mlx5_core 5\.4-3\.5\.8/);
  });

  test("a snapshot taken before /sys/module/mlx5_core was recorded says nothing about the running driver", async () => {
    const snap = await seedSnapshot();
    delete snap.fileGroups!["/sys/module/mlx5_core"];
    delete snap.dirs["/sys/module/mlx5_core"];
    delete snap.dirs["/sys/module/mlx_compat"];
    delete snap.files["/sys/module/mlx_compat"];
    const { code, findings } = await verifySnapshot(snap);
    expect(code).toBe(0);
    expect(findings).toEqual([]);
  });

  test("a damaged snapshot whose mlx5_core/version is junk: OFED's driver without a version, no mismatch claimed", async () => {
    const snap = await seedSnapshot();
    snap.fileGroups!["/sys/module/mlx5_core"] = { version: `${"\u0000\u00ff".repeat(20_000)}\n` };
    const { code, findings } = await verifySnapshot(snap);
    expect(findings).toEqual([]);
    expect(code).toBe(0);
  });

  test("a community OFED build (`OFED-x`, no mlx_compat of NVIDIA's) is not judged by it", async () => {
    const snap = await seedSnapshot();
    snap.commands["ofed_info -s"] = { ...snap.commands["ofed_info -s"]!, stdout: "OFED-5.8-1.1.2:\n" };
    delete snap.dirs["/sys/module/mlx_compat"];
    const { findings, out } = await verifySnapshot(snap);
    expect(findings.map((f) => f.code)).not.toContain("OFED_NOT_RUNNING");
    // The node summary says what the check says: no "but the kernel runs …" for it either.
    expect(out).toMatch(/OFED +OFED 5\.8-1\.1\.2\n/);
  });

  test.each([
    ["5.8-1.1.2", "5.8-1.1.2.1", true],
    ["23.10-1.1.9", "23.10-1.1.9.0", true],
    ["24.10-1.1.4", "24.10-1.1.4.0", true],
    ["5.4-3.5.8", "5.8-1.1.2.1", false],
    ["23.10-0.5.5", "23.10-1.1.9.0", false],
    ["5.0-0", "5.8-1.1.2.1", false],
    ["5.8", "5.8-1.1.2.1", null],
  ])("mlx5_core %s under OFED %s: same install → %s", (loaded, installed, same) => {
    expect(loadedMatchesInstalled(loaded, installed)).toBe(same);
  });
});

describe("a snapshot without a command's record (trimmed by hand, or taken by an older kube-rdma)", () => {
  test("no ofed_info and no nvidia-smi record → CHECK_SKIPPED for each with the collect fix, not 'OFED absent' or 'no driver'", async () => {
    const snap = await seedSnapshot();
    delete snap.commands["ofed_info -s"];
    delete snap.commands["nvidia-smi -q -x"];
    const { code, out, findings } = await verifySnapshot(snap);
    expect(findings.map((f) => f.code)).not.toContain("OFED_ABSENT");
    expect(findings.map((f) => f.code)).not.toContain("DRIVER_ABSENT");
    const skipped = findings.filter((f) => f.code === "CHECK_SKIPPED");
    expect(skipped.map((f) => f.subject).sort()).toEqual(["nvidia-smi", "ofed_info"]);
    for (const f of skipped) {
      expect(f.severity).toBe("warning");
      expect(f.message).toMatch(/not recorded in this snapshot/);
      expect(f.fix).toMatch(/kube-rdma collect -o node\.json/);
    }
    expect(out).toMatch(/OFED +unknown: ofed_info -s: not recorded in this snapshot/);
    expect(out).not.toMatch(/inbox rdma-core/);
    expect(code).toBe(0);
  });

  test("a recorded 'not installed' stays OFED_ABSENT: only a missing record is 'not recorded'", async () => {
    const snap = await seedSnapshot();
    snap.commands["ofed_info -s"] = {
      command: "ofed_info -s",
      exitCode: null,
      stdout: "",
      stderr: "",
      error: { code: "ENOENT", message: "ofed_info -s: not installed (ofed_info not found on PATH)" },
    };
    // The inbox driver, as on a node without OFED.
    delete snap.fileGroups!["/sys/module/mlx5_core"];
    delete snap.dirs["/sys/module/mlx_compat"];
    delete snap.files["/sys/module/mlx_compat"];
    snap.dirs["/sys/module/mlx5_core"] = ["refcnt"];
    const { findings } = await verifySnapshot(snap);
    expect(findings.map((f) => [f.code, f.severity])).toEqual([["OFED_ABSENT", "info"]]);
  });
});
