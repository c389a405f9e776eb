/**
 * The node agent's quarantine file as the device plugin reads it each health poll: the quarantined HCAs, or none when
 * the file is not configured, missing, damaged or stale — and a file that is not used is said once, not every poll.
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { Logger } from "./log.js";
import { QUARANTINE_MAX_BYTES, readQuarantine } from "./quarantine.js";

export class QuarantineFile {
  private note = "";

  constructor(
    private readonly where: { path: string; maxAgeSeconds: number } | undefined,
    private readonly log: Logger,
  ) {}

  /** HCA → the finding codes that quarantined it (empty when there is nothing to use). */
  read(): Map<string, string[]> {
    const q = this.where;
    if (!q) return new Map();
    let text: string;
    try {
      const fd = openSync(q.path, "r");
      try {
        const buf = Buffer.alloc(QUARANTINE_MAX_BYTES + 1);
        text = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString("utf8");
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      this.say(code === "ENOENT" ? "" : `could not read ${q.path}: ${code ?? String(err)}`);
      return new Map();
    }
    const read = readQuarantine(text, new Date(), q.maxAgeSeconds);
    this.say(read.ok ? "" : `${q.path} ignored: ${read.why}`);
    return read.ok ? read.byHca : new Map();
  }

  private say(why: string): void {
    if (why === this.note) return;
    this.note = why;
    if (why) this.log.warn("quarantine file not used", { why });
  }
}
