import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { splitLines } from "../core/text.js";
import { analyzeTranscript } from "./index.js";
import { commandOfLine, soleCommandKind, splitTranscript } from "./transcript.js";

/** The seed's 环境验证 section as an operator pastes it: three commands, prose between them. */
const SEED_SESSION = [
  "$ ofed_info -s #roce驱动版本",
  "MLNX_OFED_LINUX-5.8-1.1.2.1:",
  "验证 Nvidia GPU 驱动",
  "nvidia-smi #nvidia gpu驱动",
  "+-----------------------------------------------------------------------------+",
  "| NVIDIA-SMI 470.141.03 Driver Version: 470.141.03 CUDA Version: 11.4 |",
  "|-------------------------------+----------------------+----------------------+",
  "| GPU Name Persistence-M| Bus-Id Disp.A | Volatile Uncorr. ECC |",
  "| Fan Temp Perf Pwr:Usage/Cap| Memory-Usage | GPU-Util Compute M. |",
  "|===============================+======================+======================|",
  "| 0 NVIDIA A100-SXM... On | 00000000:53:00.0 Off | 0 |",
  "| N/A 29C P0 64W / 400W | 0MiB / 81251MiB | 0% Default |",
  "+-------------------------------+----------------------+----------------------+",
  "查询 RDMA 网卡",
  "show_gids",
  "DEV PORT INDEX GID IPv4 VER DEV",
  "--- ---- ----- --- ------------ --- ---",
  "mlx5_1 1 0 fe80:0000:0000:0000:eaeb:d3ff:fecc:c920 v1 eth1",
  "mlx5_1 1 3 0000:0000:0000:0000:0000:ffff:190b:8002 25.11.128.2 v2 eth1",
].join("\n");

describe("a pasted session with several commands", () => {
  test("command lines are found with or without a prompt, with flags and a trailing comment", () => {
    expect(commandOfLine("$ ofed_info -s #roce驱动版本")).toBe("ofed_info -s");
    expect(commandOfLine("root@gpu-1:~# nvidia-smi topo -m")).toBe("nvidia-smi topo -m");
    expect(commandOfLine("show_gids mlx5_1")).toBe("show_gids mlx5_1");
    expect(commandOfLine("nvidia-smi shows the GPUs below")).toBeNull();
    expect(commandOfLine("mlx5_1 1 3 0000:0000:0000:0000:0000:ffff:190b:8002 25.11.128.2 v2 eth1")).toBeNull();
  });

  test("the seed's 环境验证 session → ofed_info, nvidia_smi and show_gids entries, each diagnosed", () => {
    const segments = splitTranscript(SEED_SESSION);
    expect(segments?.map((s) => [s.command, s.line])).toEqual([
      ["ofed_info -s", 1],
      ["nvidia-smi", 4],
      ["show_gids", 15],
    ]);
    const entries = analyzeTranscript("session.txt", SEED_SESSION);
    expect(entries.map((e) => [e.file, e.kind])).toEqual([
      ["session.txt:1 (ofed_info -s)", "ofed_info"],
      ["session.txt:4 (nvidia-smi)", "nvidia_smi"],
      ["session.txt:15 (show_gids)", "show_gids"],
    ]);
    expect(entries[0]!.data).toMatchObject({ flavor: "MLNX_OFED", version: "5.8-1.1.2.1" });
    expect(entries[1]!.data).toMatchObject({ driverVersion: "470.141.03", cudaVersion: "11.4" });
  });

  test("the seed's placeholder `MLNX_OFED_LINUX-*.*-*.*.*.*:` is still read as ofed_info (from the command) and named a problem", () => {
    const text = SEED_SESSION.replace("MLNX_OFED_LINUX-5.8-1.1.2.1:", "MLNX_OFED_LINUX-*.*-*.*.*.*:");
    const [ofed] = analyzeTranscript("session.txt", text);
    expect(ofed!.kind).toBe("ofed_info");
    expect(ofed!.problems?.map((p) => p.code)).toContain("ofed_info.unrecognised");
  });

  test("a single capture stays one entry named after its file", () => {
    const one = SEED_SESSION.split("\n").slice(14).join("\n");
    expect(splitTranscript(one)).toBeNull();
    expect(analyzeTranscript("gids.txt", one).map((e) => [e.file, e.kind])).toEqual([["gids.txt", "show_gids"]]);
  });

  test("any text splits without throwing; every segment starts at a command line, in order", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom("$ show_gids", "nvidia-smi", "ibstat"))), (ls) => {
        const text = ls.join("\n");
        const segs = splitTranscript(text);
        if (segs === null) return;
        const lines = splitLines(text);
        expect(segs.length).toBeGreaterThanOrEqual(2);
        segs.forEach((seg, k) => {
          expect(commandOfLine(lines[seg.line - 1]!)).toBe(seg.command);
          if (k > 0) expect(seg.line).toBeGreaterThan(segs[k - 1]!.line);
        });
      }),
    );
  });
});

// A tool labelled in prose (`nvidia-smi:` over its table, shape seen at https://github.com/NVIDIA/nccl-tests/issues/66)
// and a file named as a label over its contents (`training_log.txt:` after a bare `show_gids`, shape seen at
// https://github.com/NVIDIA/nccl/issues/1510). Our hosts and numbers.
describe("labels that cut a session", () => {
  test("`nvidia-smi:` alone on its line is that command", () => {
    expect(commandOfLine("nvidia-smi:")).toBe("nvidia-smi");
    expect(commandOfLine("nvidia-smi: the GPUs below")).toBeNull();
  });

  test("a failed test's line, then an nvidia-smi table labelled in prose: two entries", () => {
    const text = [
      "all_reduce_perf -b 8 -e 128M -f 2 -g 1",
      "",
      "Test CUDA failure common.cu:892 'unknown error'",
      "",
      "nvidia-smi:",
      "+-----------------------------------------------------------------------------+",
      "| NVIDIA-SMI 525.85.12    Driver Version: 525.85.12    CUDA Version: 12.0     |",
      "|-------------------------------+----------------------+----------------------+",
      "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
      "|===============================+======================+======================|",
      "|   0  NVIDIA A10          On   | 00000000:17:00.0 Off |                    0 |",
      "+-------------------------------+----------------------+----------------------+",
    ].join("\n");
    expect(analyzeTranscript("s.txt", text).map((e) => e.kind)).toEqual(["nccl_tests", "nvidia_smi"]);
  });

  test("a file label after a capture command starts the file's own entry", () => {
    const text = [
      "show_gids",
      "DEV     PORT    INDEX   GID                                     IPv4            VER     DEV",
      "---     ----    -----   ---                                     ------------    ---     ---",
      "mlx5_2  1       3       0000:0000:0000:0000:0000:ffff:0a21:0007 10.33.0.7       v2      eth2",
      "",
      "run.log:",
      "gx-7:201:201 [0] NCCL INFO Bootstrap : Using eth2:10.33.0.7<0>",
      "NCCL version 2.21.5+cuda12.4",
      "gx-7:201:330 [0] NCCL INFO NET/IB : Using [0]mlx5_2:1/RoCE [RO]; OOB eth2:10.33.0.7<0>",
      "gx-7:201:330 [0] NCCL INFO Using network IB",
    ].join("\n");
    expect(analyzeTranscript("s.txt", text).map((e) => e.kind)).toEqual(["show_gids", "nccl_log"]);
  });

  // A mail archive's `ibv_devinfo:` over the prompt that ran it (shape seen in a mailing list's HTML archive,
  // index-file 44268455129): the label announces the command, it did not print nothing.
  test("a label naming the command typed right under it is one capture, not an empty one", () => {
    const text = ["ibv_devinfo:", "", "admin@frontend:~$ ibv_devinfo", "hca_id: mthca0", "\tfw_ver:\t\t\t\t3.5.0"];
    expect(splitTranscript(text.join("\n"))).toBeNull();
    // A command that printed nothing before another command is still its own entry.
    const two = ["$ ofed_info -s", "", "$ ibv_devinfo", "hca_id: mthca0"].join("\n");
    expect(splitTranscript(two)?.map((s) => s.command)).toEqual(["ofed_info -s", "ibv_devinfo"]);
  });

  test("a file label with no capture command beside it cuts nothing", () => {
    expect(splitTranscript("all_reduce_perf -b 8\nout.log:\n# nThread 1 nGpus 1\n")).toBeNull();
  });
});

// A tool that printed no output of its own under its typed command (`Failed to run topology matrix`, shape seen at
// https://github.com/NVIDIA/NVSentinel/issues/1485): the command says which tool failed.
describe("one capture command over output no format recognises", () => {
  test("is that command's kind, with the problem its analyser finds", () => {
    const [e] = analyzeTranscript("t.txt", "$ nvidia-smi topo -m\nFailed to run topology matrix\n$ echo $?\n255\n");
    expect(e!.kind).toBe("nvidia_smi_topo");
    expect((e!.problems ?? []).length).toBeGreaterThan(0);
  });

  test("two commands, or an nccl-tests binary, decide nothing this way", () => {
    expect(soleCommandKind("$ ibstat\n$ nvidia-smi\n")).toBeNull();
    expect(soleCommandKind("$ ./build/all_reduce_perf -g 8\nsegfault\n")).toBeNull();
    expect(soleCommandKind("$ ibstat\nibpanic: no IB device\n")).toBe("ibstat");
  });
});

// `rdma link show` typed in a pod, then `ibv_devinfo` failing there (shape seen at
// https://github.com/k8snetworkplumbingwg/sriov-cni/issues/348); own devices. iproute2's `rdma link` is a capture
// command (https://man7.org/linux/man-pages/man8/rdma-link.8.html): the session is two captures, not one.
describe("`rdma link show` is a capture command of its own", () => {
  const text = [
    "root@trainer-0:/# rdma link show",
    "link bnxt_re0/1 state ACTIVE physical_state LINK_UP",
    "link bnxt_re1/1 state DOWN physical_state DISABLED",
    "",
    "root@trainer-0:/# ibv_devinfo",
    "libibverbs: Warning: Driver bnxt_re does not support the kernel ABI of 6 (supports 1 to 1) for device /sys/class/infiniband/bnxt_re0",
    "No IB devices found",
  ].join("\n");

  test("the failing ibv_devinfo under it is read as ibv_devinfo with no device", () => {
    const entries = analyzeTranscript("pod.txt", text);
    expect(entries.map((e) => e.kind)).toEqual(["ibdev2netdev", "ibv_devinfo"]);
    expect(entries[1]!.data).toMatchObject({ devices: [], noDevices: true });
  });

  test("its forms as typed name the command; other rdma subcommands are none", () => {
    expect(commandOfLine("$ rdma link show mlx5_0/1")).toBe("rdma link show mlx5_0/1");
    expect(commandOfLine("sudo rdma -d link")).toBe("rdma -d link");
    expect(commandOfLine("rdma resource show")).toBeNull();
  });
});

// A page quotes NCCL's device line, then shows the host tool it corresponds to piped through grep (shape seen in a
// Chinese translation of a network-debugging guide committed to a public repository, BBuf/how-to-optim-algorithm-in-
// cuda, ml-engineering/…AI系统中的网络 debug.md). Hosts and addresses ours.
describe("a capture quoted above the one command typed, and that command's output", () => {
  const page = [
    "如果集群走的是IB，日志里应该出现`NET/IB`：",
    "```",
    "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [RO]; OOB eno1:10.40.2.7<0>",
    "```",
    "对应的 `ibstat` 输出大概是这样：",
    "```",
    "$ ibstat | grep mlx5",
    "CA 'mlx5_0'",
    "CA 'mlx5_1'",
    "CA 'mlx5_2'",
    "CA 'mlx5_3'",
    "```",
  ].join("\n");

  test("a command piped through a filter is still the command", () => {
    expect(commandOfLine("$ ibstat | grep mlx5", true)).toBe("ibstat");
    expect(commandOfLine("ibv_devinfo | grep -e hca_id -e state", true)).toBe("ibv_devinfo");
    // Cutting a session into one capture per command stays with unfiltered commands.
    expect(commandOfLine("$ ibstat | grep mlx5")).toBeNull();
  });

  test("each is read on its own: the NCCL line above, the tool's lines below", () => {
    const entries = analyzeTranscript("page.md", page);
    expect(entries.map((e) => [e.file, e.kind])).toEqual([
      ["page.md", "nccl_log"],
      ["page.md:7 (ibstat)", "ibstat"],
    ]);
    const log = entries[0]!.data as { network: string; nics: { device: string }[] };
    expect(log.network).toBe("IB");
    expect((entries[1]!.data as { devices: { name: string }[] }).devices.map((d) => d.name)).toEqual([
      "mlx5_0",
      "mlx5_1",
      "mlx5_2",
      "mlx5_3",
    ]);
  });

  test("prose alone above the command is no capture: one entry, as before", () => {
    const entries = analyzeTranscript("page.md", page.split("\n").slice(4).join("\n"));
    expect(entries.map((e) => e.kind)).toEqual(["ibstat"]);
  });
});

// A job script keeps what a node printed in its header comment: the command as typed at a csh prompt, run through the
// batch launcher (`user@login04% srun -N1 -n1 nvidia-smi topo -mp`), then the matrix (shape seen in a script committed
// to a public repository, index-file 3162292623). Hosts ours.
describe("a capture command typed at a csh prompt, behind a launcher", () => {
  test("the prompt and the launcher's options come off: the command is the tool's", () => {
    expect(commandOfLine("ops@login04% srun -N1 -n1 nvidia-smi topo -mp")).toBe("nvidia-smi topo -mp");
    expect(commandOfLine("$ srun -N 1 -n 1 ibstat")).toBe("ibstat");
    expect(commandOfLine("mpirun --np 2 ibv_devinfo -v")).toBe("ibv_devinfo -v");
    // A launcher running anything else is no capture command.
    expect(commandOfLine("$ srun -N1 -n1 hostname")).toBeNull();
  });

  test("the commented matrix under it reads as nvidia-smi topo -m", () => {
    const script = [
      "#! /bin/bash",
      "#",
      "# ops@login04% srun -N1 -n1 nvidia-smi topo -mp",
      "# \t GPU0\tGPU1\tmlx5_0\tmlx5_1\tCPU Affinity\tNUMA Affinity",
      "# GPU0\t X \tSYS\tPIX\tSYS\t0-11\t0",
      "# GPU1\t SYS\t X \tSYS\tPIX\t12-23\t1",
      "# mlx5_0 PIX\tSYS\t X \tSYS\t\t",
      "# mlx5_1 SYS\tPIX\tSYS\t X \t\t",
      "#",
      "while getopts n: argv; do",
      '    case "$argv" in n) tasks=$OPTARG;; esac',
      "done",
    ].join("\n");
    const topo = analyzeTranscript("job.sh", script).find((e) => e.kind === "nvidia_smi_topo");
    expect(topo?.data).toMatchObject({ devices: ["GPU0", "GPU1", "mlx5_0", "mlx5_1"] });
  });
});
