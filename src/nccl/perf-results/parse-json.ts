import { type Problem, problem } from "../../core/result.js";
import { emptyRun, type Perf, type PerfRow, type PerfRun, type RankInfo } from "./types.js";

type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const numOr = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const strOr = (v: unknown): string | null => (typeof v === "string" ? v : null);

function perf(v: unknown): Perf | null {
  if (!isObj(v)) return null;
  return {
    timeUs: numOr(v.time ?? v.cpu_time),
    algbw: numOr(v.alg_bw),
    busbw: numOr(v.bus_bw),
    wrong: numOr(v.nwrong),
    maxError: null, // -J exists only in versions that print #wrong
  };
}

function rank(v: unknown): RankInfo | null {
  if (!isObj(v) || typeof v.rank !== "number") return null;
  return {
    rank: v.rank,
    host: strOr(v.hostname) ?? "?",
    pid: numOr(v.pid),
    device: numOr(v.device) ?? -1,
    busId: strOr(v.device_hex) ?? "",
    gpu: strOr(v.device_info) ?? "",
  };
}

/**
 * The one-line report a JSON-output build of nccl-tests prints in place of its table
 * (`{"identifier": "nccl-tests structured output", "version": …, "benchmark": [{"<bytes>": {count, type, redop, root,
 * oop_time, oop_algbw, oop_busbw, oop_error, ip_…}}]}`, as posted with https://github.com/NVIDIA/nccl-tests/pull/318):
 * its rows, or null when the object is not that report. `*_error` is the `#wrong` count; "N/A" reads as null.
 */
export function structuredRows(doc: unknown): PerfRow[] | null {
  if (!isObj(doc) || doc.identifier !== "nccl-tests structured output" || !Array.isArray(doc.benchmark)) return null;
  const side = (v: Json, p: string): Perf => ({
    timeUs: numOr(v[`${p}_time`]),
    algbw: numOr(v[`${p}_algbw`]),
    busbw: numOr(v[`${p}_busbw`]),
    wrong: numOr(v[`${p}_error`]),
    maxError: null,
  });
  const rows: PerfRow[] = [];
  for (const entry of doc.benchmark) {
    if (!isObj(entry)) continue;
    for (const [size, v] of Object.entries(entry)) {
      if (!isObj(v) || !/^\d+$/.test(size)) continue;
      const root = strOr(v.root)?.trim() ? Number(strOr(v.root)) : numOr(v.root);
      rows.push({
        bytes: Number(size),
        count: numOr(v.count) ?? 0,
        type: strOr(v.type) ?? "?",
        redop: strOr(v.redop)?.trim() || null,
        root: Number.isFinite(root) ? root : null,
        outOfPlace: side(v, "oop"),
        inPlace: side(v, "ip"),
        line: 0,
      });
    }
  }
  return rows;
}

/** Parses the `-J FILE` report of nccl-tests (JSON file version 2: config, devices, results, out_of_bounds, …). */
export function parsePerfJson(text: string): { runs: PerfRun[]; problems: Problem[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    return {
      runs: [],
      problems: [
        problem("nccl_tests.bad_json", `Not valid JSON (${msg}): expected the file nccl-tests writes with -J.`, {
          hint: "A run killed early leaves the JSON unterminated; re-run or analyse its stdout instead.",
        }),
      ],
    };
  }
  const structured = structuredRows(doc);
  if (structured) {
    const run = emptyRun();
    run.format = "json";
    run.rows = structured;
    return { runs: [run], problems: [] };
  }
  if (!isObj(doc) || !Array.isArray(doc.results)) {
    return {
      runs: [],
      problems: [problem("nccl_tests.bad_json", 'JSON without a "results" list: expected an nccl-tests -J report.')],
    };
  }
  const run = emptyRun();
  const args = Array.isArray(doc.args) ? doc.args.filter((a): a is string => typeof a === "string") : [];
  run.program = args[0] ?? null;
  run.programSource = run.program === null ? null : "json";
  run.format = "json";
  const config = isObj(doc.config) ? doc.config : {};
  run.nThread = numOr(config.nthreads);
  run.nGpus = numOr(config.ngpus);
  run.validation = typeof config.validation === "number" ? config.validation !== 0 : null;
  const devices = Array.isArray(config.devices) ? config.devices : Array.isArray(doc.devices) ? doc.devices : [];
  run.ranks = devices.map(rank).filter((r): r is RankInfo => r !== null);
  for (const r of doc.results) {
    if (!isObj(r)) continue;
    const row: PerfRow = {
      bytes: numOr(r.size) ?? 0,
      count: numOr(r.count) ?? 0,
      type: strOr(r.type) ?? "?",
      redop: strOr(r.redop)?.trim() || null,
      root: strOr(r.root)?.trim() ? Number(strOr(r.root)) : numOr(r.root),
      outOfPlace: perf(r.out_of_place),
      inPlace: perf(r.in_place),
      line: 0,
    };
    run.rows.push(row);
  }
  const oob = isObj(doc.out_of_bounds) ? doc.out_of_bounds : null;
  if (oob) run.outOfBounds = { count: numOr(oob.count) ?? 0, ok: oob.okay === true || oob.okay === "true" };
  const avg = isObj(doc.average_bus_bandwidth) ? doc.average_bus_bandwidth : null;
  if (avg) run.avgBusBw = numOr(avg.bandwidth);
  if (Array.isArray(doc.errors)) run.errors = doc.errors.filter((e): e is string => typeof e === "string");
  return { runs: [run], problems: [] };
}
