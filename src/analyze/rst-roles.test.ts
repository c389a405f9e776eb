/**
 * nccl-tests output kept in reStructuredText, each line inside an inline role and a long one wrapped onto the next
 * line (shape seen in a vendor's benchmark guide committed to a public repository, index-file 22192641432; an
 * interpreted text role is `:role:` then backquoted text,
 * https://docutils.sourceforge.io/docs/ref/rst/restructuredtext.html#interpreted-text). Hosts and numbers ours.
 */
import { describe, expect, test } from "vitest";
import { analyzeText } from "./index.js";
import { rstRolesOff } from "./rst-roles.js";

const doc = [
  "The all-reduce test passes when the in-place busbw at 1 GiB exceeds 300 GB/s, as below:",
  "",
  ":mark:`# nThread 1 nGpus 8 minBytes 1048576 maxBytes 1073741824 step:",
  "2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0`",
  "",
  ":mark:`# Using devices`",
  "",
  ...Array.from({ length: 8 }, (_, r) => [
    `:mark:\`# Rank ${r} Pid 52110 on gpu-node-17 device ${r} [0000:${(16 + r * 32).toString(16)}:00.0] AMD`,
    "Instinct MI300X`",
    "",
  ]).flat(),
  ":mark:`# size count type redop root time algbw busbw #wrong time algbw",
  "busbw #wrong`",
  "",
  ":mark:`1048576 262144 float sum -1 41.20 25.45 44.54 0 41.05 25.54 44.70",
  "0`",
  "",
  ":mark:`268435456 67108864 float sum -1 1480.2 181.35 317.36 0 1476.0",
  "181.87 318.27 0`",
  "",
  ":mark:`1073741824 268435456 float sum -1 5902.1 181.93 318.37 0 5899.7",
  "182.00` :mark:`318.50` :mark:`0`",
  "",
  ":mark:`# Out of bounds values : 0 OK`",
  "",
  ":mark:`# Avg bus bandwidth : 226.7`",
  "",
  ".. table:: **Table 4:** Pass/fail bandwidth",
].join("\n");

describe("a capture kept as reStructuredText roles, one paragraph per line", () => {
  test("each role paragraph reads as the line it holds, wrapped pieces joined", () => {
    const lines = rstRolesOff(doc.split("\n"))!;
    expect(lines).toContain("1073741824 268435456 float sum -1 5902.1 181.93 318.37 0 5899.7 182.00 318.50 0");
    expect(lines).toContain("# size count type redop root time algbw busbw #wrong time algbw busbw #wrong");
    expect(lines[0]).toBe(doc.split("\n")[0]);
  });

  test("the run reads as nccl-tests output: 8 ranks, its rows and the in-place peak", () => {
    const r = analyzeText("guide.rst", doc);
    const d = r.data as { nranks: number; rows: unknown[]; avgBusBw: number };
    expect(r.kind).toBe("nccl_tests");
    expect(r.wrappers?.removed).toContain("rst_roles");
    expect([d.nranks, d.rows.length, d.avgBusBw]).toEqual([8, 3, 226.7]);
  });

  test("double-spaced (a blank line inside a wrapped role too), it reads the same", () => {
    const spaced = doc
      .split("\n")
      .map((l) => `${l}\n`)
      .join("\n");
    const d = analyzeText("guide.rst", spaced).data as { nranks: number; rows: unknown[]; avgBusBw: number };
    expect([d.nranks, d.rows.length, d.avgBusBw]).toEqual([8, 3, 226.7]);
  });

  test("a few roles in prose are no capture", () => {
    const prose = ["Use :code:`ofed_info -s` first.", "", "Then :code:`ibstat`.", "", "Then :code:`show_gids`."];
    expect(rstRolesOff(prose)).toBeNull();
  });
});
