import { describe, expect, test } from "vitest";
import { detectKind } from "../../analyze/detect.js";
import { analyzeText } from "../../analyze/index.js";
import { ANALYZERS } from "../../analyze/registry.js";
import { analyzeNcclLog } from "./analyzer.js";

const data = (lines: string[]) => analyzeNcclLog(`${lines.join("\n")}\n`).data;

// Every NCCL record starts `host:pid:tid [dev] NCCL LEVEL` (src/include/debug.h, src/debug.cc in
// https://github.com/NVIDIA/nccl). Shapes where some hosts print only Trees / comm / proxy lines were seen in
// https://github.com/NVIDIA/nccl-tests/issues/311 ; hosts seen only on WARN lines in https://github.com/NVIDIA/nccl/issues/1837 ;
// topology dumps only in https://github.com/NVIDIA/nccl/issues/1189 .
describe("hosts are counted from every NCCL record, whatever it says", () => {
  test("hosts that print only Trees, comm or proxy lines count", () => {
    expect(
      data([
        "nodea:410:440 [0] NCCL INFO Using network IB",
        "nodeb:520:551 [0] NCCL INFO comm 0x5b1d0e0 rank 2 nRanks 8 nNodes 4 localRanks 2 localRank 0 MNNVL 0",
        "nodec:630:661 [1] NCCL INFO Trees [0] 4/-1/-1->5->6 [1] -1/-1/-1->5->4",
        "noded:740:771 [0] NCCL INFO [Proxy Service UDS] Device 0 CPU core 16",
      ]).hosts,
    ).toBe(4);
  });

  test("hosts seen only on WARN and topology lines count; a redacted or stripped prefix names no host", () => {
    expect(
      data([
        "trainer-0:88:120 [0] NCCL INFO === System : maxBw 24.0 totalBw 24.0 ===",
        "trainer-1:91:131 [3] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.1.2.3<40123> failed : Software caused connection abort",
        "<node>:<pid>:<tid> [0] NCCL INFO Bootstrap : Using eth0:10.1.2.4<0>",
        "[0] NCCL INFO Channel 00/02 : 0 1",
        // A line that lost its colon (seen in https://github.com/NVIDIA/nccl/issues/914): no tid, so no host.
        "trainer-188:120 [0] NCCL INFO proxy.cc:859 -> 6",
      ]).hosts,
    ).toBe(2);
  });

  // A lab notebook's quote of two nodes' lines, indented under its prose, pids masked as `xxx` and the second host's
  // records aligned by an extra space; hosts named by their address (shape seen in a lab notebook committed to a
  // public repository, index-file 53351888797).
  test("hosts named by an address, indented, their pids masked and their devices aligned, count", () => {
    expect(
      data([
        "With NCCL_DEBUG=INFO the log shows:",
        "  10-42-7-18:xxx [0] NCCL INFO Using network Socket",
        "  10-42-7-18:xxx [0] NCCL INFO ncclCommInitRankConfig comm 0x... rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 6000 commId 0x1 - Init START",
        "  10-42-9-77:xxx  [0] NCCL INFO ncclCommInitRankConfig comm 0x... rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 6000 commId 0x1 - Init COMPLETE",
      ]).hosts,
    ).toBe(2);
  });
});

// RCCL prints its banner without a host (`RCCL version : 2.21.5-HEAD:…`, seen in https://github.com/ROCm/rccl-tests/issues/163);
// vLLM and SGLang name the library they loaded (`vLLM is using nccl==2.20.5`, vllm/distributed/device_communicators/pynccl.py;
// seen in https://github.com/vllm-project/vllm/issues/9329 and https://github.com/sgl-project/sglang/issues/3820).
describe("the version from RCCL's banner or a framework's line when NCCL's banner is missing", () => {
  test("RCCL banner", () => {
    expect(
      data([
        "box1:71:71 [0] NCCL INFO ROCr version 1.14",
        "RCCL version : 2.22.3-develop:0a1b2c3",
        "HIP version  : 6.3.1",
      ]).ncclVersions,
    ).toEqual(["2.22.3"]);
  });

  test("a framework's `nccl==` line behind its own prefix", () => {
    expect(
      data([
        "(WorkerProc pid=77) INFO 03-02 10:11:12 pynccl.py:70] vLLM is using nccl==2.19.3",
        "[2025-03-02 10:11:12 TP1] sglang is using nccl==2.19.3",
        "box2:77:77 [1] NCCL INFO cudaDriverVersion 12040",
      ]).ncclVersions,
    ).toEqual(["2.19.3"]);
  });

  // A harness that logs the library it dlopen'ed (`loaded_library=<NCCL_ROOT>/lib/libnccl.so.2.21.5`, shape seen in a
  // reproduction harness's rank logs committed to a public repository: Mycroft-NCCL-reproduction, results/samples/…/rank0.log)
  // and ldd's mapping of the soname to its file: the file's name carries the version (NCCL's makefiles link
  // libnccl.so.MAJOR.MINOR.PATCH, https://github.com/NVIDIA/nccl/blob/master/src/Makefile).
  test("the library file a process loaded: a harness's `loaded_library=` and ldd's `=>`", () => {
    const record = "<HOST>:<PID>:<TID> [0] NCCL INFO comm <PTR_0> rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0";
    expect(
      data([
        "requested_library=/opt/nccl/lib/libnccl.so.2.23.4",
        "loaded_library=/opt/nccl/lib/libnccl.so.2.23.4",
        record,
      ]).ncclVersions,
    ).toEqual(["2.23.4"]);
    expect(
      data(["\tlibnccl.so.2 => /usr/lib/x86_64-linux-gnu/libnccl.so.2.19.3 (0x00007f2a1c000000)", record]).ncclVersions,
    ).toEqual(["2.19.3"]);
    // A library only asked for, or a file named in words, is not the one loaded.
    expect(data(["requested_library=/opt/nccl/lib/libnccl.so.2.23.4", record]).ncclVersions).toEqual([]);
    expect(data(["I copied libnccl.so.2.23.4 into the image", record]).ncclVersions).toEqual([]);
  });

  test("a pip listing of another package names no NCCL version", () => {
    expect(data(["nvidia-nccl-cu12==2.19.3", "box2:77:77 [1] NCCL INFO cudaDriverVersion 12040"]).ncclVersions).toEqual(
      [],
    );
  });
});

// NCCL_DEBUG_SUBSYS=COLL prints `AllReduce: opCount … comm 0x… [nranks=8] stream 0x…` per call (src/enqueue.cc in
// https://github.com/NVIDIA/nccl ; seen in https://github.com/pytorch/pytorch/issues/23363 with the host stripped and in
// https://github.com/NVIDIA/nccl/issues/1470); `ncclCommInitRank comm 0x… rank 4 nranks 16 … - Init START` (src/init.cc;
// seen in https://github.com/uccl-project/uccl/issues/172) comes before any Init COMPLETE.
describe("the rank count from collective trace and Init START lines", () => {
  test("COLL trace lines, hosted or not", () => {
    const d = data([
      "NCCL version 2.5.6+cuda10.1",
      "[0] NCCL INFO Broadcast: opCount 0 sendbuff 0x7f10 recvbuff 0x7f10 count 64 datatype 7 op 0 root 0 comm 0x7e00 [nranks=4] stream 0x7f20",
      "hx-1:501:530 [1] NCCL INFO ReduceScatter: opCount 3 sendbuff 0x7f10 recvbuff 0x7f10 count 64 datatype 7 op 0 root 0 comm 0x7e00 [nranks=4] stream 0x7f20",
    ]);
    expect({ ranks: d.ranks, hosts: d.hosts }).toEqual({ ranks: 4, hosts: 1 });
  });

  test("Init START lines without a completion", () => {
    expect(
      data([
        "hy-2:900:930 [2] NCCL INFO ncclCommInitRank comm 0x55aa rank 2 nranks 24 cudaDev 2 nvmlDev 2 busId 3b000 commId 0x11 - Init START",
      ]).ranks,
    ).toBe(24);
  });

  test("a message that merely has a colon is no trace line", () => {
    expect(data(["hy-2:900:930 [2] NCCL INFO Allocated: 4 buffers [nranks=9]"]).ranks).toBe(0);
  });
});

// NCCLCHECK prints each frame of a failed call's return as `file.cc:line -> code` (src/include/checks.h in
// https://github.com/NVIDIA/nccl); through init.cc it is the communicator's init that failed. Seen without any WARN in
// https://github.com/NVIDIA/nccl/issues/914 and on a socket run in https://github.com/horovod/horovod/issues/3203 .
// Lines only a built communicator prints: `Destroyed comm` (ncclCommDestroy, NCCL < 2.13), a failed work completion
// (`NET/IB : Got completion … with error 12`, net_ib.cc's progress), seen in https://github.com/NVIDIA/nccl-tests/issues/24
// and https://github.com/Lightning-AI/lit-llama/issues/380 .
describe("init failure from init.cc return chains; runtime failure after a communicator ran", () => {
  const verdict = (lines: string[]) => {
    const d = data(lines);
    return { verdict: d.verdict, communicator: d.evidence.communicator };
  };

  test("an init.cc chain with no WARN, on IB and on sockets", () => {
    expect(
      verdict([
        "ma-1:71:90 [0] NCCL INFO bootstrap.cc:221 -> 2",
        "ma-1:71:90 [0] NCCL INFO init.cc:1410 -> 2",
        "ma-1:71:90 [0] NCCL INFO group.cc:64 -> 2 [Async thread]",
      ]),
    ).toEqual({ verdict: "init_failed", communicator: null });
    expect(
      verdict([
        "ma-1:71:90 [0] NCCL INFO Using network Socket",
        "ma-1:71:90 [0] NCCL INFO graph/topo.cc:640 -> 2",
        "ma-1:71:90 [0] NCCL INFO init.cc:498 -> 2",
      ]).verdict,
    ).toBe("init_failed");
  });

  test("an init.cc chain after Init COMPLETE, or returning 0, is no init failure", () => {
    expect(
      verdict([
        "ma-1:71:90 [0] NCCL INFO Using network Socket",
        "ma-1:71:90 [0] NCCL INFO comm 0x55 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE",
        "ma-1:71:90 [0] NCCL INFO init.cc:1702 -> 1",
      ]).verdict,
    ).toBe("socket");
    expect(verdict(["ma-1:71:90 [0] NCCL INFO init.cc:1702 -> 0"]).verdict).toBe("unknown");
  });

  test("an error after `Destroyed comm` or a work completion is a runtime failure", () => {
    expect(
      verdict([
        "mb-2:81:99 [0] transport/net_ib.cc:1100 NCCL WARN NET/IB : Got completion from peer mb-3<4021> with error 12, opcode 0, len 0, vendor err 129",
        "mb-2:81:99 [0] NCCL INFO transport/net.cc:1000 -> 2 [Proxy Thread]",
      ]),
    ).toEqual({ verdict: "unknown", communicator: "runtime_lines" });
    expect(
      verdict([
        "mb-2:81:81 [0] NCCL INFO Destroyed comm 0x7f00aa rank 1",
        "mb-2:81:81 [1] init.cu:201 NCCL WARN Cuda failure 'an illegal memory access was encountered'",
      ]),
    ).toEqual({ verdict: "unknown", communicator: "runtime_lines" });
  });
});

// A collector that keeps only the level and message (`NCCL INFO comm 0x… rank 3 nranks 8 … - Init COMPLETE`), seen in
// https://github.com/ROCm/rccl/issues/1137 .
describe("lines cut down to `NCCL INFO …` are read", () => {
  test("the rank count and completion from bare lines", () => {
    const d = data([
      "NCCL INFO Connected all rings",
      "NCCL INFO 16 coll channels, 0 nvls channels, 16 p2p channels, 2 p2p channels per peer",
      "NCCL INFO comm 0x2b40 rank 1 nranks 6 cudaDev 1 busId 2a000 commId 0x77 - Init COMPLETE",
    ]);
    expect({ ranks: d.ranks, verdict: d.verdict, communicator: d.evidence.communicator, hosts: d.hosts }).toEqual({
      ranks: 6,
      verdict: "unknown",
      communicator: "init_complete",
      hosts: 0,
    });
  });
});

// A fork that brackets the process as `[host:pid=N]` after its own `[file:line]`, here behind `grep`'s file names
// (seen in https://github.com/NVIDIA/nccl/pull/1618).
describe("a fork's `[host:pid=N] NCCL WARN` lines", () => {
  const lines = [
    "r_3.log:[0003/0064][2026-01-02 10:00:01,100] [misc/socket.cc:586] [hz7:pid=4410] NCCL WARN socketPollConnect poll() returned 1, no POLLOUT events",
    "r_4.log:[0004/0064][2026-01-02 10:00:01,101] [misc/socket.cc:586] [hz7:pid=4411] NCCL WARN socketPollConnect poll() returned 1, no POLLOUT events",
    "r_9.log:[0009/0064][2026-01-02 10:00:01,109] [misc/socket.cc:551] [hz8:pid=5120] NCCL INFO socketPollConnect: connect returned Connection timed out, retrying (1/34)",
  ];
  test("are an NCCL log, with their hosts", () => {
    expect(detectKind(`${lines.join("\n")}\n`, ANALYZERS).kind).toBe("nccl_log");
    expect(data(lines).hosts).toBe(2);
  });

  test("after a usual record in the same text, a fork's record is read from its own bracket, not the line before", () => {
    const mixed = [
      "gpu-a:11:12 [0] NCCL INFO Using network IB",
      "[init.cc:100] [hz7:pid=4410] NCCL INFO Using network IB",
      "[init.cc:100] [hz8:pid=5120] NCCL INFO Using network IB",
    ];
    const d = data(mixed);
    expect([d.hosts, d.processes, d.network]).toEqual([3, 3, "IB"]);
  });
});

// NCCL 2.3 printed WARNs as `host:pid:tid [dev] include/socket.h:344 WARN …` (no `NCCL`, src/include/debug.h of v2.3);
// cut to the source and message in https://github.com/NVIDIA/nccl/issues/210 .
describe("an old WARN cut to `file.h:line WARN …`", () => {
  const lines = [
    "include/socket.h:350 WARN Socket creation failed : Address family not supported by protocol",
    "include/socket.h:350 WARN Socket creation failed : Address family not supported by protocol",
  ];
  test("is an NCCL log line, read as a WARN", () => {
    expect(detectKind(`${lines.join("\n")}\n`, ANALYZERS).kind).toBe("nccl_log");
    const r = analyzeNcclLog(`${lines.join("\n")}\n`);
    expect(r.data.warnings.length).toBeGreaterThan(0);
  });

  test("a source name without WARN, or prose naming a file, is not", () => {
    expect(
      detectKind(
        "See include/socket.h:350 for the message.\nThe WARN is harmless.\nmain.py:12 INFO started\n",
        ANALYZERS,
      ).kind,
    ).toBe("unknown");
  });
});

// NCCL's banner glued to a progress bar, then only PyTorch's ProcessGroupNCCL watchdog lines
// (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp; seen in https://github.com/pytorch/pytorch/issues/118369).
describe("NCCL's banner beside PyTorch's ProcessGroupNCCL lines", () => {
  const watchdog =
    "[E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=900, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600300 milliseconds before timing out.";
  test("is an NCCL log with its version", () => {
    const text = `Epoch 1:  40%|████      | 40/100 [00:10<00:15, 4.00it/s]NCCL version 2.19.3+cuda12.2\n${watchdog}\n${watchdog}\n`;
    expect(detectKind(text, ANALYZERS).kind).toBe("nccl_log");
    expect(analyzeNcclLog(text).data.ncclVersions).toEqual(["2.19.3"]);
  });

  // Alone they are still PyTorch's report of an NCCL collective that timed out (caller-lines.ts): an NCCL log whose
  // network and verdict are unknown, read weakly so any other kind's lines win.
  test("the watchdog lines alone are an NCCL log with no version, network or verdict", () => {
    expect(detectKind(`${watchdog}\n${watchdog}\n`, ANALYZERS).kind).toBe("nccl_log");
    const d = analyzeNcclLog(`${watchdog}\n${watchdog}\n`).data;
    expect([d.ncclVersions, d.network, d.verdict]).toEqual([[], null, "unknown"]);
  });
});

// `Init timings: rank %d nranks %d total …` (src/init.cc of v2.22.3-1) and `Init timings - %s: rank %d nranks %d …`
// (v2.23.4-1 on), https://github.com/NVIDIA/nccl. A paste of only these lines was seen at
// https://github.com/NVIDIA/nccl/issues/534; hosts and pids are ours.
describe("the rank count from NCCL's init timings", () => {
  test("both layouts of the line give the communicator's size", () => {
    const timing = (layout: string, rank: number) =>
      `trainbox:${4100 + rank}:${4200 + rank} [0] NCCL INFO Init timings${layout}: rank ${rank} nranks 8 total 2.46 (kernels 0.18, bootstrap 1.60, allgathers 0.00, topo 0.52, graphs 0.01, connections 0.12, rest 0.02)`;
    expect(data([timing("", 0), timing("", 5)]).ranks).toBe(8);
    expect(data([timing(" - ncclCommInitRank", 3)]).ranks).toBe(8);
  });
});

// A vendor's troubleshooting page that flattened each node's log into one paragraph (shape seen at
// https://support.huaweicloud.com/intl/en-us/trouble-modelarts/modelarts_trouble_0111.html; hosts and pids are ours):
// a line holding several `host:pid:tid [dev] NCCL INFO` records counts as the records it holds.
describe("a paragraph of NCCL records is an NCCL log", () => {
  const rec = (h: string, pid: number, dev: number, msg: string) => `${h}:${pid}:${pid + 60} [${dev}] NCCL INFO ${msg}`;
  const a = [
    rec("job-w1", 1136, 2, "Channel 00 : 3[5f000] -> 10[5b000] [receive] via NET/IB/0/GDRDMA"),
    rec("job-w1", 1140, 6, "Channel 00 : 14[e1000] -> 15[e9000] via P2P/IPC"),
    rec("job-w1", 1137, 3, "Channel 00 : 11[5f000] -> 16[2d000] [send] via NET/IB/0/GDRDMA"),
  ];
  const b = [
    rec("job-w2", 1139, 2, "Channel 00 : 18[5b000] -> 19[5f000] via P2P/IPC"),
    rec("job-w2", 1138, 1, "Channel 00 : 11[5f000] -> 16[2d000] [receive] via NET/IB/0"),
  ];
  const text = [
    "Symptom",
    "Some nodes print GDR information and some do not.",
    `# Node A ${a.join(" ")} # Node B ${b.join(" ")}`,
  ];

  test("detected, and each record read on its own", () => {
    expect(detectKind(text.join("\n"), ANALYZERS).kind).toBe("nccl_log");
    const d = data(text);
    expect([d.hosts, d.verdict, d.connections.net, d.connections.netGdr]).toEqual([2, "rdma_partial_gdr", 3, 2]);
  });
});

// A fork that glues its brackets, `[host][pid:tid][dev][file:line] NCCL LEVEL`, and prints its return chains as WARNs,
// here behind Ray's actor prefix (shape seen at https://github.com/OpenRLHF/OpenRLHF/issues/795); own hosts.
describe("a fork's glued `[host][pid:tid][dev][file:line]` records", () => {
  const lines = [
    "(ActorModelRayActor pid=3101) [trn-master-0][3101:3180][0][init.cc:1815] NCCL WARN init.cc:1815 -> 5",
    "(ActorModelRayActor pid=3101) [trn-master-0][3101:3180][0][group.cc:74] NCCL INFO /src/group.cc:74 -> 5 [Async thread]",
    "(ActorModelRayActor pid=3101) [trn-master-0][3101:3101][0][init.cc:2103] NCCL WARN init.cc:2103 -> 3",
  ];
  test("are an NCCL log of one host, whose init failed by its init.cc chain", () => {
    expect(detectKind(`${lines.join("\n")}\n`, ANALYZERS).kind).toBe("nccl_log");
    const d = data(lines);
    expect([d.hosts, d.verdict]).toEqual([1, "init_failed"]);
  });

  test("the same chain after an Init COMPLETE is no init failure", () => {
    const done =
      "[trn-master-0][3101:3180][0][init.cc:1540] NCCL INFO comm 0x5a1 rank 0 nranks 2 cudaDev 0 busId 1b000 commId 0x1 - Init COMPLETE";
    expect(data([done, ...lines]).verdict).not.toBe("init_failed");
  });
});

// A fork that names the thread after the device, `host:pid:tid [dev][thread] NCCL WARN`, behind glog's prefix (shape
// seen at https://github.com/meta-pytorch/torchcomms/issues/523); own hosts and paths.
describe("records whose device is followed by the thread's name", () => {
  const lines = [
    "W0309 10:00:01.100000 5100 ncclIbInit:852] gx-r07:5100:5100 [0][main] NCCL WARN /src/transport/net_ib.cc:852 -> 3",
    "W0309 10:00:01.100200 5101 DataSink.h:26] gx-r07:5101:5101 [1][main] NCCL WARN Empty sink for dataset: slow_rank.",
    "I0309 10:00:01.100400 5101 init.cc:101] gx-r08:5101:5101 [1][main] NCCL INFO NCCL version 2.28.3+cuda12.8",
  ];
  test("are an NCCL log, with their hosts and version", () => {
    expect(detectKind(`${lines.join("\n")}\n`, ANALYZERS).kind).toBe("nccl_log");
    const d = data(lines);
    expect([d.hosts, d.ncclVersions]).toEqual([2, ["2.28.3"]]);
  });
});

// PyTorch asked for the NCCL it loaded, its answer on the next line (`(2, 27, 5)`: torch/cuda/nccl.py's version()
// returns a tuple); shape seen in notes committed to a public repository, index-file 53502557570. Hosts our own.
test("the version PyTorch reports under `print(torch.cuda.nccl.version())` is the NCCL version", () => {
  const d = analyzeNcclLog(
    [
      '[ops@gpu-n17 ~]$ python3 -c "import torch; print(torch.cuda.nccl.version())"',
      "(2, 27, 5)",
      "gpu-n17:4411:4411 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.3.0.17<0>",
    ].join("\n"),
  ).data;
  expect(d.ncclVersions).toEqual(["2.27.5"]);
  // A tuple with no such question above it is no version.
  expect(analyzeNcclLog("(2, 27, 5)\ngpu-n17:4411:4411 [0] NCCL INFO Using network IB\n").data.ncclVersions).toEqual(
    [],
  );
});

// A WARN quoted inline after a Chinese sentence's full-width colon (shape seen in notes committed to a public
// repository, index-file 37047300136): the record, and the text is an NCCL log's quote.
test("`…报错：NCCL WARN Duplicate GPU detected …` inline in a sentence is read as the WARN", () => {
  const text =
    "换了小数据集后报错：NCCL WARN Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 1000，检查后发现是配置问题。\n";
  const e = analyzeText("notes.md", text);
  expect(e.kind).toBe("nccl_log");
  expect((e.data as { warnings: { code: string }[] }).warnings.map((w) => w.code)).toContain("NCCL_WARN_DUPLICATE_GPU");
});

// NCCL's banner alone amid a benchmark's own output (the one NCCL line a run without NCCL_DEBUG keeps; shape seen in
// a benchmark's log committed to a public repository): an NCCL log with its version and nothing else decided.
test("NCCL's banner alone amid a program's output is an NCCL log with its version", () => {
  const e = analyzeText(
    "bench.log",
    [
      "Starting Test (2 nodes, 1 task per node)",
      "srun: job 771 has been allocated resources",
      "NCCL version 2.24.3+cuda12.4",
      "Rank 0: 1 MiB 12.1 GB/s",
    ].join("\n"),
  );
  expect(e.kind).toBe("nccl_log");
  expect(e.data).toMatchObject({ ncclVersions: ["2.24.3"], network: null });
});
