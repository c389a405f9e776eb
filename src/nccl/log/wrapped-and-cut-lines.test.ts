/**
 * NCCL lines a page wrapped, cut or quoted inside something else, each read as NCCL printed it. Hosts, addresses and
 * numbers ours; the shapes as seen where each test says.
 */
import { describe, expect, test } from "vitest";
import { analyzeText } from "../../analyze/index.js";

type LogData = {
  verdict: string;
  network: string | null;
  ncclVersions: string[];
  devices: { name: string; port: number; linkLayer: string }[];
  evidence: Record<string, string | null>;
};
const data = (lines: string[]) => analyzeText("paste.txt", `${lines.join("\n")}\n`).data as LogData;

// A blog's quote of NCCL's start-up whose `NET/IB : Using` list a page wrapped over five lines, the list's items
// indented under it (shape seen in a cloud vendor's topology blog committed to a public repository, index-file
// 57810388635; NCCL prints the list on one line, src/transport/net_ib.cc `NET/IB : Using%s ; OOB %s`).
describe("a device list wrapped onto the lines after `NET/IB : Using`", () => {
  const wrapped = [
    "NCCL INFO NET/IB : Using [0]mlx5_ib0:1/IB/SHARP [1]mlx5_ib1:1/IB/SHARP",
    "                        [2]mlx5_ib2:1/IB/SHARP [3]mlx5_ib3:1/IB/SHARP",
    "                        [4]mlx5_an0:1/RoCE [RO]; OOB ib0:10.40.2.17<0>",
    "NCCL INFO Using network IBext_v8",
  ];

  test("every device of the list, in NCCL's order", () => {
    const d = data(wrapped);
    expect(d.devices.map((x) => `${x.name}:${x.linkLayer}`)).toEqual([
      "mlx5_ib0:IB",
      "mlx5_ib1:IB",
      "mlx5_ib2:IB",
      "mlx5_ib3:IB",
      "mlx5_an0:RoCE",
    ]);
    expect(d.network).toBe("IBext_v8");
  });

  test("the same list wrapped with a shell's `\\` reads the same", () => {
    const d = data([`${wrapped[0]} \\`, `${wrapped[1]} \\`, wrapped[2]!, wrapped[3]!]);
    expect(d.devices).toHaveLength(5);
  });

  test("a list closed by its `; OOB` takes no line after it, and prose after an open one ends it", () => {
    const closed = data(["NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.40.2.17<0>", "[1]mlx5_1:1/IB"]);
    expect(closed.devices.map((x) => x.name)).toEqual(["mlx5_0"]);
    const prose = data(["NCCL INFO NET/IB : Using [0]mlx5_0:1/IB", "That is the only HCA [1]mlx5_1:1/IB it saw."]);
    expect(prose.devices.map((x) => x.name)).toEqual(["mlx5_0"]);
  });
});

// A design note quoting a trace with the chain's head elided (`... -> enqueue.cc:3053 -> 2`, shape seen in a design
// note committed to a public repository): the chain returned through ncclEnqueueCheck, the entry of every collective
// (src/enqueue.cc), so the communicator had been built and the failure is the collective's, not the init's.
test("a return chain whose head a page elided is read from the step it kept", () => {
  const d = data([
    "    NET/IB : Using [0]usb4_rdma0:1/RoCE [RO]; OOB enp5s0:10.7.3.21<0>",
    "    Using network IB",
    "    Channel 02/0 : 9[0] -> 4[0] [send]    via NET/IB/0",
    "    misc/ibvwrap.cc:309 NCCL WARN Call to ibv_modify_qp failed with 101 Network is unreachable, on dev usb4_rdma0:1",
    "    transport/net_ib/connect.cc:429 -> 2",
    "    ... -> enqueue.cc:3053 -> 2",
  ]);
  expect([d.verdict, d.evidence.communicator]).toEqual(["rdma_no_gdr", "runtime_lines"]);
});

// src/plugin/net.cc: `WARN("Error: network %s not found.", netName)` when NCCL_NET names a network no module offers;
// the init returns ncclInvalidUsage. A plugin's name may hold a space (`AWS Libfabric`; shape seen in an HPC centre's
// documentation committed to a public repository).
test("`network AWS Libfabric not found` is the failed init it causes", () => {
  const d = data(["nid001204:41177:41190 [1] net.cc:626 NCCL WARN Error: network AWS Libfabric not found."]);
  expect([d.verdict, d.network]).toEqual(["init_failed", null]);
});

// A process that died inside NCCL's init, as its backtrace shows: glibc's backtrace under Open MPI's signal handler
// with `libnccl.so.2(pncclCommInitRank+0x1e2)` (shape seen in a driver developer's notes committed to a public
// repository), Abseil's handler naming `bootstrapRoot()` under Ray (shape seen at
// https://github.com/CCI-MOC/roce-testing, a vLLM log). NCCL's API functions are also exported as `pnccl…`.
describe("a crash whose backtrace stops inside NCCL's init", () => {
  test("Open MPI's handler and a frame of pncclCommInitRank: init_failed", () => {
    const d = data([
      "gpu-a1:30211:30211 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.1.0.4<0>",
      "[gpu-a1:30211] *** Process received signal ***",
      "[gpu-a1:30211] Signal: Segmentation fault (11)",
      "[gpu-a1:30211] [ 5] /usr/lib/x86_64-linux-gnu/libnccl.so.2(+0x8e6e7)[0x7f3a55c8e6e7]",
      "[gpu-a1:30211] [ 6] /usr/lib/x86_64-linux-gnu/libnccl.so.2(pncclCommInitRank+0x1e2)[0x7f3a55c8ffb2]",
      "[gpu-a1:30211] *** End of error message ***",
    ]);
    expect(d.verdict).toBe("init_failed");
  });

  test("Abseil's handler naming bootstrapRoot, after a framework's NCCL version: an NCCL log, init_failed", () => {
    const r = analyzeText(
      "serve.log",
      [
        "INFO 05-21 10:03:00 [pynccl.py:69] vLLM is using nccl==2.26.2",
        "*** SIGSEGV received at time=1747821782 on cpu 12 ***",
        "PC: @     0x7f3c1a29e70c  (unknown)  bootstrapRoot()",
        "    @     0x7f40d14bc2f6         32  (unknown)",
        "Fatal Python error: Segmentation fault",
      ].join("\n"),
    );
    expect(r.kind).toBe("nccl_log");
    expect((r.data as LogData).verdict).toBe("init_failed");
    expect((r.data as LogData).ncclVersions).toEqual(["2.26.2"]);
  });

  test("a backtrace of a hung process in ncclCommInitRank, with no signal, is no crash", () => {
    const d = data([
      "gpu-a1:30211:30211 [0] NCCL INFO Using network IB",
      "#4  0x00007f3a55c8ffb2 in ncclCommInitRank () from /usr/lib/x86_64-linux-gnu/libnccl.so.2",
    ]);
    expect(d.verdict).not.toBe("init_failed");
  });
});

// Recent NCCL names the function after the source of a WARN: src/debug.cc prints `"[%d] %s:%d (%s) NCCL WARN %s"`
// (https://github.com/NVIDIA/nccl). Quoted alone in an incident note (shape seen in a note committed to a public
// repository, index-file 66686345032), the line is still NCCL's failure, and its verbs call names the IB transport.
test("a WARN with the function NCCL names after its source, quoted alone under prose", () => {
  const r = analyzeText(
    "incident.md",
    [
      "NCCL on every rank then failed with",
      "",
      "```",
      "misc/ibvwrap.cc:380 (wrap_ibv_modify_qp) NCCL WARN Call to ibv_modify_qp failed with 61",
      "No data available, on dev roceP3p1s0f1:1, curr state INIT, next state RTR, local GID index 3",
      "```",
    ].join("\n"),
  );
  expect(r.kind).toBe("nccl_log");
  expect([(r.data as LogData).verdict, (r.data as LogData).network]).toEqual(["init_failed", "IB"]);
  // With its record's prefix, the host counts as on every record.
  const hosted = data([
    "gpu-a:41:52 [0] misc/ibvwrap.cc:380 (wrap_ibv_modify_qp) NCCL WARN Call to ibv_modify_qp failed with 61",
    "gpu-b:43:55 [1] misc/ibvwrap.cc:380 (wrap_ibv_modify_qp) NCCL WARN Call to ibv_modify_qp failed with 61",
  ]) as LogData & { nNodes: number };
  expect(hosted.nNodes).toBe(2);
});

// ncclProxyProgress prints `proxy.cc:N -> code [Progress Thread]` as its thread stops (src/proxy.cc,
// https://github.com/NVIDIA/nccl): that thread moves a built communicator's network operations, so a socket transport
// failing there failed a run, not its init (shape seen in a Slurm job's `.out` committed to a public repository,
// index-file 14056908231). Own hosts.
test("a socket failure out of the proxy's progress thread is a failed run on sockets, not a failed init", () => {
  const d = data([
    "cn-08:4110:4133 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer cn-07<38211>",
    "cn-08:4110:4133 [0] NCCL INFO misc/socket.cc:752 -> 6",
    "cn-08:4110:4133 [0] NCCL INFO transport/net_socket.cc:474 -> 6",
    "cn-08:4110:4133 [0] NCCL INFO transport/net.cc:1298 -> 6",
    "cn-08:4110:4133 [0] NCCL INFO proxy.cc:874 -> 6 [Progress Thread]",
  ]);
  expect([d.verdict, d.evidence.communicator]).toEqual(["socket", "runtime_lines"]);
  // The same chain from another thread says nothing of a built communicator.
  const other = data([
    "cn-08:4110:4133 [0] misc/socket.cc:50 NCCL WARN socketProgress: Connection closed by remote peer cn-07<38211>",
    "cn-08:4110:4133 [0] NCCL INFO transport/net_socket.cc:474 -> 6",
    "cn-08:4110:4133 [0] NCCL INFO proxy.cc:874 -> 6",
  ]);
  expect(other.evidence.communicator).toBeNull();
});
