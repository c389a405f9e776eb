import type { ReadError } from "./types.js";

const WHAT: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EINVAL: "invalid argument (the kernel has no value for it)",
  EIO: "I/O error",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  ETIMEDOUT: "timed out",
  ELOOP: "too many levels of symbolic links",
  ENODEV: "no such device",
  EAGAIN: "resource temporarily unavailable",
  EBUSY: "device or resource busy",
};

/** Maps a Node error to the errno-style ReadError the readers hand out. */
export function toReadError(err: unknown, what: string): ReadError {
  const code =
    typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : "EIO";
  return { code, message: `${what}: ${WHAT[code] ?? (err instanceof Error ? err.message : String(err))}` };
}

/**
 * A command a snapshot has no record of (trimmed by hand, or taken by a kube-rdma that did not run it yet): not the
 * host's "not installed" (ENOENT), which a snapshot records as such.
 */
export const NOT_RECORDED = "NOT_RECORDED";

export function readError(code: string, what: string, detail?: string): ReadError {
  return { code, message: `${what}: ${detail ?? WHAT[code] ?? code}` };
}
