/**
 * The one way kube-rdma writes a file: the bytes go to a new temporary file in the same directory, are flushed to
 * disk, and the temporary file is renamed over the target. rename(2) within one filesystem is atomic
 * (https://man7.org/linux/man-pages/man2/rename.2.html): a reader sees the old file or the new one, never half of
 * either, and a write that fails (a full disk, a file-size limit, an interrupted run) leaves the previous file as it
 * was. The temporary file is removed when anything fails.
 */
import { randomBytes } from "node:crypto";
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export type AtomicWriteOptions = { mode?: number };

/** The temporary name beside `path`: hidden, unique to this process and call. */
function temporaryBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
}

/** Writes `data` to `path` atomically; throws the write's error (the target untouched). */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const tmp = temporaryBeside(path);
  let created = false;
  try {
    const fh = await open(tmp, "wx", opts.mode ?? 0o644);
    created = true;
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
    created = false;
  } finally {
    if (created) await unlink(tmp).catch(() => undefined);
  }
}
