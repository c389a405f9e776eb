import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { CAPTURES, KNOWN_MISSES, readCorpus, scoreCase } from "./corpus.js";
import { analyzeTranscript } from "./index.js";

// nccl-tests' own lines (src/common.cu, https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu); own hosts.
const TEST_OUTPUT = [
  "# nThread 1 nGpus 1 minBytes 16777216 maxBytes 33554432 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
  "#",
  "# Using devices",
  "#  Rank  0 Group  0 Pid   4100 on ngt-worker-0 device  0 [0000:18:00] NVIDIA H100 80GB HBM3",
  "#  Rank  1 Group  0 Pid   4200 on ngt-worker-1 device  0 [0000:18:00] NVIDIA H100 80GB HBM3",
  "#",
  "#                                                              out-of-place                       in-place",
  "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
  "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)",
  "    16777216       2097152     float    none      -1    801.2   20.94   10.47      0    799.8   20.98   10.49      0",
  "    33554432       4194304     float    none      -1   1580.3   21.23   10.62      0   1579.1   21.25   10.62      0",
  "# Out of bounds values : 0 OK",
  "# Avg bus bandwidth    : 10.55 ",
];

const only = (file: string, text: string) => {
  const entries = analyzeTranscript(file, text);
  expect(entries).toHaveLength(1);
  return entries[0]!;
};

// stern tails pods and prints `POD CONTAINER message` (https://github.com/felipecrs/stern,
// https://pkg.go.dev/github.com/henriknelson/stern), colour removed first.
describe("stern's pod and container come off when the rest reads as a record", () => {
  test("nccl-tests behind one pod and container (coloured) reads as nccl-tests", () => {
    const text = TEST_OUTPUT.map((l) => `\u001b[32mngt-launcher-x8k2p\u001b[0m \u001b[34mlauncher\u001b[0m ${l}`).join(
      "\n",
    );
    const e = only("stern.txt", text);
    expect(e.kind).toBe("nccl_tests");
    expect(e.wrappers?.removed).toEqual(["stern"]);
    expect((e.data as { rows: unknown[] }).rows).toHaveLength(2);
  });

  test("ibdev2netdev behind a pod and container names the devices, not the pod", () => {
    const text = ["mlx5_10 port 1 ==> net1 (Up)", "mlx5_11 port 1 ==> net2 (Down)"]
      .map((l) => `rdma-diag-7f9c5 rdma-tools ${l}`)
      .join("\n");
    const e = only("stern-ibdev.txt", text);
    const mappings = (e.data as { mappings: { device: string; netdev: string }[] }).mappings;
    expect(mappings.map((m) => `${m.device}=${m.netdev}`)).toEqual(["mlx5_10=net1", "mlx5_11=net2"]);
  });

  test("two-word starts of real tools' lines are not stern's (an underscore, a colon, different words)", () => {
    // One device, two ports: every line starts `mlx5_0 port` (ibdev2netdev's own words; `_` is no pod name).
    const ib = "mlx5_0 port 1 ==> ens1f0np0 (Up)\nmlx5_0 port 2 ==> ens1f1np1 (Down)";
    expect(only("ib.txt", ib).wrappers).toBeUndefined();
    // A plain text of two-word lines that share their start is no record: nothing comes off.
    const notes = "gpu-node-1 ok: 8 GPUs\ngpu-node-1 ok: 4 NICs\ngpu-node-1 ok: done";
    const e = only("notes.txt", notes);
    expect([e.kind, e.wrappers]).toEqual(["unknown", undefined]);
  });
});

// GNU parallel --tag puts the argument and a tab before each line of a job's output
// (https://www.gnu.org/software/parallel/man.html#tag).
describe("parallel --tag's argument comes off when the rest reads as a record", () => {
  test("two hosts' runs read as nccl-tests, the hosts kept", () => {
    const text = ["gpu-n11", "gpu-n12"].flatMap((h) => TEST_OUTPUT.map((l) => `${h}\t${l}`)).join("\n");
    const e = only("tagged.txt", text);
    expect(e.kind).toBe("nccl_tests");
    expect(e.wrappers).toEqual({ removed: ["parallel_tag"], hosts: ["gpu-n11", "gpu-n12"] });
  });

  test("a tab-separated tool output (nvidia-smi topo -m) is left as it is", () => {
    // nvidia-smi topo -m's matrix: each row's label and a tab (https://docs.nvidia.com/deploy/nvidia-smi/index.html).
    const topo = [
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity",
      "GPU0\t X \tNV18\t0-47\t0",
      "GPU1\tNV18\t X \t0-47\t0",
      "",
      "Legend:",
      "  X    = Self",
      "  NV#  = Connection traversing a bonded set of # NVLinks",
    ].join("\n");
    const e = only("topo.txt", topo);
    expect([e.kind, e.wrappers]).toEqual(["nvidia_smi_topo", undefined]);
  });
});

// A README shows a command's output commented out under it, `# ` before each line (shape seen at
// https://github.com/ProjectMitosisOS/mitosis-core/blob/main/README.md); own devices and GIDs.
describe("a shell comment before a capture's lines comes off when the rest reads as a record", () => {
  const GIDS = [
    "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
    "---     ----    -----   ---                                     ------------    ---     ---",
    "mlx5_2  1       0       fe80:0000:0000:0000:0e42:a1ff:fe5c:1d20                 v1      ens2f0",
    "mlx5_2  1       1       fe80:0000:0000:0000:0e42:a1ff:fe5c:1d20                 v2      ens2f0",
    "n_gids_found=2",
  ];
  const rows = (e: ReturnType<typeof only>) =>
    (e.data as { gids: { device: string; index: number; netdev: string }[] } | null)?.gids.map(
      (g) => `${g.device}:${g.index}:${g.netdev}`,
    );

  test("the output under its bare command, prose around it, reads as show_gids", () => {
    const text = [
      "Get the GID of the first machine:",
      "",
      "```bash",
      "show_gids",
      ...GIDS.map((l) => `# ${l}`),
      "```",
      "",
      "We use the first GID below.",
    ].join("\n");
    const e = only("readme.md", text);
    expect(e.kind).toBe("show_gids");
    expect(e.wrappers?.removed).toContain("shell_comment");
    expect(rows(e)).toEqual(["mlx5_2:0:ens2f0", "mlx5_2:1:ens2f0"]);
  });

  test("every line commented reads as show_gids", () => {
    const e = only("all.txt", GIDS.map((l) => `# ${l}`).join("\n"));
    expect(rows(e)).toEqual(["mlx5_2:0:ens2f0", "mlx5_2:1:ens2f0"]);
  });

  test("nccl-tests' own `#` header lines are not a comment: the header stays nccl-tests'", () => {
    // A run that stopped after its header: every line is nccl-tests' own `#` line (src/common.cu).
    const header = TEST_OUTPUT.slice(0, 9).join("\n");
    const e = only("hang.txt", header);
    expect([e.kind, e.wrappers]).toEqual(["nccl_tests", undefined]);
  });

  test("a root prompt's `# ` before one command is no comment over its output", () => {
    const text = ["# ibdev2netdev", "mlx5_0 port 1 ==> ib0 (Up)", "mlx5_1 port 1 ==> ib1 (Down)"].join("\n");
    const e = only("prompt.txt", text);
    expect(e.kind).toBe("ibdev2netdev");
    expect(e.wrappers?.removed ?? []).not.toContain("shell_comment");
  });
});

// A page of notes marks the NCCL records among a tuning tool's own lines with an arrow (shape seen at
// https://github.com/eunomia-bpf/nccl-eBPF/blob/HEAD/docs/tmp/policy-effectiveness-research.md; numbers ours).
describe("an arrow a writer put before the records comes off when the rest reads as a record", () => {
  const notes = [
    "call=3  bytes=4096  action=...  channels=2",
    "→ NCCL INFO AllReduce: 4096 Bytes -> Algo TREE proto SIMPLE channel{Lo..Hi}={0..0}",
    "",
    "call=7  bytes=16384  action=...  channels=4",
    "→ NCCL INFO AllReduce: 16384 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..1}",
    "",
    "call=11  bytes=131072  action=...  channels=4",
    "→ NCCL INFO AllReduce: 131072 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..3}",
  ].join("\n");

  test("NCCL's records marked with arrows read as an NCCL log that names no network", () => {
    const e = only("notes.md", notes);
    expect(e.kind).toBe("nccl_log");
    expect(e.wrappers?.removed).toContain("annotation_arrow");
    expect((e.data as { network: string | null }).network).toBeNull();
  });

  test("an arrow on one line proves nothing, and arrows over no record are left alone", () => {
    expect(only("one.md", notes.split("\n").slice(0, 3).join("\n")).wrappers?.removed ?? []).not.toContain(
      "annotation_arrow",
    );
    const plan = "→ first drain the node\n→ then reboot it\n→ then uncordon it";
    expect([only("plan.md", plan).kind, only("plan.md", plan).wrappers]).toEqual(["unknown", undefined]);
  });
});

const readFromQuotes = (file: string, text: string) =>
  /`|\*\*/.test(text) && analyzeTranscript(file, text).some((e) => e.wrappers?.removed.includes("inline_quotes"));

describe("every corpus capture commented out line by line gives the facts of the clean capture", () => {
  // nccl-tests prints its header as `#` lines (src/common.cu): a text that holds nccl-tests' header, commented or
  // not, is never uncommented, by design (its facts are then fewer, never different).
  const NCCL_TESTS_HEADER = /^#\s*(?:nThread|Using devices|\s*Rank\s+\d)/m;
  const cases = readCorpus().filter((c) => !KNOWN_MISSES.has(c.file) && !c.file.startsWith("nccl_tests/"));
  test(`${cases.length} host-tool and NCCL log captures`, () => {
    const wrong: string[] = [];
    let refused = 0;
    for (const c of cases) {
      const clean = readFileSync(join(CAPTURES, c.file), "utf8");
      // A capture read only from a question's inline quotes is no record as a whole: the comment is never proven
      // over it (record-prefixes.ts asks the whole text).
      if (NCCL_TESTS_HEADER.test(clean) || readFromQuotes(c.file, clean)) {
        refused++;
        continue;
      }
      const r = scoreCase(
        c,
        clean
          .split("\n")
          .map((l) => `# ${l}`)
          .join("\n"),
      );
      if (r.crashed || r.misses.length > 0) wrong.push(`${c.file}: ${r.crashed ?? r.misses.join("; ")}`);
    }
    expect(wrong).toEqual([]);
    expect(refused).toBeLessThan(cases.length / 10);
  });
});

// A script that keeps `# nvidia-smi topo -mp` and what it printed in its header comment (shape seen in a run wrapper
// committed to a public repository, index-file 55327770291; the header's tab kept after the `#`).
test("a capture command commented with its output, in a script's header: the comment comes off the run", () => {
  const text = [
    "#! /bin/bash",
    "#",
    "# run wrapper for the GPU partition",
    "#",
    "# nvidia-smi topo -mp",
    "#\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\tNUMA Affinity",
    "# GPU0\t X \tSYS\tPIX\t24-31\t3",
    "# GPU1\tSYS\t X \tSYS\t8-15\t1",
    "# mlx5_0\tPIX\tSYS\t X ",
    "#",
    "while getopts n: argv; do :; done",
  ].join("\n");
  const [entry] = analyzeTranscript("run.sh", text);
  expect(entry?.kind).toBe("nvidia_smi_topo");
  expect((entry!.data as { devices: string[] }).devices).toEqual(["GPU0", "GPU1", "mlx5_0"]);
});
