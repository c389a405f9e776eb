import { readError } from "./errors.js";
import { type FileRun, FileRunIndex, listingWithRun } from "./file-runs.js";
import { commandKey, normalizeHostPath } from "./paths.js";
import type { CommandOutcome, HostReader, ReadOutcome, Snapshot } from "./types.js";

const MAX_LINK_HOPS = 40;

/** Follows every recorded link along a path (like the kernel's path walk); null on a loop. */
export function resolveSnapshotPath(links: Record<string, string>, path: string): string | null {
  let p = normalizeHostPath(path);
  let hops = 0;
  // Each prefix `/a`, `/a/b`, … in turn; a link found there replaces the prefix and the walk starts again.
  let end = p.length > 1 ? p.indexOf("/", 1) : -2;
  while (end !== -2) {
    const prefix = end === -1 ? p : p.slice(0, end);
    const target = Object.hasOwn(links, prefix) ? links[prefix] : undefined;
    if (target !== undefined) {
      if (++hops > MAX_LINK_HOPS) return null;
      p = normalizeHostPath(end === -1 ? target : `${target}${p.slice(end)}`);
      end = p.length > 1 ? p.indexOf("/", 1) : -2;
      continue;
    }
    end = end === -1 ? -2 : p.indexOf("/", end + 1);
  }
  return p;
}

/**
 * Replays a Snapshot as a read-only host. Paths are looked up as recorded first; otherwise symlinks recorded in
 * `links` are followed component by component, so a snapshot built as a tree (the examples) answers reads through
 * `/sys/bus/pci/devices/<bdf>/…` and `/sys/class/net/<if>/device/…` like the kernel does.
 */
export class SnapshotHostReader implements HostReader {
  readonly description: string;
  private readonly runs: FileRunIndex;

  constructor(
    private readonly snap: Snapshot,
    description?: string,
  ) {
    this.description = description ?? `snapshot of ${snap.host}`;
    this.runs = new FileRunIndex(snap.fileRuns);
  }

  private resolve(path: string): string | null {
    return resolveSnapshotPath(this.snap.links, path);
  }

  private lookup<T>(
    path: string,
    table: Record<string, T>,
  ): { key: string; value: T } | { key: string; value?: never } {
    // Fast path: the path as recorded (collect stores what the inventory reader asks for, so most reads hit).
    if (Object.hasOwn(table, path)) return { key: path, value: table[path]! };
    const p = normalizeHostPath(path);
    if (Object.hasOwn(table, p)) return { key: p, value: table[p]! };
    const r = this.resolve(p) ?? p;
    if (Object.hasOwn(table, r)) return { key: r, value: table[r]! };
    return { key: r };
  }

  private failure(path: string, key: string, what: "file" | "dir"): { ok: false; error: ReturnType<typeof readError> } {
    const p = normalizeHostPath(path);
    const recorded = this.snap.errors[p] ?? this.snap.errors[key];
    if (recorded) return { ok: false, error: recorded };
    if (what === "file" && (Object.hasOwn(this.snap.dirs, p) || Object.hasOwn(this.snap.dirs, key))) {
      return { ok: false, error: readError("EISDIR", path) };
    }
    return { ok: false, error: readError("ENOENT", path) };
  }

  private readOne(path: string): ReadOutcome<string> {
    // One lookup for the common hit: a host path starts with "/", so it never names an Object.prototype member.
    const files = this.snap.files;
    const direct = path.charCodeAt(0) === 47 ? files[path] : undefined;
    if (direct !== undefined) return { ok: true, value: direct };
    // An empty GID slot, stored as part of a run: the second most common read.
    const inRun = this.runs.text(path);
    if (inRun !== undefined) return { ok: true, value: inRun };
    const hit = this.lookup(path, files);
    if (hit.value !== undefined) return { ok: true, value: hit.value };
    const resolvedInRun = hit.key !== path ? this.runs.text(hit.key) : undefined;
    return resolvedInRun !== undefined ? { ok: true, value: resolvedInRun } : this.failure(path, hit.key, "file");
  }

  async readText(path: string): Promise<ReadOutcome<string>> {
    return this.readOne(path);
  }

  /** One promise for the whole batch (a GID table is 255 reads per port). */
  async readTexts(paths: readonly string[]): Promise<ReadOutcome<string>[]> {
    return paths.map((p) => this.readOne(p));
  }

  /** A GID table's slots: an empty slot in a run costs a range check, no path, no lookup. */
  async readNumbered(dir: string, numbers: readonly number[]): Promise<ReadOutcome<string>[]> {
    // One answer object per run, shared by its slots (outcomes are never mutated).
    const answers = new Map<FileRun, ReadOutcome<string>>();
    return numbers.map((n) => {
      const run = this.runs.runAt(dir, n);
      if (!run) return this.readOne(`${dir}/${n}`);
      const known = answers.get(run);
      if (known) return known;
      const answer: ReadOutcome<string> = { ok: true, value: run.text };
      answers.set(run, answer);
      return answer;
    });
  }

  async list(path: string): Promise<ReadOutcome<string[]>> {
    const hit = this.lookup(path, this.snap.dirs);
    if (hit.value === undefined) return this.failure(path, hit.key, "dir");
    return { ok: true, value: listingWithRun(hit.value, this.snap.dirRuns?.[hit.key]) };
  }

  async realpath(path: string): Promise<ReadOutcome<string>> {
    const p = normalizeHostPath(path);
    const r = this.resolve(p);
    if (r === null) return { ok: false, error: readError("ELOOP", path) };
    if (r !== p || (await this.exists(p))) return { ok: true, value: r };
    return this.failure(path, r, "file");
  }

  async exists(path: string): Promise<boolean> {
    const p = normalizeHostPath(path);
    const r = this.resolve(p) ?? p;
    const s = this.snap;
    return [p, r].some(
      (k) =>
        Object.hasOwn(s.files, k) ||
        this.runs.text(k) !== undefined ||
        Object.hasOwn(s.dirs, k) ||
        Object.hasOwn(s.links, k) ||
        (Object.hasOwn(s.errors, k) && s.errors[k]!.code !== "ENOENT"),
    );
  }

  async fsSize(path: string): Promise<ReadOutcome<number>> {
    const p = normalizeHostPath(path);
    const v = this.snap.fsSizes[p];
    return v !== undefined ? { ok: true, value: v } : this.failure(path, p, "file");
  }

  async run(file: string, args: readonly string[]): Promise<CommandOutcome> {
    const key = commandKey(file, args);
    const recorded = this.snap.commands[key];
    if (recorded) return recorded;
    return {
      command: key,
      exitCode: null,
      stdout: "",
      stderr: "",
      error: readError("ENOENT", key, `not recorded in this snapshot (${this.description})`),
    };
  }
}
