/** Host-path helpers shared by the readers (posix paths only: hosts are Linux). */
import { posix } from "node:path";

const isLineBreak = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

/**
 * An absolute path with nothing to normalise: no `//`, no `.` or `..` component, no trailing `/` (`/` itself is
 * clean). One pass over the characters: the readers ask this of most paths they look up.
 */
function isCleanAbsolute(p: string): boolean {
  const n = p.length;
  if (n === 0 || p.charCodeAt(0) !== 47) return false;
  for (let i = 0; i < n; i++) {
    if (p.charCodeAt(i) !== 47) continue;
    // A trailing `/` (the pattern this replaces, `.\/$`, let one after a line break through: so does this)
    if (i === n - 1) return n === 1 || isLineBreak(p.charCodeAt(n - 2));
    const c = p.charCodeAt(i + 1);
    if (c === 47) return false;
    if (c === 46) {
      // `/.` or `/..`, then `/` or the end
      const d = i + 2 < n ? p.charCodeAt(i + 2) : 47;
      if (d === 47) return false;
      if (d === 46 && (i + 3 === n || p.charCodeAt(i + 3) === 47)) return false;
    }
  }
  return true;
}

/** Normalises an absolute host path: `/sys/class/../bus` → `/sys/bus`, no trailing slash. */
export function normalizeHostPath(p: string): string {
  // Fast path: already absolute and clean (the common case; GID tables ask for thousands of paths).
  if (isCleanAbsolute(p)) return p;
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
