import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test, vi } from "vitest";

// A non-root user meets directories it may not search (EACCES). Root never does, so the test makes lstat answer as
// the kernel would for that user, for one directory of the tree.
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  return {
    ...fs,
    lstatSync: ((p: string, o?: object) => {
      if (String(p).includes("/forbidden")) {
        throw Object.assign(new Error(`EACCES: permission denied, lstat '${p}'`), { code: "EACCES" });
      }
      return fs.lstatSync(p, o as never);
    }) as typeof fs.lstatSync,
  };
});

describe("an unreadable directory under --root", () => {
  test("is a read error of that path (EACCES), never an abort of the whole run", async () => {
    const { resolveInRoot } = await import("./confine.js");
    const root = mkdtempSync(join(tmpdir(), "kube-rdma-eacces-"));
    mkdirSync(join(root, "sys/class/forbidden"), { recursive: true });
    writeFileSync(join(root, "sys/class/ok"), "x");
    expect(resolveInRoot(root, "/sys/class/ok")).toEqual({ ok: true, value: "/sys/class/ok" });
    const r = resolveInRoot(root, "/sys/class/forbidden/mlx5_0/ports");
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe("EACCES");
  });
});
