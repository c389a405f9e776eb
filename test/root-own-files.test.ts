/**
 * `--root DIR` confines every read to DIR, kube-rdma's own files included: DIR/.kube-rdma/commands.json (command
 * captures) and fs-sizes.json are read from a real directory of the tree, never through a link that leaves it
 * (the same chroot rule as host paths: src/host/confine.ts; path_resolution(7),
 * https://man7.org/linux/man-pages/man7/path_resolution.7.html).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { materializeSnapshot } from "../src/examples/materialize.js";
import { exampleSnapshot } from "./support/examples.js";
import { captureIo } from "./support/io.js";

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-own-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = "outside-the-root-7f3a9c";

describe("--root never follows a .kube-rdma link out of the root", () => {
  test("a .kube-rdma directory that is a link to a directory outside: refused, the outside file never echoed", async () => {
    const root = join(dir, "tree");
    materializeSnapshot(exampleSnapshot("a100-8x-roce"), root);
    const outside = join(dir, "outside");
    mkdirSync(outside);
    // The outside "captures" hold text that would be printed if they were read (an ofed_info -s answer).
    writeFileSync(
      join(outside, "commands.json"),
      JSON.stringify({ "ofed_info -s": { ok: true, stdout: `MLNX_OFED_LINUX-${SECRET}:\n`, stderr: "", exitCode: 0 } }),
    );
    rmSync(join(root, ".kube-rdma"), { recursive: true, force: true });
    symlinkSync(outside, join(root, ".kube-rdma"));
    for (const format of ["text", "json"]) {
      const io = captureIo();
      const code = await main(["verify", "--root", root, "-o", format], io);
      expect(io.out + io.err).not.toContain(SECRET);
      expect([1, 2]).toContain(code);
      expect(io.out + io.err).toMatch(/\.kube-rdma:\s+a\s+symbolic\s+link/);
    }
  });
});
