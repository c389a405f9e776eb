import { fail, ok, type ParseResult, type Problem, problem } from "../core/result.js";
import { boxTableLines } from "./box-table.js";
import { excerpt } from "./capture.js";

/** One GPU of the default `nvidia-smi` table. Null where the cell is `N/A`, `ERR!` or absent. */
export type NvidiaSmiGpu = {
  index: number;
  /** As printed; long names are truncated by nvidia-smi (`NVIDIA A100-SXM...`). */
  name: string;
  /** As printed: `00000000:53:00.0`. */
  busId: string;
  memoryTotalMiB: number | null;
  memoryUsedMiB: number | null;
  persistence: string | null;
  /** Windows only: the driver model printed where Linux prints persistence mode. */
  driverModel?: "WDDM" | "TCC";
  displayActive: string | null;
  /** `Volatile Uncorr. ECC`: a count, or null for N/A / Off / ERR!. */
  eccUncorrected: number | null;
  fanPercent: number | null;
  temperatureC: number | null;
  perf: string | null;
  powerW: number | null;
  powerCapW: number | null;
  utilPercent: number | null;
  computeMode: string | null;
  migMode: string | null;
  /** Columns that printed `ERR!` (`name`, `ecc`, `fan`, `temperature`, `power`, …): the GPU is in trouble. */
  errCells: string[];
};

export type NvidiaSmiTable = {
  driverVersion: string | null;
  cudaVersion: string | null;
  smiVersion: string | null;
  gpus: NvidiaSmiGpu[];
  /** `Unable to determine the device handle for GPU 0000:73:00.0: Unknown Error` and similar lines. */
  gpuErrors: { busId: string | null; message: string }[];
  /** nvidia-smi said `No devices were found` (driver loaded, no GPU visible). */
  noDevices: boolean;
  /** The Processes table said `No running processes found`, or listed this many processes. */
  processes: number | null;
  /** False when only the header was read (no GPU row, no `No devices were found`): `gpus` is then unread, not empty. */
  gpuTableRead: boolean;
};

const HEADER = /NVIDIA-SMI\s+(\S+)/;
/**
 * Drivers from R610 print `KMD Version:` and `CUDA UMD Version:` where older ones print `Driver` and `CUDA Version:`.
 * The words may stand apart by any whitespace: a window that wrapped the header at a word boundary, where the join
 * cannot tell a wrap from a terminal's cut, leaves two spaces there (`CUDA  Version:`).
 */
const DRIVER = /(?:Driver|KMD)\s+Version:\s*(\S+)/;
/** The CUDA version, or `N/A` where no CUDA driver library is loaded (read as null). */
const CUDA = /CUDA\s+(?:UMD\s+)?Version:\s*([\w.]+(?:\/[\w.]+)?)/;
const BUS_ID = /^([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*(\S+)?$/;
/** The last word is persistence mode, or on Windows (header `Name  TCC/WDDM`) the driver model. */
const FIRST_CELL = /^(\d+)\s+(.*?)(?:\s+(On|Off|ERR!|N\/A|WDDM|TCC))?$/;
const LAST_WORD = /^(?:On|Off|ERR!|N\/A|WDDM|TCC)$/;
const HANDLE_ERROR =
  /(Unable to determine the device handle for GPU\s*([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])?.*|GPU\s+[0-9A-Fa-f:.]+: .*fallen off the bus.*)$/i;
const SEPARATOR = /^\s*[+|][-=+|\s]*$/;
/** `|   5  NVIDIA H100…`: the start of a GPU's first line (MIG and process rows have other shapes). */
const GPU_ROW_START = /^\s*\|\s*\d+\s+[A-Za-z]/;
const BUS_ID_ANYWHERE = /[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]/;

const num = (text: string | undefined, re: RegExp): number | null => {
  const m = text === undefined ? null : re.exec(text);
  return m ? Number(m[1]) : null;
};
const word = (text: string | undefined): string | null => {
  const t = text?.trim();
  return t && t !== "N/A" && t !== "ERR!" ? t : null;
};

/** The cells of a `| a | b | c |` row, trimmed; null for borders and lines without inner bars. */
function cellsOf(line: string): string[] | null {
  const t = line.trim();
  if (!t.startsWith("|") || SEPARATOR.test(t)) return null;
  const inner = t.replace(/^\|/, "").replace(/\|$/, "");
  return inner.split("|").map((c) => c.trim());
}

export function newGpu(index: number, name: string, busId: string): NvidiaSmiGpu {
  return {
    index,
    name,
    busId,
    memoryTotalMiB: null,
    memoryUsedMiB: null,
    persistence: null,
    displayActive: null,
    eccUncorrected: null,
    fanPercent: null,
    temperatureC: null,
    perf: null,
    powerW: null,
    powerCapW: null,
    utilPercent: null,
    computeMode: null,
    migMode: null,
    errCells: [],
  };
}

function noteErr(gpu: NvidiaSmiGpu, column: string, text: string): void {
  if (text.includes("ERR!") && !gpu.errCells.includes(column)) gpu.errCells.push(column);
}

/** First line: `0  NVIDIA A100-SXM...  On | 00000000:53:00.0 Off | 0`. */
function startGpu(cells: string[]): NvidiaSmiGpu | null {
  if (cells.length < 3) return null;
  const first = FIRST_CELL.exec(cells[0]!);
  const bus = BUS_ID.exec(cells[1]!);
  if (!first || !bus) return null;
  // A GPU whose name nvidia-smi printed blank (`0                      Off`): the one word is its persistence mode.
  if (first[3] === undefined && LAST_WORD.test(first[2]!)) [first[2], first[3]] = ["", first[2]!];
  const gpu = newGpu(Number(first[1]), first[2]!.trim(), bus[1]!);
  if (first[3] === "WDDM" || first[3] === "TCC") gpu.driverModel = first[3];
  else gpu.persistence = word(first[3]);
  gpu.displayActive = word(bus[2]);
  gpu.eccUncorrected = /^\d+$/.test(cells[2]!) ? Number(cells[2]) : null;
  noteErr(gpu, "name", first[2]!);
  noteErr(gpu, "persistence", first[3] ?? "");
  noteErr(gpu, "displayActive", bus[2] ?? "");
  noteErr(gpu, "ecc", cells[2]!);
  return gpu;
}

/** Second line: `N/A 29C P0 64W / 400W | 0MiB / 81251MiB | 0% Default`. */
function applySecondLine(gpu: NvidiaSmiGpu, cells: string[]): void {
  const [left = "", memory = "", right = ""] = cells;
  const parts = left.split(/\s+/);
  gpu.fanPercent = num(parts[0], /^(\d+)%$/);
  gpu.temperatureC = num(parts[1], /^(\d+)C$/);
  gpu.perf = word(parts[2]);
  const power = /(\S+)\s*\/\s*(\S+)\s*$/.exec(left);
  gpu.powerW = num(power?.[1], /^(\d+(?:\.\d+)?)W$/);
  gpu.powerCapW = num(power?.[2], /^(\d+(?:\.\d+)?)W$/);
  noteErr(gpu, "fan", parts[0] ?? "");
  noteErr(gpu, "temperature", parts[1] ?? "");
  noteErr(gpu, "perf", parts[2] ?? "");
  noteErr(gpu, "power", power?.[0] ?? "");
  const mem = /(\S+)\s*\/\s*(\S+)/.exec(memory);
  gpu.memoryUsedMiB = num(mem?.[1], /^(\d+)MiB$/);
  gpu.memoryTotalMiB = num(mem?.[2], /^(\d+)MiB$/);
  noteErr(gpu, "memory", memory);
  const util = right.split(/\s+/);
  gpu.utilPercent = num(util[0], /^(\d+)%$/);
  gpu.computeMode = word(util.slice(1).join(" "));
  noteErr(gpu, "util", util[0] ?? "");
  noteErr(gpu, "computeMode", util.slice(1).join(" "));
}

/** A table with nothing read yet: no versions, no GPUs. */
export function emptyNvidiaSmiTable(): NvidiaSmiTable {
  return {
    driverVersion: null,
    cudaVersion: null,
    smiVersion: null,
    gpus: [],
    gpuErrors: [],
    noDevices: false,
    processes: null,
    gpuTableRead: true,
  };
}

/**
 * Parses the default `nvidia-smi` table: the `NVIDIA-SMI … Driver Version … CUDA Version` header, then per GPU two
 * (old, no MIG column) or three lines between `+---+` borders, in the pre-2023 and 2023+ layouts, with the ASCII
 * borders as printed or pasted (collapsed spaces, indentation). `ERR!` and `N/A` cells become null plus `errCells`.
 */
export function parseNvidiaSmiTable(text: string): ParseResult<NvidiaSmiTable> {
  const problems: Problem[] = [];
  const out = emptyNvidiaSmiTable();
  let current: NvidiaSmiGpu | null = null;
  let extraLines = 0;
  let inProcesses = false;
  for (const { text: t, line } of boxTableLines(text)) {
    if (/^\s*No devices were found\s*$/.test(t)) {
      out.noDevices = true;
      continue;
    }
    const header = HEADER.exec(t);
    if (header && out.smiVersion === null) {
      out.smiVersion = header[1]!;
      out.driverVersion = DRIVER.exec(t)?.[1] ?? null;
      out.cudaVersion = word(CUDA.exec(t)?.[1]);
      continue;
    }
    const handle = HANDLE_ERROR.exec(t);
    if (handle) {
      out.gpuErrors.push({ busId: handle[2] ?? null, message: handle[1]!.trim() });
      continue;
    }
    if (/\bProcesses:/.test(t)) {
      inProcesses = true;
      current = null;
      continue;
    }
    if (inProcesses) {
      if (/No running processes found/i.test(t)) out.processes = 0;
      else if (/^\s*\|\s*\d+\s+\S+\s+\S+\s+\d+\s+[CGM+]+\s+/.test(t)) out.processes = (out.processes ?? 0) + 1;
      continue;
    }
    if (SEPARATOR.test(t.trim()) && t.trim().startsWith("+")) {
      current = null;
      continue;
    }
    const cells = cellsOf(t);
    if (!cells) continue;
    const started = startGpu(cells);
    if (started) {
      current = started;
      extraLines = 0;
      out.gpus.push(started);
      continue;
    }
    if (GPU_ROW_START.test(t) && !BUS_ID_ANYWHERE.test(t)) {
      problems.push(
        problem("nvidia_smi.bad_row", `Line ${line}: a GPU row without its bus id: "${excerpt(t)}".`, {
          line,
          hint: "A row cut short usually means the capture was truncated; paste the whole nvidia-smi output.",
        }),
      );
      current = null;
      continue;
    }
    if (!current || cells.length < 3) continue;
    extraLines++;
    if (extraLines === 1) applySecondLine(current, cells);
    else if (extraLines === 2) {
      current.migMode = word(cells[2]);
      noteErr(current, "migMode", cells[2] ?? "");
    }
  }
  if (out.smiVersion === null && out.gpus.length === 0 && !out.noDevices && out.gpuErrors.length === 0) {
    return fail(
      problem("nvidia_smi.unrecognised", "No `NVIDIA-SMI … Driver Version` header and no GPU row was found.", {
        hint: "Capture it with `nvidia-smi > nvidia-smi.txt` (or `nvidia-smi -q -x > nvidia-smi.xml` for every detail).",
      }),
    );
  }
  if (out.smiVersion === null && !out.noDevices) {
    problems.push(
      problem("nvidia_smi.no_header", "The `NVIDIA-SMI … Driver Version … CUDA Version` header is missing."),
    );
  }
  for (const g of out.gpus) {
    if (g.memoryTotalMiB === null && !g.errCells.includes("memory")) {
      problems.push(
        problem("nvidia_smi.gpu_incomplete", `GPU ${g.index} (${g.busId}): the memory line is missing (truncated?).`, {
          hint: "Paste the whole nvidia-smi output.",
        }),
      );
    }
  }
  if (out.smiVersion !== null && out.gpus.length === 0 && out.gpuErrors.length === 0 && !out.noDevices) {
    // Neither a GPU nor `No devices were found`: nothing about the GPUs was read, so nothing can be judged (a
    // capture cut after the header, or a table layout this parser does not know). Not an answer of "no GPU": the
    // versions a whole header line holds (its `Driver Version:`) are read, the GPU list is not (`gpuTableRead` false:
    // an empty list that means unread). Without that field (`NVIDIA-SMI has failed …`) nothing was read at all.
    const driver = out.driverVersion ? ` (driver ${out.driverVersion})` : "";
    const noGpus = problem(
      "nvidia_smi.no_gpus",
      `The header${driver} was read but no GPU row after it, and no "No devices were found": the capture was cut after the header, or its table is laid out in a way kube-rdma does not read. No GPU was checked.`,
      {
        hint: "Paste the whole nvidia-smi output, or capture `nvidia-smi -q -x > nvidia-smi.xml` (--kind nvidia_smi_xml).",
      },
    );
    if (out.driverVersion === null) return fail(...problems, noGpus);
    out.gpuTableRead = false;
    return ok(out, [...problems, noGpus]);
  }
  return ok(out, problems);
}
