import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { resolveInRoot } from "./confine.js";
import { FsHostReader, MAX_HOST_FILE_BYTES } from "./fs-reader.js";

const base = mkdtempSync(join(tmpdir(), "kube-rdma-confine-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A tree with one HCA port, plus a secret file beside (outside) it. */
function tree(name: string): {
  root: string;
  put(path: string, text: string): string;
  link(path: string, to: string): void;
} {
  const root = join(base, name, "root");
  const port = join(root, "sys/class/infiniband/mlx5_0/ports/1");
  mkdirSync(port, { recursive: true });
  writeFileSync(join(port, "state"), "4: ACTIVE\n");
  const secret = join(base, name, "secret");
  writeFileSync(secret, "hunter2\n");
  chmodSync(secret, 0o600);
  return {
    root,
    put(path, text) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
      return join(root, path);
    },
    link(path, to) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      symlinkSync(to, join(root, path));
    },
  };
}

describe("--root reads stay inside the tree, as if the tree were /", () => {
  test("a state file linked to a secret outside the root (relative ../ chain) reads the tree's own path, never the secret", () => {
    const t = tree("relative");
    t.link("sys/class/infiniband/mlx5_0/ports/1/phys_state", "../../../../../../../../secret");
    const r = new FsHostReader(t.root).readText("/sys/class/infiniband/mlx5_0/ports/1/phys_state");
    expect(r).toMatchObject({ ok: false, error: { code: "ENOENT" } });
    expect(JSON.stringify(r)).not.toContain("hunter2");
  });

  test("an absolute link starts again at the root: /etc/hostname → the tree's /etc/hostname", () => {
    const t = tree("absolute");
    t.put("etc/hostname", "tree-node\n");
    t.link("proc/sys/kernel/hostname", "/etc/hostname");
    expect(new FsHostReader(t.root).readText("/proc/sys/kernel/hostname")).toEqual({ ok: true, value: "tree-node\n" });
    expect(resolveInRoot(t.root, "/proc/sys/kernel/hostname")).toEqual({ ok: true, value: "/etc/hostname" });
  });

  test("`proc -> /proc` is the tree's own proc (a loop), not this machine's: ELOOP, nothing of this host", () => {
    const t = tree("proc-link");
    t.link("proc", "/proc");
    const r = new FsHostReader(t.root);
    expect(r.readText("/proc/sys/kernel/hostname")).toMatchObject({ ok: false, error: { code: "ELOOP" } });
    expect(r.readText("/proc/net/route")).toMatchObject({ ok: false });
  });

  test("a name listed as a regular file and then replaced by a link (read without its own lstat) is still confined", () => {
    const t = tree("listed-then-linked");
    const gids = "sys/class/infiniband/mlx5_0/ports/1/gids";
    t.put(`${gids}/0`, "fe80:0000:0000:0000:0000:0000:0000:0001\n");
    t.put(`${gids}/1`, "0000:0000:0000:0000:0000:ffff:0a00:0001\n");
    t.put("etc/hostname", "tree-node\n");
    const reader = new FsHostReader(t.root);
    const dir = `/${gids}`;
    expect(reader.list(dir)).toMatchObject({ ok: true });
    rmSync(join(t.root, gids, "0"));
    t.link(`${gids}/0`, "../../../../../../../../secret");
    rmSync(join(t.root, gids, "1"));
    t.link(`${gids}/1`, "/etc/hostname");
    const [outside, inside] = reader.readIn(dir, ["0", "1"]);
    expect(outside).toMatchObject({ ok: false, error: { code: "ENOENT" } });
    expect(JSON.stringify(outside)).not.toContain("hunter2");
    expect(inside).toEqual({ ok: true, value: "tree-node\n" });
  });

  test("a chain of links that loops ends at 40 links with ELOOP", () => {
    const t = tree("loop");
    t.link("sys/a", "b");
    t.link("sys/b", "a");
    expect(new FsHostReader(t.root).readText("/sys/a")).toMatchObject({ ok: false, error: { code: "ELOOP" } });
    expect(new FsHostReader(t.root).list("/sys/a")).toMatchObject({ ok: false, error: { code: "ELOOP" } });
  });

  test("`..` stops at the root, like /.. on a real host", () => {
    const t = tree("dotdot");
    expect(resolveInRoot(t.root, "/../../../sys/class/infiniband/mlx5_0/ports/1/state")).toEqual({
      ok: true,
      value: "/sys/class/infiniband/mlx5_0/ports/1/state",
    });
  });

  test("a FIFO is refused at once (never a blocked open), a link to /dev/zero is the tree's /dev/zero", () => {
    const t = tree("fifo");
    execFileSync("mkfifo", [join(t.root, "sys/class/infiniband/mlx5_0/ports/1/rate")]);
    t.link("sys/class/infiniband/mlx5_0/ports/1/lid", "/dev/zero");
    const r = new FsHostReader(t.root);
    expect(r.readText("/sys/class/infiniband/mlx5_0/ports/1/rate")).toMatchObject({
      ok: false,
      error: { code: "ENOTREG", message: expect.stringContaining("a FIFO") },
    });
    expect(r.readText("/sys/class/infiniband/mlx5_0/ports/1/lid")).toMatchObject({
      ok: false,
      error: { code: "ENOENT" },
    });
  });

  test("on the live host too, a character device is never read (/dev/zero would run for ever)", () => {
    expect(new FsHostReader("/").readText("/dev/zero")).toMatchObject({ ok: false, error: { code: "ENOTREG" } });
  });

  test("a 2.1 GB file is a read problem naming the cap, and every later read still answers", () => {
    const t = tree("huge");
    const big = t.put("sys/class/infiniband/mlx5_0/ports/1/gids/0", "");
    truncateSync(big, 2.1e9);
    const r = new FsHostReader(t.root);
    expect(r.readText("/sys/class/infiniband/mlx5_0/ports/1/gids/0")).toMatchObject({
      ok: false,
      error: { code: "EFBIG", message: expect.stringContaining(`at most ${MAX_HOST_FILE_BYTES} bytes`) },
    });
    expect(r.readText("/sys/class/infiniband/mlx5_0/ports/1/state")).toEqual({ ok: true, value: "4: ACTIVE\n" });
  });

  test("a command capture file that is a FIFO, or has a wrong type deep inside, is unusable with the path, never a hang", async () => {
    const t = tree("captures");
    mkdirSync(join(t.root, ".kube-rdma"));
    execFileSync("mkfifo", [join(t.root, ".kube-rdma/commands.json")]);
    const fifo = await new FsHostReader(t.root).run("ofed_info", ["-s"]);
    expect(fifo.error?.message).toMatch(/commands\.json.*a FIFO/);
    rmSync(join(t.root, ".kube-rdma/commands.json"));
    const cmd = { command: "ofed_info -s", exitCode: 0, stdout: ["MLNX_OFED"], stderr: "" };
    writeFileSync(join(t.root, ".kube-rdma/commands.json"), JSON.stringify({ "ofed_info -s": cmd }));
    const typed = await new FsHostReader(t.root).run("ofed_info", ["-s"]);
    expect(typed.error?.message).toMatch(/\$\["ofed_info -s"\]\.stdout: expected string/);
  });
});

describe("what a collector pod reads", () => {
  test("--host-commands DIR runs the command as DIR/NAME (never through PATH), recorded under its plain name", async () => {
    const t = tree("host-commands");
    const bin = join(base, "host-commands", "usr-bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "ofed_info"), "#!/bin/sh\necho MLNX_OFED_LINUX-5.8-1.1.2.1:\n");
    chmodSync(join(bin, "ofed_info"), 0o755);
    const o = await new FsHostReader(t.root, 5000, { commandDir: bin }).run("ofed_info", ["-s"]);
    expect(o).toMatchObject({ command: "ofed_info -s", exitCode: 0, stdout: "MLNX_OFED_LINUX-5.8-1.1.2.1:\n" });
  });

  test("--own-proc reads /proc from this process (a hostNetwork pod's own routes), the rest from the tree", () => {
    const t = tree("own-proc");
    t.put("proc/sys/kernel/hostname", "tree-node\n");
    const own = new FsHostReader(t.root, 5000, { ownProc: true });
    const mine = readFileSync("/proc/sys/kernel/hostname", "utf8");
    expect(own.readText("/proc/sys/kernel/hostname")).toEqual({ ok: true, value: mine });
    expect(own.readText("/sys/class/infiniband/mlx5_0/ports/1/state")).toEqual({ ok: true, value: "4: ACTIVE\n" });
    expect(new FsHostReader(t.root).readText("/proc/sys/kernel/hostname")).toEqual({ ok: true, value: "tree-node\n" });
  });
});

describe("gids over a tree with one over-size GID file", () => {
  test("every other row is printed, the over-size slot is named on stderr, exit 1 (a partial table is not clean)", async () => {
    const { main } = await import("../cli/main.js");
    const { captureIo } = await import("../../test/support/io.js");
    const { findExample } = await import("../examples/index.js");
    const { materializeSnapshot } = await import("../examples/materialize.js");
    const root = join(base, "gids-huge");
    mkdirSync(root);
    materializeSnapshot(findExample("a100-8x-roce")!.snapshot(), root);
    const healthy = captureIo();
    expect(await main(["gids", "--root", root, "-o", "json"], healthy)).toBe(0);
    const all = JSON.parse(healthy.out) as unknown[];
    truncateSync(join(root, "sys/class/infiniband/mlx5_3/ports/1/gids/2"), 2.1e9);
    const io = captureIo();
    expect(await main(["gids", "--root", root, "-o", "json"], io)).toBe(1);
    expect(JSON.parse(io.out)).toHaveLength(all.length - 1);
    expect(io.err).toMatch(/mlx5_3\/ports\/1\/gids\/2.*larger than a host file can be/);
  });
});

describe("directories already walked", () => {
  test("a walk records the directories it passed (not links, not the last name) and resolves as without them", () => {
    const t = tree("walked");
    t.link("sys/class/infiniband/mlx5_0/device", "../../../devices/pci0000:00/0000:00:01.0");
    t.put("sys/devices/pci0000:00/0000:00:01.0/numa_node", "0\n");
    const dirs = new Set<string>();
    const path = "/sys/class/infiniband/mlx5_0/device/numa_node";
    const plain = resolveInRoot(t.root, path);
    expect(resolveInRoot(t.root, path, dirs)).toEqual(plain);
    expect(plain).toEqual({ ok: true, value: "/sys/devices/pci0000:00/0000:00:01.0/numa_node" });
    expect([...dirs]).toEqual([
      "/sys",
      "/sys/class",
      "/sys/class/infiniband",
      "/sys/class/infiniband/mlx5_0",
      "/sys/devices",
      "/sys/devices/pci0000:00",
      "/sys/devices/pci0000:00/0000:00:01.0",
    ]);
    // A second walk through the same directories gives the same answer.
    expect(resolveInRoot(t.root, "/sys/class/infiniband/mlx5_0/ports/1/state", dirs)).toEqual({
      ok: true,
      value: "/sys/class/infiniband/mlx5_0/ports/1/state",
    });
  });

  test("a directory named as walked is not looked at again (so the set must be dropped when the tree may change)", () => {
    const t = tree("trusted");
    const dirs = new Set(["/sys", "/sys/class", "/sys/class/net"]);
    // /sys/class/net does not exist in this tree: without the set the walk says so, with it the walk trusts the set.
    expect(resolveInRoot(t.root, "/sys/class/net/eth0/mtu")).toMatchObject({ ok: false, error: { code: "ENOENT" } });
    expect(resolveInRoot(t.root, "/sys/class/net/eth0/mtu", dirs)).toMatchObject({
      ok: false,
      error: { code: "ENOENT" },
    });
    expect(resolveInRoot(t.root, "/sys/class/net", dirs)).toEqual({ ok: true, value: "/sys/class/net" });
  });
});

test("a long-running reader looks again at a directory that became a link out of the tree after an event-loop turn", async () => {
  const t = tree("swapped");
  const outside = join(base, "swapped", "outside", "1");
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, "state"), "outside the tree\n");
  const reader = new FsHostReader(t.root);
  expect(reader.readText("/sys/class/infiniband/mlx5_0/ports/1/state")).toEqual({ ok: true, value: "4: ACTIVE\n" });
  await new Promise((r) => setImmediate(r));
  rmSync(join(t.root, "sys/class/infiniband/mlx5_0/ports"), { recursive: true });
  // An absolute target starts again at the tree's root: the tree has no /…/outside, the real file is never read.
  symlinkSync(join(base, "swapped", "outside"), join(t.root, "sys/class/infiniband/mlx5_0/ports"));
  expect(reader.readText("/sys/class/infiniband/mlx5_0/ports/1/state")).toMatchObject({
    ok: false,
    error: { code: "ENOENT" },
  });
});
