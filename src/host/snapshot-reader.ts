import { readError } from "./errors.js";
import { commandKey, normalizeHostPath } from "./paths.js";
import type { CommandOutcome, HostReader, ReadOutcome, Snapshot } from "./types.js";

const MAX_LINK_HOPS = 40;

/** Follows every recorded link along a path (like the kernel's path walk); null on a loop. */
export function resolveSnapshotPath(links: Record<string, string>, path: string): string | null {
  let parts = normalizeHostPath(path).split("/").filter(Boolean);
  let hops = 0;
  for (let i = 0; i < parts.length; i++) {
    const prefix = `/${parts.slice(0, i + 1).join("/")}`;
    const target = links[prefix];
    if (target === undefined) continue;
    if (++hops > MAX_LINK_HOPS) return null;
    parts = [...normalizeHostPath(target).split("/").filter(Boolean), ...parts.slice(i + 1)];
    i = -1;
  }
  return `/${parts.join("/")}`;
}

/**
 * Replays a Snapshot as a read-only host. Paths are looked up as recorded first; otherwise symlinks recorded in
 * `links` are followed component by component, so a snapshot built as a tree (the examples) answers reads through
 * `/sys/bus/pci/devices/<bdf>/…` and `/sys/class/net/<if>/device/…` like the kernel does.
 */
export class SnapshotHostReader implements HostReader {
  readonly description: string;

  constructor(
    private readonly snap: Snapshot,
    description?: string,
  ) {
    this.description = description ?? `snapshot of ${snap.host}`;
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
    const hit = this.lookup(path, this.snap.files);
    return hit.value !== undefined ? { ok: true, value: hit.value } : this.failure(path, hit.key, "file");
  }

  async readText(path: string): Promise<ReadOutcome<string>> {
    return this.readOne(path);
  }

  /** One promise for the whole batch (a GID table is 255 reads per port). */
  async readTexts(paths: readonly string[]): Promise<ReadOutcome<string>[]> {
    return paths.map((p) => this.readOne(p));
  }

  async list(path: string): Promise<ReadOutcome<string[]>> {
    const hit = this.lookup(path, this.snap.dirs);
    return hit.value !== undefined ? { ok: true, value: [...hit.value] } : this.failure(path, hit.key, "dir");
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
