/**
 * Every file kube-rdma writes is written atomically (src/host/atomic-write.ts): on a full disk or past a file-size
 * limit the previous file stays whole. `ulimit -f` (RLIMIT_FSIZE, https://man7.org/linux/man-pages/man2/setrlimit.2.html)
 * makes a write past the limit fail with EFBIG — the same partial write a full disk (ENOSPC) gives.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { writeFileAtomic } from "../src/host/atomic-write.js";

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-atomic-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("collect -o FILE when the write fails part-way keeps the previous FILE", () => {
  test("a 20 KiB file-size limit: exit 2 naming the error, the previous snapshot intact, no temporary file left", () => {
    const file = join(dir, "node.json");
    const previous = `${JSON.stringify({ kind: "kube-rdma/snapshot", previous: true })}\n`;
    writeFileSync(file, previous);
    const r = spawnSync(
      "sh",
      [
        "-c",
        'ulimit -f 20; exec "$0" --import tsx test/support/run-cli.ts collect --example a100-8x-roce -o "$1"',
        process.execPath,
        file,
      ],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot write .*node\.json: EFBIG/);
    expect(readFileSync(file, "utf8")).toBe(previous);
    expect(readdirSync(dir)).toEqual(["node.json"]);
  }, 90_000);

  test("a successful write replaces the file whole (a new inode: readers see old or new, never half)", async () => {
    const file = join(dir, "q.json");
    writeFileSync(file, "old\n");
    const before = statSync(file).ino;
    await writeFileAtomic(file, "new\n");
    expect(readFileSync(file, "utf8")).toBe("new\n");
    expect(statSync(file).ino).not.toBe(before);
    expect(readdirSync(dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });
});
