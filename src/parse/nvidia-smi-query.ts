import { fail, ok, type ParseResult, problem } from "../core/result.js";
import { captureLines } from "./capture.js";
import { emptyNvidiaSmiTable, type NvidiaSmiTable, newGpu } from "./nvidia-smi-table.js";

/**
 * `nvidia-smi -q` (or `-a`) text: the `==============NVSMI LOG==============` banner, `Driver Version : …` and
 * `CUDA Version : …` lines, then one `GPU 00000000:3B:00.0` block per GPU with indented `Key : Value` lines and
 * sections (`FB Memory Usage` then its `Total : 16384 MiB`). Read into the table's shape: GPUs in the order printed
 * (nvidia-smi lists them by index), the bus id as printed. Pure.
 */

/** `==============NVSMI LOG==============`, the banner of the text query output. */
export const NVSMI_LOG = /^\s*=+\s*NVSMI LOG\s*=+\s*$/m;

const KEY_VALUE = /^\s*([A-Za-z][A-Za-z0-9 ./()-]*?)\s*:\s*(.*?)\s*$/;
const GPU_LINE = /^\s*GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$/;
/** A section title: a line without a colon (`FB Memory Usage`, `PCI`, `Clocks`). */
const SECTION = /^\s*([A-Za-z][A-Za-z0-9 /()-]*?)\s*$/;

/** A version value, or null where nvidia-smi says there is none (`N/A`, `Not Found`). */
function version(v: string): string | null {
  return /^\d+(?:\.\d+)+$/.test(v) ? v : null;
}

export function parseNvidiaSmiQuery(text: string): ParseResult<NvidiaSmiTable> {
  const out = emptyNvidiaSmiTable();
  let banner = false;
  let section = "";
  for (const { text: line } of captureLines(text)) {
    if (NVSMI_LOG.test(line)) {
      banner = true;
      continue;
    }
    const gpuLine = GPU_LINE.exec(line);
    if (gpuLine) {
      out.gpus.push(newGpu(out.gpus.length, "", gpuLine[1]!));
      section = "";
      continue;
    }
    const kv = KEY_VALUE.exec(line);
    if (!kv) {
      const s = SECTION.exec(line);
      if (s) section = s[1]!;
      continue;
    }
    const [, key, value = ""] = kv;
    const gpu = out.gpus.at(-1);
    if (!gpu) {
      // The header before the first GPU: the versions, driver first.
      if (key === "Driver Version" || key === "KMD Version") out.driverVersion = version(value);
      else if (key === "CUDA Version" || key === "CUDA UMD Version") out.cudaVersion = version(value);
      else if (key === "Attached GPUs" && value === "0") out.noDevices = true;
      continue;
    }
    if (key === "Product Name") gpu.name = value;
    else if (key === "Persistence Mode")
      gpu.persistence = value === "Enabled" ? "On" : value === "Disabled" ? "Off" : null;
    else if (key === "Total" && section === "FB Memory Usage") gpu.memoryTotalMiB = mib(value);
    else if (key === "Used" && section === "FB Memory Usage") gpu.memoryUsedMiB = mib(value);
    else if (key === "Compute Mode") gpu.computeMode = value === "N/A" ? null : value;
  }
  if (!banner && out.gpus.length === 0) {
    return fail(
      problem("nvidia_smi.unrecognised", "not `nvidia-smi -q` output (expected the `NVSMI LOG` banner and GPU blocks)"),
    );
  }
  return ok(out);
}

function mib(v: string): number | null {
  const m = /^(\d+)\s*MiB$/.exec(v);
  return m ? Number(m[1]) : null;
}
