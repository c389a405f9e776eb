import { describe, expect, test } from "vitest";
import { captureIo } from "../../test/support/io.js";
import { main } from "../cli/main.js";
import { findExample } from "../examples/index.js";
import { expandSnapshot } from "../host/snapshot.js";
import { SnapshotHostReader } from "../host/snapshot-reader.js";
import type { Snapshot } from "../host/types.js";
import { readInventory } from "../inventory/index.js";
import { runChecks } from "./index.js";
import { only } from "./testing/expect.js";

/** The A100 RoCE example node with some of its facts taken away. */
async function findingsWithout(change: (s: Snapshot) => void, opts: { pod?: boolean } = {}) {
  const snap = expandSnapshot(findExample("a100-8x-roce")!.snapshot());
  change(snap);
  return runChecks(await readInventory(new SnapshotHostReader(snap)), opts);
}

const dropUnder = (rec: Record<string, unknown>, prefix: string) => {
  for (const k of Object.keys(rec)) if (k === prefix || k.startsWith(`${prefix}/`)) delete rec[k];
};

describe("a check that could not run is a finding, never a silent pass", () => {
  test("the healthy A100 RoCE example node has every fact: no CHECK_SKIPPED, also with --pod", async () => {
    expect(only(await findingsWithout(() => {}), "CHECK_SKIPPED")).toEqual([]);
    expect(only(await findingsWithout(() => {}, { pod: true }), "CHECK_SKIPPED")).toEqual([]);
  });

  test("an unreadable /sys/class/net → CHECK_SKIPPED on /sys/class/net naming the NIC-role checks", async () => {
    const f = await findingsWithout((s) => {
      delete s.dirs["/sys/class/net"];
      s.errors["/sys/class/net"] = { code: "EACCES", message: "/sys/class/net: permission denied" };
    });
    const skipped = only(f, "CHECK_SKIPPED");
    expect(skipped.map((x) => x.subject)).toEqual(["/sys/class/net"]);
    expect(skipped[0]!.message).toMatch(/management\/data NIC roles.*not checked.*permission denied/);
    expect(skipped[0]!.severity).toBe("warning");
  });

  test("no counter listings on the data ports → CHECK_SKIPPED per port, naming its counters directory", async () => {
    const f = await findingsWithout((s) => {
      for (const d of Object.keys(s.dirs)) if (d.endsWith("/counters")) delete s.dirs[d];
    });
    const subjects = only(f, "CHECK_SKIPPED").map((x) => x.subject);
    expect(subjects).toContain("/sys/class/infiniband/mlx5_1/ports/1/counters");
    expect(subjects).toHaveLength(8);
  });

  test("an empty link table → the data HCAs' PCI place is unknown: CHECK_SKIPPED for the GPU↔NIC distance", async () => {
    const f = await findingsWithout((s) => {
      for (const k of Object.keys(s.links)) if (k.startsWith("/sys/class/infiniband/")) delete s.links[k];
      dropUnder(s.files, "/sys/class/infiniband/mlx5_1/device");
    });
    const skipped = only(f, "CHECK_SKIPPED");
    expect(skipped.map((x) => x.subject)).toContain("/sys/class/infiniband/mlx5_1/device");
    expect(skipped[0]!.message).toMatch(/GPU↔NIC distance/);
  });

  test("under --pod an unknown /dev/shm size → CHECK_SKIPPED on /dev/shm", async () => {
    const f = await findingsWithout(
      (s) => {
        s.fsSizes = {};
      },
      { pod: true },
    );
    expect(only(f, "CHECK_SKIPPED").map((x) => x.subject)).toEqual(["/dev/shm"]);
  });

  test("verify exits 0 on it (a warning), and --strict fails (exit 1)", async () => {
    const { writeFileSync, mkdtempSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const snap = expandSnapshot(findExample("a100-8x-roce")!.snapshot());
    snap.fsSizes = {};
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-skip-"));
    try {
      const file = join(dir, "node.json");
      writeFileSync(file, JSON.stringify(snap));
      const io = captureIo();
      expect(await main(["verify", "--snapshot", file, "--pod"], io)).toBe(0);
      expect(io.out).toMatch(/CHECK_SKIPPED|could not run|not checked/);
      expect(await main(["verify", "--snapshot", file, "--pod", "--strict"], captureIo())).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
