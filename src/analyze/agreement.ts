/**
 * Agreement of a cut or damaged capture's facts with the whole capture's: test support for the property that a cut,
 * wrapped capture states the clean capture's facts or fewer, never others. Nothing here runs in the product.
 */
import { type CorpusCase, scoreCase } from "./corpus.js";

/** Facts a cut may change by losing lines after it, not by reading differently. */
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
    if (!agrees(JSON.parse(got!), JSON.parse(expected!))) out.push(miss);
  }
  return out;
}
