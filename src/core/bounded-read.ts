/**
 * The one bounded reader every whole-input read goes through. A size check on `stat` is not a bound: devices,
 * FIFOs and pipes report size 0 (`--snapshot /dev/zero` read gigabytes). These count bytes as they arrive and stop
 * one byte past the cap, whatever the file is.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";

export type BoundedRead = { ok: true; bytes: Buffer } | { ok: false; tooLarge: true };

const CHUNK = 1 << 20;

/** Reads `path` (or file descriptor 0 for standard input) up to `cap` bytes; more is `tooLarge`. */
export function readBoundedSync(path: string | 0, cap: number): BoundedRead {
  const fd = path === 0 ? 0 : openSync(path, "r");
  try {
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, cap + 1 - total));
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EAGAIN") continue; // a non-blocking stdin not ready yet
        if ((err as NodeJS.ErrnoException).code === "EOF") break;
        throw err;
      }
      if (n === 0) break;
      parts.push(buf.subarray(0, n));
      total += n;
      if (total > cap) return { ok: false, tooLarge: true };
    }
    return { ok: true, bytes: Buffer.concat(parts, total) };
  } finally {
    if (fd !== 0) closeSync(fd);
  }
}

/** The same, without blocking the event loop. */
export async function readBounded(path: string, cap: number): Promise<BoundedRead> {
  const handle = await open(path, "r");
  try {
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, cap + 1 - total));
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      parts.push(buf.subarray(0, bytesRead));
      total += bytesRead;
      if (total > cap) return { ok: false, tooLarge: true };
    }
    return { ok: true, bytes: Buffer.concat(parts, total) };
  } finally {
    await handle.close();
  }
}
