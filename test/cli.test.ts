import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { main } from "../src/cli/main.js";
import { VERSION } from "../src/cli/version.js";
import { captureIo } from "./support/io.js";

describe("the command line", () => {
  test("an unknown command is a usage error (exit 2) that points at --help", async () => {
    const io = captureIo();
    expect(await main(["verfy"], io)).toBe(2);
    expect(io.err).toMatch(/unknown command "verfy"/);
    expect(io.err).toMatch(/kube-rdma --help/);
  });

  test("--help lists the commands and the exit-code contract", async () => {
    const io = captureIo();
    expect(await main(["--help"], io)).toBe(0);
    expect(io.out).toMatch(/Commands:/);
    expect(io.out).toMatch(/2 could not run/);
  });

  test("the version printed is the package version", async () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(VERSION).toBe(pkg.version);
    const io = captureIo();
    await main(["--version"], io);
    expect(io.out.trim()).toBe(pkg.version);
  });

  test("a bad option value names the allowed choices", async () => {
    const io = captureIo();
    expect(await main(["examples", "-o", "xml"], io)).toBe(2);
    expect(io.err).toMatch(/must be one of text, json, yaml/);
  });
});

describe("a single-value option given twice", () => {
  test("verify --example a100-8x-roce --example training-pod → exit 2 naming both, nothing verified", async () => {
    const io = captureIo();
    const code = await main(["verify", "--example", "a100-8x-roce", "--example", "training-pod"], io);
    expect(code).toBe(2);
    expect(io.out).toBe("");
    expect(io.err).toContain('--example is given twice ("a100-8x-roce", then "training-pod"); only one would be used.');
  });

  test("the same value twice, or a list option repeated (--node a --node b), is still fine", async () => {
    const same = captureIo();
    expect(await main(["verify", "--example", "a100-8x-roce", "--example=a100-8x-roce"], same)).toBe(0);
    const pairs = captureIo();
    expect(
      await main(["fleet", "bench", "--simulate", "4", "--node", "a", "--node", "b", "-o", "json"], pairs),
    ).not.toBe(2);
  });
});

describe("a negative number after a number option", () => {
  test("bench job --nodes -3 says what --nodes must be, not node's 'argument is ambiguous'", async () => {
    const io = captureIo();
    expect(await main(["bench", "job", "--nodes", "-3"], io)).toBe(2);
    expect(io.err).toContain("--nodes expects a positive whole number; got -3.");
    expect(io.err).not.toContain("ambiguous");
  });

  test("after --, a program's own negative arguments are left to it", async () => {
    const io = captureIo();
    const code = await main(
      ["job", "mpi", "--name", "t", "--nodes", "2", "--", "python", "train.py", "--lr", "-3"],
      io,
    );
    expect(code).toBe(0);
    expect(io.out).toMatch(/- --lr\n\s+- "-3"/);
  });
});

describe("a stray word after a command that takes options only", () => {
  test("`kube-rdma verify node-17` (meant as 'verify node-17') is refused, not a PASS for this host", async () => {
    const io = captureIo();
    expect(await main(["verify", "node-17"], io)).toBe(2);
    expect(io.out).toBe("");
    expect(io.err).toContain('kube-rdma verify: takes options only; got "node-17".');
    expect(io.err).toContain("kube-rdma fleet verify --node NAME");
  });

  test.each(["collect", "nccl-env", "cluster", "device-plugin", "examples", "version"])(
    "%s extra → exit 2 naming the word",
    async (name) => {
      const io = captureIo();
      expect(await main([name, "extra"], io)).toBe(2);
      expect(io.err).toContain(`kube-rdma ${name}: takes options only; got "extra".`);
    },
  );

  test("`kube-rdma fleet verify gpu-01` (meant as one node) is refused, not a PASS over every node of the cluster; fleet bench too", async () => {
    const verify = captureIo();
    expect(await main(["fleet", "verify", "gpu-01"], verify)).toBe(2);
    expect(verify.err).toContain('kube-rdma fleet: fleet verify takes options only; got "gpu-01".');
    expect(verify.err).toContain("kube-rdma fleet verify --node gpu-01");
    const bench = captureIo();
    expect(await main(["fleet", "bench", "gpu-01", "gpu-02", "--dry-run"], bench)).toBe(2);
    expect(bench.err).toContain("kube-rdma fleet bench --node gpu-01,gpu-02");
    expect(bench.out).toBe("");
  });

  test("`kube-rdma bench job 4` (meant as 4 nodes) is refused, not the 2-node command", async () => {
    const io = captureIo();
    expect(await main(["bench", "job", "4"], io)).toBe(2);
    expect(io.out).toBe("");
    expect(io.err).toContain('bench job takes options only; got "4".');
    expect(io.err).toContain("--nodes 4");
  });
});

describe("help that says what the command does", () => {
  test("lint --help names every workload kind `job` writes, the Kubeflow Trainer runtimes included (it stopped at Volcano Job)", async () => {
    const kinds = new Set<string>();
    for (const kind of ["pytorch", "nccl-tests", "trainjob"]) {
      const io = captureIo();
      await main(["job", kind, "--no-preflight", "-o", "json"], io);
      for (const item of JSON.parse(io.out).items as { kind: string }[]) kinds.add(item.kind);
    }
    const help = captureIo();
    expect(await main(["lint", "--help"], help)).toBe(0);
    const text = help.out.replace(/\s+/g, " ");
    expect([...kinds].filter((k) => !text.includes(k))).toEqual([]);
    expect(text).toContain("ClusterTrainingRuntime/TrainingRuntime");
  });
});

describe("an option that another kind of job reads", () => {
  test("job pytorch --kind volcano (it wrote a PyTorchJob) and job nccl-tests --collective alltoall -- all_reduce_perf (it ran all_reduce) are refused, exit 2, nothing printed", async () => {
    for (const [argv, says] of [
      [["job", "pytorch", "--kind", "volcano"], "--kind is for job nccl-tests only; job pytorch does not read it."],
      [["job", "mpi", "--launcher", "launch", "--", "python", "t.py"], "--launcher is for job pytorch only"],
      [["job", "pytorch", "--runtime", "torch-roce"], "--runtime is for job trainjob only"],
      [["job", "nccl-tests", "--collective", "alltoall", "--", "all_reduce_perf"], "a PROGRAM was given"],
    ] as const) {
      const io = captureIo();
      expect(await main([...argv], io), argv.join(" ")).toBe(2);
      expect(io.err).toContain(says);
      expect(io.out).toBe("");
    }
  });
});
