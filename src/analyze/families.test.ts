import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CAPTURES, readCorpus } from "./corpus.js";
import { analyzeTranscript } from "./index.js";

/*
 * One case per bullet of two families of real pastes, each on a corpus capture written in the shape seen at the URL
 * its corpus entry names (fixtures/captures/corpus.json), with the evidence that decided each fact: old and partial
 * NCCL failures (init_failed or unknown, by whether any communicator completed), and nccl-tests fragments.
 */
const SEEN = new Map(readCorpus().map((c) => [c.file, c.seen]));
const text = (file: string) => readFileSync(join(CAPTURES, file), "utf8");
type Data = Record<string, unknown> & { evidence: Record<string, string | null> };
const entry = (file: string, body = text(file)) => {
  const kind = file.split("/")[0];
  const e = analyzeTranscript(file, body).find((x) => x.kind === kind);
  if (!e) throw new Error(`${file}: no ${kind} entry`);
  return { ...e, data: e.data as Data };
};
const INIT_COMPLETE = "nd-2:5521:5599 [0] NCCL INFO comm 0x7f3c rank 0 nranks 8 cudaDev 0 busId 1b000 - Init COMPLETE";

describe("old and partial failures: init_failed or unknown by whether any communicator completed", () => {
  const bootstrap = "nccl_log/bootstrap-root-timeout-unhandled.txt";

  test("a WARN about the bootstrap root, then an unhandled system error after a socket timeout", () => {
    expect(SEEN.get(bootstrap)).toMatch(/^https:\/\//);
    const d = entry(bootstrap).data;
    expect([d.verdict, d.evidence.communicator, d.network]).toEqual(["init_failed", null, null]);
  });

  test("the same WARNs after a communicator completed: not an init failure", () => {
    const d = entry(bootstrap, `${INIT_COMPLETE}\n${text(bootstrap)}`).data;
    expect(d.verdict).not.toBe("init_failed");
    expect(d.evidence.communicator).toBe("init_complete");
  });

  test("a plugin-load line only: nothing failed, nothing decided", () => {
    const d = entry("nccl_log/plugin-load-line-only.txt").data;
    expect([d.verdict, d.network, d.linkLayer]).toEqual(["unknown", null, null]);
    // The one host that logged is the only node count the line holds, and the evidence says it is that weak reading.
    const { nNodes, ...rest } = d.evidence;
    expect([d.nNodes, nNodes]).toEqual([1, "hosts"]);
    expect(Object.values(rest).filter((v) => v !== null)).toEqual([]);
  });

  test("a warning-only WARN (an async event) after Init COMPLETE: unknown, the network from the IB WARN", () => {
    const d = entry("nccl_log/async-event-reregistration-after-init.txt").data;
    expect([d.verdict, d.network, d.evidence.network, d.evidence.communicator]).toEqual([
      "unknown",
      "IB",
      "ib_warnings",
      "init_complete",
    ]);
  });
});

describe("nccl-tests fragments: each fact from the strongest reading the fragment holds", () => {
  const cases: [bullet: string, file: string, facts: Record<string, unknown>, evidence: Record<string, unknown>][] = [
    [
      "rows with no header",
      "nccl_tests/table-only-allreduce.txt",
      { collective: "all_reduce", nranks: 8 },
      { collective: "column_layout", nranks: "column_layout", avgBusBw: null },
    ],
    [
      "rows behind mpirun tags",
      "nccl_tests/rows-only-tagged-reduce-root0.txt",
      { collective: "reduce" },
      { collective: "column_layout", rows: "result_rows" },
    ],
    [
      "indented rows",
      "nccl_tests/md-stripped-reducescatter-indented.txt",
      { collective: "reduce_scatter", nranks: 16 },
      { collective: "column_layout", nranks: "rank_lines" },
    ],
    [
      "zero-size rows",
      "nccl_tests/zero-rows-reducescatter-8ranks-table.txt",
      { collective: "reduce_scatter", nranks: 8 },
      { collective: "column_layout", nranks: "column_layout" },
    ],
    [
      "a single rank with the closing footer",
      "nccl_tests/single-rank-footer-allreduce.txt",
      { nranks: 1, collective: null },
      { nranks: "rank_lines", collective: null, avgBusBw: "footer" },
    ],
    [
      "output that starts at `Using devices`, validation off",
      "nccl_tests/from-using-devices-no-check-2node.txt",
      { nranks: 16, wrongResults: null },
      { nranks: "rank_lines", wrongResults: null },
    ],
    [
      "a failure after some rows",
      "nccl_tests/died-cuda-error-midtable.txt",
      { avgBusBw: null },
      { rows: "result_rows", avgBusBw: null },
    ],
    [
      "rows interleaved with NCCL INFO lines",
      "nccl_tests/runlog-interleaved-ib.txt",
      { collective: "all_reduce" },
      { rows: "result_rows", avgBusBw: "footer" },
    ],
    [
      "a `-o all` sweep",
      "nccl_tests/op-all-allreduce-five-ops.txt",
      { collective: "all_reduce" },
      { collective: "banner", nranks: "rank_lines" },
    ],
    [
      "an out-of-bounds error value (1e+00): a wrong result",
      "nccl_tests/rows-only-error-1e00-allreduce.txt",
      { wrongResults: true },
      { wrongResults: "error_column" },
    ],
  ];
  for (const [bullet, file, facts, evidence] of cases) {
    test(`${bullet} (${file})`, () => {
      expect(SEEN.get(file)).toMatch(/^https:\/\//);
      const d = entry(file).data;
      expect(d).toMatchObject(facts);
      expect(d.evidence).toMatchObject(evidence);
    });
  }

  test("rows interleaved with NCCL INFO lines stay nccl-tests output, with the log judged beside them", () => {
    const kinds = analyzeTranscript("run.log", text("nccl_tests/runlog-interleaved-ib.txt")).map((e) => e.kind);
    expect(kinds[0]).toBe("nccl_tests");
  });
});
