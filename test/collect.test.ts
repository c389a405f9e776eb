import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { materializeSnapshot } from "../src/examples/materialize.js";
import { expandSnapshot, openReader } from "../src/host/index.js";
import type { Snapshot } from "../src/host/types.js";
import { readInventory } from "../src/inventory/index.js";
import type { NodeInventory } from "../src/inventory/types.js";
import { materializedExample } from "./support/examples.js";
import { captureIo } from "./support/io.js";

const NAMES = [
  "a100-8x-roce",
  "bond-management",
  "gpu-no-near-nic",
  "no-ofed",
  "nvidia-smi-timeout",
  "pod-restricted",
  "sparse-gids",
  "ib-8x-hdr",
];

/** The inventory without `source`, which names where it was read from. */
const comparable = (inv: NodeInventory) => ({ ...inv, source: "" });

describe("collect → --snapshot gives the same node as reading the tree itself", () => {
  const trees = new Map<string, ReturnType<typeof materializedExample>>();
  beforeAll(() => {
    for (const n of NAMES) trees.set(n, materializedExample(n));
  }, 120_000);
  afterAll(() => {
    for (const t of trees.values()) t.cleanup();
  }, 120_000);

  test.each(NAMES)("%s: --root tree, its collected snapshot and the embedded example agree", async (name) => {
    const dir = trees.get(name)!.dir;
    const file = join(dir, "..", `${name}.snapshot.json`);
    const io = captureIo();
    expect(await main(["collect", "--root", dir, "-o", file], io)).toBe(0);
    expect(io.err).toMatch(/Replay it anywhere with: kube-rdma verify --snapshot/);
    const snap = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
    expect(snap).toMatchObject({ kind: "kube-rdma/snapshot", schemaVersion: 3, root: dir });
    expect(snap.commands["nvidia-smi -q -x"]).toBeDefined();

    const fromRoot = await readInventory(await openReader({ root: dir }));
    const fromSnapshot = await readInventory(await openReader({ snapshot: file }));
    const fromExample = await readInventory(await openReader({ example: name }));
    expect(comparable(fromSnapshot)).toEqual(comparable(fromRoot));
    expect(comparable(fromRoot)).toEqual(comparable(fromExample));
    expect(fromSnapshot.source).toBe(`snapshot ${file}`);
  });

  test("a collected snapshot written back out as a tree reads as the same node (files recorded through links)", async () => {
    const dir = trees.get("gpu-no-near-nic")!.dir;
    const io = captureIo();
    expect(await main(["collect", "--root", dir, "-o", "-"], io)).toBe(0);
    const snap = JSON.parse(io.out) as Snapshot;
    // Recorded through the /sys/bus/pci/devices link, as a live collect records it.
    expect(expandSnapshot(snap).files["/sys/bus/pci/devices/0000:cf:00.0/numa_node"]).toBe("1\n");
    const again = mkdtempSync(join(tmpdir(), "kube-rdma-again-"));
    try {
      materializeSnapshot(snap, again);
      const a = await readInventory(await openReader({ root: again }));
      const b = await readInventory(await openReader({ root: dir }));
      expect(comparable(a)).toEqual(comparable(b));
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  });

  test("collect -o - writes the snapshot JSON to standard output", async () => {
    const io = captureIo();
    expect(await main(["collect", "--example", "bond-management", "-o", "-"], io)).toBe(0);
    const snap = JSON.parse(io.out) as Snapshot;
    expect(snap.host).toBe("cce-a100-roce-bond-01");
    expect(expandSnapshot(snap).files["/sys/class/infiniband/mlx5_bond_0/ports/1/gids/3"]).toMatch(/ffff:0a00:3c03/);
  });

  test("collect -o FILE says what it wrote: every file and directory, also those stored as runs and groups", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "kube-rdma-collect-")), "seed.json");
    try {
      const io = captureIo();
      expect(await main(["collect", "--example", "a100-8x-roce", "-o", out], io)).toBe(0);
      const all = expandSnapshot(JSON.parse(readFileSync(out, "utf8")) as Snapshot);
      const [files, dirs] = [Object.keys(all.files).length, Object.keys(all.dirs).length];
      expect(io.err).toContain(`${files} files, ${dirs} directories`);
      expect(files).toBeGreaterThan(3000); // the seed's 9 × 255-slot GID tables alone are 2,295
    } finally {
      rmSync(dirname(out), { recursive: true, force: true });
    }
  });

  test("a snapshot from a newer kube-rdma, or with a damaged run table, is refused with what to do (exit 2)", async () => {
    const io = captureIo();
    expect(await main(["collect", "--example", "bond-management", "-o", "-"], io)).toBe(0);
    const snap = JSON.parse(io.out) as Snapshot;
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-snap-"));
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ schemaVersion: 4 }, /schemaVersion 4 is not supported \(this kube-rdma reads 1, 2 and 3\)/],
      [{ fileRuns: "gids" }, /not a valid snapshot: \$\.fileRuns: expected array/],
      [{ dirRuns: 7 }, /not a valid snapshot: \$\.dirRuns: expected object/],
      [
        { dirRuns: { "/sys/g": { from: 0, to: 2 ** 31 } } },
        /\$\.dirRuns\["\/sys\/g"\]\.to: out of range \(at most 4095\)/,
      ],
    ];
    try {
      for (const [change, message] of cases) {
        const file = join(dir, "bad.json");
        writeFileSync(file, JSON.stringify({ ...snap, ...change }));
        const bad = captureIo();
        expect(await main(["verify", "--snapshot", file], bad)).toBe(2);
        expect(bad.err).toMatch(message);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("collect without -o says how to use it", async () => {
    const io = captureIo();
    expect(await main(["collect", "--example", "bond-management"], io)).toBe(2);
    expect(io.err).toMatch(/-o FILE, or -o - for standard output/);
  });
});
