/**
 * sendrecv between one pair of nodes: judged against one NIC, within 10 % of it not an error, and never on a curve
 * that was still rising when the run stopped below 1 GiB. Tables are written in nccl-tests' text shape
 * (src/common.cu's header and row format, https://github.com/NVIDIA/nccl-tests), with our own hosts and numbers.
 */
import { describe, expect, test } from "vitest";
import { seedInventory } from "../../checks/testing/seed-inventory.js";
import { analyzeNcclTests } from "./analyzer.js";

/** A 2-rank sendrecv (one GPU on each of two nodes) from 1 MiB to `maxBytes`, busbw reaching `plateau` at `knee`. */
function pair(plateau: number, maxBytes: number, knee = 2 ** 28): string {
  const lines = [
    "# nccl-tests version 2.14.1 nccl-headers=21805 nccl-library=21805",
    "# Collective test starting: sendrecv_perf",
    `# nThread 1 nGpus 1 minBytes 1048576 maxBytes ${maxBytes} step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0`,
    "#",
    "# Using devices",
    "#  Rank  0 Group  0 Pid  51001 on  gpu-pair-a device  0 [0000:07:00] NVIDIA A100-SXM4-80GB",
    "#  Rank  1 Group  0 Pid  52001 on  gpu-pair-b device  0 [0000:07:00] NVIDIA A100-SXM4-80GB",
    "#",
    "#                                                              out-of-place                       in-place          ",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
  ];
  for (let bytes = 2 ** 20; bytes <= maxBytes; bytes *= 2) {
    const bus = plateau * Math.min(1, Math.sqrt(bytes / knee));
    const time = bytes / (bus * 1e3);
    const t = time >= 10000 ? time.toFixed(0) : time.toFixed(1);
    const b = bus.toFixed(2).padStart(6);
    lines.push(
      `${String(bytes).padStart(12)}  ${String(bytes / 4).padStart(12)}     float     sum      -1  ${t.padStart(8)}  ${b}  ${b}       0  ${t.padStart(8)}  ${b}  ${b}       0`,
    );
  }
  lines.push("# Out of bounds values : 0 OK", `# Avg bus bandwidth    : ${(plateau / 2).toFixed(4)} `, "#", "");
  return lines.join("\n");
}

const ceiling = () => analyzeNcclTests(pair(20, 2 ** 33), { inventory: seedInventory() }).data!.expectation!.GBps;
const codes = (text: string) =>
  analyzeNcclTests(text, { inventory: seedInventory() })
    .findings.filter((f) => /BANDWIDTH|PLATEAU/.test(f.code))
    .map((f) => `${f.severity} ${f.code}`);

describe("nccl-tests sendrecv on one pair", () => {
  test("the expectation is one NIC, from the sendrecv traffic model, not an all-reduce baseline", () => {
    const r = analyzeNcclTests(pair(20, 2 ** 33), { inventory: seedInventory() }).data!;
    expect(r.collective).toBe("sendrecv");
    expect(r.baseline).toBeNull();
    expect(r.expectation?.source).toMatch(
      /^sendrecv on 2 nodes: one rank per node sends across the fabric, on one NIC/,
    );
  });

  test("93 % of the NIC's ceiling at 8 GiB: within 10 %, not an error", () => {
    expect(codes(pair(ceiling() * 0.93, 2 ** 33))).toEqual(["info NCCL_TESTS_BANDWIDTH_OK"]);
  });

  test("80 % at 8 GiB, on the plateau: BANDWIDTH_LOW", () => {
    expect(codes(pair(ceiling() * 0.8, 2 ** 33))).toEqual(["error NCCL_TESTS_BANDWIDTH_LOW"]);
  });

  test("stopped at 256 MiB while still rising, below the floor: not judged (warning with -e 1G), never an error", () => {
    // The curve climbs until 1 GiB; at 256 MiB it is at half of its plateau.
    const found = codes(pair(ceiling() * 0.93, 2 ** 28, 2 ** 30));
    expect(found).toEqual(["warning NCCL_TESTS_NOT_AT_PLATEAU"]);
    const f = analyzeNcclTests(pair(ceiling() * 0.93, 2 ** 28, 2 ** 30), { inventory: seedInventory() }).findings.find(
      (x) => x.code === "NCCL_TESTS_NOT_AT_PLATEAU",
    );
    expect(f?.fix).toMatch(/-e 1G/);
  });

  test("stopped at 256 MiB but levelled off (plateau reached at 64 MiB) and far below: judged LOW", () => {
    expect(codes(pair(ceiling() * 0.5, 2 ** 28, 2 ** 26))).toEqual(["error NCCL_TESTS_BANDWIDTH_LOW"]);
  });
});
