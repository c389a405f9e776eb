import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { UsageError } from "../cli/spec.js";
import { FsHostReader, ROOT_CAPTURES, ROOT_FS_SIZES } from "./fs-reader.js";
import { openReader } from "./open.js";
import { normalizeHostPath } from "./paths.js";
import { RecordingHostReader } from "./recording-reader.js";
import { onPath, runCommand } from "./run-command.js";
import { SnapshotHostReader } from "./snapshot-reader.js";
import { MAX_CAPTURE_BYTES } from "./snapshot-schema.js";
import type { Snapshot } from "./types.js";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "kube-rdma-host-"));
  const dev = join(root, "sys/devices/pci0000:4e/0000:4e:02.0/0000:55:00.0");
  mkdirSync(dev, { recursive: true });
  writeFileSync(join(dev, "numa_node"), "0\n");
  mkdirSync(join(root, "sys/bus/pci/devices"), { recursive: true });
  symlinkSync("../../../devices/pci0000:4e/0000:4e:02.0/0000:55:00.0", join(root, "sys/bus/pci/devices/0000:55:00.0"));
  mkdirSync(join(root, ".kube-rdma"));
  writeFileSync(
    join(root, ROOT_CAPTURES),
    JSON.stringify({
      "ofed_info -s": { command: "ofed_info -s", exitCode: 0, stdout: "MLNX_OFED_LINUX-5.8-1.1.2.1:\n", stderr: "" },
    }),
  );
  writeFileSync(join(root, ROOT_FS_SIZES), JSON.stringify({ "/dev/shm": 67108864 }));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a --root tree is read as the host it holds", () => {
  test("reads, follows sysfs links and answers with host paths", async () => {
    const r = new FsHostReader(root);
    expect(r.readText("/sys/bus/pci/devices/0000:55:00.0/numa_node")).toEqual({ ok: true, value: "0\n" });
    expect(r.realpath("/sys/bus/pci/devices/0000:55:00.0")).toEqual({
      ok: true,
      value: "/sys/devices/pci0000:4e/0000:4e:02.0/0000:55:00.0",
    });
    expect(r.readIn("/sys/bus/pci/devices/0000:55:00.0", ["numa_node", "nope"])).toMatchObject([
      { ok: true },
      { ok: false, error: { code: "ENOENT" } },
    ]);
    expect(r.description).toBe(`root ${root}`);
  });

  test("a missing file is ENOENT naming the host path", async () => {
    const r = new FsHostReader(root).readText("/sys/class/infiniband/mlx5_0/fw_ver");
    expect(r).toMatchObject({ ok: false, error: { code: "ENOENT" } });
    if (!r.ok) expect(r.error.message).toMatch(/^\/sys\/class\/infiniband\/mlx5_0\/fw_ver: no such file/);
  });

  test("command captures and mount sizes stored in the tree are replayed", async () => {
    const r = new FsHostReader(root);
    expect((await r.run("ofed_info", ["-s"])).stdout).toBe("MLNX_OFED_LINUX-5.8-1.1.2.1:\n");
    expect(r.fsSize("/dev/shm")).toEqual({ ok: true, value: 67108864 });
  });

  test("a malformed captures file is reported on the command, with what to do", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-bad-"));
    mkdirSync(join(dir, ".kube-rdma"));
    writeFileSync(join(dir, ROOT_CAPTURES), "{not json");
    const o = await new FsHostReader(dir).run("nvidia-smi", ["-q", "-x"]);
    expect(o.error?.code).toBe("EINVAL");
    expect(o.error?.message).toMatch(/fix or delete it/);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("commands run with execFile and a timeout", () => {
  test("a command that is not installed is ENOENT, 'not installed'", async () => {
    const o = await runCommand("kube-rdma-no-such-tool", ["-s"]);
    expect(o).toMatchObject({ exitCode: null, error: { code: "ENOENT" } });
    expect(o.error?.message).toMatch(/not installed/);
  });
  test("PATH is searched the way execvp searches it before any process is started", () => {
    const seen: string[] = [];
    const exists = (p: string) => {
      seen.push(p);
      return p === "/opt/tools/mlnx_qos";
    };
    expect(onPath("mlnx_qos", "/usr/bin::/opt/tools", exists)).toBe(true);
    // An empty entry is the current directory.
    expect(seen).toEqual(["/usr/bin/mlnx_qos", "./mlnx_qos", "/opt/tools/mlnx_qos"]);
    expect(onPath("ofed_info", "/usr/bin:/opt/tools", exists)).toBe(false);
    // A path, or no PATH at all (the system's default search), is left to the spawn.
    expect(onPath("/usr/sbin/ethtool", "/nowhere", () => false)).toBe(true);
    expect(onPath("ethtool", undefined, () => false)).toBe(true);
  });
  test("a wedged command is cut at the timeout with ETIMEDOUT", async () => {
    const o = await runCommand("sleep", ["10"], 300);
    expect(o.error?.code).toBe("ETIMEDOUT");
    expect(o.command).toBe("sleep 10");
  });
  test("at the timeout the whole process group is killed: a grandchild holding the output does not outlive it", async () => {
    // The shape of a wedged tool: the command forks a helper that inherits its stdout, then itself hangs. Killing
    // only the direct child leaves the helper holding the pipe, and the process cannot exit until it ends. A child
    // started with `detached` leads a new process group, which a negative pid signals as a whole:
    // https://nodejs.org/api/child_process.html#optionsdetached , https://man7.org/linux/man-pages/man2/kill.2.html
    const { dir, pidFile, script } = wedgedTool();
    let grandchild = 0;
    try {
      const started = Date.now();
      const o = await runCommand(script, [], 1000);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(o).toMatchObject({ exitCode: null, error: { code: "ETIMEDOUT" } });
      grandchild = Number(readFileSync(pidFile, "utf8"));
      expect(grandchild).toBeGreaterThan(1);
      const deadline = Date.now() + 2000;
      while (alive(grandchild) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(alive(grandchild)).toBe(false);
    } finally {
      if (grandchild > 1 && alive(grandchild)) process.kill(grandchild, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test("SIGTERM to kube-rdma while a command runs ends the command's group too (its own group gets no Ctrl-C)", async () => {
    const { dir, pidFile, script } = wedgedTool();
    const runner = join(dir, "runner.mts");
    const module = new URL("./run-command.ts", import.meta.url).pathname;
    writeFileSync(
      runner,
      `import { runCommand } from ${JSON.stringify(module)};\nawait runCommand(${JSON.stringify(script)}, [], 60_000);\n`,
    );
    let grandchild = 0;
    try {
      const child = spawn(process.execPath, ["--import", "tsx", runner], { stdio: "ignore" });
      const exited = new Promise<NodeJS.Signals | number | null>((r) => child.on("exit", (c, sig) => r(sig ?? c)));
      const deadline = Date.now() + 20_000;
      const written = () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n");
      while (!written() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      grandchild = Number(readFileSync(pidFile, "utf8"));
      child.kill("SIGTERM");
      // Ended by the signal itself, or by a handler that exits with 128 + 15 as shells report it.
      expect(["SIGTERM", 143]).toContain(await exited);
      // A limit for a loaded machine (the kill is immediate; the kernel reaps the group when it gets to it).
      const gone = Date.now() + 15_000;
      while (alive(grandchild) && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
      expect(alive(grandchild)).toBe(false);
    } finally {
      if (grandchild > 1 && alive(grandchild)) process.kill(grandchild, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 45_000);
  test("output past the capture cap is E2BIG with the first part kept; a child killed by a signal is SIGNAL", async () => {
    const big = await runCommand("head", ["-c", String(MAX_CAPTURE_BYTES + 4096), "/dev/zero"]);
    expect(big).toMatchObject({ exitCode: null, error: { code: "E2BIG" } });
    expect(big.stdout.length).toBe(MAX_CAPTURE_BYTES);
    const killed = await runCommand("sh", ["-c", "echo partial; kill -TERM $$"]);
    expect(killed).toMatchObject({ exitCode: null, stdout: "partial\n", error: { code: "SIGNAL" } });
    expect(killed.error?.message).toMatch(/SIGTERM/);
  });
  test("a failing command keeps its exit code and output", async () => {
    const o = await runCommand("ls", ["/kube-rdma-no-such-dir"]);
    expect(o.exitCode).not.toBe(0);
    expect(o.error).toBeUndefined();
    expect(o.stderr).toMatch(/kube-rdma-no-such-dir/);
  });
  test("once commands are prepared, run starts the command before it returns: it runs while the caller is busy", async () => {
    const bare = mkdtempSync(join(tmpdir(), "kube-rdma-run-")); // a tree without captures: commands run here
    const r = new FsHostReader(bare);
    await r.prepareCommands();
    const marker = join(bare, "spawned");
    const pending = r.run("sh", ["-c", `: > '${marker}'`]);
    // A synchronous wait: the event loop does not turn, so only a child already spawned can write the file.
    const deadline = Date.now() + 10_000;
    while (!existsSync(marker) && Date.now() < deadline) {}
    expect(existsSync(marker)).toBe(true);
    expect((await pending).exitCode).toBe(0);
    rmSync(bare, { recursive: true, force: true });
  });
});

const SNAP: Snapshot = {
  kind: "kube-rdma/snapshot",
  schemaVersion: 1,
  host: "n1",
  collectedAt: "2026-01-01T00:00:00.000Z",
  tool: "test",
  root: "/",
  files: { "/sys/devices/pci0000:4e/0000:55:00.0/numa_node": "1\n" },
  dirs: { "/sys/bus/pci/devices": ["0000:55:00.0"] },
  links: { "/sys/bus/pci/devices/0000:55:00.0": "/sys/devices/pci0000:4e/0000:55:00.0" },
  errors: { "/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/7": { code: "EINVAL", message: "invalid" } },
  fsSizes: { "/dev/shm": 1024 },
  commands: {},
};

describe("a snapshot replays the host it recorded", () => {
  test("reads through recorded links, replays recorded errors, and says when a command was not recorded", async () => {
    const r = new SnapshotHostReader(SNAP);
    expect(r.readText("/sys/bus/pci/devices/0000:55:00.0/numa_node")).toEqual({ ok: true, value: "1\n" });
    expect(r.readText("/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/7")).toMatchObject({
      ok: false,
      error: { code: "EINVAL" },
    });
    expect(r.exists("/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/7")).toBe(true);
    expect((await r.run("nvidia-smi", ["-q", "-x"])).error?.message).toMatch(/not recorded/);
  });

  test("the recording reader captures what it passes through", async () => {
    const rec = new RecordingHostReader(new SnapshotHostReader(SNAP));
    rec.readText("/sys/bus/pci/devices/0000:55:00.0/numa_node");
    rec.realpath("/sys/bus/pci/devices/0000:55:00.0");
    rec.fsSize("/dev/shm");
    rec.readText("/missing");
    expect(rec.record.files["/sys/bus/pci/devices/0000:55:00.0/numa_node"]).toBe("1\n");
    expect(rec.record.links["/sys/bus/pci/devices/0000:55:00.0"]).toBe("/sys/devices/pci0000:4e/0000:55:00.0");
    expect(rec.record.fsSizes["/dev/shm"]).toBe(1024);
    expect(rec.record.errors["/missing"]?.code).toBe("ENOENT");
  });
});

describe("opening a host from the flags", () => {
  const usage = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      if (e instanceof UsageError) return e;
      throw e;
    }
    throw new Error("expected a UsageError");
  };

  test("an unknown example lists the known ones", async () => {
    const e = await usage(openReader({ example: "a100-typo" }));
    expect(e.message).toMatch(/unknown example "a100-typo"/);
    expect(e.hint).toMatch(/a100-8x-roce/);
  });
  test("a missing snapshot names the file and how to make one", async () => {
    const e = await usage(openReader({ snapshot: "/nope/node1.json" }));
    expect(e.message).toMatch(/--snapshot \/nope\/node1.json: no such file/);
    expect(e.hint).toMatch(/kube-rdma collect -o/);
  });
  test("a file that is not a snapshot is refused with the reason", async () => {
    const f = join(root, "x.json");
    writeFileSync(f, JSON.stringify({ hello: 1 }));
    expect((await usage(openReader({ snapshot: f }))).message).toMatch(/not a kube-rdma snapshot/);
    writeFileSync(f, "{trunc");
    expect((await usage(openReader({ snapshot: f }))).message).toMatch(/not JSON/);
  });
  test("an empty snapshot file (a collect that failed) is said to be empty, with the way to write it again", async () => {
    const f = join(root, "empty.json");
    writeFileSync(f, "\n");
    const e = await usage(openReader({ snapshot: f }));
    expect(e.message).toBe(`--snapshot ${f}: empty.`);
    expect(e.hint).toMatch(/kube-rdma collect -o FILE/);
  });
  test("two sources at once, or a --root that does not exist, are usage errors", async () => {
    expect((await usage(openReader({ root: root, example: "a100-8x-roce" }))).message).toMatch(/give one of/);
    expect((await usage(openReader({ root: "/nope/host" }))).message).toMatch(/no such directory/);
  });
});

describe("host paths", () => {
  test("normalizeHostPath gives what posix normalisation gives (absolute, no trailing slash), for any path", () => {
    const reference = (p: string) => {
      const n = posix.normalize(p.startsWith("/") ? p : `/${p}`);
      return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n;
    };
    const path = fc
      .array(fc.constantFrom("/", ".", "..", "a", "b.", ".c", "...", "sys"), { maxLength: 8 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(path, (p) => {
        expect(normalizeHostPath(p)).toBe(reference(p));
      }),
      { numRuns: 5000 },
    );
  });
});

/** The shape of a wedged tool: it forks a helper that inherits its stdout (its pid in pidFile), then itself hangs. */
function wedgedTool(): { dir: string; pidFile: string; script: string } {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-group-"));
  const pidFile = join(dir, "grandchild.pid");
  const script = join(dir, "wedged-tool");
  writeFileSync(script, `#!/bin/sh\nsleep 30 &\necho $! > '${pidFile}'\nsleep 30\n`);
  chmodSync(script, 0o755);
  return { dir, pidFile, script };
}

/** Whether a process still runs (a zombie waiting for its reaper is gone as far as a pipe is concerned). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
