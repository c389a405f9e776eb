import { describe, expect, test } from "vitest";
import { captureIo } from "../../test/support/io.js";
import { main } from "./main.js";
import { outputDir } from "./output-dir.js";
import { UsageError } from "./spec.js";

describe("a directory named for kube-rdma's files", () => {
  test("relative to the working directory; /proc and /sys (kernel filesystems) are refused before anything runs", () => {
    expect(outputDir("--save", "out", "/home/ops")).toBe("/home/ops/out");
    expect(outputDir("--save", "/var/tmp/procfs", "/")).toBe("/var/tmp/procfs");
    for (const bad of ["/proc/x", "/sys", "../../proc/self/x"]) {
      expect(() => outputDir("--save-snapshots", bad, "/home/ops")).toThrow(UsageError);
    }
    expect(() => outputDir("--save-snapshots", "/proc/x", "/")).toThrow(/inside \/proc, a kernel filesystem/);
  });

  test("fleet bench --dry-run --save /proc/x → exit 2 saying why (Node's recursive mkdir spun forever there)", async () => {
    const io = captureIo();
    expect(await main(["fleet", "bench", "--dry-run", "--node", "a,b", "--save", "/proc/x"], io)).toBe(2);
    expect(io.err).toMatch(/--save \/proc\/x is inside \/proc/);
  });
});
