import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  statfsSync,
} from "node:fs";
import { resolve, sep } from "node:path";
import { encodeBytesHex } from "../core/hex-bytes.js";
import { toReadError } from "./errors.js";
import { commandKey, DEFAULT_COMMAND_TIMEOUT_MS, normalizeHostPath } from "./paths.js";
import type { CommandOutcome, HostReader, ReadOutcome } from "./types.js";

/**
 * Where a `--root` tree keeps command captures: `<root>/.kube-rdma/commands.json`, an object keyed by the command
 * line (`ofed_info -s`, `nvidia-smi -q -x`) whose values are CommandOutcome objects. `materializeSnapshot` writes it.
 * A command found there is replayed; any other command runs on this machine.
 */
export const ROOT_CAPTURES = ".kube-rdma/commands.json";
/** Filesystem sizes for a `--root` tree (`{"/dev/shm": bytes}`), since a plain tree cannot carry a mount. */
export const ROOT_FS_SIZES = ".kube-rdma/fs-sizes.json";

/**
 * Reads a host (`/`) or a tree laid out like one (`--root DIR`). Reads are synchronous: sysfs files are tiny and
 * thousands of them (GID tables) read faster without the thread pool.
 */
export class FsHostReader implements HostReader {
  readonly description: string;
  private readonly root: string;
  private buf = Buffer.alloc(64 * 1024);
  /** Loaded captures, null when there are none, or the message saying why the file is unusable. */
  private captures: Record<string, CommandOutcome> | string | null | undefined;

  constructor(
    root = "/",
    private readonly commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
  ) {
    this.root = resolve(root);
    this.description = this.root === "/" ? "live host /" : `root ${this.root}`;
  }

  /** Where a host path lives on this machine (under the root): for watches and other non-read uses. */
  localPath(path: string): string {
    return this.real(path);
  }

  private real(path: string): string {
    const p = normalizeHostPath(path);
    return this.root === "/" ? p : this.root + p;
  }

  /** Strips the root from a resolved path so that callers only ever see host paths. */
  private hostPath(real: string): string {
    if (this.root === "/") return real;
    if (real === this.root) return "/";
    return real.startsWith(this.root + sep) ? real.slice(this.root.length) : real;
  }

  readText(path: string): ReadOutcome<string> {
    return this.readOne(path);
  }

  readIn(dir: string, names: readonly string[]): ReadOutcome<string>[] {
    return names.map((n) => this.readOne(`${dir}/${n}`));
  }

  private readOne(path: string): ReadOutcome<string> {
    let fd: number | undefined;
    try {
      fd = openSync(this.real(path), "r");
      // sysfs files report a size of 4096 whatever they hold, and hand out a whole attribute in one read: a short
      // read is the end of the file (saves a syscall per file; a GID table is thousands of files).
      let len = 0;
      for (;;) {
        const n = readSync(fd, this.buf, len, this.buf.length - len, null);
        len += n;
        if (n === 0 || len < this.buf.length) break;
        this.buf = Buffer.concat([this.buf, Buffer.alloc(this.buf.length)]);
      }
      return { ok: true, value: this.buf.toString("utf8", 0, len) };
    } catch (err) {
      return { ok: false, error: toReadError(err, path) };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  readBinaryHex(path: string): ReadOutcome<string> {
    try {
      return { ok: true, value: encodeBytesHex(readFileSync(this.real(path))) };
    } catch (err) {
      return { ok: false, error: toReadError(err, path) };
    }
  }

  list(path: string): ReadOutcome<string[]> {
    try {
      return { ok: true, value: readdirSync(this.real(path)) };
    } catch (err) {
      return { ok: false, error: toReadError(err, path) };
    }
  }

  realpath(path: string): ReadOutcome<string> {
    try {
      return { ok: true, value: this.hostPath(realpathSync(this.real(path))) };
    } catch (err) {
      return { ok: false, error: toReadError(err, path) };
    }
  }

  exists(path: string): boolean {
    return existsSync(this.real(path));
  }

  fsSize(path: string): ReadOutcome<number> {
    const recorded = this.recordedFsSize(normalizeHostPath(path));
    if (recorded !== undefined) return { ok: true, value: recorded };
    try {
      const s = statfsSync(this.real(path));
      return { ok: true, value: Number(s.blocks) * Number(s.bsize) };
    } catch (err) {
      return { ok: false, error: toReadError(err, path) };
    }
  }

  async run(file: string, args: readonly string[], opts: { timeoutMs?: number } = {}): Promise<CommandOutcome> {
    const key = commandKey(file, args);
    const captures = this.loadCaptures();
    if (typeof captures === "string") {
      return { command: key, exitCode: null, stdout: "", stderr: "", error: { code: "EINVAL", message: captures } };
    }
    const captured = captures?.[key];
    if (captured) return captured;
    // Once prepared, the child is spawned before this returns its promise (readFacts reads the files meanwhile).
    const runCommand = this.runCommand ?? (await this.loadRunCommand());
    return runCommand(file, args, opts.timeoutMs ?? this.commandTimeoutMs);
  }

  private runCommand: typeof import("./run-command.js").runCommand | undefined;

  async prepareCommands(): Promise<void> {
    // A tree with command captures replays them (or reports them unusable): nothing to load for it.
    if (this.loadCaptures() !== null) return;
    await this.loadRunCommand();
  }

  /** Loaded on demand: child_process is not needed by `gids`, and startup time counts there. */
  private async loadRunCommand(): Promise<typeof import("./run-command.js").runCommand> {
    this.runCommand ??= (await import("./run-command.js")).runCommand;
    return this.runCommand;
  }

  private recordedFsSize(path: string): number | undefined {
    if (this.root === "/") return undefined;
    try {
      const sizes = JSON.parse(readFileSync(`${this.root}/${ROOT_FS_SIZES}`, "utf8")) as Record<string, unknown>;
      const v = sizes[path];
      return typeof v === "number" ? v : undefined;
    } catch {
      return undefined;
    }
  }

  private loadCaptures(): Record<string, CommandOutcome> | string | null {
    if (this.captures !== undefined) return this.captures;
    this.captures = null;
    if (this.root === "/") return null;
    const file = `${this.root}/${ROOT_CAPTURES}`;
    if (!existsSync(file)) return null;
    try {
      const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      this.captures = parsed as Record<string, CommandOutcome>;
    } catch (err) {
      this.captures =
        `${file} is not a JSON object of command captures (${err instanceof Error ? err.message : String(err)}); ` +
        "fix or delete it";
    }
    return this.captures;
  }
}
