/**
 * An error on its way out of a collective's launch, and a fork's version banner. Sources, in
 * https://github.com/NVIDIA/nccl: src/enqueue.cc holds ncclEnqueueCheck, the entry of every collective and
 * point-to-point call (its return chain `enqueue.cc:N -> code` ends a failed launch), and also
 * ncclInitKernelsForDevice, which init.cc calls under NCCLCHECK (a failure there ends in an `init.cc:N -> code` line).
 * The lines are written here in the shapes seen in https://github.com/NVIDIA/TensorRT-LLM/issues/4238 (ranks' `[N]`
 * prefixes, no host) and https://github.com/pytorch/pytorch/issues/99669 (MSCCL's banner).
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";

const launchChain = (rank: number) => [
  `[${rank}] enqueue.cc:1500 NCCL WARN Cuda failure 1 'invalid argument'`,
  `[${rank}] NCCL INFO group.cc:242 -> 1`,
  `[${rank}] NCCL INFO group.cc:573 -> 1`,
  `[${rank}] NCCL INFO enqueue.cc:2229 -> 1`,
];

describe("a collective whose launch failed", () => {
  test("a return chain through enqueue.cc proves a built communicator: not an init failure", () => {
    const r = analyzeNcclLog([...launchChain(1), ...launchChain(0)].join("\n"));
    expect(r.data.verdict).not.toBe("init_failed");
    expect(r.data.evidence?.communicator).toBe("runtime_lines");
  });

  test("the same WARN from ncclInitKernelsForDevice, whose chain ends in init.cc, is an init failure", () => {
    const r = analyzeNcclLog(
      [
        "gpu-a-17:4051:4051 [0] enqueue.cc:99 NCCL WARN Cuda failure 'invalid device function'",
        "gpu-a-17:4051:4051 [0] NCCL INFO init.cc:1853 -> 1",
      ].join("\n"),
    );
    expect(r.data.verdict).toBe("init_failed");
  });

  test("a launch chain beside an init chain keeps the init failure", () => {
    const r = analyzeNcclLog(
      [...launchChain(0), "gpu-a-17:4051:4051 [1] NCCL INFO init.cc:1853 -> 1"]
        .join("\n")
        .replace(/^\[0\]/gm, "gpu-a-17:4051:4051 [0]"),
    );
    expect(r.data.verdict).toBe("init_failed");
  });
});

describe("a fork's banner (MSCCL)", () => {
  test("the NCCL version is the release it is built on", () => {
    const r = analyzeNcclLog(
      [
        "NCCL version 2.12.12.MSCCL.0.7.3+cuda11.7",
        "trainer-0:311:347 [0] NCCL INFO NET/Socket : Using [0]eth0:10.8.0.4<0>",
        "trainer-0:311:347 [0] NCCL INFO Using network Socket",
      ].join("\n"),
    );
    expect(r.data.ncclVersions).toEqual(["2.12.12"]);
  });
});

// include/shm.h and src/transport/shm.cc, p2p.cc set up the transports inside a node while ncclCommInitRank connects
// the rings (https://github.com/NVIDIA/nccl); net.cc tries each network in turn, so `NET/IB : No device found` is
// followed by the socket network, not by the end of init. Shapes seen at https://github.com/pytorch/pytorch/issues/23534
// and https://github.com/NVIDIA/nccl/issues/2057; hosts ours.
describe("errors while the transports are set up, and RDMA's absence", () => {
  test("a CUDA failure in shm.h after the rings' lines, no Init COMPLETE: the socket run's init failed", () => {
    const h = "ip-10-2-3-4:4821:4870 [2] NCCL INFO";
    const r = analyzeNcclLog(
      [
        `${h} Ring 00 : 2[2] -> 3[3] via P2P/IPC`,
        `${h} Ring 01 : 2 -> 11 [send] via NET/Socket/0`,
        "ip-10-2-3-4:4821:4870 [2] include/shm.h:42 NCCL WARN Cuda failure 'invalid argument'",
      ].join("\n"),
    );
    expect(r.data.verdict).toBe("init_failed");
  });

  test("`NET/IB : No device found` and a log that stops there: no init failure, nothing decided", () => {
    const h = "gpu-vm-3:901:901 [0] NCCL INFO";
    const r = analyzeNcclLog(
      [
        "gpu-vm-3:901:901 [0] NCCL INFO NCCL version 2.29.2+cuda12.8",
        `${h} NET/IB : No device found.`,
        `${h} Failed to initialize NET plugin IB`,
      ].join("\n"),
    );
    expect(r.data.verdict).toBe("unknown");
    expect(r.data.warnings.map((w) => w.code)).toContain("NCCL_WARN_NO_IB_DEVICE");
  });
});

// src/transport/net_ib.cc raises `NET/IB : … collective mismatch error, local size %d remote size %d` when a receive a
// collective posted gets another size (https://github.com/NVIDIA/nccl); the WARN and its proxy chain, pdsh-prefixed,
// shape seen at https://github.com/NVIDIA/nccl/issues/969. Own hosts.
describe("a collective mismatch between ranks", () => {
  test("proves the communicator ran: an IB run whose verdict the lines do not decide, not an init failure", () => {
    const r = analyzeNcclLog(
      [
        "10.8.0.4: trn-4:5120:5301 [0] transport/net_ib.cc:1038 NCCL WARN NET/IB : req 0/1 tag 0 peer 10.8.0.9<41007> collective mismatch error, local size 262144 remote size 65536",
        "10.8.0.4: trn-4:5120:5301 [0] NCCL INFO transport/net.cc:890 -> 5",
        "10.8.0.4: trn-4:5120:5301 [0] NCCL INFO proxy.cc:684 -> 5 [Proxy Thread]",
      ].join("\n"),
    );
    expect(r.data.warnings.map((w) => w.code)).toEqual(["NCCL_WARN_COLLECTIVE_MISMATCH"]);
    expect([r.data.network, r.data.verdict, r.data.evidence?.communicator]).toEqual(["IB", "unknown", "runtime_lines"]);
  });
});

// src/register/register.cc `INFO(NCCL_REG, "register comm %p buffer %p size %zi", …)` (https://github.com/NVIDIA/nccl):
// a buffer registered with a communicator the program holds. Shape seen at https://github.com/NVIDIA/nccl/issues/2303: the
// run registered its buffers, then CUDA failed and the teardown WARNed, with no `Init COMPLETE` line kept.
test("a buffer registered with the communicator proves it was built: CUDA failures after it are no init failure", () => {
  const d = analyzeNcclLog(
    [
      "gb-t07:884215:884215 [2] NCCL INFO Using network IB",
      "gb-t07:884215:884215 [2] NCCL INFO register comm 0x48d91a20 buffer 0xc1a0000000 size 1968048128",
      "[2026-05-11 22:41:37] gb-t07:884214:885502 [1] misc/strongstream.cc:424 (ncclStrongStreamSynchronize) NCCL WARN Cuda failure 'unspecified launch failure'",
    ].join("\n"),
  ).data;
  expect(d.verdict).not.toBe("init_failed");
});
