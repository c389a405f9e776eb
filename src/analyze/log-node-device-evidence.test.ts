import { describe, expect, test } from "vitest";
import { analyzeText } from "./index.js";

type Ev = { nNodes?: string | null; devices?: string | null };
type D = { nNodes: number; devices: { name: string; port: number }[]; evidence: Ev };

const read = (lines: string[]) => analyzeText("log.txt", lines.join("\n"), {}, { kind: "nccl_log" }).data as D;

/**
 * Which line decided the node count and the device list of an NCCL log. NCCL prints
 * `comm 0x… rank R nRanks N nNodes M localRanks L localRank l MNNVL x` once per rank (src/init.cc,
 * https://github.com/NVIDIA/nccl/blob/master/src/init.cc), the device list it chose as
 * `NET/IB : Using [0]mlx5_0:1/IB … ; OOB …` and, since 2.20, one `NET/IB: [N] dev:port/IB …` line per device
 * (src/transport/net_ib.cc, https://github.com/NVIDIA/nccl/blob/master/src/transport/net_ib.cc). Hosts, addresses and
 * pointers here are this project's own.
 */
describe("NCCL log: evidence of nNodes and devices", () => {
  test("NCCL's own nNodes beats the hosts that happened to log, when they disagree", () => {
    const d = read([
      "kx-1:4100:4100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4",
      "kx-1:4100:4180 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB eth0:10.2.0.11<0>",
      "kx-1:4100:4180 [0] NCCL INFO comm 0x55aa10 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0",
    ]);
    expect([d.nNodes, d.evidence.nNodes]).toEqual([2, "comm_lines"]);
    expect([d.devices.map((x) => x.name), d.evidence.devices]).toEqual([["mlx5_0", "mlx5_1"], "using_lines"]);
  });

  test("without an nNodes line the distinct hosts count, and say so", () => {
    const d = read([
      "kx-1:4100:4100 [0] NCCL INFO Bootstrap : Using eth0:10.2.0.11<0>",
      "kx-2:4200:4200 [0] NCCL INFO Bootstrap : Using eth0:10.2.0.12<0>",
      "kx-3:4300:4300 [0] NCCL INFO Bootstrap : Using eth0:10.2.0.13<0>",
    ]);
    expect([d.nNodes, d.evidence.nNodes]).toEqual([3, "hosts"]);
    expect([d.devices, d.evidence.devices]).toEqual([[], null]);
  });

  test("per-device lines alone give the devices, named as the weaker reading", () => {
    const d = read([
      "kx-1:4100:4180 [0] NCCL INFO NET/IB: [0] mlx5_4:uverbs4:1/RoCE provider=Mlx5 speed=200000 context=0x7f01 pciPath=/sys/x ar=0",
      "kx-1:4100:4180 [0] NCCL INFO NET/IB: [1] mlx5_5:uverbs5:1/RoCE provider=Mlx5 speed=200000 context=0x7f02 pciPath=/sys/y ar=0",
      "kx-1:4100:4180 [0] NCCL INFO Using network IB",
    ]);
    expect([d.devices.map((x) => `${x.name}:${x.port}`), d.evidence.devices]).toEqual([
      ["mlx5_4:1", "mlx5_5:1"],
      "device_lines",
    ]);
  });
});
