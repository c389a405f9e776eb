import { numericNames } from "../core/natural.js";
import { NOT_RECORDED, readError } from "./errors.js";
import { type FileGroups, groupFiles, textIn } from "./file-groups.js";
import { FileRunIndex, listingWithRun } from "./file-runs.js";
import { commandKey, normalizeHostPath } from "./paths.js";
import type { CommandOutcome, HostReader, ReadOutcome, Snapshot } from "./types.js";

const MAX_LINK_HOPS = 40;

/**
 * A snapshot's links, ready to follow: a table by key plus which key lengths occur, so that "which recorded link
 * does this path pass through first?" probes the table only at the path's `/` boundaries where a key could end
 * (one or two probes for a sysfs path, instead of one per component or a scan of every key).
 */
export class LinkIndex {
  private readonly targets = new Map<string, string>();
  /** keyLengths[n] === 1 when some key is n characters long. */
  private readonly keyLengths: Uint8Array;

  constructor(links: Readonly<Record<string, string>>) {
    let longest = 0;
    for (const key of Object.keys(links)) {
      // "/" and relative keys never name a path component.
      if (key.length <= 1 || key.charCodeAt(0) !== 47) continue;
      this.targets.set(key, links[key]!);
      longest = Math.max(longest, key.length);
    }
    this.keyLengths = new Uint8Array(longest + 1);
    for (const key of this.targets.keys()) this.keyLengths[key.length] = 1;
  }

  /** Follows every recorded link along a path, like the kernel's path walk (outermost first); null on a loop. */
  resolve(path: string): string | null {
    let p = normalizeHostPath(path);
    for (let hops = 0; ; hops++) {
      // The shortest key that is the path or one of its directories is the first link the walk meets.
      let end = -1;
      let target: string | undefined;
      for (let slash = p.indexOf("/", 1); ; slash = p.indexOf("/", slash + 1)) {
        const e = slash < 0 ? p.length : slash;
        if (e >= this.keyLengths.length) break;
        if (this.keyLengths[e] === 1) {
          target = this.targets.get(p.slice(0, e));
          if (target !== undefined) {
            end = e;
            break;
          }
        }
        if (slash < 0) break;
      }
      if (target === undefined) return p;
      if (hops >= MAX_LINK_HOPS) return null;
      p = normalizeHostPath(target + p.slice(end));
    }
  }
}

/**
 * Replays a Snapshot as a read-only host. Paths are looked up as recorded first; otherwise symlinks recorded in
 * `links` are followed component by component, so a snapshot built as a tree (the examples) answers reads through
 * `/sys/bus/pci/devices/<bdf>/…` and `/sys/class/net/<if>/device/…` like the kernel does.
 */
export class SnapshotHostReader implements HostReader {
  readonly description: string;
  private readonly runs: FileRunIndex;
  /** Every file by directory, then name: the snapshot's own `fileGroups`, with `files` (versions 1, 2) grouped in. */
  private readonly groups: FileGroups;
  private readonly groupListings: ReadonlySet<string>;

  constructor(
    private readonly snap: Snapshot,
    description?: string,
  ) {
    this.description = description ?? `snapshot of ${snap.host}`;
    this.runs = new FileRunIndex(snap.fileRuns);
    this.groups = fileGroupsOf(snap);
    this.groupListings = new Set(snap.groupListings);
  }

  /** The files of a directory (a host path, so never an Object.prototype member) by name, or undefined. */
  private groupAt(dir: string): Record<string, string> | undefined {
    return dir.charCodeAt(0) === 47 ? this.groups[dir] : undefined;
  }

  /** The recorded text of the file at exactly this path, or undefined. */
  private fileAt(path: string): string | undefined {
    // A host path starts with "/"; a file at the root sits in the group "".
    if (path.charCodeAt(0) !== 47) return undefined;
    const slash = path.lastIndexOf("/");
    return textIn(this.groups[path.slice(0, slash)], path.slice(slash + 1));
  }

  private linkIndex: LinkIndex | undefined;

  private resolve(path: string): string | null {
    this.linkIndex ??= new LinkIndex(this.snap.links);
    return this.linkIndex.resolve(path);
  }

  /** The path as recorded, else normalised, else with its links followed: the first key `get` answers. */
  private lookup<T>(
    path: string,
    get: (key: string) => T | undefined,
  ): { key: string; value: T } | { key: string; value?: never } {
    // Fast path: the path as recorded (collect stores what the inventory reader asks for, so most reads hit).
    const direct = get(path);
    if (direct !== undefined) return { key: path, value: direct };
    const p = normalizeHostPath(path);
    const normal = p === path ? undefined : get(p);
    if (normal !== undefined) return { key: p, value: normal };
    const r = this.resolve(p) ?? p;
    const resolved = r === p ? undefined : get(r);
    if (resolved !== undefined) return { key: r, value: resolved };
    return { key: r };
  }

  /** The recorded listing of a directory: in `dirs`, or (version 3) its file group's names. */
  private readonly dirAt = (key: string): string[] | undefined => {
    if (Object.hasOwn(this.snap.dirs, key)) return this.snap.dirs[key];
    if (!this.groupListings.has(key)) return undefined;
    const group = this.groups[key];
    return group ? Object.keys(group) : [];
  };

  private failure(path: string, key: string, what: "file" | "dir"): { ok: false; error: ReturnType<typeof readError> } {
    const p = normalizeHostPath(path);
    const recorded = this.snap.errors[p] ?? this.snap.errors[key];
    if (recorded) return { ok: false, error: recorded };
    if (what === "file" && (this.dirAt(p) !== undefined || this.dirAt(key) !== undefined)) {
      return { ok: false, error: readError("EISDIR", path) };
    }
    return { ok: false, error: readError("ENOENT", path) };
  }

  private readOne(path: string): ReadOutcome<string> {
    const direct = this.fileAt(path);
    if (direct !== undefined) return { ok: true, value: direct };
    // An empty GID slot, stored as part of a run: the second most common read.
    const inRun = this.runs.text(path);
    if (inRun !== undefined) return { ok: true, value: inRun };
    const hit = this.lookup(path, (k) => this.fileAt(k));
    if (hit.value !== undefined) return { ok: true, value: hit.value };
    const resolvedInRun = hit.key !== path ? this.runs.text(hit.key) : undefined;
    return resolvedInRun !== undefined ? { ok: true, value: resolvedInRun } : this.failure(path, hit.key, "file");
  }

  readText(path: string): ReadOutcome<string> {
    return this.readOne(path);
  }

  /**
   * A directory's files by name: the directory is looked up once, each name in its group, then in the directory's
   * runs (a RoCE netdev's 8 ECN switches per direction are one run: read by name, no path built and split again).
   */
  readIn(dir: string, names: readonly string[]): ReadOutcome<string>[] {
    const group = this.groupAt(dir);
    const runs = dir.charCodeAt(0) === 47 ? this.runs.runsIn(dir) : [];
    return names.map((name) => {
      // A number (the only name a run holds) has no `/`: `${dir}/${name}` is then that file of `dir`.
      const text = textIn(group, name) ?? FileRunIndex.textOf(runs, name);
      return text !== undefined ? { ok: true, value: text } : this.readOne(`${dir}/${name}`);
    });
  }

  /** A GID table's slots: an empty slot in a run costs a range check, no path, no lookup. */
  readNumbered(dir: string, numbers: readonly number[]): ReadOutcome<string>[] {
    const runs = this.runs.runsIn(dir);
    const group = this.groupAt(dir);
    // A slot outside the runs: in the directory's group (looked up once), else through the full path lookup.
    const single = (n: number): ReadOutcome<string> => {
      const text = textIn(group, String(n));
      return text !== undefined ? { ok: true, value: text } : this.readOne(`${dir}/${n}`);
    };
    if (runs.length === 0) return numbers.map(single);
    // One answer object per run, shared by its slots (outcomes are never mutated).
    const answers = runs.map((r): ReadOutcome<string> => ({ ok: true, value: r.text }));
    return numbers.map((n) => {
      for (let k = 0; k < runs.length; k++) if (n >= runs[k]!.from && n <= runs[k]!.to) return answers[k]!;
      return single(n);
    });
  }

  list(path: string): ReadOutcome<string[]> {
    const hit = this.lookup(path, this.dirAt);
    if (hit.value === undefined) return this.failure(path, hit.key, "dir");
    return { ok: true, value: listingWithRun(hit.value, this.snap.dirRuns?.[hit.key]) };
  }

  /** A GID table's slots straight from the listing's run: 255 numbers, no names written out and read back. */
  listNumbers(path: string): ReadOutcome<number[]> {
    const hit = this.lookup(path, this.dirAt);
    if (hit.value === undefined) return this.failure(path, hit.key, "dir");
    const run = this.snap.dirRuns?.[hit.key];
    const named = numericNames(hit.value);
    const plain = run && Number.isInteger(run.from) && Number.isInteger(run.to) && run.from >= 0 && named.length === 0;
    if (!plain) return { ok: true, value: numericNames(listingWithRun(hit.value, run)) };
    const numbers: number[] = [];
    for (let n = run.from; n <= run.to; n++) numbers.push(n);
    return { ok: true, value: numbers };
  }

  realpath(path: string): ReadOutcome<string> {
    const p = normalizeHostPath(path);
    const r = this.resolve(p);
    if (r === null) return { ok: false, error: readError("ELOOP", path) };
    if (r !== p || this.exists(p)) return { ok: true, value: r };
    return this.failure(path, r, "file");
  }

  exists(path: string): boolean {
    const p = normalizeHostPath(path);
    const r = this.resolve(p) ?? p;
    const s = this.snap;
    return [p, r].some(
      (k) =>
        this.fileAt(k) !== undefined ||
        this.runs.text(k) !== undefined ||
        this.dirAt(k) !== undefined ||
        Object.hasOwn(s.links, k) ||
        (Object.hasOwn(s.errors, k) && s.errors[k]!.code !== "ENOENT"),
    );
  }

  fsSize(path: string): ReadOutcome<number> {
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
      error: readError(NOT_RECORDED, key, `not recorded in this snapshot (${this.description})`),
    };
  }
}

/** A snapshot's files as groups: `fileGroups` itself when `files` is empty (version 3), else a merged copy. */
function fileGroupsOf(snap: Snapshot): FileGroups {
  const own = snap.fileGroups ?? {};
  let flat = false;
  for (const _ in snap.files) {
    flat = true;
    break;
  }
  if (!flat) return own;
  const merged: FileGroups = {};
  for (const [dir, group] of Object.entries(own)) merged[dir] = { ...group };
  return groupFiles(snap.files, merged);
}
