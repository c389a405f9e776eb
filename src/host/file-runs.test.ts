import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { compactDirRuns, compactFileRuns, expandDirRuns, expandFileRuns, FileRunIndex } from "./file-runs.js";

const ZERO = "0000:0000:0000:0000:0000:0000:0000:0000\n";
const GIDS = "/sys/class/infiniband/mlx5_0/ports/1/gids";

describe("empty GID slots stored as runs", () => {
  test("a 255-slot table with 4 configured GIDs keeps those 4 and one run for slots 4..254", () => {
    const files: Record<string, string> = { "/proc/sys/kernel/hostname": "gpu-1\n" };
    for (let i = 0; i < 255; i++) files[`${GIDS}/${i}`] = i < 4 ? `fe80:0000:0000:0000:0000:0000:0000:000${i}\n` : ZERO;
    const { files: kept, fileRuns } = compactFileRuns(files);
    expect(fileRuns).toEqual([{ dir: GIDS, from: 4, to: 254, text: ZERO }]);
    expect(Object.keys(kept)).toHaveLength(5);
    expect(expandFileRuns(kept, fileRuns)).toEqual(files);
  });

  test("short runs (< 8 files) and non-numbered names stay as files", () => {
    const files = Object.fromEntries([
      ...Array.from({ length: 7 }, (_, i) => [`${GIDS}/${i}`, ZERO]),
      ...Array.from({ length: 20 }, (_, i) => [`/sys/x/counters/c${i}`, "0\n"]),
    ]);
    expect(compactFileRuns(files).fileRuns).toEqual([]);
  });

  test("compact then expand gives back every file, for any set of numbered files", () => {
    const entry = fc.tuple(fc.constantFrom("/a/b", "/a/c", "/d"), fc.nat(40), fc.constantFrom("x\n", "y\n", ""));
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 200 }), (entries) => {
        const files = Object.fromEntries(entries.map(([d, n, t]) => [`${d}/${n}`, t]));
        const { files: kept, fileRuns } = compactFileRuns(files);
        expect(expandFileRuns(kept, fileRuns)).toEqual(files);
        const index = new FileRunIndex(fileRuns);
        for (const [path, text] of Object.entries(files)) expect(kept[path] ?? index.text(path)).toBe(text);
      }),
    );
  });

  test("a malformed run in a hand-edited snapshot is ignored, not trusted", () => {
    const index = new FileRunIndex([{ dir: GIDS, from: 0, to: 3, text: ZERO }, { dir: 7 } as never]);
    expect(index.text(`${GIDS}/2`)).toBe(ZERO);
    expect(index.text(`${GIDS}/4`)).toBeUndefined();
    expect(index.size).toBe(1);
  });
});

describe("numeric directory listings stored as runs", () => {
  test("a gids/ listing of 0..254 becomes one run; names around it stay in the listing", () => {
    const names = ["x", ...Array.from({ length: 255 }, (_, i) => String(i)), "300"];
    const { dirs, dirRuns } = compactDirRuns({ [GIDS]: names, "/short": ["1", "2", "3"] });
    expect(dirRuns).toEqual({ [GIDS]: { from: 0, to: 254 } });
    expect(dirs).toEqual({ [GIDS]: ["300", "x"], "/short": ["1", "2", "3"] }); // natural order
  });

  test("compact then expand gives back every listing (as a set of names)", () => {
    const name = fc.oneof(fc.nat(60).map(String), fc.constantFrom("a", "007", "lifespan"));
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom("/a", "/b", "/c/d"), fc.uniqueArray(name, { maxLength: 80 })),
        (dirs) => {
          const { dirs: kept, dirRuns } = compactDirRuns(dirs);
          const back = expandDirRuns(kept, dirRuns);
          for (const [d, names] of Object.entries(dirs)) expect([...back[d]!].sort()).toEqual([...names].sort());
          expect(Object.keys(back).sort()).toEqual(Object.keys(dirs).sort());
        },
      ),
    );
  });
});
