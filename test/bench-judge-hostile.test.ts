/**
 * `bench judge` on a 100 MB file with no newline (issue 27): the line stream drops a line over 1 MiB as it reads
 * instead of joining ever-longer strings (which took minutes), so the probe ends with a clear exit 2 within seconds
 * and under 200 MB of memory.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "kube-rdma-judge-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `mb` MiB of `a`, no newline anywhere. */
function blob(mb: number): string {
  const file = join(dir, "gpu-1+gpu-2.txt");
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(1 << 20, "a");
  for (let i = 0; i < mb; i++) writeSync(fd, chunk);
  closeSync(fd);
  return file;
}

describe("bench judge on a 100 MB file with no newline", () => {
  test("exit 2 within seconds, under 200 MB, saying the line was too long and no result was found", () => {
    const file = blob(100);
    const started = performance.now();
    const r = spawnSync(
      process.execPath,
      ["--max-old-space-size=200", "--import", "tsx", "test/support/run-cli.ts", "bench", "judge", file],
      { encoding: "utf8", timeout: 60_000, env: { ...process.env, KUBE_RDMA_TEST_RSS: "1" } },
    );
    const seconds = (performance.now() - started) / 1000;
    expect(r.signal).toBeNull();
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/1 line\(s\) longer than 1 MiB skipped/);
    expect(r.stdout).toMatch(/no nccl-tests result/);
    expect(r.stdout).toMatch(/1 input\(s\) not judged/);
    expect(seconds).toBeLessThan(30);
    const rss = Number(/max-rss (\d+)/.exec(r.stderr)?.[1]);
    expect(rss).toBeGreaterThan(0);
    expect(rss).toBeLessThan(200 * 2 ** 20);
  }, 90_000);
});
