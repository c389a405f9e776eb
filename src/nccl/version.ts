/** NCCL release numbers and the version-dependent defaults kube-rdma cares about (tech-spec §3, §8). */

export type NcclVersion = { major: number; minor: number; patch: number | null };

/**
 * When the job's NCCL is not known, kube-rdma derives variables that are right on *every* release: it assumes the
 * oldest behaviour still deployed (before 2.21, when `NCCL_IB_GID_INDEX` defaulted to 0, the RoCE v1 link-local
 * GID). PyTorch wheels and NGC images pin different NCCL releases, so a node-level default must not bet on one.
 */
export const ASSUMED_NCCL_NOTE =
  "NCCL version unknown: variables chosen to work on every release (before 2.21 NCCL used GID index 0, the RoCE v1 " +
  "link-local GID, unless told otherwise); pass --nccl-version X.Y to tailor them";

const VERSION_RE = /^\s*v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+.\w]*)?\s*$/;

/** Parses `2.21`, `2.18.3`, `v2.23.4-1`, `2.18.3+cuda12.2`; null when it is not a version. */
export function parseNcclVersion(text: string): NcclVersion | null {
  const m = VERSION_RE.exec(text);
  if (!m) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: m[3] === undefined ? null : Number(m[3]) };
}

/** True when `v` is at least `major.minor`. */
export function atLeast(v: NcclVersion, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

export function formatNcclVersion(v: NcclVersion): string {
  return v.patch === null ? `${v.major}.${v.minor}` : `${v.major}.${v.minor}.${v.patch}`;
}

/** GID auto-selection (RoCE v2, IPv4, NCCL_IB_ADDR_FAMILY/RANGE) exists from 2.21. */
export function hasGidAutoSelect(v: NcclVersion | null): boolean {
  return v !== null && atLeast(v, 2, 21);
}

/** NCCL_IB_QPS_PER_CONNECTION exists from 2.10. */
export function hasQpsPerConnection(v: NcclVersion | null): boolean {
  return v === null || atLeast(v, 2, 10);
}

/** NCCL_IB_FIFO_TC exists since NCCL 2.22.3, the first 2.22 release (NCCL environment variables). */
export function hasFifoTrafficClass(v: NcclVersion): boolean {
  return atLeast(v, 2, 22);
}

/** NCCL's own NCCL_IB_TIMEOUT default for a release (14 before 2.14, 18 in 2.14–2.22, 20 from 2.23). */
export function defaultIbTimeout(v: NcclVersion | null): number | null {
  if (v === null) return null;
  if (atLeast(v, 2, 23)) return 20;
  if (atLeast(v, 2, 14)) return 18;
  return 14;
}
