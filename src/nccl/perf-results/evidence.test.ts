import { describe, expect, test } from "vitest";
import { analyzeNcclTests } from "./analyzer.js";

/*
 * What nccl-tests prints (src/common.cu, https://github.com/NVIDIA/nccl-tests): the banner `# Collective test
 * starting: <program>` (≥ 2.14), `# nThread … nGpus …`, one `#  Rank …` line per rank, the rows, `# Out of bounds
 * values : N OK|FAILED` and `# Avg bus bandwidth`. Shapes seen: a command line then the banner
 * (https://github.com/NVIDIA/nccl-tests/issues/131, nccl-tests 2.13: command line, no banner); the banner of 2.17+
 * (https://github.com/NVIDIA/nccl-tests/issues/244); the old `error` column (https://github.com/NVIDIA/nccl/issues/340).
 * Hosts and numbers are this project's own; every row is consistent (algbw = bytes / time, busbw = algbw × factor).
 */
type RowOpts = { factor: number; redop?: string; root?: string; last?: (i: number) => string };

/** Rows from 16 MiB to 256 MiB of a run whose algbw reaches `peak` GB/s. */
function rows(o: RowOpts & { peak: number }): string[] {
  const out: string[] = [];
  for (let i = 0, bytes = 2 ** 24; bytes <= 2 ** 28; i++, bytes *= 2) {
    const timeUs = 30 + bytes / (o.peak * 1e3);
    const algbw = bytes / timeUs / 1e3;
    const cols = [
      String(bytes),
      String(bytes / 4),
      "float",
      o.redop ?? "sum",
      o.root ?? "-1",
      timeUs.toFixed(1),
      algbw.toFixed(2),
      (algbw * o.factor).toFixed(2),
      o.last ? o.last(i) : "0",
    ];
    out.push(`  ${cols.join("    ")}    ${cols.slice(5).join("    ")}`);
  }
  return out;
}

const COLUMNS = [
  "#                                                              out-of-place                       in-place          ",
  "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
  "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
];
const rankLines = (n: number) =>
  Array.from(
    { length: n },
    (_, r) =>
      `#  Rank ${String(r).padStart(2)} Group  0 Pid ${7100 + r} on kr-h${r < n / 2 ? 1 : 2} device  ${r % (n / 2)} [0000:1b:00] NVIDIA H100 80GB HBM3`,
  );
const THREAD = (g: number) =>
  `# nThread 1 nGpus ${g} minBytes 16777216 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0`;
const FOOTER = ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 101.332 ", "#"];
const analyse = (lines: string[]) => analyzeNcclTests(`${lines.join("\n")}\n`).data!;

describe("nccl-tests facts with the evidence that decided each", () => {
  test("a whole run: banner, rank lines, #wrong, footer", () => {
    const d = analyse([
      "# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807",
      "# Collective test starting: all_reduce_perf",
      THREAD(1),
      "#",
      "# Using devices",
      ...rankLines(16),
      ...COLUMNS,
      ...rows({ factor: 1.875, peak: 60 }),
      ...FOOTER,
    ]);
    expect(d).toMatchObject({ collective: "all_reduce", nranks: 16, wrongResults: false, avgBusBw: 101.332 });
    expect(d.evidence).toEqual({
      collective: "banner",
      nranks: "rank_lines",
      rows: "result_rows",
      peak: "result_rows",
      avgBusBw: "footer",
      wrongResults: "wrong_column",
    });
  });

  test("a command line that disagrees with the banner, before or after it: the banner (what ran) decides", () => {
    const command = "+ mpirun -np 16 -hostfile hosts ./build/all_gather_perf -b 16M -e 256M -f 2 -g 1";
    const banner = [
      "# nccl-tests version 2.17.6 nccl-headers=22807 nccl-library=22807",
      "# Collective test starting: all_reduce_perf",
    ];
    const rest = [THREAD(1), ...rankLines(16), ...COLUMNS, ...rows({ factor: 1.875, peak: 60 }), ...FOOTER];
    for (const lines of [
      [command, ...banner, ...rest],
      // A shell trace of another rank (`set -x`) written after rank 0's banner.
      [...banner, command, ...rest],
    ]) {
      const d = analyse(lines);
      expect([d.collective, d.evidence.collective]).toEqual(["all_reduce", "banner"]);
    }
  });

  test("no banner (nccl-tests < 2.14): the command line names it; nThread × nGpus counts the ranks", () => {
    const d = analyse([
      "./build/all_gather_perf -b 16M -e 256M -f 2 -g 8",
      THREAD(8),
      ...COLUMNS,
      ...rows({ factor: 0.875, redop: "none", peak: 40 }),
      ...FOOTER,
    ]);
    expect([d.collective, d.evidence.collective, d.nranks, d.evidence.nranks]).toEqual([
      "all_gather",
      "command_line",
      8,
      "thread_line",
    ]);
  });

  test("rows alone: the collective from the column layout, no average without the footer", () => {
    const d = analyse(rows({ factor: 1.75, peak: 45 }));
    // Clean rows without the footer do not prove the rows after them clean: wrong results unknown, not "none".
    expect(d).toMatchObject({ collective: "all_reduce", nranks: 8, avgBusBw: null, wrongResults: null });
    expect(d.evidence).toMatchObject({ collective: "column_layout", nranks: "column_layout", avgBusBw: null });
    expect(analyse([...rows({ factor: 1.75, peak: 45 }), ...FOOTER]).wrongResults).toBe(false);
    const bad = analyse(rows({ factor: 1.75, peak: 45, last: (i) => (i === 1 ? "3" : "0") }));
    expect([bad.wrongResults, bad.evidence.wrongResults]).toEqual([true, "wrong_column"]);
  });

  test("validation off (#wrong N/A): wrong results unknown, even beside the footer's `0 OK` (nothing was checked)", () => {
    const lines = rows({ factor: 1.75, peak: 45, last: () => "N/A" });
    for (const d of [analyse([...COLUMNS, ...lines]), analyse([...COLUMNS, ...lines, ...FOOTER])])
      expect([d.wrongResults, d.evidence.wrongResults]).toEqual([null, null]);
    // No row ran (hypercube_perf skips a rank count that is not a power of two) and the footer still reads 0 OK.
    const none = analyse(["# Collective test starting: hypercube_perf", THREAD(6), ...COLUMNS, ...FOOTER]);
    expect([none.wrongResults, none.evidence.wrongResults]).toEqual([null, null]);
  });

  test("the old error column: a 1e+00 deviation is a wrong result; the footer's own check decides when printed", () => {
    const old = [
      "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error",
    ];
    const bad = rows({ factor: 1.75, peak: 45, last: (i) => (i === 2 ? "1e+00" : "2e-07") }).map((l) =>
      l.replace(/ -1 /, " "),
    );
    const cut = analyse([...old, ...bad]);
    expect([cut.wrongResults, cut.evidence.wrongResults]).toEqual([true, "error_column"]);
    const judged = analyse([...old, ...bad, "# Out of bounds values : 4 FAILED", "# Avg bus bandwidth    : 30.1"]);
    expect([judged.wrongResults, judged.evidence.wrongResults]).toEqual([true, "out_of_bounds_line"]);
    const fine = rows({ factor: 1.75, peak: 45, last: () => "2e-07" }).map((l) => l.replace(/ -1 /, " "));
    expect(analyse([...old, ...fine, ...FOOTER]).wrongResults).toBe(false);
  });

  test("#wrong counts decide over a footer that disagrees", () => {
    const d = analyse([
      ...COLUMNS,
      ...rows({ factor: 1.75, peak: 45, last: (i) => (i === 1 ? "12" : "0") }),
      ...FOOTER,
    ]);
    expect([d.wrongResults, d.evidence.wrongResults]).toEqual([true, "wrong_column"]);
  });

  test("the -J JSON file", () => {
    const json = JSON.stringify({
      args: ["all_reduce_perf", "-b", "16M"],
      config: { nthreads: 1, ngpus: 8, validation: 1 },
      results: [
        {
          size: 16777216,
          count: 4194304,
          type: "float",
          redop: "sum",
          root: -1,
          out_of_place: { time: 300.1, alg_bw: 55.9, bus_bw: 97.83, nwrong: 0 },
          in_place: { time: 299.2, alg_bw: 56.07, bus_bw: 98.12, nwrong: 0 },
        },
      ],
      average_bus_bandwidth: { bandwidth: 97.9 },
    });
    const d = analyzeNcclTests(json).data!;
    expect(d.evidence).toMatchObject({ collective: "json", nranks: "thread_line", rows: "json", avgBusBw: "json" });
  });
});
