import { closeSync, constants, existsSync, lstatSync, opendirSync, openSync, realpathSync, statfsSync } from "node:fs";
import { resolve, sep } from "node:path";
import { commandPath } from "./command-path.js";
import { resolveInRoot } from "./confine.js";
import { readError, toReadError } from "./errors.js";
import { capOf, type Encoding, FileReadBuffer, notRegular, OPEN_CONFINED, OPEN_FLAGS, type Unused } from "./fs-file.js";
import { MAX_LISTING } from "./limits.js";
import { commandKey, DEFAULT_COMMAND_TIMEOUT_MS, normalizeHostPath } from "./paths.js";
import type { CommandOutcome, HostReader, ReadOutcome } from "./types.js";

export { MAX_HOST_FILE_BYTES, MAX_PROC_FILE_BYTES } from "./fs-file.js";
/** The most a `--root` tree's own files (command captures, filesystem sizes) may hold. */
export const MAX_CAPTURES_BYTES = 32 * 1024 * 1024;

export type FsReaderOptions = {
  /**
   * The host's binaries mounted in a pod (its /usr/bin): driver-stack commands run as `${commandDir}/${name}`,
   * kernel-interface tools from the image's own directories where it has them (commandPath), never through PATH.
   */
  commandDir?: string;
  /** Where the image's own kernel-interface tools are looked for (IMAGE_COMMAND_DIRS unless a test says otherwise). */
  imageCommandDirs?: readonly string[];
  /** Read /proc from this process's own /proc, not `<root>/proc` (a hostNetwork pod sees the node's routes there). */
  ownProc?: boolean;
};

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
  /** The root's own real path ("/" for the live host): a tree whose path holds a link is walked from its target. */
  private readonly root: string;
  private readonly rootSlash: string;
  private readonly file = new FileReadBuffer();
  private readonly kernelFile = (path: string) => this.isTreeKernelFile(path);
  /**
   * The kinds of the entries of the directory listed last (its local path and, by name, whether each is a regular
   * file): a GID table is listed and then read name by name, and a name the listing showed as a regular file needs no
   * lstat of its own before its open (the open follows no link and fstat checks the kind again, so a name replaced in
   * between is still refused). Only the last listing is kept: reads of other directories look the kind up themselves.
   */
  private listed: { local: string; regular: Set<string> } | null = null;
  /**
   * Directories of the tree already walked (see resolveInRoot), kept only until the event loop turns: a run of
   * synchronous reads (a GID table, a port's attributes) walks /sys/class/infiniband/… once, not once per file, and a
   * long-running reader (the device plugin) never walks a directory it saw on an earlier turn without looking again.
   */
  private walkedDirs: Set<string> | null = null;
  /** Loaded captures, null when there are none, or the message saying why the file is unusable. */
  private captures: Record<string, CommandOutcome> | string | null | undefined;

  constructor(
    root = "/",
    private readonly commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
    private readonly opts: FsReaderOptions = {},
  ) {
    const dir = resolve(root);
    let real = dir;
    try {
      real = realpathSync(dir);
    } catch {
      // A root that does not exist reads as an empty host: every read is ENOENT.
    }
    this.root = real;
    this.rootSlash = `${real}/`;
    this.description = this.root === "/" ? "live host /" : `root ${dir}`;
  }

  /** Where a host path lives on this machine (under the root, links followed inside it): for watches. */
  localPath(path: string): string {
    if (this.root === "/") return normalizeHostPath(path);
    const r = resolveInRoot(this.root, normalizeHostPath(path));
    return this.root + (r.ok ? r.value : normalizeHostPath(path));
  }

  /**
   * The path to open on this machine: the live host's own path, or (under a root) the path with every link resolved
   * inside the root, so that the open itself follows none.
   */
  private located(path: string): ReadOutcome<string> {
    const p = normalizeHostPath(path);
    if (this.root === "/" || this.isOwnProc(p)) return { ok: true, value: p };
    const r = resolveInRoot(this.root, p, this.dirsThisTurn());
    return r.ok ? { ok: true, value: this.root + (r.value === "/" ? "" : r.value) } : r;
  }

  private dirsThisTurn(): Set<string> {
    if (this.walkedDirs === null) {
      this.walkedDirs = new Set();
      setImmediate(() => {
        this.walkedDirs = null;
      }).unref();
    }
    return this.walkedDirs;
  }

  /** A /proc path read from this process's own /proc (--own-proc): the kernel resolves it, not the tree. */
  private isOwnProc(p: string): boolean {
    return this.opts.ownProc === true && (p === "/proc" || p.startsWith("/proc/"));
  }

  /**
   * A sysfs or proc file of a `--root` tree: the kernel gives each of those one name, so a hard link there (a name
   * shared with a file anywhere on this filesystem, /etc/shadow say) is refused like a link out of the tree.
   */
  private isTreeKernelFile(path: string): boolean {
    if (this.root === "/") return false;
    const p = normalizeHostPath(path);
    return p.startsWith("/sys/") || (p.startsWith("/proc/") && !this.isOwnProc(p));
  }

  /** Strips the root from a resolved path so that callers only ever see host paths. */
  private hostPath(real: string): string {
    if (this.root === "/") return real;
    if (real === this.root) return "/";
    return real.startsWith(this.root + sep) ? real.slice(this.root.length) : real;
  }

  readText(path: string): ReadOutcome<string> {
    const at = this.located(path);
    return at.ok ? this.readAt(at.value, path) : at;
  }

  /**
   * The directory is resolved once; each name is then one open (a link among them is resolved on its own). `unused`:
   * a name the listing showed as a regular file whose text the caller discards is not checked (see `Unused`).
   */
  readIn(dir: string, names: readonly string[], unused?: Unused): ReadOutcome<string>[] {
    const at = this.located(dir);
    if (!at.ok) return names.map(() => at);
    const regular = this.listed?.local === at.value ? this.listed.regular : null;
    const cap = capOf(`${normalizeHostPath(dir)}/`);
    // A name that is not one path component (`..`, `a/b`) is walked whole, never joined to the resolved directory.
    return names.map((n) =>
      n === "" || n === "." || n === ".." || n.includes("/")
        ? this.readText(`${dir}/${n}`)
        : this.readAt(`${at.value}/${n}`, `${dir}/${n}`, "text", regular?.has(n) === true, unused, cap),
    );
  }

  /**
   * Reads one regular file (sysfs attributes and /proc files are regular files), at most its cap. Under a root the
   * last component is opened without following a link: a link there is resolved inside the root and read again.
   * `listedRegular`: the directory's listing showed the name as a regular file, so its lstat is skipped.
   */
  private readAt(
    local: string,
    path: string,
    as: Encoding = "text",
    listedRegular = false,
    unused?: Unused,
    cap = capOf(normalizeHostPath(path)),
  ): ReadOutcome<string> {
    let fd: number | undefined;
    try {
      const confined = this.root !== "/" && local.startsWith(this.rootSlash);
      if (confined && !listedRegular) {
        const st = lstatSync(local, { throwIfNoEntry: false });
        if (st?.isSymbolicLink()) {
          const resolved = this.located(this.hostPath(local));
          return resolved.ok ? this.readResolved(resolved.value, path, cap, as) : resolved;
        }
        if (st && !st.isFile()) return notRegular(st, path);
      }
      fd = openSync(local, confined ? OPEN_CONFINED : OPEN_FLAGS);
      return this.file.read(fd, path, cap, this.kernelFile, as, listedRegular ? unused : undefined);
    } catch (err) {
      // Listed as a file, a link by now: read the way any other name is (the link resolved inside the root).
      if (listedRegular && (err as NodeJS.ErrnoException).code === "ELOOP") return this.readAt(local, path, as);
      return { ok: false, error: toReadError(err, path) };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** A binary file (a PCI function's `config`) as hex, read under the same confinement and cap as text. */
  readBinaryHex(path: string): ReadOutcome<string> {
    const at = this.located(path);
    return at.ok ? this.readAt(at.value, path, "hex") : at;
  }

  openDevice(path: string): ReadOutcome<true> {
    const at = this.located(path);
    if (!at.ok) return at;
    try {
      // O_NONBLOCK: a device that would wait for a peer must not hang the probe; nothing is read or written.
      closeSync(openSync(at.value, constants.O_RDWR | constants.O_NONBLOCK));
      return { ok: true, value: true };
    } catch (err) {
      return { ok: false, error: toReadError(err, path) };
    }
  }

  /** A path whose links are all resolved already: a regular file, or a read problem. */
  private readResolved(local: string, path: string, cap: number, as: Encoding = "text"): ReadOutcome<string> {
    let fd: number | undefined;
    try {
      const st = lstatSync(local, { throwIfNoEntry: false });
      if (st && !st.isFile()) return notRegular(st, path);
      fd = openSync(local, OPEN_CONFINED);
      return this.file.read(fd, path, cap, this.kernelFile, as);
    } catch (err) {
      return { ok: false, error: toReadError(err, path) };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  list(path: string): ReadOutcome<string[]> {
    const at = this.located(path);
    if (!at.ok) return at;
    try {
      const dir = opendirSync(at.value);
      const names: string[] = [];
      const regular = new Set<string>();
      try {
        for (let e = dir.readSync(); e !== null; e = dir.readSync()) {
          if (names.length >= MAX_LISTING) {
            return { ok: false, error: readError("E2BIG", path, `more than ${MAX_LISTING} entries`) };
          }
          names.push(e.name);
          // The kind the directory entry itself gives (no stat): a filesystem that does not say reads as unknown.
          if (e.isFile()) regular.add(e.name);
        }
      } finally {
        dir.closeSync();
      }
      this.listed = { local: at.value, regular };
      return { ok: true, value: names };
    } catch (err) {
      return { ok: false, error: toReadError(err, path) };
    }
  }

  realpath(path: string): ReadOutcome<string> {
    if (this.root !== "/") {
      const r = resolveInRoot(this.root, normalizeHostPath(path));
      if (!r.ok) return r;
      return lstatSync(this.root + r.value, { throwIfNoEntry: false })
        ? r
        : { ok: false, error: readError("ENOENT", path) };
    }
    try {
      return { ok: true, value: this.hostPath(realpathSync(normalizeHostPath(path))) };
    } catch (err) {
      return { ok: false, error: toReadError(err, path) };
    }
  }

  exists(path: string): boolean {
    const at = this.located(path);
    return at.ok && existsSync(at.value);
  }

  fsSize(path: string): ReadOutcome<number> {
    const recorded = this.recordedFsSize(normalizeHostPath(path));
    if (recorded !== undefined) return { ok: true, value: recorded };
    const at = this.located(path);
    if (!at.ok) return at;
    try {
      const s = statfsSync(at.value);
      return { ok: true, value: Number(s.blocks) * Number(s.bsize) };
    } catch (err) {
      return { ok: false, error: toReadError(err, path) };
    }
  }

  async run(file: string, args: readonly string[], opts: { timeoutMs?: number } = {}): Promise<CommandOutcome> {
    const key = commandKey(file, args);
    // Once loaded, read without an await (see below).
    const captures = this.captures !== undefined ? this.captures : await this.loadCaptures();
    if (typeof captures === "string") {
      return { command: key, exitCode: null, stdout: "", stderr: "", error: { code: "EINVAL", message: captures } };
    }
    const captured = captures && Object.hasOwn(captures, key) ? captures[key] : undefined;
    if (captured) return captured;
    // Once prepared, the child is spawned before this returns its promise (readFacts reads the files meanwhile).
    const runCommand = this.runCommand ?? (await this.loadRunCommand());
    // --host-commands DIR: the command by its absolute path (kept under its plain name in the snapshot).
    const at = commandPath(file, this.opts.commandDir, this.opts.imageCommandDirs);
    const outcome = await runCommand(at, args, opts.timeoutMs ?? this.commandTimeoutMs);
    return at === file ? outcome : { ...outcome, command: key, ranFrom: at };
  }

  private runCommand: typeof import("./run-command.js").runCommand | undefined;

  async prepareCommands(): Promise<void> {
    // A tree with command captures replays them (or reports them unusable): nothing to load for it.
    if ((await this.loadCaptures()) !== null) return;
    await this.loadRunCommand();
  }

  /** Loaded on demand: child_process is not needed by `gids`, and startup time counts there. */
  private async loadRunCommand(): Promise<typeof import("./run-command.js").runCommand> {
    this.runCommand ??= (await import("./run-command.js")).runCommand;
    return this.runCommand;
  }

  /** One of the tree's own `.kube-rdma/` files: a regular file (no link, FIFO or device), within its cap. */
  private ownFile(name: string): ReadOutcome<string> | null {
    const file = `${this.root}/${name}`;
    // Every directory on the way is a real directory of the tree: a `.kube-rdma` link (to /etc, to another tree)
    // would send the read out of the root, so it is refused, never followed.
    const parts = name.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const dir = `${this.root}/${parts.slice(0, i).join("/")}`;
      const d = lstatSync(dir, { throwIfNoEntry: false });
      if (d === undefined) return null;
      if (d.isSymbolicLink()) {
        return {
          ok: false,
          error: readError(
            "ENOTREG",
            dir,
            "a symbolic link; kube-rdma's own files under --root are read from a real directory only",
          ),
        };
      }
      if (!d.isDirectory()) return notRegular(d, dir);
    }
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (st === undefined) return null;
    if (!st.isFile()) return notRegular(st, file);
    let fd: number | undefined;
    try {
      fd = openSync(file, OPEN_CONFINED);
      return this.file.read(fd, file, MAX_CAPTURES_BYTES, () => false);
    } catch (err) {
      return { ok: false, error: toReadError(err, file) };
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  private fsSizes: Record<string, unknown> | null | undefined;

  private recordedFsSize(path: string): number | undefined {
    if (this.root === "/") return undefined;
    if (this.fsSizes === undefined) {
      const text = this.ownFile(ROOT_FS_SIZES);
      let parsed: unknown = null;
      try {
        parsed = text?.ok ? JSON.parse(text.value) : null;
      } catch {
        parsed = null;
      }
      this.fsSizes = typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
    }
    const v = this.fsSizes && Object.hasOwn(this.fsSizes, path) ? this.fsSizes[path] : undefined;
    return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
  }

  private capturesLoading: Promise<Record<string, CommandOutcome> | string | null> | undefined;

  /**
   * The tree's command captures, read once (concurrent callers share the one reading). Their schema (and ajv) loads
   * only when a tree has captures: a command that runs none (`gids`) starts without them.
   */
  private loadCaptures(): Promise<Record<string, CommandOutcome> | string | null> {
    this.capturesLoading ??= this.readCaptures().then((c) => {
      this.captures = c;
      return c;
    });
    return this.capturesLoading;
  }

  private async readCaptures(): Promise<Record<string, CommandOutcome> | string | null> {
    if (this.root === "/") return null;
    const file = `${this.root}/${ROOT_CAPTURES}`;
    const text = this.ownFile(ROOT_CAPTURES);
    if (text === null) return null;
    const unusable = (why: string) =>
      `${file} is not a JSON object of command captures (${why}); fix or delete it (docs/commands.schema.json says what it holds)`;
    if (!text.ok) return unusable(text.error.message);
    const { commandsSchemaProblems } = await import("./snapshot-schema.js");
    try {
      const parsed = JSON.parse(text.value) as unknown;
      const [bad] = commandsSchemaProblems(parsed);
      return bad ? unusable(`${bad.path}: ${bad.message}`) : (parsed as Record<string, CommandOutcome>);
    } catch (err) {
      return unusable(err instanceof Error ? err.message : String(err));
    }
  }
}
