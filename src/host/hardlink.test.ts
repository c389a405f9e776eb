/**
 * Hard-linked files inside a `--root` tree (issue 27): a sysfs or proc file has one name, so a regular file there
 * with more than one (`ln /etc/shadow root/sys/…/fw_ver`) is refused as a read problem, never read — the tree's
 * own image files (a hard-linked library in a container layer) are still read.
 */
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { materializedExample } from "../../test/support/examples.js";
import { captureIo } from "../../test/support/io.js";
import { main } from "../cli/main.js";
import { readPortGids } from "../inventory/read-gids.js";
import { FsHostReader } from "./fs-reader.js";

const base = mkdtempSync(join(tmpdir(), "kube-rdma-hardlink-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** `root/path` made a second name of `target` (same filesystem, as a hard link must be). */
function hardLink(root: string, path: string, target: string): void {
  const at = join(root, path);
  mkdirSync(dirname(at), { recursive: true });
  rmSync(at, { force: true });
  linkSync(target, at);
}

describe("a hard-linked file where the tree is meant to be sysfs or proc", () => {
  const secret = join(base, "secret");
  writeFileSync(secret, "TOP-SECRET-HARDLINKED\n");

  test.each([
    "/sys/class/infiniband/mlx5_0/fw_ver",
    "/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error",
    "/proc/self/limits",
  ])("hard link at %s → EHARDLINK, the text is never read", (path) => {
    const root = join(base, `tree-${path.replace(/\W/g, "_")}`);
    hardLink(root, path, secret);
    const r = new FsHostReader(root).readText(path);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("EHARDLINK");
    expect(r.error.message).toMatch(/a hard link \(\d+ names share this file\).*it is not read/);
    expect(JSON.stringify(r)).not.toContain("TOP-SECRET");
    // The same file read through readIn (a counters directory) is refused too.
    const dir = path.slice(0, path.lastIndexOf("/"));
    const [viaDir] = new FsHostReader(root).readIn(dir, [path.slice(path.lastIndexOf("/") + 1)]);
    expect(viaDir?.ok).toBe(false);
  });

  test("a hard-linked file of the image itself (a library in a container layer) is still read", () => {
    const root = join(base, "tree-image");
    const lib = join(base, "libnccl.so.2.21.5");
    writeFileSync(lib, "NCCL version 2.21.5\n");
    hardLink(root, "/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5", lib);
    expect(new FsHostReader(root).readText("/usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5")).toEqual({
      ok: true,
      value: "NCCL version 2.21.5\n",
    });
  });

  test("verify --root with a hard-linked fw_ver and counter: READ_PROBLEM findings naming them, no leak", async () => {
    const tree = materializedExample("a100-8x-roce");
    const outside = join(dirname(tree.dir), `${tree.dir.slice(tree.dir.lastIndexOf("/") + 1)}-secret`);
    writeFileSync(outside, "TOP-SECRET-HARDLINKED\n");
    try {
      const fw = "/sys/class/infiniband/mlx5_1/fw_ver";
      const counter = "/sys/class/infiniband/mlx5_1/ports/1/counters/link_downed";
      hardLink(tree.dir, fw, outside);
      hardLink(tree.dir, counter, outside);
      const io = captureIo();
      const code = await main(["verify", "--root", tree.dir, "--strict", "-o", "json"], io);
      expect(code).toBe(1);
      expect(io.out + io.err).not.toContain("TOP-SECRET");
      const report = JSON.parse(io.out) as { findings: { code: string; subject: string; fix: string }[] };
      const read = report.findings.filter((f) => f.code === "READ_PROBLEM");
      expect(read.map((f) => f.subject)).toEqual(expect.arrayContaining([fw, counter]));
      expect(read.find((f) => f.subject === fw)?.fix).toMatch(/never hard-link it/);
    } finally {
      rmSync(outside, { force: true });
      tree.cleanup();
    }
  });
});

/**
 * A GID table read the show_gids way: empty slots are read and discarded, so they skip the per-file checks; anything
 * else in a slot is checked as before. Slot text as sysfs prints it (`%pI6`, 8 groups of 4 hex digits and a newline):
 * https://www.kernel.org/doc/Documentation/ABI/stable/sysfs-class-infiniband (ports/N/gids/N).
 */
describe("a GID table with hard links and a FIFO among its slots", () => {
  const EMPTY = "0000:0000:0000:0000:0000:0000:0000:0000\n";
  const port = "/sys/class/infiniband/mlx5_3/ports/1";

  test("empty slots are discarded unchecked; a used or odd slot is still refused", () => {
    const root = join(base, "tree-gids");
    const dir = join(root, port, "gids");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "0"), "fe80:0000:0000:0000:0a1b:2cff:fe3d:4e5f\n");
    writeFileSync(join(dir, "1"), EMPTY);
    const emptyElsewhere = join(base, "empty-gid");
    writeFileSync(emptyElsewhere, EMPTY);
    linkSync(emptyElsewhere, join(dir, "2"));
    const secret = join(base, "secret-gid");
    writeFileSync(secret, "TOP-SECRET-HARDLINKED\n");
    linkSync(secret, join(dir, "3"));
    execFileSync("mkfifo", [join(dir, "4")]);
    writeFileSync(join(dir, "5"), EMPTY);

    const { gidSlots, gids } = readPortGids(new FsHostReader(root), port);
    expect(gidSlots).toEqual({ ok: true, value: 6 });
    // Slots 1, 2 and 5 hold the empty GID: nothing of them is kept, so nothing of them can leak or mislead.
    expect(gids.map((g) => g.index)).toEqual([0, 3, 4]);
    expect(gids[0]?.gid).toEqual({ ok: true, value: "fe80:0000:0000:0000:0a1b:2cff:fe3d:4e5f\n" });
    expect(gids[1]?.gid).toMatchObject({ ok: false, error: { code: "EHARDLINK" } });
    expect(gids[2]?.gid).toMatchObject({ ok: false, error: { code: "ENOTREG" } });
    expect(JSON.stringify(gids)).not.toContain("TOP-SECRET");
  });
});
