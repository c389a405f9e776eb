/**
 * A fleet verify result of any size without a cluster: each node analysed as the collector's snapshot would be
 * (the checks on an example host), 1 in 50 nodes with one fault, 1 in 200 not verified (its collector timed out).
 * For the HTML page tests and the page-rendering bench.
 */
import { runChecks } from "../../src/checks/index.js";
import { openReader } from "../../src/host/index.js";
import { readInventory } from "../../src/inventory/index.js";
import { attributeValues } from "../../src/kube/fleet/consistency.js";
import { buildFleetReport, type CollectOutcome } from "../../src/kube/fleet/index.js";
import type { NodeAnalysis } from "../../src/kube/fleet/node-analyser.js";
import { railsOf } from "../../src/kube/fleet/rails.js";
import type { FleetVerifyResult } from "../../src/report/kinds/fleet-verify.js";

const ODD = ["fw-mismatch", "half-rate", "gid-index-5", "no-ofed", "port-down"];

async function analysisOf(example: string): Promise<NodeAnalysis> {
  const inv = await readInventory(await openReader({ example }));
  return { findings: runChecks(inv), values: attributeValues(inv), rails: railsOf(inv) };
}

/** `nodes` nodes named gpu-0001…, or the names given (a hostile name goes through like any other). */
export async function fleetResult(nodes: number | readonly string[]): Promise<FleetVerifyResult> {
  const names =
    typeof nodes === "number"
      ? Array.from({ length: nodes }, (_, i) => `gpu-${String(i + 1).padStart(4, "0")}`)
      : nodes;
  const seed = await analysisOf("a100-8x-roce");
  const odd = await Promise.all(ODD.map(analysisOf));
  const outcomes: CollectOutcome<NodeAnalysis>[] = names.map((node, i) => {
    if (i % 200 === 199) return { node, ok: false, reason: "collector pod did not finish within 120 s", pod: null };
    const result = i % 50 === 7 ? odd[Math.floor(i / 50) % odd.length]! : seed;
    return { node, ok: true, result, pod: `kube-rdma-collect-${i}` };
  });
  return {
    report: buildFleetReport(outcomes),
    strict: false,
    context: "test-cluster",
    run: {
      id: "a1b2c3",
      namespace: "kube-rdma",
      image: "kube-rdma:0.1.0",
      podsDeleted: names.length,
      podsLeft: [],
      interrupted: false,
    },
  };
}
