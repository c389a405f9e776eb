/**
 * `nvidia-smi -q -x` (the `nvidia_smi_log` XML document). Pure. Read with ./xml-tree.ts rather than fast-xml-parser:
 * validating and parsing a 100-GPU document with fast-xml-parser took ~4× longer (bench/host.bench.ts target 50 ms).
 */
import { fail, ok, type ParseResult, type Problem, problem } from "../core/result.js";
import type { Gpu } from "../inventory/types.js";
import { at, readXml, type XmlElement } from "./xml-tree.js";

/** What nvidia-smi reports of a GPU: the node model's fields, with the bus id as nvidia-smi normalises it. */
export type NvsmiXmlGpu = Pick<
  Gpu,
  | "index"
  | "name"
  | "uuid"
  | "memoryTotalMiB"
  | "persistenceMode"
  | "migMode"
  | "eccVolatileUncorrected"
  | "eccAggregateUncorrected"
  | "retiredPagesPending"
  | "remappedRows"
  | "pcieGen"
  | "pcieWidth"
> &
  Required<Pick<Gpu, "fabric" | "clockEvents">> & {
    /** Normalised: lower case, 4-digit domain (`0000:53:00.0`). */
    busId: string;
  };

export type NvidiaSmiXml = {
  driverVersion: string | null;
  cudaVersion: string | null;
  attachedGpus: number | null;
  gpus: NvsmiXmlGpu[];
};

/**
 * The sections of a `<gpu>` that readGpu looks at. The others (clocks, power, temperature, utilization, supported
 * clocks, processes: most of the document on a real node) are passed over unread.
 */
const GPU_SECTIONS_READ: ReadonlySet<string> = new Set([
  "product_name",
  "uuid",
  "fb_memory_usage",
  "persistence_mode",
  "mig_mode",
  "ecc_errors",
  "retired_pages",
  "remapped_rows",
  "pci",
  "fabric",
  "clocks_event_reasons",
  "clocks_throttle_reasons",
]);

/**
 * Where the document starts: its XML declaration, else its DOCTYPE, else its root element — not the first `<` of a
 * page's markup or prose around it (`<details>`, a backtick before `<?xml`, shapes seen in
 * https://github.com/netdata/netdata/issues/10362 and https://github.com/b3rs3rk/gpustat-unraid/issues/19). -1: none.
 */
function documentStart(text: string): number {
  for (const mark of ["<?xml", "<!DOCTYPE nvidia_smi_log", "<nvidia_smi_log"]) {
    const at = text.indexOf(mark);
    if (at >= 0) return at;
  }
  return text.indexOf("<");
}

/**
 * Reads driver and CUDA versions and, per GPU, the facts checks need. Missing elements become null; malformed XML
 * (a truncated capture, an error message instead of XML) is a problem, never a throw.
 */
/**
 * A document kept in a source file's verbatim string doubles each quote (C#'s `@"…"`, Visual Basic's `"…"`: `<gpu
 * id=""00000000:01:00.0"">`; shape seen in a C# monitor's sample committed to a public repository, index-file
 * 36072052080). Where every quote of the document is doubled, each pair is one quote again.
 */
function undoubledQuotes(doc: string): string {
  if (!doc.includes('""')) return doc;
  const quotes = doc.match(/"+/g) ?? [];
  return quotes.every((q) => q.length % 2 === 0) ? doc.replace(/""/g, '"') : doc;
}

export function parseNvidiaSmiXml(text: string): ParseResult<NvidiaSmiXml> {
  const start = documentStart(text);
  if (start < 0 || !text.includes("nvidia_smi_log")) {
    return fail(notXml(`found no <nvidia_smi_log> element in "${text.trim().slice(0, 80)}"`));
  }
  // The document ends at its root's end tag: what a page put after it (a closing backtick, `</details>`) is not XML.
  const close = text.indexOf("</nvidia_smi_log>", start);
  const end = close < 0 ? text.length : close + "</nvidia_smi_log>".length;
  const doc = readXml(undoubledQuotes(text.slice(start, end)), { keepAtDepth: { depth: 2, names: GPU_SECTIONS_READ } });
  if (!doc.ok) {
    const line = text.slice(0, start).split("\n").length - 1 + doc.line;
    return fail(notXml(`the XML is malformed at line ${line}: ${doc.message}`, line));
  }
  const log = doc.root;
  if (log.name !== "nvidia_smi_log") {
    return fail(notXml(`the root element is <${log.name}>, expected <nvidia_smi_log>`));
  }
  const problems: Problem[] = [];
  // A capture cut short: the elements before the cut are read, and the cut is said.
  if (doc.cut) {
    const line = text.slice(0, start).split("\n").length - 1 + doc.cut.line;
    problems.push(
      problem(
        "nvidia_smi_xml.truncated",
        `The XML ends early at line ${line}: ${doc.cut.message}; the elements before it are read.`,
        { line },
      ),
    );
  }
  const gpuNodes = log.children.filter((c) => c.name === "gpu");
  const gpus = gpuNodes.map((g, i) => readGpu(g, i, problems));
  const attached = intOf(text1(log, "attached_gpus"));
  if (attached !== null && attached !== gpus.length) {
    problems.push(
      problem(
        "nvidia_smi_xml.gpu_count",
        `<attached_gpus> says ${attached} but ${gpus.length} <gpu> elements were found (truncated capture?)`,
      ),
    );
  }
  return ok(
    {
      driverVersion: text1(log, "driver_version"),
      cudaVersion: text1(log, "cuda_version"),
      attachedGpus: attached,
      gpus,
    },
    problems,
  );
}

function readGpu(g: XmlElement, index: number, problems: Problem[]): NvsmiXmlGpu {
  const rawId = g.attrs.id ?? text1(g, "pci", "pci_bus_id");
  const busId = rawId ? normalizeBusId(rawId) : null;
  if (!busId) {
    problems.push(problem("nvidia_smi_xml.bus_id", `GPU ${index} has no readable PCI bus id (found "${rawId ?? ""}")`));
  }
  const link = at(g, "pci", "pci_gpu_link_info");
  return {
    index,
    name: text1(g, "product_name") ?? "unknown",
    busId: busId ?? "",
    uuid: text1(g, "uuid"),
    memoryTotalMiB: mib(text1(g, "fb_memory_usage", "total")),
    persistenceMode: enabled(text1(g, "persistence_mode")),
    migMode: migMode(text1(g, "mig_mode", "current_mig")),
    eccVolatileUncorrected: uncorrected(at(g, "ecc_errors", "volatile")),
    eccAggregateUncorrected: uncorrected(at(g, "ecc_errors", "aggregate")),
    retiredPagesPending: retiredPending(at(g, "retired_pages")),
    remappedRows: remapped(at(g, "remapped_rows")),
    pcieGen: {
      current: intOf(text1(link, "pcie_gen", "current_link_gen")),
      max: intOf(text1(link, "pcie_gen", "max_link_gen")),
    },
    pcieWidth: {
      current: intOf(text1(link, "link_widths", "current_link_width")),
      max: intOf(text1(link, "link_widths", "max_link_width")),
    },
    fabric: fabricOf(at(g, "fabric")),
    clockEvents: clockEventsOf(at(g, "clocks_event_reasons") ?? at(g, "clocks_throttle_reasons")),
  };
}

/**
 * `<fabric><state>Completed</state><status>Success</status>…</fabric>` (drivers since R530 print it; GPUs without an
 * NVLink fabric to register with, and A100, say N/A). Null when absent or N/A.
 */
function fabricOf(node: XmlElement | undefined): NvsmiXmlGpu["fabric"] {
  const state = text1(node, "state");
  if (state === null) return null;
  return { state, status: text1(node, "status") };
}

/**
 * The reasons marked `Active` in `<clocks_event_reasons>` (driver 535 and earlier: `<clocks_throttle_reasons>`), by
 * the element name less its prefix (`sw_thermal_slowdown`); null when the section is absent.
 */
function clockEventsOf(node: XmlElement | undefined): string[] | null {
  if (!node || node.children.length === 0) return null;
  const out: string[] = [];
  for (const c of node.children) {
    if (c.children.length > 0 || clean(c.text) !== "Active") continue;
    out.push(c.name.replace(/^clocks_(?:event|throttle)_reasons?_/, ""));
  }
  return out;
}

/** `00000000:53:00.0` / `0000:6E:00.0` / `53:00.0` → `0000:53:00.0`. */
export function normalizeBusId(id: string): string | null {
  const m = /^(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$/.exec(id.trim());
  if (!m) return null;
  const domain = (m[1] ?? "0")
    .toLowerCase()
    .replace(/^0+(?=.)/, "")
    .padStart(4, "0");
  return `${domain}:${m[2]!.toLowerCase()}:${m[3]!.toLowerCase()}.${m[4]}`;
}

// Old layout: <single_bit>/<double_bit> with <total>. Ampere and later: <sram_uncorrectable>, <dram_uncorrectable>,
// and since R535 <sram_uncorrectable_parity>/<sram_uncorrectable_secded>.
function uncorrected(node: XmlElement | undefined): number | null {
  if (!node || node.children.length === 0) return null;
  const doubleBit = at(node, "double_bit");
  if (doubleBit) return intOf(text1(doubleBit, "total"));
  let sum: number | null = null;
  for (const c of node.children) {
    if (!/uncorrectable/.test(c.name) || c.children.length > 0) continue;
    const n = intOf(clean(c.text));
    if (n !== null) sum = (sum ?? 0) + n;
  }
  return sum;
}

function retiredPending(node: XmlElement | undefined): boolean | null {
  if (!node || node.children.length === 0) return null;
  const flags = [text1(node, "pending_retirement"), text1(node, "pending_blacklist")].map(yesNo);
  if (flags.every((f) => f === null)) return null;
  return flags.some((f) => f === true);
}

function remapped(node: XmlElement | undefined): NvsmiXmlGpu["remappedRows"] {
  if (!node || node.children.length === 0) return null;
  const correctable = intOf(text1(node, "remapped_row_corr"));
  const uncorrectable = intOf(text1(node, "remapped_row_unc"));
  const pending = yesNo(text1(node, "remapped_row_pending"));
  const failure = yesNo(text1(node, "remapped_row_failure"));
  if (correctable === null && uncorrectable === null && pending === null && failure === null) return null;
  return {
    correctable: correctable ?? 0,
    uncorrectable: uncorrectable ?? 0,
    pending: pending ?? false,
    failure: failure ?? false,
  };
}

/** Text of a leaf element, null when absent or a placeholder (`N/A`, `[Not Supported]`). */
function text1(node: XmlElement | undefined, ...keys: string[]): string | null {
  const el = at(node, ...keys);
  if (!el || el.children.length > 0) return null;
  return clean(el.text);
}

const PLACEHOLDER = /^\[?(Not Supported|Not Found|N\/A|Unknown Error|Requested functionality has been deprecated)\]?$/i;

function clean(v: string): string | null {
  if (v === "") return null;
  // Every placeholder starts with `[`, N, U or R (either case): other values skip the pattern.
  const c = v.charCodeAt(0);
  const lower = c | 32;
  if (c !== 91 /* [ */ && lower !== 110 /* n */ && lower !== 117 /* u */ && lower !== 114 /* r */) return v;
  return PLACEHOLDER.test(v) ? null : v;
}

function intOf(v: string | null): number | null {
  if (v === null) return null;
  const m = /^(\d+)\s*x?$/.exec(v.trim());
  return m ? Number(m[1]) : null;
}

function mib(v: string | null): number | null {
  const m = v ? /^(\d+)\s*MiB$/.exec(v) : null;
  return m ? Number(m[1]) : null;
}

function enabled(v: string | null): boolean | null {
  return v === "Enabled" ? true : v === "Disabled" ? false : null;
}

function yesNo(v: string | null): boolean | null {
  return v === "Yes" ? true : v === "No" ? false : null;
}

function migMode(v: string | null): "Enabled" | "Disabled" | null {
  return v === "Enabled" || v === "Disabled" ? v : null;
}

function notXml(message: string, line?: number): Problem {
  return problem("nvidia_smi_xml.malformed", message, {
    ...(line !== undefined ? { line } : {}),
    hint: "Capture it again with `nvidia-smi -q -x > nvidia-smi.xml` and pass the whole file.",
  });
}
