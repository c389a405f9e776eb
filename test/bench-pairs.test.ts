import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { pairRounds } from "../src/nccl/pairs/index.js";
import { captureIo } from "./support/io.js";
import { allReduceOutput } from "./support/nccl-tests-output.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs a full round of pair tests over `nodes` and saves each all_reduce_perf output: the file names. */
function savedRound(nodes: string[], speed: (a: string, b: string) => number): { dir: string; files: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "kube-rdma-pairs-"));
  dirs.push(dir);
  const files = pairRounds(nodes).flatMap((r) =>
    r.pairs.map(([a, b]) => {
      const file = `round${r.round}-${a}-${b}.txt`;
      writeFileSync(join(dir, file), allReduceOutput({ hosts: [a, b], peakBusBw: speed(a, b) }));
      return file;
    }),
  );
  return { dir, files };
}

async function run(args: string[], cwd?: string) {
  const io = captureIo();
  if (cwd) io.cwd = cwd;
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

describe("bench pairs and bench judge: finding the slow node of a fleet with 2-node nccl-tests", () => {
  test("bench pairs over 4 nodes prints 3 rounds of 2 side-by-side pairs and the 2-node test command", async () => {
    const r = await run(["bench", "pairs", "gpu-1,gpu-2", "gpu-3", "gpu-4"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("3 round(s) over 4 nodes");
    expect(r.out).toMatch(/round 1: gpu-1↔gpu-4 {2}gpu-2↔gpu-3/);
    expect(r.out).toContain("mpirun -np 16 -N 8");
    expect(r.out).toContain("kube-rdma job nccl-tests --nodes 2 --gpus 8 --on gpu-1,gpu-4 --name pair-gpu-1-gpu-4");
    expect(r.out).toContain("kubectl logs job/pair-gpu-1-gpu-4-launcher > gpu-1+gpu-4.txt");
    expect(r.out).toContain("kube-rdma bench judge *+*.txt");
  });

  test("bench pairs -o json gives the rounds for scripts", async () => {
    const r = await run(["bench", "pairs", "a", "b", "c", "-o", "json"]);
    const json = JSON.parse(r.out) as { schemaVersion: number; rounds: { pairs: string[][]; rests: string }[] };
    expect(json.schemaVersion).toBe(1);
    expect(json.rounds).toHaveLength(3);
    expect(json.rounds.map((x) => x.rests).sort()).toEqual(["a", "b", "c"]);
  });

  test("one node or a repeated node → usage error, exit 2", async () => {
    expect((await run(["bench", "pairs", "gpu-1"])).code).toBe(2);
    const dup = await run(["bench", "pairs", "gpu-1", "gpu-1"]);
    expect(dup.code).toBe(2);
    expect(dup.err).toContain("node gpu-1 is listed twice");
  });

  test("gpu-3 at half speed with every partner → exit 1, error PAIR_BAD_NODE on gpu-3, its pairs marked SLOW", async () => {
    const nodes = ["gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6"];
    const { dir, files } = savedRound(nodes, (a, b) => (a === "gpu-3" || b === "gpu-3" ? 92 : 185));
    const r = await run(["bench", "judge", ...files], dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain("15 pair test(s) on 6 node(s)");
    expect(r.out).toMatch(/PAIR_BAD_NODE\s+gpu-3\s+gpu-3 is slow with every partner/);
    expect(r.out).toContain("gpu-3  bad node: 5 of 5 pair(s) slow");
    expect(r.out.match(/SLOW/g)).toHaveLength(5);
  });

  test("pod runs (rank lines name pods) saved as <a>+<b>.txt → judged by file name: gpu-2 is the bad node", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-pairs-"));
    dirs.push(dir);
    const files = pairRounds(["gpu-1", "gpu-2", "gpu-3", "gpu-4"]).flatMap((r) =>
      r.pairs.map(([a, b]) => {
        const pods = [`pair-${a}-${b}-worker-0`, `pair-${a}-${b}-worker-1`];
        const file = `${a}+${b}.txt`;
        writeFileSync(
          join(dir, file),
          allReduceOutput({ hosts: pods, peakBusBw: [a, b].includes("gpu-2") ? 90 : 185 }),
        );
        return file;
      }),
    );
    const r = await run(["bench", "judge", ...files, "-o", "json"], dir);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out);
    expect(json.findings.map((f: { code: string; subject: string }) => `${f.code} ${f.subject}`)).toEqual([
      "PAIR_BAD_NODE gpu-2",
    ]);
  });

  test("a pair file edited to busbw 1e308 (impossible for its algbw on 16 ranks) → error PAIR_IMPOSSIBLE_BANDWIDTH on it, never the reference", async () => {
    const { dir, files } = savedRound(["n1", "n2", "n3", "n4"], () => 185);
    const edited = files[0]!;
    const original = readFileSync(join(dir, edited), "utf8");
    writeFileSync(join(dir, edited), original.replace(/ 184\.94 /g, " 1e308 "));
    const r = await run(["bench", "judge", ...files, "-o", "json"], dir);
    const json = JSON.parse(r.out);
    expect(r.code).toBe(1);
    expect(json.referenceGBps).toBeLessThan(200);
    expect(json.findings.map((f: { code: string; subject: string }) => `${f.code} ${f.subject}`)).toEqual([
      `PAIR_IMPOSSIBLE_BANDWIDTH ${edited}`,
    ]);
    expect(json.findings[0].message).toMatch(/busbw 1e\+308 GB\/s, while algbw 98\.63 GB\/s × 1\.875/);
    expect(json.nodes.every((n: { verdict: string }) => n.verdict === "ok")).toBe(true);
  });

  test("a healthy fleet → exit 0, PASS; -o json carries pairs, nodes and the reference", async () => {
    const { dir, files } = savedRound(["n1", "n2", "n3", "n4"], () => 185);
    const text = await run(["bench", "judge", ...files], dir);
    expect(text.code).toBe(0);
    expect(text.out).toContain("PASS: 0 error(s)");
    const json = JSON.parse((await run(["bench", "judge", ...files, "-o", "json"], dir)).out);
    expect(json.pairs).toHaveLength(6);
    expect(json.nodes.every((n: { verdict: string }) => n.verdict === "ok")).toBe(true);
    expect(json.referenceGBps).toBeGreaterThan(180);
  });

  test("a missing file and a file that is not nccl-tests output → problems naming them; nothing usable → exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-pairs-"));
    dirs.push(dir);
    writeFileSync(join(dir, "notes.txt"), "the cluster was slow yesterday\n");
    const r = await run(["bench", "judge", "missing.txt", "notes.txt"], dir);
    expect(r.code).toBe(2);
    expect(r.out).toContain("Cannot read missing.txt: no such file.");
    expect(r.out).toContain("notes.txt: no nccl-tests result.");
  });

  test("nothing usable → the text verdict says FAIL and how many inputs were not judged, never PASS beside exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-pairs-"));
    dirs.push(dir);
    writeFileSync(join(dir, "n1+n2.txt"), "");
    const r = await run(["bench", "judge", "n1+n2.txt"], dir);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^FAIL: 0 error\(s\), 0 warning\(s\), 0 info; 1 input\(s\) not judged$/m);
    expect(r.out).not.toMatch(/^PASS/m);
  });

  test("a healthy fleet with one pair's output lost (empty file) → FAIL, exit 2: the lost pair could be the slow one", async () => {
    const { dir, files } = savedRound(["n1", "n2", "n3", "n4"], () => 185);
    writeFileSync(join(dir, files[0]!), "");
    const r = await run(["bench", "judge", ...files], dir);
    expect(r.code).toBe(2);
    expect(r.out).toContain(`problem: ${files[0]}: no nccl-tests result.`);
    expect(r.out).toMatch(/^FAIL: .*; 1 input\(s\) not judged$/m);
  });

  test("a pair whose run died mid-table ('Test CUDA failure') → error PAIR_RUN_FAILED quoting it, never a SLOW bandwidth from the rows before", async () => {
    const { dir, files } = savedRound(["n1", "n2", "n3", "n4"], () => 185);
    const died = `${allReduceOutput({ hosts: ["n1", "n2"], peakBusBw: 185 })
      .split("\n")
      .slice(0, 30)
      .join("\n")}\nn1: Test CUDA failure common.cu:1032 'an illegal memory access was encountered'\n`;
    writeFileSync(join(dir, "n1+n2.txt"), died);
    const rest = files.filter((f) => !/n1-n2/.test(f));
    const r = await run(["bench", "judge", "n1+n2.txt", ...rest, "-o", "json"], dir);
    expect(r.code).toBe(1);
    const json = JSON.parse(r.out);
    const failed = json.findings.find((f: { code: string }) => f.code === "PAIR_RUN_FAILED");
    expect(failed?.severity).toBe("error");
    expect(failed?.message).toMatch(
      /n1\+n2\.txt: the test of n1 and n2 failed before its end \("n1: Test CUDA failure/,
    );
    expect(json.pairs.map((p: { a: string; b: string }) => `${p.a}↔${p.b}`)).not.toContain("n1↔n2");
  });

  test("one pair only → PAIRS_TOO_FEW, and the command its fix names really prints a round", async () => {
    const { dir, files } = savedRound(["n1", "n2"], () => 185);
    const json = JSON.parse((await run(["bench", "judge", ...files, "-o", "json"], dir)).out);
    const fix = json.findings.find((f: { code: string }) => f.code === "PAIRS_TOO_FEW")?.fix as string;
    const named = /`kube-rdma (bench pairs [^`]*)`/.exec(fix)?.[1];
    expect(named).toBeDefined();
    const args = named!.replace(" …", "").split(" ");
    const r = await run(args);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/round 1: /);
  });

  test("--tolerance outside (0, 1] → usage error", async () => {
    const r = await run(["bench", "judge", "x.txt", "--tolerance", "2"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--tolerance expects a fraction in (0, 1]");
  });
});

describe("bench judge names the port NCCL itself found slow in the pair runs", () => {
  /** NCCL's INFO lines of a pair run (NCCL ≥ 2.20, NCCL_DEBUG_SUBSYS=INIT,NET): 8 ports per node, gpu-3's mlx5_4 at 100 Gb/s. */
  const ncclLines = (hosts: string[]) =>
    hosts.flatMap((h, n) => [
      ...[1, 2, 3, 4, 5, 6, 7, 8].map(
        (i) =>
          `${h}:${3100 + n}:${3190 + n} [0] NCCL INFO NET/IB: [${i - 1}] mlx5_${i}:uverbs${i}:1/RoCE provider=Mlx5 ` +
          `speed=${h === "gpu-3" && i === 4 ? 100000 : 200000} context=0x55e1c0${i}0 pciPath=/sys/devices/pci0000:${(0x10 * i).toString(16)}/0000:${(0x10 * i).toString(16)}:00.0 ar=0`,
      ),
      `${h}:${3100 + n}:${3190 + n} [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA`,
    ]);

  test("4 nodes, every pair with gpu-3 slow: PAIR_BAD_NODE gpu-3 and, once, NCCL_LOG_NIC_SLOW naming gpu-3's mlx5_4", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kube-rdma-pairs-"));
    dirs.push(dir);
    const files = pairRounds(["gpu-1", "gpu-2", "gpu-3", "gpu-4"]).flatMap((r) =>
      r.pairs.map(([a, b]) => {
        const file = join(dir, `${a}+${b}.txt`);
        const busbw = a === "gpu-3" || b === "gpu-3" ? 98 : 185;
        writeFileSync(file, `${ncclLines([a, b]).join("\n")}\n${allReduceOutput({ hosts: [a, b], peakBusBw: busbw })}`);
        return file;
      }),
    );
    const r = await run(["bench", "judge", ...files, "-o", "json"]);
    const report = JSON.parse(r.out) as { findings: { code: string; subject: string; message: string }[] };
    expect(report.findings.filter((f) => f.code === "PAIR_BAD_NODE").map((f) => f.subject)).toEqual(["gpu-3"]);
    const slow = report.findings.filter((f) => f.code === "NCCL_LOG_NIC_SLOW");
    expect(slow.map((f) => f.subject)).toEqual(["gpu-3"]);
    expect(slow[0]!.message).toMatch(/NCCL found mlx5_4:1 on gpu-3 at 100 Gb\/s/);
  });
});
