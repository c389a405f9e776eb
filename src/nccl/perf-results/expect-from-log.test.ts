/**
 * A `bench job` run.log holds NCCL's INFO lines beside the nccl-tests table (NCCL_DEBUG=INFO,
 * NCCL_DEBUG_SUBSYS=INIT,NET): NCCL ≥ 2.20 prints each NIC port's speed as it opens it, so the run says itself what
 * its hardware allows — no node model or --expect needed. Lines written for these tests (our hosts and numbers).
 */
import { describe, expect, test } from "vitest";
import { fixtureText } from "../../../test/support/fixtures.js";
import { analyzeNcclTests } from "./analyzer.js";

/** NCCL's lines of a 2-node run whose 8 ports per node NCCL found at `mbps` (Mb/s, as NCCL prints). */
function ncclLines(mbps: number): string {
  const node = (host: string, pid: number) => [
    `${host}:${pid}:${pid} [0] NCCL INFO NCCL version 2.23.4+cuda12.6`,
    ...[1, 2, 3, 4, 5, 6, 7, 8].map(
      (i) =>
        `${host}:${pid}:${pid + 90} [0] NCCL INFO NET/IB: [${i - 1}] mlx5_${i}:uverbs${i}:1/RoCE provider=Mlx5 ` +
        `speed=${mbps} context=0x5612f0a4${(0x1c00 + 0x40 * i).toString(16)} pciPath=/sys/devices/pci0000:${(0x10 * i).toString(16)}/0000:${(0x10 * i).toString(16)}:00.0 ar=0`,
    ),
    `${host}:${pid}:${pid + 90} [0] NCCL INFO Using network IB`,
    `${host}:${pid}:${pid + 90} [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA`,
    `${host}:${pid}:${pid + 90} [0] NCCL INFO Init COMPLETE`,
  ];
  return [...node("gpu-node-1", 41000), ...node("gpu-node-2", 41008)].join("\n");
}

const table = () => fixtureText("nccl-tests", "allreduce-2node-a100-hdr-185.txt");

describe("a run.log judged by the NIC speeds NCCL printed in it", () => {
  test("8 ports at 200 Gb/s per node, A100s: the 8×A100 + 8×HDR baseline judges the 185 GB/s, no --expect needed", () => {
    const r = analyzeNcclTests(`${ncclLines(200000)}\n${table()}`);
    expect(r.data?.baseline?.id).toBe("a100x8-hdrx8");
    expect(r.findings.map((f) => f.code)).toContain("NCCL_TESTS_BANDWIDTH_OK");
    expect(r.findings.map((f) => f.code)).not.toContain("NCCL_TESTS_NO_EXPECTATION");
  });

  test("the same 185 GB/s on ports NCCL found at 400 Gb/s is half of what they allow → NCCL_TESTS_BANDWIDTH_LOW", () => {
    const r = analyzeNcclTests(`${ncclLines(400000)}\n${table()}`);
    const low = r.findings.find((f) => f.code === "NCCL_TESTS_BANDWIDTH_LOW");
    expect(low?.severity).toBe("error");
    expect(low?.message).toMatch(
      /8 data NICs \(as NCCL found them: `NET\/IB: … speed=` lines\), \d+(\.\d+)? GB\/s per NIC \(400 Gb\/s/,
    );
  });

  test("without NCCL's speed lines (NCCL < 2.20, or NET not in NCCL_DEBUG_SUBSYS) nothing is guessed: not judged", () => {
    const noSpeeds = ncclLines(200000)
      .split("\n")
      .filter((l) => !l.includes("speed="))
      .join("\n");
    const r = analyzeNcclTests(`${noSpeeds}\n${table()}`);
    expect(r.findings.map((f) => f.code)).toContain("NCCL_TESTS_NO_EXPECTATION");
  });
});
