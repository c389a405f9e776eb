/**
 * Which CUDA release a node's NVIDIA driver runs. Source: NVIDIA's CUDA Toolkit release notes, table "CUDA Toolkit
 * and Corresponding Driver Versions" (https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/), Linux x86_64, the
 * minimum driver of each release's GA. A driver runs a CUDA release when it is at least that release's minimum.
 *
 * CUDA minor version compatibility (a CUDA 11.x program on a driver ≥ 450.80.02, 12.x on ≥ 525.60.13) stretches this
 * within one major release for programs that ship SASS for the GPU (nccl-tests images do): images.ts uses both.
 */
export const CUDA_DRIVER_TABLE: readonly { cuda: string; minDriver: string }[] = [
  { cuda: "13.0", minDriver: "580.65.06" },
  { cuda: "12.9", minDriver: "575.51.03" },
  { cuda: "12.8", minDriver: "570.26" },
  { cuda: "12.6", minDriver: "560.28.03" },
  { cuda: "12.5", minDriver: "555.42.02" },
  { cuda: "12.4", minDriver: "550.54.14" },
  { cuda: "12.3", minDriver: "545.23.06" },
  { cuda: "12.2", minDriver: "535.54.03" },
  { cuda: "12.1", minDriver: "530.30.02" },
  { cuda: "12.0", minDriver: "525.60.13" },
  { cuda: "11.8", minDriver: "520.61.05" },
  { cuda: "11.7", minDriver: "515.43.04" },
  { cuda: "11.6", minDriver: "510.39.01" },
  { cuda: "11.5", minDriver: "495.29.05" },
  { cuda: "11.4", minDriver: "470.42.01" },
  { cuda: "11.3", minDriver: "465.19.01" },
  { cuda: "11.2", minDriver: "460.27.03" },
  { cuda: "11.1", minDriver: "455.23" },
  { cuda: "11.0", minDriver: "450.36.06" },
  { cuda: "10.2", minDriver: "440.33" },
];

/** `470.141.03` → [470, 141, 3]; null when not a driver version. */
export function parseVersion(text: string): number[] | null {
  const m = /^\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(text);
  if (!m) return null;
  return [m[1], m[2], m[3]].map((x) => Number(x ?? 0));
}

export function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The newest CUDA release (X.Y) a driver runs by the table; `"newest"` for a driver of a later branch than the
 * table's last entry (it runs that and whatever came after); null for an unparseable or older driver.
 */
export function maxCudaForDriver(driver: string): string | null {
  const v = parseVersion(driver);
  if (!v) return null;
  const newest = CUDA_DRIVER_TABLE[0]!;
  if (v[0]! > parseVersion(newest.minDriver)![0]!) return "newest";
  const row = CUDA_DRIVER_TABLE.find((r) => compareVersions(v, parseVersion(r.minDriver)!) >= 0);
  return row?.cuda ?? null;
}

/** Whether a CUDA release X.Y(.Z) is at most `max` (X.Y or "newest"). */
export function cudaAtMost(cuda: string, max: string): boolean {
  if (max === "newest") return true;
  const a = parseVersion(cuda);
  const b = parseVersion(max);
  if (!a || !b) return false;
  return compareVersions(a.slice(0, 2), b.slice(0, 2)) <= 0;
}

/** The minimum driver of a CUDA release X.Y by the table (null when not in it). */
export function minDriverForCuda(cuda: string): string | null {
  const xy = cuda.split(".").slice(0, 2).join(".");
  return CUDA_DRIVER_TABLE.find((r) => r.cuda === xy)?.minDriver ?? null;
}
