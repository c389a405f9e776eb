/**
 * One open file read into a reused buffer, with the checks a host file passes before its text is used: a regular
 * file (never a FIFO, device or directory), one name where the kernel gives one (sysfs, proc: no hard link), within
 * its cap. FsHostReader opens the file (confinement is its business); this reads it.
 */
import { constants, fstatSync, readSync } from "node:fs";
import { encodeBytesHex } from "../core/hex-bytes.js";
import { readError } from "./errors.js";
import type { ReadOutcome } from "./types.js";

/** The most a host file may hold: sysfs attributes are ≤ 4 KiB; /proc/net/route of a big host is the largest. */
export const MAX_HOST_FILE_BYTES = 64 * 1024;
/** /proc files list routes, mounts and limits: a host with many routes needs more than a sysfs attribute. */
export const MAX_PROC_FILE_BYTES = 1024 * 1024;

/** Never blocks on a FIFO (it is then refused as not a regular file) and never follows a last link itself. */
export const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;
export const OPEN_CONFINED = OPEN_FLAGS | constants.O_NOFOLLOW;

/** How a file's bytes are handed back: text (UTF-8), or hex pairs for binary files (`encodeBytesHex`). */
export type Encoding = "text" | "hex";

/**
 * A text its caller discards (an empty GID slot: most of a 255-slot table). Such a text is handed back without the
 * checks above, which guard only what is used: a hard link or a device answering exactly that text shows nothing.
 */
export type Unused = (text: string) => boolean;

export function capOf(path: string): number {
  return path.startsWith("/proc/") ? MAX_PROC_FILE_BYTES : MAX_HOST_FILE_BYTES;
}

export class FileReadBuffer {
  private buf = Buffer.alloc(64 * 1024);

  /**
   * Reads an open file. `kernelFile(path)`: a sysfs or proc file of a tree, refused when hard-linked. `unused`: the bytes
   * are read first, at offset 0 (a pread, which leaves the file's offset alone), and a text the caller discards is
   * answered without the file's fstat; any other text (or a read that fails: a directory, a FIFO) is checked and
   * read as usual.
   */
  read(
    fd: number,
    path: string,
    cap: number,
    kernelFile: (path: string) => boolean,
    as: Encoding = "text",
    unused?: Unused,
  ) {
    if (unused && as === "text") {
      let n = -1;
      try {
        n = readSync(fd, this.buf, 0, this.buf.length, 0);
      } catch {
        // Not a file that reads (EISDIR, ESPIPE): the checks below say what it is.
      }
      if (n >= 0 && n < this.buf.length) {
        const text = this.buf.toString("utf8", 0, n);
        if (unused(text)) return { ok: true as const, value: text };
      }
    }
    const read = this.readBytes(fd, path, cap, kernelFile);
    if (!read.ok) return read;
    const value =
      as === "hex" ? encodeBytesHex(this.buf.subarray(0, read.value)) : this.buf.toString("utf8", 0, read.value);
    return { ok: true as const, value };
  }

  /** Reads a regular file into the buffer; the number of bytes read, or a read problem. */
  private readBytes(fd: number, path: string, cap: number, kernelFile: (path: string) => boolean): ReadOutcome<number> {
    const st = fstatSync(fd);
    if (!st.isFile()) return notRegular(st, path);
    if (st.nlink > 1 && kernelFile(path)) return hardLinked(path, st.nlink);
    if (st.size > cap) return tooLarge(path, cap, st.size);
    // sysfs files report a size of 4096 whatever they hold, and hand out a whole attribute in one read: a short
    // read is the end of the file (saves a syscall per file; a GID table is thousands of files).
    let len = 0;
    for (;;) {
      const n = readSync(fd, this.buf, len, this.buf.length - len, null);
      len += n;
      if (len > cap) return tooLarge(path, cap);
      if (n === 0 || len < this.buf.length) break;
      this.buf = Buffer.concat([this.buf, Buffer.alloc(this.buf.length)]);
    }
    return { ok: true, value: len };
  }
}

/** A FIFO, device, socket or directory where a file was expected: never opened for reading. */
export function notRegular(
  st: { isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean },
  path: string,
) {
  if (st.isDirectory()) return { ok: false as const, error: readError("EISDIR", path) };
  const what = st.isFIFO() ? "a FIFO" : st.isCharacterDevice() ? "a character device" : "not a regular file";
  return { ok: false as const, error: readError("ENOTREG", path, `${what}; only regular files are read`) };
}

/** A file with more than one name where the kernel gives one (sysfs, proc): never read. */
function hardLinked(path: string, names: number) {
  return {
    ok: false as const,
    error: readError(
      "EHARDLINK",
      path,
      `a hard link (${names} names share this file), where sysfs and proc files have one name; it is not read`,
    ),
  };
}

function tooLarge(path: string, cap: number, size?: number) {
  const found = size === undefined ? "more" : `${size} bytes`;
  return {
    ok: false as const,
    error: readError("EFBIG", path, `${found}, larger than a host file can be (at most ${cap} bytes are read)`),
  };
}
