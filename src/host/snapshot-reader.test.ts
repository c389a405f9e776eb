import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { numericNames } from "../core/natural.js";
import "../examples/catalog.js";
import { listExamples } from "../examples/index.js";
import { readInventory } from "../inventory/index.js";
import { groupFiles, splitDirName, ungroupFiles } from "./file-groups.js";
import { compactDirRuns, compactFileRuns, expandDirRuns, expandFileRuns } from "./file-runs.js";
import { openReader } from "./open.js";
import { normalizeHostPath } from "./paths.js";
import { collectSnapshot, expandSnapshot, snapshotDefect } from "./snapshot.js";
import { LinkIndex, SnapshotHostReader } from "./snapshot-reader.js";
import type { Snapshot } from "./types.js";

describe("files grouped by directory (snapshot version 3)", () => {
  test("a port's counters become one group keyed by the counter names; a root-level file sits under ''", () => {
    const groups = groupFiles({
      "/sys/class/infiniband/mlx5_1/ports/1/counters/port_rcv_data": "12\n",
      "/sys/class/infiniband/mlx5_1/ports/1/counters/port_xmit_data": "34\n",
      "/x": "y\n",
    });
    expect(groups).toEqual({
      "/sys/class/infiniband/mlx5_1/ports/1/counters": { port_rcv_data: "12\n", port_xmit_data: "34\n" },
      "": { x: "y\n" },
    });
    expect(splitDirName("/a/b/c")).toEqual(["/a/b", "c"]);
  });

  test("group then ungroup gives back every file, for any set of paths", () => {
    const segment = fc.constantFrom("a", "b", "gids", "7", "constructor", "__proto__", "port_rcv_data");
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join("/")}`);
    fc.assert(
      fc.property(fc.dictionary(path, fc.string({ maxLength: 5 })), (files) => {
        const groups = groupFiles(files);
        expect(ungroupFiles({}, groups)).toEqual(files);
        // …and through JSON, as a collector's log carries them
        expect(ungroupFiles({}, JSON.parse(JSON.stringify(groups)))).toEqual(files);
      }),
    );
  });

  test("a file named like an Object.prototype member is read as recorded, not as the prototype's", async () => {
    const snap = {
      ...(JSON.parse(JSON.stringify(await collectSnapshot(await openReader({ example: "a100-8x-roce" })))) as Snapshot),
    };
    snap.fileGroups!["/sys/odd"] = JSON.parse('{"constructor": "c\\n", "__proto__": "p\\n"}');
    const r = new SnapshotHostReader(snap);
    expect(r.readText("/sys/odd/constructor")).toEqual({ ok: true, value: "c\n" });
    expect(r.readText("/sys/odd/__proto__")).toEqual({ ok: true, value: "p\n" });
    expect(r.readText("/sys/odd/toString")).toMatchObject({ ok: false, error: { code: "ENOENT" } });
    expect(r.readIn("/sys/odd", ["constructor", "hasOwnProperty"])).toMatchObject([
      { ok: true, value: "c\n" },
      { ok: false, error: { code: "ENOENT" } },
    ]);
  });

  test("a netdev's 8 ECN switches, stored as one run, read by name the same as one path at a time", async () => {
    const snap = JSON.parse(
      JSON.stringify(await collectSnapshot(await openReader({ example: "a100-8x-roce" }))),
    ) as Snapshot;
    const dir = "/sys/class/net/eth1/ecn/roce_np/enable";
    expect(snap.fileRuns).toContainEqual(expect.objectContaining({ dir, from: 0, to: 7 }));
    const r = new SnapshotHostReader(snap);
    const names = ["0", "7", "8", "07", "x", "a/1", ""];
    const one = names.map((n) => r.readText(`${dir}/${n}`));
    expect(r.readIn(dir, names)).toEqual(one);
    expect(one.slice(0, 2)).toEqual([
      { ok: true, value: expect.any(String) },
      { ok: true, value: expect.any(String) },
    ]);
    expect(one.slice(2).every((o) => !o.ok)).toBe(true);
  });

  test("a hand-edited snapshot whose group is not an object is refused, not half-read", () => {
    const snap = {
      kind: "kube-rdma/snapshot",
      schemaVersion: 3,
      host: "n1",
      files: {},
      dirs: {},
      links: {},
      errors: {},
    };
    const base = { ...snap, fsSizes: {}, commands: {} };
    expect(snapshotDefect({ ...base, fileGroups: { "/sys/x": "0\n" } })).toEqual({
      defect: "invalid",
      path: `$.fileGroups["/sys/x"]`,
      message: `$.fileGroups["/sys/x"]: expected object`,
    });
    expect(snapshotDefect({ ...base, fileGroups: [] })).toMatchObject({ defect: "invalid", path: "$.fileGroups" });
    expect(snapshotDefect({ ...base, fileGroups: {} })).toBeNull();
  });
});

describe("a collected snapshot (version 3: grouped, with runs) reads as the host itself, and so do versions 2 and 1", () => {
  test.each(listExamples().map((e) => e.name))(
    "%s: the same inventory from the host and from the snapshot in each version",
    async (name) => {
      const host = await openReader({ example: name });
      const v3 = JSON.parse(JSON.stringify(await collectSnapshot(host))) as Snapshot;
      expect(v3.schemaVersion).toBe(3);
      expect(v3.files).toEqual({});
      // A port's counters are listed once, as the names of their file group.
      expect(v3.groupListings!.some((dir) => dir.endsWith("/ports/1/counters"))).toBe(true);
      const v1 = expandSnapshot(v3);
      // Version 2 as its writer made it: runs, no groups.
      const v2: Snapshot = { ...v1, schemaVersion: 2, ...compactFileRuns(v1.files), ...compactDirRuns(v1.dirs) };
      expect(v1.files).toEqual(expandFileRuns(v2.files, v2.fileRuns));
      expect(v1.dirs).toEqual(expandDirRuns(v2.dirs, v2.dirRuns));
      const reader = new SnapshotHostReader(v3);
      for (const dir of Object.keys(v1.dirs)) {
        const listed = reader.list(dir);
        expect(reader.listNumbers(dir)).toEqual({ ok: true, value: numericNames(listed.ok ? listed.value : []) });
      }
      const strip = (i: Awaited<ReturnType<typeof readInventory>>) => ({ ...i, source: "" });
      const direct = strip(await readInventory(host));
      for (const snap of [v3, v2, v1]) expect(strip(await readInventory(new SnapshotHostReader(snap)))).toEqual(direct);
    },
  );
});

describe("links recorded in a snapshot are followed like the kernel's path walk", () => {
  /** The walk itself: each directory from the root in turn; a link there replaces it and the walk starts over. */
  function walk(links: Record<string, string>, path: string): string | null {
    let parts = normalizeHostPath(path).split("/").filter(Boolean);
    for (let hops = 0; ; ) {
      const at = parts.findIndex((_, i) => Object.hasOwn(links, `/${parts.slice(0, i + 1).join("/")}`));
      if (at < 0) return `/${parts.join("/")}`;
      if (++hops > 40) return null;
      const target = links[`/${parts.slice(0, at + 1).join("/")}`]!;
      parts = normalizeHostPath(`${target}/${parts.slice(at + 1).join("/")}`)
        .split("/")
        .filter(Boolean);
    }
  }

  test("the same place as the walk, for any links (chains, loops, `..`) and any path", () => {
    const path = fc.array(fc.constantFrom("a", "b", "c", "..", "."), { maxLength: 5 }).map((s) => `/${s.join("/")}`);
    fc.assert(
      fc.property(fc.dictionary(path, path, { maxKeys: 6 }), fc.array(path, { maxLength: 8 }), (links, paths) => {
        const index = new LinkIndex(links);
        for (const p of paths) expect(index.resolve(p)).toBe(walk(links, p));
      }),
      { numRuns: 3000 },
    );
  });

  test("a GPU's sysfs directory through /sys/bus/pci/devices, and a loop that never ends → null", () => {
    const index = new LinkIndex({
      "/sys/bus/pci/devices/0000:53:00.0": "/sys/devices/pci0000:4e/0000:4e:02.0/0000:53:00.0",
      "/x": "/y",
      "/y": "/x/z",
    });
    expect(index.resolve("/sys/bus/pci/devices/0000:53:00.0/numa_node")).toBe(
      "/sys/devices/pci0000:4e/0000:4e:02.0/0000:53:00.0/numa_node",
    );
    expect(index.resolve("/x/q")).toBeNull();
  });
});
