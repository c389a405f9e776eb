/**
 * The CLI as it ships: build.mjs bundles it into a fresh directory (beside a copy of bin/kube-rdma.js, as in the
 * package), and the real entry runs as a process. Every other CLI test runs the sources; these say the bundle gives
 * the same output, that each worker thread's module and the device plugin's .proto resolve from it, and that the
 * snapshot schema's validator (loaded on first use) is found.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { findExample } from "../src/examples/index.js";
import { materializeSnapshot } from "../src/examples/materialize.js";
import { analyseLog } from "../src/kube/fleet/node-analyser.js";
import { FakeKubelet, waitFor } from "./support/fake-kubelet.js";
import { captureIo } from "./support/io.js";
import { twoNumaHcas, writeTree } from "./support/rdma-node.js";

const repo = join(import.meta.dirname, "..");
const base = mkdtempSync(join(tmpdir(), "kube-rdma-built-"));
const pkg = join(base, "pkg");
const cli = join(pkg, "bin", "kube-rdma.js");

beforeAll(() => {
  mkdirSync(join(pkg, "bin"), { recursive: true });
  copyFileSync(join(repo, "bin", "kube-rdma.js"), cli);
  // The packages resolve from the package's node_modules, as after `npm ci`.
  symlinkSync(join(repo, "node_modules"), join(pkg, "node_modules"));
  execFileSync(process.execPath, [join(repo, "build.mjs"), join(pkg, "dist")], { cwd: repo, stdio: "pipe" });
}, 60_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

function runBuilt(args: readonly string[], input?: string): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [cli, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
    ...(input !== undefined ? { input } : {}),
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

async function runSource(args: readonly string[], stdin = ""): Promise<{ status: number; out: string; err: string }> {
  const io = captureIo(stdin);
  const status = await main(args, io);
  return { status, out: io.out, err: io.err };
}

/** A log of NCCL INFO lines as many ranks print them (host:pid:tid [dev] NCCL INFO …), `bytes` long at least. */
function ncclLog(bytes: number): string {
  const block: string[] = [];
  for (let r = 0; r < 64; r++) {
    const p = `node-${Math.floor(r / 8)}:${4000 + r}:${4100 + r} [${r % 8}] NCCL INFO `;
    block.push(`${p}NCCL version 2.21.5+cuda12.4`);
    block.push(`${p}NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.1.0.${r}<0>`);
    block.push(`${p}comm 0x7f00 rank ${r} nRanks 64 nNodes 8 localRanks 8 localRank ${r % 8} MNNVL 0`);
    for (let ch = 0; ch < 8; ch++) {
      const c = String(ch).padStart(2, "0");
      block.push(
        r % 8 === 7
          ? `${p}Channel ${c}/0 : ${r}[7] -> ${(r + 1) % 64}[0] [send] via NET/IB/${ch % 2}/GDRDMA`
          : `${p}Channel ${c}/0 : ${r}[${r % 8}] -> ${r + 1}[${(r % 8) + 1}] via P2P/CUMEM/read`,
      );
    }
    block.push(`${p}ncclCommInitRank comm 0x7f00 rank ${r} nranks 64 cudaDev ${r % 8} busId 1b000 - Init COMPLETE`);
  }
  const text = `${block.join("\n")}\n`;
  return text.repeat(Math.ceil(bytes / text.length));
}

describe("the built CLI (bin/kube-rdma.js and the bundle)", () => {
  test("every worker thread the sources start has its module in the bundle", () => {
    const started = new Set<string>();
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")) {
          for (const m of readFileSync(p, "utf8").matchAll(/startModuleWorker\(import\.meta\.url, "([\w-]+)"/g))
            started.add(m[1]!);
        }
      }
    };
    walk(join(repo, "src"));
    expect(started.size).toBeGreaterThan(0);
    for (const name of started) expect(existsSync(join(pkg, "dist", `${name}.js`)), name).toBe(true);
  });

  test("--version, --help and an unknown command print what the sources print", async () => {
    for (const args of [["--version"], ["--help"], ["gids", "--help"], ["nosuch"]]) {
      const built = runBuilt(args);
      const source = await runSource(args);
      expect({ status: built.status, out: built.out, err: built.err }, args.join(" ")).toEqual(source);
    }
  });

  test("gids --root on the 8-rail example node: the same table as from the sources", async () => {
    const tree = join(base, "tree");
    materializeSnapshot(findExample("a100-8x-roce")!.snapshot(), tree);
    const built = runBuilt(["gids", "--root", tree]);
    expect(built.status).toBe(0);
    expect(built.out).toMatch(/n_gids_found=\d+\n$/);
    expect(built.out).toBe((await runSource(["gids", "--root", tree])).out);
  });

  test("a --snapshot file is validated by the bundle (the schema validator loads on first use)", async () => {
    const snap = join(base, "node.json");
    const collected = runBuilt(["collect", "--example", "a100-8x-roce", "-o", snap]);
    expect(collected.status, collected.err).toBe(0);
    const built = runBuilt(["gids", "--snapshot", snap, "-o", "json"]);
    expect(built.status, built.err).toBe(0);
    expect(built.out).toBe((await runSource(["gids", "--snapshot", snap, "-o", "json"])).out);
  });

  test("damaged snapshot and capture files: the bundle's ahead-of-time checks say what the sources say", async () => {
    const snap = findExample("a100-8x-roce")!.snapshot();
    const bad = join(base, "bad.json");
    writeFileSync(bad, JSON.stringify({ ...snap, dirRuns: { "/sys/x": { from: 0, to: 5000 } } }));
    const tree = join(base, "bad-tree");
    materializeSnapshot(snap, tree);
    const captures = join(tree, ".kube-rdma", "commands.json");
    writeFileSync(captures, JSON.stringify({ ibstat: { command: "ibstat", exitCode: "0", stdout: "", stderr: "" } }));
    for (const args of [
      ["gids", "--snapshot", bad],
      ["verify", "--root", tree],
    ]) {
      const built = runBuilt(args);
      expect(built.status, args.join(" ")).not.toBe(0);
      expect(built.out + built.err, args.join(" ")).toMatch(/\$\.(?:dirRuns\["\/sys\/x"\]\.to|ibstat\.exitCode)/);
      expect({ status: built.status, out: built.out, err: built.err }, args.join(" ")).toEqual(await runSource(args));
    }
  });

  /** The packages (files under node_modules) a run of the built CLI loads through require, as a count on stderr. */
  function packagesLoaded(args: readonly string[]): { status: number | null; err: string } {
    const hook = join(base, "count-packages.cjs");
    writeFileSync(
      hook,
      'const M = require("node:module"); const seen = new Set(); const r = M._resolveFilename;\n' +
        'M._resolveFilename = function (...a) { const f = r.apply(this, a); if (f.includes("node_modules")) seen.add(f); return f; };\n' +
        'process.on("exit", () => process.stderr.write("packages: " + seen.size + "\\n"));\n',
    );
    const r = spawnSync(process.execPath, ["-r", hook, cli, ...args], { encoding: "utf8" });
    return { status: r.status, err: r.stderr };
  }

  test("verify --root from the bundle loads no CommonJS package, ajv included (the schema checks are compiled in)", () => {
    const tree = join(base, "clean-tree");
    materializeSnapshot(findExample("a100-8x-roce")!.snapshot(), tree);
    const r = packagesLoaded(["verify", "--root", tree, "-o", "json"]);
    expect(r.status, r.err).toBe(0);
    expect(r.err).toBe("packages: 0\n");
  });

  test("analyze of a log loads no package for text or JSON output (the YAML writer loads only for -o yaml)", () => {
    const file = join(base, "one-line.log");
    writeFileSync(file, "gpu-a:1:2 [0] NCCL INFO NCCL version 2.23.4+cuda12.6\n");
    for (const format of ["text", "json"]) {
      const r = packagesLoaded(["analyze", file, "-o", format]);
      expect(r.err, format).toBe("packages: 0\n");
    }
    expect(packagesLoaded(["analyze", file, "-o", "yaml"]).err).not.toBe("packages: 0\n");
  });

  test("analyze of a 65 MiB NCCL log file uses the range workers and reports what one pass reports", async () => {
    const file = join(base, "big.log");
    const text = ncclLog(65 << 20);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(file, text);
    const built = runBuilt(["analyze", file, "-o", "json"]);
    expect(built.status, built.err).toBe(0);
    expect(built.out).toBe((await runSource(["analyze", file, "-o", "json"])).out);
    expect(JSON.parse(built.out)).toMatchObject([{ kind: "nccl_log", data: { verdict: "rdma_gdr" } }]);
  }, 120_000);

  test("analyze - of a 12 MiB log through standard input uses the segment workers: same report as the sources", async () => {
    const text = ncclLog(12 << 20);
    const built = runBuilt(["analyze", "-", "-o", "json"], text);
    expect(built.status, built.err).toBe(0);
    const source = await runSource(["analyze", "-", "-o", "json"], text);
    expect(JSON.parse(built.out)).toEqual(JSON.parse(source.out));
  }, 120_000);

  test("the fleet analysis worker loads from the bundle and judges a collected snapshot as the sources do", async () => {
    const snapshot = findExample("a100-8x-roce")!.snapshot();
    const log = JSON.stringify(snapshot);
    const w = new Worker(join(pkg, "dist", "analysis-worker.js"));
    try {
      // The worker says it has loaded, then answers the log it is given.
      const reply = await new Promise<{ id: number; result?: unknown; error?: string }>((resolve, reject) => {
        w.on("message", (m: { id: number; ready?: true }) => {
          if (m.ready) w.postMessage({ id: 7, log, node: "node-a" });
          else resolve(m);
        });
        w.once("error", reject);
      });
      expect(reply.error).toBeUndefined();
      expect(reply.id).toBe(7);
      expect(JSON.parse(JSON.stringify(reply.result))).toEqual(
        JSON.parse(JSON.stringify(await analyseLog(log, "node-a"))),
      );
    } finally {
      await w.terminate();
    }
  }, 60_000);

  test("device-plugin from the bundle loads its api.proto and registers with the kubelet", async () => {
    const pluginDir = join(base, "device-plugins");
    await mkdir(pluginDir, { recursive: true });
    await writeTree(join(base, "host"), twoNumaHcas());
    const kubelet = new FakeKubelet(pluginDir);
    await kubelet.start();
    let child: ChildProcess | undefined;
    try {
      child = spawn(
        process.execPath,
        [cli, "device-plugin", "--plugin-dir", pluginDir, "--root", join(base, "host"), "--inject-nccl-env=false"],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      let stderr = "";
      child.stderr?.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      const exited = new Promise<number | null>((resolve) => child?.on("exit", (code) => resolve(code)));
      await waitFor("registration", () => kubelet.registrations[0], 15_000);
      await waitFor("the plugin's registered line", () => stderr.includes('"registered with kubelet"'), 15_000);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child && child.exitCode === null) child.kill("SIGKILL");
      await kubelet.stop();
    }
  }, 60_000);
});
