/**
 * perftest before NCCL: each NIC's ib_write_bw / ib_read_bw average at 64 KiB and above against its port's line
 * rate. The outputs in fixtures/host-commands/perftest are written in perftest's layout (RESULT_FMT / RESULT_FMT_G /
 * REPORT_FMT of src/perftest_parameters.h, https://github.com/linux-rdma/perftest; MB/sec = 2^20 B/s and Gb/sec =
 * 10^9 bit/s per perftest_results.c's format_factor).
 */
import { describe, expect, test } from "vitest";
import { fixtureText } from "../../test/support/fixtures.js";
import { seedInventory } from "../checks/testing/seed-inventory.js";
import { parsePerftest, toGbps } from "../parse/perftest.js";
import { analyzeText } from "./index.js";

const out = (name: string) => fixtureText("host-commands/perftest", name);
const verdicts = (e: ReturnType<typeof analyzeText>) =>
  e.findings.map((f) => ({ code: f.code, severity: f.severity, subject: f.subject }));

describe("perftest bandwidth runs", () => {
  test("detected as perftest_bw; the header, the unit and every row are read", () => {
    const e = analyzeText("bw.txt", out("read-bw-mlx5_3-400g-all-sizes.txt"));
    expect(e.kind).toBe("perftest_bw");
    const parsed = parsePerftest(out("read-bw-mlx5_3-400g-all-sizes.txt"));
    expect(parsed.ok && parsed.value.runs[0]).toMatchObject({
      test: "RDMA_Read",
      device: "mlx5_3",
      linkType: "Ethernet",
      mtu: 4096,
      qps: 1,
      unit: "Gb/sec",
    });
    expect(parsed.ok && parsed.value.runs[0]!.rows).toHaveLength(23);
  });

  test("MB/sec is 2^20 bytes per second: 23401.51 MB/sec is 196.3 Gb/s", () => {
    expect(toGbps(23401.51, "MB/sec")).toBeCloseTo(196.31, 1);
  });

  test("a loop over 8 NICs at 200 Gb/s: only mlx5_5 (118 Gb/s, 59 %) is named", () => {
    const e = analyzeText("loop.txt", out("write-bw-loop-8nics-mlx5_5-slow.txt"), { lineRateGbps: 200 });
    expect(verdicts(e)).toEqual([{ code: "PERFTEST_BELOW_LINE_RATE", severity: "warning", subject: "mlx5_5" }]);
    expect(e.findings[0]?.message).toContain("ib_write_bw on mlx5_5: 118.3 Gb/s average at 65536 B, 59 %");
  });

  test("a healthy 200 Gb/s run at 196 Gb/s (98 %): nothing to say", () => {
    const e = analyzeText("bw.txt", out("write-bw-mlx5_1-200g-gbits.txt"), { lineRateGbps: 200 });
    expect(verdicts(e)).toEqual([]);
    expect(e.summary).toContain("98 % of 200");
  });

  test("all sizes (-a) on a 400 Gb/s port: judged at the plateau (392.5 Gb/s), not at the small sizes", () => {
    const e = analyzeText("bw.txt", out("read-bw-mlx5_3-400g-all-sizes.txt"), { lineRateGbps: 400 });
    expect(verdicts(e)).toEqual([]);
    // The same run against a wrongly given 800 Gb/s is named: the judge does compare.
    expect(verdicts(analyzeText("bw.txt", out("read-bw-mlx5_3-400g-all-sizes.txt"), { lineRateGbps: 800 }))).toEqual([
      { code: "PERFTEST_BELOW_LINE_RATE", severity: "warning", subject: "mlx5_3" },
    ]);
  });

  test("the rate from the node model: the A100 example's mlx5_5 port runs at 200 Gb/s", () => {
    const e = analyzeText("loop.txt", out("write-bw-loop-8nics-mlx5_5-slow.txt"), { inventory: seedInventory() });
    expect(verdicts(e)).toEqual([{ code: "PERFTEST_BELOW_LINE_RATE", severity: "warning", subject: "mlx5_5" }]);
    expect(e.findings[0]?.message).toContain("mlx5_5's port rate on cce-a100-roce-01");
  });

  test("no rate given and none in the output: not judged, and said so with how to give it", () => {
    const e = analyzeText("bw.txt", out("write-bw-mlx5_1-200g-gbits.txt"));
    expect(verdicts(e)).toEqual([{ code: "PERFTEST_NOT_JUDGED", severity: "info", subject: "perftest" }]);
    expect(e.findings[0]?.message).toContain("the port's rate is not in the output");
    expect(e.findings[0]?.fix).toContain("--line-rate");
  });

  test("only small messages measured: not judged (per-message costs bound them, not the link)", () => {
    const text = out("read-bw-mlx5_3-400g-all-sizes.txt")
      .split("\n")
      .filter((l) => !/^\s*\d+\s+1000\s/.test(l) || Number(l.trim().split(/\s+/)[0]) < 65536)
      .join("\n");
    const e = analyzeText("bw.txt", text, { lineRateGbps: 400 });
    expect(verdicts(e)).toEqual([{ code: "PERFTEST_NOT_JUDGED", severity: "info", subject: "perftest" }]);
    expect(e.findings[0]?.message).toContain("no message of 64 KiB or more");
  });

  test("a latency test is not taken for a bandwidth run", () => {
    const lat =
      " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]\n 2       1000          1.62           4.11         1.66\n";
    const parsed = parsePerftest(lat);
    expect(parsed.ok).toBe(false);
    expect(parsed.problems[0]?.message).toContain("latency test");
  });
});
