/**
 * Inputs that never end: a device or FIFO reports size 0 to stat, so only a reader that counts bytes stops. Each
 * probe must end with a clear message and exit 2 within seconds, in a process capped at 200 MB of heap (a
 * multi-GB read would die of memory instead).
 */
import { spawnSync } from "node:child_process";
import { openSync } from "node:fs";
import { describe, expect, test } from "vitest";

function cli(args: string[], stdinFrom?: string) {
  const r = spawnSync(
    process.execPath,
    ["--max-old-space-size=200", "--import", "tsx", "test/support/run-cli.ts", ...args],
    {
      encoding: "utf8",
      timeout: 60_000,
      ...(stdinFrom ? { stdio: [openSync(stdinFrom, "r"), "pipe", "pipe"] } : {}),
    },
  );
  return { code: r.status, err: r.stderr, out: r.stdout, signal: r.signal };
}

describe("/dev/zero and friends end in a clear message, exit 2", () => {
  test.each([
    [["verify", "--snapshot", "/dev/zero"], /more than a snapshot can be/],
    [["verify", "--snapshot", "/dev/urandom"], /more than a snapshot can be/],
    [["preflight", "diff", "/dev/zero", "/dev/zero"], /more than pod facts can be/],
    [["analyze", "/dev/zero"], /not a regular file, and it gave more than/],
    [["lint", "/dev/zero"], /over \d+ MiB/],
  ])("kube-rdma %j", (args, message) => {
    const r = cli(args);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.err + r.out).toMatch(message);
  });
  test("verify --snapshot - < /dev/zero", () => {
    const r = cli(["verify", "--snapshot", "-"], "/dev/zero");
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/more than a snapshot can be/);
  });
});
