import { describe, expect, test } from "vitest";
import { runChecks } from "./index.js";
import { only, problemsOf } from "./testing/expect.js";
import { portOf, seedInventory } from "./testing/seed-inventory.js";

// mlx5 hw_counters semantics: out_of_buffer counts "drops occurred due to lack of WQE for the associated QPs";
// np_cnp_sent / np_ecn_marked_roce_packets are the notification point's, rp_cnp_handled the reaction point's DCQCN
// counters (NVIDIA, "Understanding mlx5 Linux Counters and Status Parameters"; DCQCN, SIGCOMM 2015).
describe("receive-side drops and congestion on the data ports", () => {
  test("mlx5_2 dropped 9 packets for want of a receive buffer → warning RX_OUT_OF_BUFFER on mlx5_2 with how to watch it", () => {
    const inv = seedInventory();
    portOf(inv, "mlx5_2").hwCounters.out_of_buffer = 9;
    const [f] = only(runChecks(inv), "RX_OUT_OF_BUFFER");
    expect(f).toMatchObject({ subject: "mlx5_2", severity: "warning" });
    expect(f?.message).toMatch(/dropped 9 received packets because no receive buffer was posted/);
    expect(f?.fix).toMatch(/hw_counters\/out_of_buffer/);
  });

  test("CNPs since boot on a RoCE port are congestion control working: info, never a problem", () => {
    const inv = seedInventory();
    Object.assign(portOf(inv, "mlx5_5").hwCounters, { np_cnp_sent: 1200, rp_cnp_handled: 800 });
    const findings = runChecks(inv);
    expect(problemsOf(findings)).toEqual([]);
    const [f] = only(findings, "ROCE_CONGESTION_SEEN");
    expect(f).toMatchObject({ subject: "mlx5_5", severity: "info" });
    expect(f?.message).toMatch(/np_cnp_sent=1200, rp_cnp_handled=800 since the counters were last cleared/);
  });

  test("with an earlier reading 30 s before, only the growth counts, as a rate", () => {
    const before = seedInventory();
    Object.assign(portOf(before, "mlx5_5").hwCounters, { rp_cnp_handled: 800, out_of_buffer: 4 });
    const after = seedInventory();
    Object.assign(portOf(after, "mlx5_5").hwCounters, { rp_cnp_handled: 3800, out_of_buffer: 4 });
    const findings = runChecks(after, { earlier: { inventory: before, seconds: 30 }, countersSinceEarlier: true });
    expect(only(findings, "RX_OUT_OF_BUFFER")).toEqual([]);
    const [f] = only(findings, "ROCE_CONGESTION_SEEN");
    expect(f?.message).toMatch(/rp_cnp_handled=3000 in the last 30 s \(rp_cnp_handled 100\/s\)/);
  });

  test("verify --watch (an earlier reading, totals for errors): the CNP rate of the watch, the drop total since boot", () => {
    const before = seedInventory();
    Object.assign(portOf(before, "mlx5_5").hwCounters, { np_cnp_sent: 100, out_of_buffer: 4 });
    const after = seedInventory();
    Object.assign(portOf(after, "mlx5_5").hwCounters, { np_cnp_sent: 700, out_of_buffer: 4 });
    const findings = runChecks(after, { earlier: { inventory: before, seconds: 60 } });
    expect(only(findings, "ROCE_CONGESTION_SEEN")[0]?.message).toMatch(
      /np_cnp_sent=600 in the last 60 s \(np_cnp_sent 10\/s\)/,
    );
    expect(only(findings, "RX_OUT_OF_BUFFER")[0]?.message).toMatch(/dropped 4 .* since the counters were last cleared/);
  });

  test("a healthy node with zero counters says nothing about congestion", () => {
    const findings = runChecks(seedInventory());
    expect(only(findings, "ROCE_CONGESTION_SEEN")).toEqual([]);
    expect(only(findings, "RX_OUT_OF_BUFFER")).toEqual([]);
  });
});
