import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { capture, captureVariants } from "../../test/support/captures.js";
import { parseShowGids } from "./show-gids.js";

describe("show_gids", () => {
  test("the seed's pasted table (spaces, no footer) reads as 36 GIDs with IPv4 at index 2/3", () => {
    const r = parseShowGids(capture("show_gids", "a100-roce-sample"));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.gids).toHaveLength(36);
    expect(r.value.nGidsFound).toBeNull();
    expect(r.value.gids[3]).toEqual({
      device: "mlx5_0",
      port: 1,
      index: 3,
      gid: "0000:0000:0000:0000:0000:ffff:0a00:3c03",
      ipv4: "10.0.60.3",
      version: "v2",
      netdev: "eth0",
    });
    expect(r.value.gids[0]).toMatchObject({ index: 0, ipv4: null, version: "v1", netdev: "eth0" });
    expect(r.problems).toEqual([]);
  });

  test("the script's real tab layout (empty IPv4 columns, footer) gives the same rows as the pasted sample", () => {
    const tabs = parseShowGids(capture("show_gids", "a100-roce-tabs"));
    const sample = parseShowGids(capture("show_gids", "a100-roce-sample"));
    expect(tabs.ok && sample.ok).toBe(true);
    if (!tabs.ok || !sample.ok) return;
    expect(tabs.value.gids).toEqual(sample.value.gids);
    expect(tabs.value.nGidsFound).toBe(36);
    expect(tabs.problems).toEqual([]);
  });

  test("rows are returned in natural device order (mlx5_2 before mlx5_10), as the script's ls order is not", () => {
    const text = ["mlx5_10\t1\t3\t0000:0000:0000:0000:0000:ffff:0a00:0a01\t10.0.10.1  \tv2\teth10"]
      .concat(["mlx5_2\t1\t3\t0000:0000:0000:0000:0000:ffff:0a00:0201\t10.0.2.1  \tv2\teth2"])
      .join("\n");
    const r = parseShowGids(text);
    expect(r.ok && r.value.gids.map((g) => g.device)).toEqual(["mlx5_2", "mlx5_10"]);
  });

  for (const [name, text] of Object.entries(captureVariants(capture("show_gids", "a100-roce-tabs"), "show_gids"))) {
    test(`a ${name} capture still reads`, () => {
      const r = parseShowGids(text);
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      if (name === "truncated") {
        expect(r.value.gids.length).toBeGreaterThan(20);
        expect(r.value.gids.length).toBeLessThan(36);
      } else {
        expect(r.value.gids).toHaveLength(36);
        expect(r.problems).toEqual([]);
      }
    });
  }

  // A mail client that wrapped each long row before its IPv4 or version (shape seen in a mailing list's archive,
  // index-file 7540869538). Own devices and addresses.
  test("rows a mail client wrapped onto the next line are joined again", () => {
    const text = [
      "DEV    PORT    INDEX    GID                    IPv4         VER DEV",
      "---    ----    -----    ---                    ------------ ---    ---",
      "bnxt_re0    1    0    fe80:0000:0000:0000:b226:28ff:fe11:2230         ",
      "v1    rdma_p0",
      "bnxt_re0    1    3    0000:0000:0000:0000:0000:ffff:0a14:2b11 ",
      "10.20.43.17     v2    rdma_p0",
      "cxgb4_0    1    0    0007:4d2e:a1c0:0000:0000:0000:0000:0000         v1",
      "n_gids_found=3",
    ].join("\n");
    const r = parseShowGids(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.problems).toEqual([]);
    expect(r.value.gids.map((g) => `${g.device}/${g.index}:${g.ipv4}:${g.version}:${g.netdev}`)).toEqual([
      "bnxt_re0/0:null:v1:rdma_p0",
      "bnxt_re0/3:10.20.43.17:v2:rdma_p0",
      "cxgb4_0/0:null:v1:null",
    ]);
  });

  test("a footer that disagrees with the rows read says the capture is incomplete", () => {
    const text = capture("show_gids", "a100-roce-tabs").replace("n_gids_found=36", "n_gids_found=40");
    const r = parseShowGids(text);
    expect(r.problems.map((p) => p.code)).toEqual(["show_gids.count_mismatch"]);
  });

  test("a paste cut after the header → not read (no_rows), while `n_gids_found=0` is a real, empty table", () => {
    const header = capture("show_gids", "a100-roce-tabs").split("\n").slice(0, 2).join("\n");
    const cut = parseShowGids(`${header}\n`);
    expect(cut.ok).toBe(false);
    expect(cut.problems.map((p) => p.code)).toEqual(["show_gids.no_rows"]);
    expect(cut.problems[0]?.message).toMatch(/No GID was checked/);
    const empty = parseShowGids(`${header}\nn_gids_found=0\n`);
    if (!empty.ok) throw new Error(JSON.stringify(empty.problems));
    expect(empty.value).toMatchObject({ gids: [], nGidsFound: 0, complete: true });
  });

  test("text that is not show_gids fails with a hint on how to capture it", () => {
    const r = parseShowGids("hello world\n");
    expect(r.ok).toBe(false);
    expect(r.problems[0]?.hint).toMatch(/show_gids/);
  });

  test("property: random and mutated input never throws and always returns a value or problems", () => {
    const base = capture("show_gids", "a100-roce-tabs");
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 400 }),
          fc
            .tuple(fc.nat(base.length), fc.nat(base.length), fc.string({ maxLength: 20 }))
            .map(([a, b, s]) => base.slice(0, Math.min(a, b)) + s + base.slice(Math.max(a, b))),
        ),
        (text) => {
          const r = parseShowGids(text);
          expect(r.ok || r.problems.length > 0).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

// A row pasted at the end of a sentence, its full stop glued to the last column (shape seen at
// https://github.com/k8snetworkplumbingwg/multus-cni/issues/1100); our own addresses.
describe("show_gids rows in prose", () => {
  test("a full stop glued to the netdev is the sentence's, not the name's", () => {
    const text = [
      "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV",
      "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---",
      "mlx5_3\t1\t6\t0000:0000:0000:0000:0000:ffff:0a0b:0c0d\t10.11.12.13  \tv2\teth0.100.",
    ].join("\n");
    const r = parseShowGids(text);
    expect(r.ok && r.value.gids.map((g) => g.netdev)).toEqual(["eth0.100"]);
  });
});

// A page that masked the link-local GIDs' interface ids (`fe80:0000:0000:0000:xxxx:xxxx:xxxx:xxxx`, shape seen in a blog
// post committed to a public repository, index-file 56882768507; devices and addresses our own): the rows are read as
// printed, each with a problem that says its GID was not checked.
test("rows whose GID a page masked are read as printed, and say so", () => {
  const text = [
    "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
    "---     ----    -----   ---                                     ------------    ---     ---",
    "rocep3s0f0      1       0       fe80:0000:0000:0000:xxxx:xxxx:xxxx:xxxx                 v1      enp3s0f0np0",
    "rocep3s0f0      1       1       fe80:0000:0000:0000:xxxx:xxxx:xxxx:xxxx                 v2      enp3s0f0np0",
    "rocep3s0f0      1       2       0000:0000:0000:0000:0000:ffff:0a05:0311 10.5.3.17       v1      enp3s0f0np0",
    "n_gids_found=3",
  ].join("\n");
  const r = parseShowGids(text);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  expect(r.value.gids.map((x) => [x.index, x.gid, x.ipv4])).toEqual([
    [0, "fe80:0000:0000:0000:xxxx:xxxx:xxxx:xxxx", null],
    [1, "fe80:0000:0000:0000:xxxx:xxxx:xxxx:xxxx", null],
    [2, "0000:0000:0000:0000:0000:ffff:0a05:0311", "10.5.3.17"],
  ]);
  expect(r.problems.map((p) => p.code)).toEqual(["show_gids.masked_gid", "show_gids.masked_gid"]);
});
