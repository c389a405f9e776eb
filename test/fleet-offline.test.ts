/**
 * `fleet verify --from-snapshots DIR`: the snapshots `--save-snapshots DIR` writes (DIR/NODE.json) analysed without a
 * cluster: the per-node verdicts and the fleet consistency rules, in the report and with the exit codes of a live run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import type { Snapshot } from "../src/host/types.js";
import { exampleSnapshot } from "./support/examples.js";
import { captureIo } from "./support/io.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A directory as --save-snapshots leaves it: one NODE.json per node. */
function savedDir(nodes: Record<string, Snapshot | string>): string {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-snaps-"));
  dirs.push(dir);
  for (const [node, s] of Object.entries(nodes)) {
    writeFileSync(join(dir, `${node}.json`), typeof s === "string" ? s : `${JSON.stringify(s)}\n`);
  }
  return dir;
}

/** The example node with every HCA flashed to another firmware. */
function withFirmware(fw: string): Snapshot {
  const s = exampleSnapshot("a100-8x-roce");
  for (const path of Object.keys(s.files)) if (path.endsWith("/fw_ver")) s.files[path] = `${fw}\n`;
  return s;
}

type FleetJson = {
  run: { fromSnapshots?: string; collected?: number };
  nodes: { node: string; status: string }[];
  failedNodes: { node: string; reason: string }[];
  findings: { code: string; subject: string; severity: string }[];
  summary: { status: string };
};

describe("fleet verify --from-snapshots DIR", () => {
  test("three saved nodes, one on other HCA firmware: FLEET_FIRMWARE_DIFFERS names it, no cluster asked", async () => {
    const dir = savedDir({
      "gpu-01": exampleSnapshot("a100-8x-roce"),
      "gpu-02": exampleSnapshot("a100-8x-roce"),
      "gpu-03": withFirmware("20.31.1014"),
    });
    // No kubeconfig in the environment: a cluster call would fail with exit 2.
    const io = captureIo();
    io.env = { KUBECONFIG: "/nonexistent/kubeconfig" };
    const code = await main(["fleet", "verify", "--from-snapshots", dir, "-o", "json"], io);
    expect(io.err).toBe("");
    const out = JSON.parse(io.out) as FleetJson;
    expect(out.run).toMatchObject({ fromSnapshots: dir, collected: 3 });
    expect(out.nodes.map((n) => n.node)).toEqual(["gpu-01", "gpu-02", "gpu-03"]);
    const fw = out.findings.filter((f) => f.code === "FLEET_FIRMWARE_DIFFERS");
    expect(fw.map((f) => f.subject)).toEqual(["gpu-03"]);
    expect(code).toBe(fw[0]!.severity === "error" ? 1 : 0);
  });

  test("the same report in text; --node picks nodes; a damaged file is a failed node (exit 1), never skipped", async () => {
    const dir = savedDir({
      "gpu-01": exampleSnapshot("a100-8x-roce"),
      "gpu-02": exampleSnapshot("a100-8x-roce"),
      "gpu-04": '{"kind": "kube-rdma/snapshot", "schemaVersion": 3, "host": "gpu-04"',
    });
    const two = captureIo();
    expect(await main(["fleet", "verify", "--from-snapshots", dir, "--node", "gpu-01", "--node", "gpu-02"], two)).toBe(
      0,
    );
    expect(two.out).toContain("gpu-01");
    expect(two.out).not.toContain("gpu-04");
    const all = captureIo();
    expect(await main(["fleet", "verify", "--from-snapshots", dir, "-o", "json"], all)).toBe(1);
    const out = JSON.parse(all.out) as FleetJson;
    expect(out.failedNodes.map((f) => f.node)).toEqual(["gpu-04"]);
  });

  test("a directory without snapshots, a missing node, or a cluster-only option: exit 2 saying what to do", async () => {
    const empty = mkdtempSync(join(tmpdir(), "kube-rdma-empty-"));
    dirs.push(empty);
    mkdirSync(join(empty, "sub"));
    const none = captureIo();
    expect(await main(["fleet", "verify", "--from-snapshots", empty], none)).toBe(2);
    expect(none.err).toContain("no NODE.json snapshot in the directory");
    expect(none.err).toContain("--save-snapshots DIR");

    const absent = captureIo();
    expect(await main(["fleet", "verify", "--from-snapshots", join(empty, "nope")], absent)).toBe(2);
    expect(absent.err).toContain("cannot read the directory (ENOENT)");

    const dir = savedDir({ "gpu-01": exampleSnapshot("a100-8x-roce") });
    const missing = captureIo();
    expect(await main(["fleet", "verify", "--from-snapshots", dir, "--node", "gpu-09"], missing)).toBe(2);
    expect(missing.err).toContain("no snapshot of gpu-09 (expected gpu-09.json)");

    const selector = captureIo();
    expect(await main(["fleet", "verify", "--from-snapshots", dir, "-l", "pool=a100"], selector)).toBe(2);
    expect(selector.err).toContain("--selector has no meaning with it");
    expect(selector.out).toBe("");
  });
});
