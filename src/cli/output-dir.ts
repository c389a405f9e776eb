/** A directory the user names for files kube-rdma writes (`--save-snapshots DIR`, `fleet bench --save DIR`). */
import { resolve } from "node:path";
import { UsageError } from "./spec.js";

/**
 * The directory, resolved from `cwd`; refused inside /proc or /sys: kernel filesystems hold no files of ours, and
 * Node's recursive mkdir never returns on a path under /proc (seen: 100% CPU until killed).
 */
export function outputDir(flag: string, dir: string, cwd: string): string {
  const path = resolve(cwd, dir);
  const kernel = /^\/(proc|sys)(?:\/|$)/.exec(path);
  if (kernel) {
    throw new UsageError(
      `${flag} ${dir} is inside /${kernel[1]}, a kernel filesystem: files cannot be written there.`,
      `Name a directory on disk, e.g. ${flag} ./kube-rdma-out.`,
    );
  }
  return path;
}
