import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { readProblem } from "../src/cli/input.js";
import { main } from "../src/cli/main.js";
import { capture } from "./support/captures.js";
import { captureIo } from "./support/io.js";
import { portableCli } from "./support/portable-cli.js";

const FIX = join(import.meta.dirname, "..", "fixtures", "captures");
const RUN_CLI = join(import.meta.dirname, "support", "run-cli.ts");
const fx = (kind: string, name: string) => join(FIX, kind, `${name}.txt`);

describe("kube-rdma analyze", () => {
  test("the seed's pasted show_gids: header, summary, the GID index, exit 0", async () => {
    const io = captureIo();
    const code = await main(["analyze", fx("show_gids", "a100-roce-sample")], io);
    expect(code).toBe(0);
    expect(io.out).toContain("a100-roce-sample.txt: show_gids\n  9 devices, 36 GIDs; RoCE v2 IPv4 at index 3 on all\n");
    expect(io.out).toContain("GID_INDEX_UNIFORM");
  });

  // NCCL ≥ 2.21 picks the GID per HCA when NCCL_IB_GID_INDEX is unset: a pasted table cannot tell which NCCL runs.
  test("a shifted GID index is a warning (it breaks a fixed NCCL_IB_GID_INDEX or NCCL < 2.21): mlx5_5 and the fix printed", async () => {
    const io = captureIo();
    const code = await main(["analyze", fx("show_gids", "a100-roce-gid-index-5")], io);
    expect(code).toBe(0);
    const flat = io.out.replace(/\n\s+/g, " ");
    expect(flat).toMatch(/WARN +GID_INDEX_DIFFERS mlx5_5: .*index 5.*index 3/);
    expect(flat).toMatch(/fix: .*do not set NCCL_IB_GID_INDEX/);
  });

  test("-o json: one {schemaVersion, file, kind, data, findings} entry per input, in order", async () => {
    const io = captureIo();
    const files = [
      fx("show_gids", "a100-roce-tabs"),
      fx("nvidia_smi", "a100-roce-sample"),
      fx("nvidia_smi_topo", "a100-roce-nic-legend"),
    ];
    const code = await main(["analyze", ...files, "-o", "json"], io);
    expect(code).toBe(0);
    const entries = JSON.parse(io.out) as {
      schemaVersion: number;
      file: string;
      kind: string;
      data: unknown;
      findings: unknown[];
    }[];
    expect(entries.map((e) => [e.file, e.kind])).toEqual([
      [files[0], "show_gids"],
      [files[1], "nvidia_smi"],
      [files[2], "nvidia_smi_topo"],
    ]);
    expect(entries.every((e) => e.schemaVersion === 1 && Array.isArray(e.findings))).toBe(true);
    const [gids, smi, topo] = entries.map((e) => e.data) as [
      { gids: unknown[] },
      { gpus: unknown[] },
      { matrix: Record<string, Record<string, string>> },
    ];
    expect(gids.gids[3]).toEqual({
      device: "mlx5_0",
      port: 1,
      index: 3,
      gid: "0000:0000:0000:0000:0000:ffff:0a00:3c03",
      ipv4: "10.0.60.3",
      version: "v2",
      netdev: "eth0",
    });
    expect(smi).toMatchObject({ driverVersion: "470.141.03", cudaVersion: "11.4" });
    expect(smi.gpus[0]).toMatchObject({ index: 0, busId: "00000000:53:00.0", memoryTotalMiB: 81251 });
    expect(topo.matrix.GPU0?.mlx5_1).toBe("PIX");
  });

  test("- reads standard input (a capture pasted after its prompt line)", async () => {
    const io = captureIo(`root@gpu-1:~# ibdev2netdev\n${capture("ibdev2netdev", "a100-roce-port-down")}`);
    const code = await main(["analyze", "-", "-o", "yaml"], io);
    expect(code).toBe(1);
    expect(io.out).toMatch(/file: "-"\n {2}kind: ibdev2netdev/);
    expect(io.out).toContain("code: PORT_DOWN");
  });

  test("--expect-gpus 8 against a 7-GPU capture is an error", async () => {
    const io = captureIo();
    const code = await main(["analyze", fx("nvidia_smi", "h100-535-seven-gpus"), "--expect-gpus", "8"], io);
    expect(code).toBe(1);
    expect(io.out.replace(/\n\s+/g, " ")).toContain("GPU_COUNT node: nvidia-smi lists 7 GPU(s), expected 8");
  });

  test("--kind forces a parser: show_gids text read as ibstat gives problems, not a crash", async () => {
    const io = captureIo();
    const code = await main(["analyze", fx("show_gids", "a100-roce-tabs"), "--kind", "ibstat", "-o", "json"], io);
    const [entry] = JSON.parse(io.out) as { kind: string; problems: { code: string }[] }[];
    expect(entry?.kind).toBe("ibstat");
    expect(entry?.problems.map((p) => p.code)).toEqual(["ibstat.unrecognised"]);
    expect(code).toBe(2);
  });

  test("analyze --kind show_gids nvidia-smi.txt: not a show_gids table, so it exits 2 saying why (not 0)", async () => {
    const io = captureIo();
    const code = await main(["analyze", "--kind", "show_gids", fx("nvidia_smi", "a100-roce-sample")], io);
    expect(code).toBe(2);
    expect(io.out).toContain("show_gids.unrecognised");
    expect(io.err).toContain("could not read or recognise");
  });

  test("an unknown input says which formats are known and where to see how to capture them; alone it exits 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "analyze-"));
    const notes = join(dir, "notes.txt");
    writeFileSync(notes, "the cluster was slow yesterday\n");
    const io = captureIo();
    const code = await main(["analyze", notes], io);
    expect(code).toBe(2);
    expect(io.out).toContain("notes.txt: unknown");
    expect(io.out).toContain("known: show_gids, ofed_info");
    expect(io.out).toContain("`kube-rdma analyze --help`");
    const help = captureIo();
    await main(["analyze", "--help"], help);
    expect(help.out).toContain("  show_gids        show_gids > gids.txt");
  });

  test("an unrecognised input is never a PASS: the summary says FAIL and how many were not analysed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "analyze-"));
    const notes = join(dir, "notes.txt");
    writeFileSync(notes, "the cluster was slow yesterday\n");
    const io = captureIo();
    expect(await main(["analyze", notes, fx("show_gids", "a100-roce-sample")], io)).toBe(2);
    expect(io.out).toMatch(
      /^FAIL: 0 error\(s\), 0 warning\(s\), 1 info; 2 input\(s\), 1 problem\(s\); 1 not analysed$/m,
    );
    expect(io.out).not.toMatch(/^PASS/m);
    const html = captureIo();
    expect(await main(["analyze", notes, "-o", "html"], html)).toBe(2);
    expect(html.out).toContain('<span class="status fail">FAIL</span>');
    expect(html.out).toContain("1 not analysed");
  });

  test("`kubectl logs pod-not-started | kube-rdma analyze -`: empty standard input is said to be empty, exit 2", async () => {
    const io = captureIo("");
    expect(await main(["analyze", "-"], io)).toBe(2);
    expect(io.out).toContain("problem analyze.empty: Standard input is empty: there is nothing to analyse.");
    expect(io.out).toContain("The command before the pipe printed nothing");
    expect(io.out).not.toContain("analyze.unknown_kind");
    const blank = join(mkdtempSync(join(tmpdir(), "analyze-")), "gids.txt");
    writeFileSync(blank, "\n  \n");
    const fromFile = captureIo();
    expect(await main(["analyze", blank, "-o", "json"], fromFile)).toBe(2);
    const [entry] = JSON.parse(fromFile.out) as { data: null; problems: { code: string; message: string }[] }[];
    expect(entry?.data).toBeNull();
    expect(entry?.problems.map((p) => p.code)).toEqual(["analyze.empty"]);
  });

  test("analyze good.txt /nonexistent: the good input is still analysed, the missing one named, and it exits 2", async () => {
    const io = captureIo();
    const code = await main(["analyze", "/nonexistent/gids.txt", fx("show_gids", "a100-roce-sample")], io);
    expect(code).toBe(2);
    expect(io.err).toContain("could not read or recognise /nonexistent/gids.txt");
    expect(io.out).toContain("problem analyze.unreadable: Cannot read /nonexistent/gids.txt: no such file.");
    expect(io.out).toContain("a100-roce-sample.txt: show_gids");
  });

  test("nothing readable (a missing file, a directory) exits 2 with a problem for each", async () => {
    const dir = mkdtempSync(join(tmpdir(), "analyze-"));
    const io = captureIo();
    const code = await main(["analyze", join(dir, "missing.txt"), dir], io);
    expect(code).toBe(2);
    expect(io.out).toContain("no such file");
    expect(io.out).toContain("is a directory");
  });

  test("a file without read permission is a problem saying so (run as an unprivileged user when the tests run as root)", () => {
    const dir = mkdtempSync(join(tmpdir(), "analyze-"));
    chmodSync(dir, 0o755);
    const locked = join(dir, "locked.txt");
    writeFileSync(locked, capture("show_gids", "a100-roce-tabs"));
    chmodSync(locked, 0o000);
    // Root reads any file: the CLI then runs as `nobody`, for whom the file is as locked as for any user — from a
    // bundle in a world-readable directory, since `nobody` may not read the checkout (a clone under /root).
    const asRoot = process.getuid?.() === 0;
    const argv = asRoot ? [portableCli(), "analyze", locked] : ["--import", "tsx", RUN_CLI, "analyze", locked];
    const r = spawnSync(process.execPath, argv, {
      encoding: "utf8",
      ...(asRoot ? { uid: 65534, gid: 65534, cwd: dir } : {}),
    });
    expect(r.status, r.stderr).toBe(2);
    expect(r.stdout).toContain("permission denied");
  });

  test("permission errors become a problem that says so and what to do (also when tests run as root)", () => {
    const p = readProblem("/root/gids.txt", Object.assign(new Error("EACCES"), { code: "EACCES" }));
    expect(p).toMatchObject({ code: "analyze.unreadable", path: "/root/gids.txt" });
    expect(p.message).toBe("Cannot read /root/gids.txt: permission denied.");
    expect(p.hint).toMatch(/user who can read it/);
  });

  test("--example attaches the node model: its management NIC is named, not guessed", async () => {
    const io = captureIo();
    const file = fx("ibstat", "a100-roce-half-rate");
    const code = await main(["analyze", file, "--example", "a100-8x-roce", "-o", "json"], io);
    expect(code).toBe(1);
    const [entry] = JSON.parse(io.out) as {
      findings: { code: string; severity: string; subject: string; message: string }[];
    }[];
    expect(entry?.findings.map((f) => [f.code, f.severity, f.subject])).toEqual([
      ["RATE_MISMATCH", "info", "mlx5_0"],
      ["RATE_MISMATCH", "error", "mlx5_6"],
    ]);
    expect(entry?.findings[0]?.message).toMatch(/per the node model/);
  });

  test("NCCL logs and nccl-tests outputs get a summary line from their data (H4's analysers)", async () => {
    const root = join(import.meta.dirname, "..", "fixtures");
    const io = captureIo();
    await main(
      [
        "analyze",
        join(root, "nccl-logs", "roce-2node-gdr-2.18.txt"),
        join(root, "nccl-tests", "allreduce-2node-a100-hdr-185.txt"),
      ],
      io,
    );
    expect(io.out).toMatch(
      /roce-2node-gdr-2.18.txt: nccl_log\n {2}NCCL 2\.18\.\S+; \d+ ranks on 2 node\(s\); .*verdict rdma_gdr/,
    );
    expect(io.out).toMatch(
      /allreduce-2node-a100-hdr-185.txt: nccl_tests\n {2}all_reduce; 16 ranks; peak busbw 185.47 GB\/s at 8 GiB/,
    );
  });

  test("an unknown --example is a usage error (exit 2)", async () => {
    const io = captureIo();
    expect(await main(["analyze", fx("ibstat", "a100-roce"), "--example", "no-such-host"], io)).toBe(2);
    expect(io.err).toMatch(/no-such-host/);
  });

  test.each(["a100-8x-roce", "gid-index-5", "h100-18hca", "ib-8x-hdr"])(
    "round trip on %s: `gids` text fed to `analyze` gives exactly `gids -o json`",
    async (example) => {
      const text = captureIo();
      const json = captureIo();
      await main(["gids", "--example", example], text);
      await main(["gids", "--example", example, "-o", "json"], json);
      const io = captureIo(text.out);
      await main(["analyze", "-", "-o", "json"], io);
      const [entry] = JSON.parse(io.out) as { kind: string; data: { gids: unknown[] } }[];
      expect(entry?.kind).toBe("show_gids");
      expect(entry?.data.gids).toEqual(JSON.parse(json.out));
    },
  );

  test("no file at all is a usage error", async () => {
    const io = captureIo();
    expect(await main(["analyze"], io)).toBe(2);
    expect(io.err).toMatch(/no input given/);
  });

  test("--help teaches: what it reads, the exit codes, examples", async () => {
    const io = captureIo();
    expect(await main(["analyze", "--help"], io)).toBe(0);
    expect(io.out).toMatch(/show_gids/);
    expect(io.out).toMatch(/Exit code/);
    expect(io.out).toMatch(/kube-rdma analyze gids.txt/);
  });
});
