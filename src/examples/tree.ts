/**
 * A host written as a tree of files, symlinks and errors, plus command outputs — what `collect` records, built by
 * hand. Example hosts are the A100 RoCE example node built with `buildHost`, then small declarative diffs (`applyDiff`).
 */
import { normalizeHostPath, parentOf } from "../host/paths.js";
import type { CommandOutcome, ReadError, Snapshot } from "../host/types.js";

export type HostDiff = {
  /** Files to write (created or replaced). */
  set?: Record<string, string>;
  /** Paths to remove, with everything below them. */
  remove?: string[];
  /** Symlinks to create or re-point (absolute targets). */
  links?: Record<string, string>;
  /** Paths whose read fails with this errno code (`EINVAL` for an empty GID slot's attributes). */
  errors?: Record<string, string>;
  fsSizes?: Record<string, number>;
  /** Command outcomes to replace, keyed by command line. */
  commands?: Record<string, Omit<CommandOutcome, "command">>;
};

export class HostTree {
  readonly files = new Map<string, string>();
  readonly links = new Map<string, string>();
  readonly errors = new Map<string, ReadError>();
  readonly emptyDirs = new Set<string>();
  readonly fsSizes = new Map<string, number>();
  readonly commands = new Map<string, CommandOutcome>();

  file(path: string, content: string): this {
    const p = normalizeHostPath(path);
    this.removeOne(p);
    this.files.set(p, content);
    return this;
  }

  /** Writes several files under one directory: `files(dir, {name: content})`. */
  filesIn(dir: string, entries: Record<string, string>): this {
    for (const [name, content] of Object.entries(entries)) this.file(`${dir}/${name}`, content);
    return this;
  }

  dir(path: string): this {
    this.emptyDirs.add(normalizeHostPath(path));
    return this;
  }

  link(path: string, target: string): this {
    const p = normalizeHostPath(path);
    this.removeOne(p);
    this.links.set(p, normalizeHostPath(target));
    return this;
  }

  error(path: string, code: string): this {
    const p = normalizeHostPath(path);
    this.removeOne(p);
    this.errors.set(p, { code, message: `${p}: ${code === "EINVAL" ? "invalid argument" : code}` });
    return this;
  }

  command(command: string, o: Omit<CommandOutcome, "command">): this {
    this.commands.set(command, { command, ...o });
    return this;
  }

  private removeOne(p: string): void {
    this.files.delete(p);
    this.links.delete(p);
    this.errors.delete(p);
  }

  /** Removes a path and everything below it. */
  remove(path: string): this {
    const p = normalizeHostPath(path);
    const under = (k: string) => k === p || k.startsWith(`${p}/`);
    for (const m of [this.files, this.links, this.errors] as Map<string, unknown>[]) {
      for (const k of [...m.keys()]) if (under(k)) m.delete(k);
    }
    for (const k of [...this.emptyDirs]) if (under(k)) this.emptyDirs.delete(k);
    return this;
  }

  apply(diff: HostDiff): this {
    for (const p of diff.remove ?? []) this.remove(p);
    for (const [p, c] of Object.entries(diff.set ?? {})) this.file(p, c);
    for (const [p, t] of Object.entries(diff.links ?? {})) this.link(p, t);
    for (const [p, code] of Object.entries(diff.errors ?? {})) this.error(p, code);
    for (const [p, n] of Object.entries(diff.fsSizes ?? {})) this.fsSizes.set(normalizeHostPath(p), n);
    for (const [c, o] of Object.entries(diff.commands ?? {})) this.command(c, o);
    return this;
  }

  /** Directory listings derived from every entry (an EINVAL attribute is still a directory entry). */
  private listings(): Record<string, string[]> {
    const dirs = new Map<string, Set<string>>();
    const add = (p: string) => {
      let child = p;
      while (child !== "/") {
        const parent = parentOf(child);
        let set = dirs.get(parent);
        if (!set) {
          set = new Set();
          dirs.set(parent, set);
        }
        const name = child.slice(parent === "/" ? 1 : parent.length + 1);
        if (set.has(name)) return;
        set.add(name);
        child = parent;
      }
    };
    for (const p of this.files.keys()) add(p);
    for (const p of this.links.keys()) add(p);
    for (const [p, e] of this.errors) if (e.code !== "ENOENT") add(p);
    for (const p of this.emptyDirs) {
      if (!dirs.has(p)) dirs.set(p, new Set());
      add(p);
    }
    const out: Record<string, string[]> = {};
    for (const [d, names] of [...dirs].sort(([a], [b]) => (a < b ? -1 : 1))) out[d] = [...names].sort();
    return out;
  }

  toSnapshot(meta: { host: string; collectedAt?: string; tool?: string; root?: string }): Snapshot {
    return {
      kind: "kube-rdma/snapshot",
      schemaVersion: 1,
      host: meta.host,
      collectedAt: meta.collectedAt ?? "2026-01-01T00:00:00.000Z",
      tool: meta.tool ?? "kube-rdma examples",
      root: meta.root ?? "/",
      files: Object.fromEntries(this.files),
      dirs: this.listings(),
      links: Object.fromEntries(this.links),
      errors: Object.fromEntries(this.errors),
      fsSizes: Object.fromEntries(this.fsSizes),
      commands: Object.fromEntries(this.commands),
    };
  }
}
