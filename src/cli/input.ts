import { createReadStream } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { readBounded } from "../core/bounded-read.js";
import { type Problem, problem } from "../core/result.js";
import { type Io, UsageError } from "./spec.js";
import { decodeChunks, readPrefix, textSource } from "./stdin.js";

/** An input as the CLI reads it: whole when small, head + chunk stream when large (a file, or standard input). */
export type Input =
  | { file: string; status: "whole"; text: string; interrupted?: () => boolean }
  | {
      file: string;
      status: "large";
      /** Absolute path of the file. */
      path: string;
      head: string;
      size: number;
      /** The raw text in 64 KiB chunks (UTF-8 sequences split between chunks are joined). */
      chunks: () => AsyncIterable<string>;
    }
  | {
      file: string;
      /** Standard input past `largeBytes`: never held whole. */
      status: "stream";
      head: string;
      /** The whole input as text chunks, the head first (iterate once; `chunks` or `bytes`, not both). */
      chunks: () => AsyncIterable<string>;
      /** The whole input as it arrived, undecoded (for analysers that cut it into lines themselves). */
      bytes: () => AsyncIterable<Uint8Array | string>;
      interrupted: () => boolean;
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
          : code === "ETOOBIG"
            ? "Save the output to a file first (command > out.txt) and pass that file."
            : undefined;
  return problem("analyze.unreadable", `Cannot read ${file}: ${what}.`, { path: file, ...(hint ? { hint } : {}) });
}

/**
 * Reads one input: `-` is standard input; a file up to `largeBytes` is read whole; a larger one yields its first
 * `headBytes` for detection and a line stream, so a multi-GB NCCL log is never held in memory.
 */
export async function readInput(file: string, io: Io, opts: { largeBytes: number; headBytes: number }): Promise<Input> {
  if (file === "-") return readStdinInput(io, opts.largeBytes, opts.headBytes);
  const path = resolve(io.cwd, file);
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    if (!st.isFile()) {
      // A device or FIFO reports size 0: read it with a bound, never to the end (/dev/zero has none).
      const read = await readBounded(path, opts.largeBytes);
      if (read.ok) return { file, status: "whole", text: read.bytes.toString("utf8") };
      throw Object.assign(new Error(`not a regular file, and it gave more than ${opts.largeBytes} bytes`), {
        code: "ETOOBIG",
      });
    }
    if (st.size <= opts.largeBytes) return { file, status: "whole", text: await readFile(path, "utf8") };
    const handle = await open(path, "r");
    try {
      const buf = Buffer.alloc(opts.headBytes);
      const { bytesRead } = await handle.read(buf, 0, opts.headBytes, 0);
      const head = buf.subarray(0, bytesRead).toString("utf8");
      const chunks = () => createReadStream(path, { encoding: "utf8", highWaterMark: 64 << 10 });
      return { file, status: "large", path, head, size: st.size, chunks };
    } finally {
      await handle.close();
    }
  } catch (err) {
    return { file, status: "unreadable", problem: readProblem(file, err) };
  }
}

/**
 * Standard input takes the same path as a file: a paste up to `largeBytes` is one text (a session of several
 * commands is cut per command), a larger input streams through the kind's analyser from its first chunks on.
 */
async function readStdinInput(io: Io, largeBytes: number, headBytes: number): Promise<Input> {
  const file = "-";
  const source = io.openStdin?.() ?? textSource(io.readStdin());
  try {
    const prefix = await readPrefix(source.chunks, largeBytes, headBytes);
    if (prefix.status === "whole") return { file, status: "whole", text: prefix.text, interrupted: source.interrupted };
    return {
      file,
      status: "stream",
      head: prefix.head,
      chunks: () => decodeChunks(prefix.raw),
      bytes: () => prefix.raw,
      interrupted: source.interrupted,
    };
  } catch (err) {
    return { file, status: "unreadable", problem: readProblem("standard input", err) };
  }
}

/** Reads a large input whole (for kinds without a streaming analyser), up to a hard cap. */
export async function readWhole(io: Io, file: string): Promise<string> {
  return readFile(resolve(io.cwd, file), "utf8");
}

/**
 * One input read whole for a command that needs all of it (a manifest stream), up to `capBytes`: a larger file or
 * standard input is a usage error that says the limit, never a multi-GB read. `-` is standard input.
 */
export async function readTextCapped(file: string, io: Io, capBytes: number, hint: string): Promise<string> {
  const mib = Math.round(capBytes / 1024 / 1024);
  const name = file === "-" ? "standard input" : file;
  const tooLarge = () => new UsageError(`${name} is over ${mib} MiB, more than a manifest stream should be.`, hint);
  if (file === "-") {
    const source = io.openStdin?.() ?? textSource(io.readStdin());
    const prefix = await readPrefix(source.chunks, capBytes);
    if (prefix.status === "whole") return prefix.text;
    await prefix.close(); // stop reading
    throw tooLarge();
  }
  const path = resolve(io.cwd, file);
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    if (st.size > capBytes) throw tooLarge();
    const read = await readBounded(path, capBytes); // a device or FIFO reports size 0
    if (!read.ok) throw tooLarge();
    return read.bytes.toString("utf8");
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const message = readProblem(file, err).message; // "Cannot read F: why." — as a usage error, lower case first
    throw new UsageError(`${message.charAt(0).toLowerCase()}${message.slice(1)}`, hint);
  }
}
