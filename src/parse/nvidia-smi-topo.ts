import { fail, ok, type ParseResult, type Problem, problem } from "../core/result.js";
import { captureLines, excerpt, tokens } from "./capture.js";

/** A cell of the `nvidia-smi topo -m` matrix (old drivers print `SOC` for `SYS`). */
export type TopoLink = "X" | "PIX" | "PXB" | "PHB" | "NODE" | "SYS" | `NV${number}`;

export type NvidiaSmiTopo = {
  /** Column names in order; NICn columns renamed through the NIC Legend (`NIC0` → `mlx5_0`). */
  devices: string[];
  matrix: Record<string, Record<string, TopoLink>>;
  /** GPU rows: `CPU Affinity`, `NUMA Affinity`, `GPU NUMA ID` as printed (null when absent). */
  affinity: Record<string, { cpus: string | null; numa: string | null; gpuNumaId: string | null }>;
  /**
   * Where the columns' names came from: the header row, or, in a paste without it, each GPU row's own `X` (GPUn's `X`
   * stands in column n); the columns after the GPUs' are then unnamed and not read (`unnamedColumns` of them).
   */
  columnsFrom?: "header" | "row_diagonal";
  unnamedColumns?: number;
};

const CELL = /^(X|PIX|PXB|PHB|NODE|SYS|SOC|NV\d+)$/;
/** The start of a cell a cut left (`SY`, `NOD`, `PH`, `NV`): a proper prefix of a cell's word. */
const CUT_CELL = /^(?:P|PI|PX|PH|N|NO|NOD|S|SY|SO|NV)$/;
const LEGEND_NIC = /^\s*(NIC\d+)\s*:\s*(\S+)\s*$/;
const AFFINITY_WORDS = new Set(["CPU", "NUMA", "GPU", "Affinity", "ID"]);

const DEVICE_NAME = /^(GPU\d+|NIC\d+|[A-Za-z][\w-]*\d)$/;
/** A cell's word, and two or more of them with no space between (`SYSSYS`, `PIXNODE`, `NV18NODE`). */
const CELL_WORD = /PIX|PXB|PHB|NODE|SYS|SOC|NV\d+|X/g;
const GLUED_CELLS = /^(?:PIX|PXB|PHB|NODE|SYS|SOC|NV\d+(?=\D|$)|X){2,}$/;
/** Two or more GPU/NIC column names with no space between them. */
const GLUED_NAMES = /^(?:(?:GPU|NIC)\d+){2,}$/;

/**
 * An elision a page put in place of columns and cells it left out (`GPU7 . . . mlx5_0`, `…`): the same words in the
 * header and in every row, so dropping them keeps the cells under their names (shape seen in
 * https://docs.nvidia.com/gpudirect-storage/benchmarking-guide/index.html, 8 of 16 GPUs shown).
 */
const ELISION = /^(?:\.{1,3}|…)$/;
const notElided = (w: string): boolean => !ELISION.test(w);

/** The last device name run into the first affinity column (`NIC11CPU Affinity`). */
const GLUED_AFFINITY = /^(.*\d)(CPU)$/;

/**
 * A header word as the names it holds. nvidia-smi pads each name to a tab stop; a name that fills its stop runs into
 * the next one where the tab was lost in a copy (`NIC11NIC12`, shape seen in
 * https://github.com/vllm-project/vllm/issues/31594; `NIC11CPU Affinity`, in
 * https://github.com/vllm-project/vllm/issues/20862): two names.
 */
function headerWords(x: string): string[] {
  const affinity = GLUED_AFFINITY.exec(x);
  if (affinity) return [...headerWords(affinity[1]!), affinity[2]!];
  return GLUED_NAMES.test(x) ? (x.match(/(?:GPU|NIC)\d+/g) ?? [x]) : [x];
}

/** The header row: device names up to the affinity columns; a data row is refused (its cells are X/PIX/NV#…). */
function headerDevices(t: string): string[] | null {
  const devices: string[] = [];
  for (const w of tokens(t).flatMap(headerWords).filter(notElided)) {
    if (AFFINITY_WORDS.has(w)) break;
    if (!DEVICE_NAME.test(w) || CELL.test(w)) return null;
    devices.push(w);
  }
  return devices.includes("GPU0") || devices.some((d) => d.startsWith("NIC")) ? devices : null;
}

/**
 * Parses `nvidia-smi topo -m`: the header row of GPUn / NICn (or mlx5_n on older drivers) columns followed by the
 * affinity columns, one row per device, the legend, and `NIC Legend:` (NICn → mlx5_n). Tabs or spaces alike.
 */
export function parseNvidiaSmiTopo(text: string): ParseResult<NvidiaSmiTopo> {
  const problems: Problem[] = [];
  let columns: string[] | null = null;
  const rows = new Map<string, string[]>();
  const affinity: NvidiaSmiTopo["affinity"] = {};
  const legend = new Map<string, string>();
  let elided = false;
  for (const { text: t, line } of captureLines(text)) {
    const nic = LEGEND_NIC.exec(t);
    if (nic) {
      legend.set(nic[1]!, nic[2]!);
      continue;
    }
    if (!columns) {
      // The header may follow what opened the block it sits in on the same line (a source file's string literal,
      // `"10.40.2.17": \`        GPU0    GPU1 …`): it starts at its GPU0.
      const gpu0 = t.search(/(?:^|[\s`'"])GPU0\s/);
      columns = headerDevices(gpu0 > 0 ? t.slice(gpu0 + 1) : t);
      if (columns && tokens(t).some((w) => ELISION.test(w))) elided = true;
      continue;
    }
    // Cells glued where the tab between them was lost, as the header's names are (`SYSSYS`): two cells.
    const words = tokens(t)
      .filter(notElided)
      .flatMap((w) => (GLUED_CELLS.test(w) ? (w.match(CELL_WORD) ?? [w]) : [w]));
    const name = words[0];
    if (!name || !columns.includes(name)) continue;
    // A row the paste cut inside its last cell (`… SYS SY`): the cells before the cut are whole.
    const cut = words.length <= columns.length && CUT_CELL.test(words.at(-1)!) && !CELL.test(words.at(-1)!);
    const cells = words.slice(1, cut ? -1 : 1 + columns.length);
    const bad = cells.find((c) => !CELL.test(c));
    if (cells.length < columns.length || bad !== undefined) {
      problems.push(
        problem(
          "nvidia_smi_topo.bad_row",
          `Line ${line}: the ${name} row should have ${columns.length} cells of X/PIX/PXB/PHB/NODE/SYS/NV#; found "${excerpt(t)}".`,
          { line, hint: "A row cut short usually means the capture was truncated; re-run `nvidia-smi topo -m`." },
        ),
      );
      // A row cut short (the paste ends inside it) keeps the cells it printed; the columns after the cut are unread.
      if (bad === undefined && cells.length > 0) rows.set(name, cells);
      continue;
    }
    rows.set(name, cells);
    if (name.startsWith("GPU")) {
      const rest = words.slice(1 + columns.length);
      affinity[name] = { cpus: rest[0] ?? null, numa: rest[1] ?? null, gpuNumaId: rest[2] ?? null };
    }
  }
  if (!columns) {
    const headerless = diagonalReading(text);
    if (headerless) return headerless;
    return fail(
      problem(
        "nvidia_smi_topo.unrecognised",
        "No `nvidia-smi topo -m` header row (GPU0 GPU1 … CPU Affinity) was found.",
        {
          hint: "Capture it with `nvidia-smi topo -m > topo.txt`.",
        },
      ),
    );
  }
  const rename = (n: string) => legend.get(n) ?? n;
  if (columns.some((c) => /^NIC\d+$/.test(c) && !legend.has(c))) {
    problems.push(
      problem(
        "nvidia_smi_topo.no_nic_legend",
        "NIC columns are present but the `NIC Legend:` is missing; NICn names are kept.",
        {
          hint: "Paste the whole output, including the NIC Legend at the end.",
        },
      ),
    );
  }
  if (rows.size === 0) {
    return fail(
      problem(
        "nvidia_smi_topo.no_rows",
        `The header row (${columns.length} devices) was read but no row under it: the capture was cut after the header. No GPU↔NIC path was checked.`,
        { hint: "Re-run `nvidia-smi topo -m` and paste all of it." },
      ),
    );
  }
  const devices = columns.map(rename);
  const matrix: NvidiaSmiTopo["matrix"] = {};
  for (const [name, cells] of rows) {
    const row: Record<string, TopoLink> = {};
    cells.forEach((c, i) => {
      row[devices[i]!] = (c === "SOC" ? "SYS" : c) as TopoLink;
    });
    matrix[rename(name)] = row;
  }
  if (elided) {
    problems.push(
      problem(
        "nvidia_smi_topo.columns_elided",
        "The header row has an elision (`...`) where columns were left out: only the devices shown were read.",
        { hint: "Paste the whole `nvidia-smi topo -m` output to have every GPU↔NIC path checked." },
      ),
    );
  }
  const missing = devices.filter((d) => !matrix[d]);
  if (missing.length > 0) {
    problems.push(
      problem("nvidia_smi_topo.missing_rows", `No row for ${missing.join(", ")} (truncated capture?).`, {
        hint: "Re-run `nvidia-smi topo -m` and paste all of it.",
      }),
    );
  }
  const renamedAffinity: NvidiaSmiTopo["affinity"] = {};
  for (const [k, v] of Object.entries(affinity)) renamedAffinity[rename(k)] = v;
  return ok({ devices, matrix, affinity: renamedAffinity, columnsFrom: "header" }, problems);
}

/**
 * GPU rows with no header row above them (a report's excerpt): GPUn's `X` stands in column n, so rows GPU0 … GPUk−1,
 * each with its `X` at its own index, name the first k columns; the cells after them (NICs, whose names only the header
 * and the NIC Legend give) are not read. Null unless every row read so.
 */
function diagonalReading(text: string): ParseResult<NvidiaSmiTopo> | null {
  const rows: string[][] = [];
  for (const { text: t } of captureLines(text)) {
    const words = tokens(t).filter(notElided);
    const at = /^GPU(\d+)$/.exec(words[0] ?? "");
    if (at && Number(at[1]) === rows.length && words.slice(1).indexOf("X") === rows.length) rows.push(words.slice(1));
  }
  if (rows.length < 2) return null;
  const gpus = rows.map((_, i) => `GPU${i}`);
  const matrix: NvidiaSmiTopo["matrix"] = {};
  for (const [i, cells] of rows.entries()) {
    const row: Record<string, TopoLink> = {};
    for (const [j, gpu] of gpus.entries()) {
      const c = cells[j]!;
      if (!CELL.test(c)) return null;
      row[gpu] = (c === "SOC" ? "SYS" : c) as TopoLink;
    }
    matrix[gpus[i]!] = row;
  }
  const unnamed = rows[0]!.slice(gpus.length).filter((c) => CELL.test(c)).length;
  return ok({ devices: gpus, matrix, affinity: {}, columnsFrom: "row_diagonal", unnamedColumns: unnamed }, [
    problem(
      "nvidia_smi_topo.no_header",
      `No header row: the ${gpus.length} GPU columns were placed by each GPU row's X${unnamed > 0 ? `; the ${unnamed} columns after them are unnamed and were not read, so no GPU↔NIC path was checked` : ""}.`,
      { hint: "Paste the whole `nvidia-smi topo -m` output, its header row and NIC Legend included." },
    ),
  ]);
}
