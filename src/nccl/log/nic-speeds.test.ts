/**
 * The port speeds NCCL prints with NCCL_DEBUG_SUBSYS=NET (format string in NVIDIA/nccl's IB transport,
 * ncclIbInitDevices: "NET/IB: [%d] %s:%s:%d/%s provider=%s speed=%d context=%p pciPath=%s ar=%d"). The two-node runs
 * below are written for these tests: our own hosts, addresses and pointers.
 */
import { describe, expect, test } from "vitest";
import { analyzeNcclLog } from "./analyzer.js";
import { nicSpeedFindings, slowNics } from "./nic-speeds.js";
import { scanSegment } from "./segment-scan.js";
import { mergeInto } from "./state.js";

/** One rank's device lines on `host`: mlx5_1..mlx5_8 at 200 Gb/s unless `speeds` says otherwise (Mb/s). */
function deviceLines(host: string, pid: number, speeds: Record<string, number> = {}): string[] {
  return [1, 2, 3, 4, 5, 6, 7, 8].map((i) => {
    const dev = `mlx5_${i}`;
    const speed = speeds[dev] ?? 200000;
    const bus = (0x4f + 0x10 * i).toString(16);
    return (
      `${host}:${pid}:${pid + 80} [0] NCCL INFO NET/IB: [${i - 1}] ${dev}:uverbs${i}:1/RoCE provider=Mlx5 ` +
      `speed=${speed} context=0x55d0c8a1${(0xb2c0 + i * 0x40).toString(16)} pciPath=/sys/devices/pci0000:${bus}/0000:${bus}:02.0/0000:${bus}:00.0 ar=0`
    );
  });
}

function twoNodeRun(speedsOnNode2: Record<string, number> = {}): string {
  const node = (host: string, pid: number, ip: string, speeds: Record<string, number>) => [
    `${host}:${pid}:${pid} [0] NCCL INFO Bootstrap : Using eth0:${ip}<0>`,
    `${host}:${pid}:${pid} [0] NCCL INFO NCCL version 2.23.4+cuda12.6`,
    ...deviceLines(host, pid, speeds),
    `${host}:${pid}:${pid + 80} [0] NCCL INFO NET/IB : Using [0]mlx5_1:1/RoCE [1]mlx5_2:1/RoCE [2]mlx5_3:1/RoCE [3]mlx5_4:1/RoCE [4]mlx5_5:1/RoCE [5]mlx5_6:1/RoCE [6]mlx5_7:1/RoCE [7]mlx5_8:1/RoCE [RO]; OOB eth0:${ip}<0>`,
    `${host}:${pid}:${pid + 80} [0] NCCL INFO Using network IB`,
    `${host}:${pid}:${pid + 80} [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA`,
    `${host}:${pid}:${pid + 80} [0] NCCL INFO comm 0x7f3a10000000 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0`,
    `${host}:${pid}:${pid + 80} [0] NCCL INFO Init COMPLETE`,
  ];
  return [
    ...node("gpu-node-1", 2101, "10.0.60.3", {}),
    ...node("gpu-node-2", 3301, "10.0.60.4", speedsOnNode2),
    "",
  ].join("\n");
}

describe("NIC port speeds as NCCL found them", () => {
  test("gpu-node-2's mlx5_4 came up at 100 Gb/s while 15 ports run at 200 → warning NCCL_LOG_NIC_SLOW on gpu-node-2 naming it", () => {
    const { findings } = analyzeNcclLog(twoNodeRun({ mlx5_4: 100000 }));
    const slow = findings.filter((f) => f.code === "NCCL_LOG_NIC_SLOW");
    expect(slow).toHaveLength(1);
    expect(slow[0]).toMatchObject({ severity: "warning", subject: "gpu-node-2" });
    expect(slow[0]!.message).toBe(
      "NCCL found mlx5_4:1 on gpu-node-2 at 100 Gb/s, while 15 of the 16 ports it uses run at 200 Gb/s: every ring " +
        "through a slower port runs at that port's speed.",
    );
    expect(slow[0]!.fix).toMatch(/kube-rdma verify/);
    expect(slow[0]!.evidence).toMatchObject({ slow: [{ host: "gpu-node-2", device: "mlx5_4:1", gbps: 100 }] });
  });

  test("every port at 200 Gb/s → no speed finding; the verdict is RDMA with GPUDirect", () => {
    const r = analyzeNcclLog(twoNodeRun());
    expect(r.findings.map((f) => f.code)).not.toContain("NCCL_LOG_NIC_SLOW");
    expect(r.data.verdict).toBe("rdma_gdr");
  });

  test("a log from NCCL before 2.20 (no speed lines) says nothing about speeds", () => {
    const old = twoNodeRun({ mlx5_4: 100000 })
      .split("\n")
      .filter((l) => !l.includes("provider="))
      .join("\n");
    expect(analyzeNcclLog(old).findings.map((f) => f.code)).not.toContain("NCCL_LOG_NIC_SLOW");
  });

  test("the same answer when the log is scanned in two segments and merged (a pipe on worker threads)", () => {
    const text = twoNodeRun({ mlx5_7: 50000 });
    const cut = text.indexOf("gpu-node-2:");
    const merged = mergeInto(
      scanSegment(new TextEncoder().encode(text.slice(0, cut))),
      scanSegment(new TextEncoder().encode(text.slice(cut))),
    );
    const whole = scanSegment(new TextEncoder().encode(text));
    expect(nicSpeedFindings(merged)).toEqual(nicSpeedFindings(whole));
    expect(nicSpeedFindings(merged)[0]!.message).toMatch(/mlx5_7:1 on gpu-node-2 at 50 Gb\/s/);
  });

  test("a half-and-half fleet (one node all at 100 Gb/s) names the slower node's ports against the faster speed", () => {
    const speeds = new Map<string, number>();
    for (let i = 1; i <= 2; i++) {
      speeds.set(`a\tmlx5_${i}:1`, 200000);
      speeds.set(`b\tmlx5_${i}:1`, 100000);
    }
    expect(slowNics(speeds)).toEqual({
      slow: [
        { host: "b", device: "mlx5_1:1", gbps: 100 },
        { host: "b", device: "mlx5_2:1", gbps: 100 },
      ],
      usualGbps: 200,
    });
  });
});
