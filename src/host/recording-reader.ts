import { normalizeHostPath } from "./paths.js";
import { readBinaryHex, readIn } from "./reads.js";
import type { CommandOutcome, HostReader, ReadOutcome, RunOptions, Snapshot } from "./types.js";

export type SnapshotBody = Pick<Snapshot, "files" | "dirs" | "links" | "errors" | "fsSizes" | "commands">;

export function emptySnapshotBody(): SnapshotBody {
  return { files: {}, dirs: {}, links: {}, errors: {}, fsSizes: {}, commands: {} };
}

/** Passes every call through to `inner` and records what it answered, in the Snapshot's tables. */
export class RecordingHostReader implements HostReader {
  readonly record: SnapshotBody = emptySnapshotBody();

  constructor(readonly inner: HostReader) {}

  get description(): string {
    return this.inner.description;
  }

  private note<T>(path: string, r: ReadOutcome<T>, table: Record<string, T>): ReadOutcome<T> {
    const p = normalizeHostPath(path);
    if (r.ok) {
      table[p] = r.value;
      delete this.record.errors[p];
    } else {
      delete table[p];
      this.record.errors[p] = r.error;
    }
    return r;
  }

  readText(path: string): ReadOutcome<string> {
    return this.note(path, this.inner.readText(path), this.record.files);
  }

  readIn(dir: string, names: readonly string[], unused?: (text: string) => boolean): ReadOutcome<string>[] {
    const out = readIn(this.inner, dir, names, unused);
    out.forEach((r, i) => {
      this.note(`${dir}/${names[i]}`, r, this.record.files);
    });
    return out;
  }

  readBinaryHex(path: string): ReadOutcome<string> {
    return this.note(path, readBinaryHex(this.inner, path), this.record.files);
  }

  list(path: string): ReadOutcome<string[]> {
    return this.note(path, this.inner.list(path), this.record.dirs);
  }

  realpath(path: string): ReadOutcome<string> {
    const r = this.inner.realpath(path);
    const p = normalizeHostPath(path);
    if (!r.ok) this.record.errors[p] = r.error;
    else if (r.value !== p) this.record.links[p] = r.value;
    return r;
  }

  exists(path: string): boolean {
    const yes = this.inner.exists(path);
    // Recorded as an empty directory listing or a missing entry so that replay answers the same.
    const p = normalizeHostPath(path);
    if (!yes && !this.record.errors[p])
      this.record.errors[p] = { code: "ENOENT", message: `${p}: no such file or directory` };
    if (yes && !(p in this.record.files) && !(p in this.record.dirs) && !(p in this.record.links)) {
      const asDir = this.inner.list(path);
      if (asDir.ok) this.record.dirs[p] = asDir.value;
      else this.record.files[p] = "";
    }
    return yes;
  }

  fsSize(path: string): ReadOutcome<number> {
    return this.note(path, this.inner.fsSize(path), this.record.fsSizes);
  }

  /** Recorded like a read (an empty file, or the errno), so that replay answers the same through readText. */
  openDevice(path: string): ReadOutcome<true> {
    const r = this.inner.openDevice ? this.inner.openDevice(path) : this.inner.readText(path);
    this.note(path, r.ok ? { ok: true, value: "" } : r, this.record.files);
    return r.ok ? { ok: true, value: true } : r;
  }

  async prepareCommands(): Promise<void> {
    await this.inner.prepareCommands?.();
  }

  async run(file: string, args: readonly string[], opts?: RunOptions): Promise<CommandOutcome> {
    const answered = await this.inner.run(file, args, opts);
    const o = opts?.keepLines ? keepStdoutLines(answered, opts.keepLines) : answered;
    this.record.commands[o.command] = o;
    return o;
  }
}

/** The outcome with only the standard-output lines that match `keep` (stderr and the rest as they were). */
export function keepStdoutLines(o: CommandOutcome, keep: RegExp): CommandOutcome {
  const lines = o.stdout.split("\n").filter((l) => keep.test(l));
  return { ...o, stdout: lines.length ? `${lines.join("\n")}\n` : "" };
}
