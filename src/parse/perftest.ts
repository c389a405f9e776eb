/**
 * perftest's bandwidth tests (`ib_write_bw`, `ib_read_bw`, `ib_send_bw`), as printed by linux-rdma/perftest
 * (src/perftest_parameters.h, https://github.com/linux-rdma/perftest): a title (`RDMA_Write BW Test`), header
 * fields in one or two columns (`Device         : mlx5_1`, `Link type       : Ethernet`, `Mtu             : 4096[B]`),
 * then the result table: ` #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]` (with
 * `--report_gbits`: `[Gb/sec]`) and one row per message size. MB/sec is 2^20 bytes per second, Gb/sec 10^9 bits
 * (perftest_results.c: format_factor 0x100000 or 125000000). Several runs may follow one another (a loop over NICs).
 * Pure.
 */
import { fail, ok, type ParseResult, type Problem, problem } from "../core/result.js";
import { splitLines } from "../core/text.js";

export type PerftestRow = {
  bytes: number;
  iterations: number;
  peak: number;
  average: number;
  msgRateMpps: number | null;
};

export type PerftestRun = {
  /** `RDMA_Write`, `RDMA_Read`, `Send` (from the title); null when the title was not in the capture. */
  test: string | null;
  device: string | null;
  linkType: string | null;
  mtu: number | null;
  qps: number | null;
  unit: "Gb/sec" | "MB/sec";
  rows: PerftestRow[];
};

export type Perftest = { runs: PerftestRun[] };

const TITLE = /^\s*(RDMA_Write|RDMA_Read|Send|Atomic(?:_\w+)?)\s+BW\s+Test\s*$/;
const RESULT_HEADER = /#bytes\s+#iterations\s+BW peak\[(Gb\/sec|MB\/sec)\]\s+BW average\[(?:Gb\/sec|MB\/sec)\]/;
const ROW = /^\s*(\d+)\s+(\d+)\s+(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)(?:\s+(\d+(?:\.\d+)?))?\s*$/;
const LATENCY_HEADER = /#bytes\s+#iterations\s+t_(?:min|avg)\[usec\]/;

type Draft = Omit<PerftestRun, "unit"> & { unit: PerftestRun["unit"] | null };

const fresh = (test: string | null): Draft => ({
  test,
  device: null,
  linkType: null,
  mtu: null,
  qps: null,
  unit: null,
  rows: [],
});

function applyHeader(run: Draft, line: string): void {
  const device = /\bDevice\s*:\s*(\S+)/.exec(line);
  if (device) run.device = device[1]!;
  const link = /\bLink type\s*:\s*(\S+)/.exec(line);
  if (link) run.linkType = link[1]!;
  const mtu = /\bMtu\s*:\s*(\d+)/.exec(line);
  if (mtu) run.mtu = Number(mtu[1]);
  const qps = /\bNumber of qps\s*:\s*(\d+)/.exec(line);
  if (qps) run.qps = Number(qps[1]);
}

export function parsePerftest(text: string): ParseResult<Perftest> {
  const runs: PerftestRun[] = [];
  const problems: Problem[] = [];
  let run: Draft | null = null;
  let latency = false;
  const close = () => {
    if (run?.unit && run.rows.length > 0) runs.push({ ...run, unit: run.unit });
    else if (run?.unit)
      problems.push(
        problem("perftest.no_rows", `${run.device ?? "a run"}: a result header and no result row (run cut short?).`),
      );
  };
  for (const raw of splitLines(text)) {
    const title = TITLE.exec(raw);
    if (title) {
      close();
      run = fresh(title[1]!);
      continue;
    }
    if (LATENCY_HEADER.test(raw)) latency = true;
    const header = RESULT_HEADER.exec(raw);
    if (header) {
      // A table without a title (a paste from the table down) is a run of its own.
      if (!run || run.unit) {
        close();
        run = fresh(null);
      }
      run.unit = header[1] as PerftestRun["unit"];
      continue;
    }
    if (!run) continue;
    if (run.unit) {
      const r = ROW.exec(raw);
      if (r) {
        run.rows.push({
          bytes: Number(r[1]),
          iterations: Number(r[2]),
          peak: Number(r[3]),
          average: Number(r[4]),
          msgRateMpps: r[5] === undefined ? null : Number(r[5]),
        });
        continue;
      }
    }
    if (!run.unit) applyHeader(run, raw);
  }
  close();
  if (runs.length === 0) {
    return fail(
      problem(
        "perftest.unrecognised",
        latency
          ? "a perftest latency test: only the bandwidth tests (ib_write_bw, ib_read_bw, ib_send_bw) are judged"
          : "not perftest bandwidth output (expected a `#bytes #iterations BW peak[…] BW average[…]` table)",
      ),
    );
  }
  return ok({ runs }, problems);
}

/** A bandwidth of the run's unit in Gb/s (10^9 bits). */
export function toGbps(value: number, unit: PerftestRun["unit"]): number {
  return unit === "Gb/sec" ? value : (value * 1_048_576 * 8) / 1e9;
}
