/**
 * Agreement of a cut or damaged capture's facts with the whole capture's: test support for the property that a cut,
 * wrapped capture states the clean capture's facts or fewer, never others. Nothing here runs in the product.
 */

import { LOG_CAUSES } from "../nccl/log/causes.js";
import { type CorpusCase, scoreCase } from "./corpus.js";
import { type AnalyzedInput, analyzeTranscript } from "./index.js";

/** Facts a cut may change by losing lines after it, not by reading differently. */
/** The warning codes of NCCL log causes that only follow another (src/nccl/log/causes.ts). */
const FOLLOW_ON = new Set(LOG_CAUSES.filter((c) => c.followOn === true).map((c) => `NCCL_WARN_${c.id}`));
const JUDGEMENTS = new Set(["problems", "findings", "verdict", "logVerdict", "avgBusBw", "collectiveCandidates"]);

/** Facts of one run: a paste of several runs cut early states an earlier run's, rightly. */
const PER_RUN = new Set(["collective", "nranks", "rows", "peakBusbw", "runs"]);

/** "No value" in the shape the corpus writes facts (whole, or one part of a `a:b:c` fact string). */
const EMPTY_WORDS = new Set(["null", "undefined", "unknown", "UNKNOWN", "Unknown", ""]);
const isEmpty = (v: unknown) =>
  v === null || v === undefined || v === "unknown" || v === 0 || (Array.isArray(v) && v.length === 0);

/** `mlx5_0/1:UNKNOWN:Unknown` (a port whose block was cut) agrees with `mlx5_0/1:ACTIVE:InfiniBand`. */
function partsAgree(got: string, clean: string): boolean {
  const g = got.split(/([:=>])/);
  const c = clean.split(/([:=>])/);
  return g.length === c.length && g.every((x, i) => x === c[i] || EMPTY_WORDS.has(x));
}

/**
 * `got` agrees with `clean`: the same, nothing, fewer (a sub-list, a smaller count or peak, a fact string with parts
 * unknown, a NIC by its topo column). The network `IB` agrees with an IB plugin's name (`IBext_v8`): the device list that says IB is printed
 * alike by NCCL's own IB transport and by the plugin, and only `Using network` names which one ran.
 */
export function agrees(got: unknown, clean: unknown): boolean {
  if (JSON.stringify(got) === JSON.stringify(clean) || isEmpty(got)) return true;
  // Part of a capture whose devices (or processes) differ states one of them: `mixed` holds it.
  if (clean === "mixed" && typeof got === "string") return true;
  if (typeof got === "number" && typeof clean === "number") return got <= clean + 0.006;
  if (typeof got === "string" && typeof clean === "string")
    return (
      partsAgree(got, clean) ||
      (got === "IB" && clean.startsWith("IBext")) ||
      // A capture whose nodes chose different networks (`mixed`) cut before the second one states the first alone.
      clean === "mixed" ||
      // `nvidia-smi topo -m` cut before its NIC legend names the NICs by their column (NIC0…), not by device.
      (/^NIC\d+$/.test(got) && !/^(?:GPU|NIC)\d+$/.test(clean))
    );
  if (Array.isArray(got) && Array.isArray(clean)) return got.every((x) => clean.some((y) => agrees(x, y)));
  if (typeof got === "object" && typeof clean === "object" && got !== null && clean !== null) {
    const c = clean as Record<string, unknown>;
    return Object.entries(got).every(([k, v]) => agrees(v, c[k]));
  }
  return false;
}

/** The facts a cut, wrapped capture states that disagree with the whole clean one (and `kind` when it changed kind). */
export function disagreements(c: CorpusCase, text: string): string[] {
  // Every fact asked of the cut text; the miss lines say what it read instead.
  const r = scoreCase(c, text);
  if (r.crashed) return [`crashed: ${r.crashed}`];
  const out: string[] = [];
  for (const miss of r.misses) {
    const m = /^(\w+): expected (.*), got (.*)$/.exec(miss);
    if (!m) continue;
    const [, name, expected, got] = m;
    // A kind change: the cut left too little to recognise (an unknown or another kind states no fact of this one).
    if (name === "kind" || JUDGEMENTS.has(name!)) continue;
    if (PER_RUN.has(name!) && Number(c.facts.runs ?? 1) > 1) continue;
    // A host count a wrapper stated (a launcher's hosts naming hostless records) is the wrapped text's, not the
    // capture's: the test's wrapper put it there.
    if (name === "hosts" && hostsFromWrapper(c, text)) continue;
    let actual = JSON.parse(got!);
    // A follow-on WARN (a proxy or return-chain echo) drops out of a log's warnings when the whole log names its cause;
    // a cut before the cause's line rightly shows the follow-on alone.
    if (name === "warnings" && Array.isArray(actual)) actual = actual.filter((w) => !FOLLOW_ON.has(String(w)));
    if (!agrees(actual, JSON.parse(expected!))) out.push(miss);
  }
  return out;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null ? (v as Obj) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * The value of each fact an entry's `data.evidence` says was decided (evidence not null), in a comparable shape:
 * lists of names, counts, the value itself. A fact whose reading says nothing stays out. `wrongResults: false` says
 * only that the rows read were right, so it is no claim a cut could contradict.
 */
export function decidedFacts(entry: AnalyzedInput): Record<string, unknown> {
  const d = obj(entry.data);
  const out: Record<string, unknown> = {};
  for (const [fact, by] of Object.entries(obj(d.evidence))) {
    if (by === null || by === undefined) continue;
    const value = decidedValue(d, fact);
    if (value !== undefined) out[fact] = value;
  }
  return out;
}

function decidedValue(d: Obj, fact: string): unknown {
  switch (fact) {
    case "communicator":
    case "avgBusBw":
    case "matrix":
      return undefined; // a reading of the whole run (the footer's average, an init seen): not a per-line fact
    case "rows":
      return list(d.rows).length;
    case "peak":
      return obj(d.peak).busbw ?? null;
    case "wrongResults":
      return d.wrongResults === true ? true : undefined;
    case "devices":
      return Array.isArray(d.mappings)
        ? list(d.mappings).map((m) => `${obj(m).device}/${obj(m).port}=${obj(m).netdev}`)
        : list(d.devices).map((x) => (typeof x === "string" ? x : obj(x).name));
    case "nicNames":
      return list(d.devices).filter((x) => typeof x === "string" && !/^GPU\d+$/.test(x));
    case "ports":
      return list(d.devices).flatMap((dev) =>
        list(obj(dev).ports).map((p) => `${obj(dev).name}/${obj(p).port}:${obj(p).state}:${obj(p).linkLayer}`),
      );
    case "firmware":
      return list(d.devices).map((x) => `${obj(x).name}=${obj(x).fwVer ?? "unknown"}`);
    case "up":
    case "portState":
      return list(d.mappings).map(
        (m) => `${obj(m).device}/${obj(m).port}:${fact === "up" ? obj(m).up : obj(m).portState}`,
      );
    case "gpus":
      return list(d.gpus).map((g) => `${obj(g).index}:${obj(g).name}:${obj(g).busId}`);
    default:
      return d[fact] ?? null;
  }
}

/**
 * Whether the text's hosts are the ones a launcher's prefixes named (records that kept no host of their own, named by
 * the `host: ` before them: index.ts launcherHosts): the count is then the wrapper's.
 */
function hostsFromWrapper(c: CorpusCase, text: string): boolean {
  const kind = c.file.split("/")[0];
  const entry = analyzeTranscript(c.file, text).find((e) => e.kind === kind);
  const named = entry?.wrappers?.hosts;
  return named !== undefined && obj(entry?.data).hosts === named.length;
}

/** Evidence that is a wrapper's, not the capture's: a launcher's `host: ` naming hostless records. */
const WRAPPER_EVIDENCE = new Set(["launcher_hosts"]);

/**
 * A node count decided by the hosts that logged (no `comm … nNodes M` line in the text) is a count of hosts, a
 * different reading from a communicator's own nNodes: a vLLM job whose pipeline stages are one 8-GPU communicator per
 * node logs two hosts and `nNodes 1`. Such a count is judged against the whole capture's host count.
 */
const HOST_COUNT_EVIDENCE = new Set(["hosts", "pid_only_hosts"]);

/** What the whole capture says of the reading that decided a cut's fact. */
const wholeReading = (fact: string, by: unknown, whole: Record<string, unknown>, clean: AnalyzedInput): unknown =>
  fact === "nNodes" && HOST_COUNT_EVIDENCE.has(String(by)) ? (obj(clean.data).hosts ?? null) : (whole[fact] ?? null);

/**
 * The evidence-decided facts of a cut, wrapped capture that disagree with the whole clean one's: each must be the
 * same or fewer (agrees). A capture of several nccl-tests runs cut early rightly states an earlier run's facts.
 */

export function evidenceDisagreements(clean: AnalyzedInput, cut: AnalyzedInput): string[] {
  if (cut.kind !== clean.kind) return [];
  if (clean.kind === "nccl_tests" && list(obj(clean.data).runs).length > 1) return [];
  const whole = decidedFacts(clean);
  const out: string[] = [];
  const by = obj(obj(cut.data).evidence);
  for (const [fact, got] of Object.entries(decidedFacts(cut))) {
    // A fact a wrapper stated (a launcher's hosts) is the wrapped text's, which the clean capture cannot hold.
    if (WRAPPER_EVIDENCE.has(String(by[fact]))) continue;
    const want = wholeReading(fact, by[fact], whole, clean);
    if (!agrees(got, want)) out.push(`${fact}: whole ${JSON.stringify(want)}, cut ${JSON.stringify(got)}`);
  }
  return out;
}
