/**
 * The I/O edge. Everything that touches a machine goes through a HostReader, so that the same pipeline runs on
 * the live host (`/`), on a mounted host or fixture tree (`--root DIR`), and on a captured snapshot (`--snapshot FILE`).
 * Paths are always absolute host paths (`/sys/class/infiniband`), never prefixed with the root.
 */

import type { FileGroups } from "./file-groups.js";
import type { DirRuns, FileRun } from "./file-runs.js";

export type ReadError = {
  /** errno-style code: ENOENT, EACCES, EINVAL, EIO, ETIMEDOUT, ENOTDIR, … */
  code: string;
  message: string;
};

export type ReadOutcome<T> = { ok: true; value: T } | { ok: false; error: ReadError };

export type CommandOutcome = {
  /** The command as it was run, e.g. `ofed_info -s`. */
  command: string;
  /** Exit code, or null when it never ran / was killed. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Set when the command could not run to completion: ENOENT (not installed), ETIMEDOUT, EACCES, signal. */
  error?: ReadError;
  durationMs?: number;
  /**
   * The binary's absolute path when it was not this environment's own: `--host-commands DIR` ran the host's binary
   * from DIR inside a collector pod. Its libraries and device nodes may then be missing here, not on the host.
   */
  ranFrom?: string;
};

export type RunOptions = {
  timeoutMs?: number;
  /**
   * Keep only the standard-output lines that match: what a snapshot records of a command whose full output is
   * large and mostly unused (`ethtool -S` on mlx5 prints per-queue counters for every channel). A reader may
   * answer with every line; callers read only lines that match.
   */
  keepLines?: RegExp;
};

/**
 * File reads answer synchronously: a snapshot answers from memory, and a sysfs attribute is one small read that the
 * thread pool would only slow down (thousands of them for the GID tables). Only commands wait.
 */
export interface HostReader {
  /** Human description of the source: `live host /`, `root /mnt/node1`, `snapshot node1.json`, `example a100-8x-roce`. */
  readonly description: string;
  readText(path: string): ReadOutcome<string>;
  /**
   * `${dir}/${n}` for each n (a GID table's slots, without building 255 paths); same answers as readText. `unused`:
   * texts the caller discards (empty GID slots), which a reader may hand back without the checks that guard only
   * what is used (a file reader's fstat of each file).
   */
  readNumbered?(dir: string, numbers: readonly number[], unused?: (text: string) => boolean): ReadOutcome<string>[];
  /** `${dir}/${name}` for each name (a counters directory, a PCI function's attributes); same answers as readText. */
  readIn?(dir: string, names: readonly string[], unused?: (text: string) => boolean): ReadOutcome<string>[];
  /**
   * A binary file (a PCI function's `config`) as hex text: `encodeBytesHex` of its bytes (`src/core/hex-bytes.ts`).
   * Optional: a reader without it (a snapshot) stores that text and answers it from readText.
   */
  readBinaryHex?(path: string): ReadOutcome<string>;
  /** The decimal names of a directory, ascending: `numericNames` of its listing (a GID table's slots). */
  listNumbers?(path: string): ReadOutcome<number[]>;
  /** Directory entries (names only), unsorted. */
  list(path: string): ReadOutcome<string[]>;
  /** Resolved absolute path (like `realpath`), within the host's namespace. */
  realpath(path: string): ReadOutcome<string>;
  exists(path: string): boolean;
  /** Size in bytes of the filesystem mounted at path (used for /dev/shm). */
  fsSize(path: string): ReadOutcome<number>;
  /** Runs a command (execFile, no shell, with a timeout) — or replays it from a snapshot. */
  run(file: string, args: readonly string[], opts?: RunOptions): Promise<CommandOutcome>;
  /**
   * Gets ready to run commands, so that a `run` called afterwards starts its command before it returns (a live host
   * loads its command runner on demand). Optional: without it a command may start only once the caller awaits.
   */
  prepareCommands?(): Promise<void>;
  /**
   * Tries to open a device node read-write, the way libibverbs opens `/dev/infiniband/uverbsN`, and closes it again:
   * the only way to learn that a device cgroup forbids it (EPERM). Optional: a snapshot answers with what its
   * `files` / `errors` recorded for the path, through readText.
   */
  openDevice?(path: string): ReadOutcome<true>;
}

/** Versioned capture of every raw fact a HostReader handed out. `collect` writes it; `--snapshot` replays it. */
export type Snapshot = {
  kind: "kube-rdma/snapshot";
  /**
   * 3 (what collect writes): files move from `files` to `fileGroups`. 2: empty GID slots move from `files` to
   * `fileRuns`. 1: every file in `files`. All three read.
   */
  schemaVersion: 1 | 2 | 3;
  host: string;
  collectedAt: string;
  /** kube-rdma version that wrote it. */
  tool: string;
  /** Where it was read from, e.g. `/` or `/host`. Paths below are host paths regardless. */
  root: string;
  files: Record<string, string>;
  /**
   * Since 3: files grouped by directory, then name (`{"/sys/…/ports/1/counters": {"port_rcv_data": "12\n"}}`).
   * Optional: a file here reads as if it were in `files` under `${dir}/${name}`.
   */
  fileGroups?: FileGroups;
  /**
   * Numbered files sharing one text, stored as runs (kube-rdma ≥ 0.2 writes the empty GID slots this way).
   * Optional: a snapshot without it holds every file in `files`. A path in a run reads as if it were in `files`.
   */
  fileRuns?: FileRun[];
  dirs: Record<string, string[]>;
  /**
   * Since 3: directories whose listing is exactly the names of their group in `fileGroups` (a port's counters), so
   * the names are stored once. Optional; such a directory has no `dirs` entry.
   */
  groupListings?: string[];
  /** Since 2: numeric names a listing also holds, as a run (a GID table lists `0` … `254`). Optional. */
  dirRuns?: DirRuns;
  links: Record<string, string>;
  /** Reads that failed, with their errno code (e.g. gid_attrs/types/N of an empty slot → EINVAL). */
  errors: Record<string, ReadError>;
  fsSizes: Record<string, number>;
  /** Keyed by the command line as run, e.g. `ofed_info -s`. */
  commands: Record<string, CommandOutcome>;
};
