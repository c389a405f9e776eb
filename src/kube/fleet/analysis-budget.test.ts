/**
 * One CPU-heavy snapshot does not stall a fleet run (issue 27): within the schema a snapshot can list 256 HCAs of
 * 4,096 configured GIDs each (seconds of analysis, where a real node takes milliseconds). Every fleet analyses in
 * worker threads, each snapshot within a time budget: past it, the worker is stopped and replaced, that node is a
 * per-node error, and the other nodes are analysed meanwhile and after.
 */
import { afterEach, describe, expect, test } from "vitest";
import { exampleSnapshot } from "../../../test/support/examples.js";
import { SnapshotHostReader } from "../../host/index.js";
import type { Snapshot } from "../../host/types.js";
import { readInventory } from "../../inventory/index.js";
import { type AnalysisPool, createAnalysisPool, defaultAnalysisThreads } from "./analysis-pool.js";

let pool: AnalysisPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

/** Ports per HCA of the heavy snapshot. */
const PORTS = [1, 2, 3, 4];
const BASE = "/sys/class/infiniband/mlx5_1";

type Table = Record<string, unknown>;

/** The entries of `table` under mlx5_1 (GID files left out: the runs give them), read once. */
function entriesOf(table: Table): [string, unknown][] {
  return Object.entries(table).filter(
    ([k]) => (k === BASE || k.startsWith(`${BASE}/`)) && !k.includes("/gids/") && !k.includes("/gid_attrs/"),
  );
}

/** Writes mlx5_1's entries as HCA `at`, its port 1 as each of PORTS. */
function writeCopy(table: Table, entries: readonly [string, unknown][], at: string): void {
  for (const [k, v] of entries) {
    const rest = k.slice(BASE.length);
    if (!rest.startsWith("/ports/1/")) table[at + rest] = v;
    else for (const p of PORTS) table[`${at}/ports/${p}${rest.slice("/ports/1".length)}`] = v;
  }
}

/**
 * The A100 example with `hcas` copies of mlx5_1 of 4 ports, each port holding 4,096 configured GIDs (as runs: a
 * small log). 256 of them are 4 million GIDs to build: tens of seconds, where a real node takes milliseconds.
 */
function heavySnapshotLog(hcas: number): string {
  const s = structuredClone(exampleSnapshot("a100-8x-roce")) as unknown as Record<string, Table> & {
    fileRuns: unknown[];
    schemaVersion: number;
  };
  const files = entriesOf(s.files!);
  const dirs = entriesOf(s.dirs!);
  const links = entriesOf(s.links!);
  const names: string[] = [];
  s.fileRuns = [];
  s.dirRuns = {};
  for (let h = 0; h < hcas; h++) {
    const at = `/sys/class/infiniband/mlx5_h${h}`;
    names.push(`mlx5_h${h}`);
    writeCopy(s.files!, files, at);
    writeCopy(s.dirs!, dirs, at);
    writeCopy(s.links!, links, at);
    s.dirs![`${at}/ports`] = PORTS.map(String);
    for (const p of PORTS) {
      const port = `${at}/ports/${p}`;
      s.dirs![`${port}/gids`] = [];
      s.dirRuns[`${port}/gids`] = { from: 0, to: 4095 };
      s.fileRuns.push(
        { dir: `${port}/gids`, from: 0, to: 4095, text: "0000:0000:0000:0000:0000:ffff:1919:8002\n" },
        { dir: `${port}/gid_attrs/types`, from: 0, to: 4095, text: "RoCE v2\n" },
        { dir: `${port}/gid_attrs/ndevs`, from: 0, to: 4095, text: "eth1\n" },
      );
    }
  }
  s.dirs!["/sys/class/infiniband"] = names;
  s.schemaVersion = 2;
  return JSON.stringify(s);
}

describe("a CPU-heavy snapshot in a fleet run", () => {
  test("its analysis is stopped at the budget and that node fails; the healthy nodes are analysed meanwhile and after", async () => {
    const heavy = heavySnapshotLog(256);
    expect(heavy.length).toBeLessThan(16 * 2 ** 20); // within a snapshot's 64 MiB: the weight is in the runs
    const healthy = JSON.stringify(exampleSnapshot("a100-8x-roce"));
    pool = createAnalysisPool(2, 1500);
    const started = Date.now();
    const finished: string[] = [];
    const job = (log: string, node: string) =>
      pool!.handle(log, node).then((r) => {
        finished.push(node);
        return r;
      });
    const [h, ...rest] = await Promise.all([
      job(heavy, "gpu-heavy"),
      job(healthy, "gpu-1"),
      job(healthy, "gpu-2"),
      job(healthy, "gpu-3"),
    ]);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(h).toEqual({
      ok: false,
      reason: expect.stringMatching(/^the analysis of its snapshot took over 1\.5 s and was stopped/),
    });
    expect(rest.map((r) => r.ok)).toEqual([true, true, true]);
    // The other worker analysed the healthy nodes while the heavy one ran.
    expect(finished.indexOf("gpu-1")).toBeLessThan(finished.indexOf("gpu-heavy"));
    // The stopped worker was replaced: the pool still analyses.
    expect((await pool.handle(healthy, "gpu-4")).ok).toBe(true);
  }, 60_000);

  test("the heavy snapshot is what it claims: each HCA's 4 ports read with 4,096 RoCE v2 GIDs", async () => {
    const inv = await readInventory(new SnapshotHostReader(JSON.parse(heavySnapshotLog(2)) as Snapshot, "heavy"));
    const copies = inv.hcas.filter((h) => h.name.startsWith("mlx5_h"));
    expect(copies.map((h) => h.ports.map((p) => p.gids.length))).toEqual([
      [4096, 4096, 4096, 4096],
      [4096, 4096, 4096, 4096],
    ]);
  });

  test("every fleet size gets at least one analysis thread (so every snapshot has a budget)", () => {
    expect(defaultAnalysisThreads(0)).toBe(0);
    expect(defaultAnalysisThreads(1)).toBe(1);
    expect(defaultAnalysisThreads(3)).toBe(1);
    expect(defaultAnalysisThreads(10_000)).toBeLessThanOrEqual(8);
    expect(defaultAnalysisThreads(10_000)).toBeGreaterThanOrEqual(1);
  });
});
