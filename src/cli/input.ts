import { createReadStream } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { type Problem, problem } from "../core/result.js";
import type { Io } from "./spec.js";

/** An input file as the CLI reads it: whole when small, head + line stream when large. */
export type Input =
  | { file: string; status: "whole"; text: string }
  | {
      file: string;
      status: "large";
      /** Absolute path of the file. */
      path: string;
      head: string;
      size: number;
      lines: () => AsyncIterable<string>;
      /** The raw text in 64 KiB chunks (UTF-8 sequences split between chunks are joined). */
      chunks: () => AsyncIterable<string>;
    }
  | { file: string; status: "unreadable"; problem: Problem };

export function readProblem(file: string, err: unknown): Problem {
  const code = (err as NodeJS.ErrnoException).code;
  const what =
    code === "ENOENT"
      ? "no such file"
      : code === "EACCES" || code === "EPERM"
        ? "permission denied"
        : code === "EISDIR"
          ? "is a directory"
          : (err as Error).message;
  const hint =
    code === "ENOENT"
      ? "Check the path; use - to read standard input."
      : code === "EACCES" || code === "EPERM"
        ? "Run as a user who can read it, or copy it somewhere readable."
        : code === "EISDIR"
          ? "Pass the capture files inside it (e.g. DIR/*.txt)."
          : undefined;
  return problem("analyze.unreadable", `Cannot read ${file}: ${what}.`, { path: file, ...(hint ? { hint } : {}) });
}

/**
 * Reads one input: `-` is standard input; a file up to `largeBytes` is read whole; a larger one yields its first
 * `headBytes` for detection and a line stream, so a multi-GB NCCL log is never held in memory.
 */
export async function readInput(file: string, io: Io, opts: { largeBytes: number; headBytes: number }): Promise<Input> {
  if (file === "-") return { file, status: "whole", text: await io.readStdin() };
  const path = resolve(io.cwd, file);
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    if (st.size <= opts.largeBytes) return { file, status: "whole", text: await readFile(path, "utf8") };
    const handle = await open(path, "r");
    try {
      const buf = Buffer.alloc(opts.headBytes);
      const { bytesRead } = await handle.read(buf, 0, opts.headBytes, 0);
      const head = buf.subarray(0, bytesRead).toString("utf8");
      const lines = () =>
        createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Number.POSITIVE_INFINITY });
      const chunks = () => createReadStream(path, { encoding: "utf8", highWaterMark: 64 << 10 });
      return { file, status: "large", path, head, size: st.size, lines, chunks };
    } finally {
      await handle.close();
    }
  } catch (err) {
    return { file, status: "unreadable", problem: readProblem(file, err) };
  }
}

/** Reads a large input whole (for kinds without a streaming analyser), up to a hard cap. */
export async function readWhole(io: Io, file: string): Promise<string> {
  return readFile(resolve(io.cwd, file), "utf8");
}
