/** Host-path helpers shared by the readers (posix paths only: hosts are Linux). */
import { posix } from "node:path";

/** Normalises an absolute host path: `/sys/class/../bus` → `/sys/bus`, no trailing slash. */
export function normalizeHostPath(p: string): string {
  // Fast path: absolute, no `//`, no component starting with a dot, no trailing slash: nothing to normalise (the
  // common case; GID tables ask for thousands of paths). Plain string searches: no regular expression per call.
  if (p.charCodeAt(0) === 47 && !p.includes("//") && !p.includes("/.") && (p.length === 1 || !p.endsWith("/"))) {
    return p;
  }
  const n = posix.normalize(p.startsWith("/") ? p : `/${p}`);
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n;
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

/** Files the readers hand out as hex text (readBinaryHex): a PCI function's config space under /sys. */
export function isBinaryHostFile(p: string): boolean {
  return p.startsWith("/sys/") && p.endsWith("/config") && p.includes("/pci");
}

/** The `file args…` key a command is stored under in snapshots and captures. */
export function commandKey(file: string, args: readonly string[]): string {
  return [file, ...args].join(" ");
}

/** Default limit for `ofed_info` / `nvidia-smi`: a wedged driver must not hang us. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 15_000;
