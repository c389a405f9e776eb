/**
 * `nvidia-smi nvlink -s` (NVLink status): per GPU a `GPU N: <name> (UUID: GPU-…)` line, then one indented
 * `Link L: 26.562 GB/s` line per link, or `Link L: <inactive>` for a link that is down. Pure.
 * Shapes as printed on V100, A100/H100 HGX and GB200 (https://github.com/Azure/azhpc-diagnostics/issues/73,
 * https://github.com/NVIDIA/k8s-test-infra/issues/371).
 */
import { fail, ok, type ParseResult, type Problem, problem } from "../core/result.js";
import { splitLines } from "../core/text.js";

export type NvlinkGpuStatus = {
  gpu: number;
  name: string;
  /** Links in the order printed; `gbps` null for `<inactive>`. */
  links: { link: number; gbps: number | null }[];
};

const GPU_LINE = /^GPU (\d+): (.*?)(?: \(UUID: [^)]*\))?\s*$/;
const LINK_LINE = /^Link (\d+): (?:([\d.]+) GB\/s|<inactive>)\s*$/;

export function parseNvlinkStatus(text: string): ParseResult<NvlinkGpuStatus[]> {
  const out: NvlinkGpuStatus[] = [];
  const problems: Problem[] = [];
  let cur: NvlinkGpuStatus | null = null;
  splitLines(text).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") return;
    const g = GPU_LINE.exec(line);
    if (g) {
      cur = { gpu: Number(g[1]), name: g[2]!, links: [] };
      out.push(cur);
      return;
    }
    const l = LINK_LINE.exec(line);
    if (l && cur) {
      (cur as NvlinkGpuStatus).links.push({ link: Number(l[1]), gbps: l[2] === undefined ? null : Number(l[2]) });
      return;
    }
    if (problems.length < 5) {
      problems.push(problem("nvlink_status.unrecognised", `unrecognised line "${line.slice(0, 80)}"`, { line: i + 1 }));
    }
  });
  if (out.length === 0) {
    return fail(
      problem("nvlink_status.no_gpu", `found no "GPU N: …" line in "${text.trim().slice(0, 80)}"`, {
        hint: "Capture it again with `nvidia-smi nvlink -s`.",
      }),
    );
  }
  return ok(out, problems);
}
