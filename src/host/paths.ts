/** Host-path helpers shared by the readers (posix paths only: hosts are Linux). */
import { posix } from "node:path";

/** Normalises an absolute host path: `/sys/class/../bus` → `/sys/bus`, no trailing slash. */
export function normalizeHostPath(p: string): string {
  // Fast path: already absolute and clean (the common case; GID tables ask for thousands of paths).
  if (isCleanAbsolute(p)) return p;
  const n = posix.normalize(p.startsWith("/") ? p : `/${p}`);
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n;
}

/** `/` first, and no `//`, no `.` or `..` component, no trailing `/`: what normalizing would leave as it is. */
export function isCleanAbsolute(p: string): boolean {
  const n = p.length;
  if (n === 0 || p.charCodeAt(0) !== 47) return false;
  if (n > 1 && p.charCodeAt(n - 1) === 47) return false;
  for (let i = 0; i >= 0 && i < n; i = p.indexOf("/", i + 1)) {
    // After each "/": not another "/", and not "." or ".." as the whole component.
    const c = p.charCodeAt(i + 1);
    if (c === 47) return false;
    if (c !== 46) continue;
    const end = i + 2 < n && p.charCodeAt(i + 2) === 46 ? i + 3 : i + 2;
    if (end >= n || p.charCodeAt(end) === 47) return false;
  }
  return true;
}

export function parentOf(p: string): string {
  return posix.dirname(p);
}

export function baseName(p: string): string {
  return posix.basename(p);
}

export function joinHost(...parts: string[]): string {
  return normalizeHostPath(posix.join(...parts));
}

/** The `file args…` key a command is stored under in snapshots and captures. */
export function commandKey(file: string, args: readonly string[]): string {
  return [file, ...args].join(" ");
}

/** Default limit for `ofed_info` / `nvidia-smi`: a wedged driver must not hang us. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 15_000;
