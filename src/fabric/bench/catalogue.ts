/** Words of `fleet bench` findings: which node, rail or link the rounds point at, how sure, and what confirms it. */
import { defineCatalogue } from "../../core/finding.js";
import type { Confidence, Observation, Retest } from "./diagnose.js";

const gb = (v: number) => `${Math.round(v * 10) / 10} GB/s`;

export type VerdictEvidence = {
  confidence: Confidence;
  observations: Observation[];
  fastRuns: number;
  referenceGBps: number;
  retest: Retest;
  node?: string;
  hca?: string;
  leaf?: string;
};

/** Evidence of a leaf uplink or spine port: slow tests that crossed it alone among hops proven fast. */
export type HopEvidence = {
  alone: number;
  examples: string;
  cleared: boolean;
  leaf: string;
  rail: number;
  /** How sure: high with three or more slow tests that blame the hop alone, medium with two. */
  confidence?: "high" | "medium";
  /** Fast with one flow through it, slow only with two or more. */
  loadOnly?: boolean;
  /** The leaf–spine cable the hop is one end of (`unit1/leaf3/uplink5 ↔ spine5/port27`). */
  cable?: string;
  /**
   * Named from the far side of a leaf whose paths are unknown: tests into that leaf through this port, how many
   * were slow, the share slow through the leaf's other ports (percent), and the chance of so many at that share.
   */
  farSide?: { crossed: number; slow: number; baseRatePct: number; chance: number };
};

/** A NIC whose rail test failed while its partner connected on that HCA elsewhere. */
export type NicDownEvidence = { node: string; hca: string; partner: string; job: string; reason: string };

/** Hops no test cleared, grouped by leaf, and leaves whose traced paths the results contradict. */
export type NotClearedEvidence = {
  hops: readonly string[];
  total: number;
  /** Leaves whose traced paths the results contradict; `uplinksBlamed` where slow tests blamed most of its uplinks. */
  pathsUnknown: readonly { leaf: string; unexplained: number; uplinksBlamed?: number }[];
  /** The same hops grouped by leaf (uplinks, spine ports, never crossed, paths unknown): what a user acts on. */
  byLeaf?: readonly {
    leaf: string;
    uplinks: number;
    spinePorts: number;
    neverCrossed: number;
    pathsUnknown: boolean;
    /** The least load (percent of line rate) any of these hops is proven to carry; 0 where one's flows were not placed. */
    provenPct?: number;
  }[];
};

const sure = (e: VerdictEvidence) =>
  e.confidence === "high"
    ? "confirmed"
    : e.confidence === "medium"
      ? "one test so far"
      : "not yet tested with a proven-good partner";

const tests = (e: VerdictEvidence, max = 4) => {
  const shown = e.observations
    .slice(0, max)
    .map((o) =>
      o.slowRails !== undefined
        ? `rail by rail with ${o.partner}: ${o.slowRails} of ${o.rails} HCAs slow, the slowest ${o.hca} at ${gb(o.busbw)} (${o.pctOfMedian}% of the fleet median, round ${o.round})`
        : `${o.hca ? `${o.hca} ` : ""}with ${o.partner} ${gb(o.busbw)} (${o.pctOfMedian}% of the fleet median, round ${o.round})`,
    );
  const more = e.observations.length - shown.length;
  return `${shown.join("; ")}${more > 0 ? `; and ${more} more` : ""}`;
};

/** The test that would confirm (or clear) a verdict, in words. */
export function retestWords(r: Retest): string {
  if (r.kind === "rails-with-good") {
    return `run ${r.node} rail by rail (one HCA per rank, NCCL_IB_HCA==<hca>) with a node of its leaf that reached full speed: slow on every rail → the node, on one HCA → that rail`;
  }
  if (r.kind === "rerun-pair") return `run ${r.a}↔${r.b} again: a bad path stays slow, a one-off does not`;
  return `pair proven-good nodes of ${r.leaves.join(" and ")} with proven-good nodes of other leaves: slow across, fast inside → the uplink`;
}

export const FLEET_BENCH_FINDINGS = defineCatalogue({
  FLEET_BAD_NODE: {
    severity: "error",
    title: "Slow node",
    message: (e: VerdictEvidence, node: string) =>
      `${node} is slow against partners that reach full speed elsewhere (${sure(e)}): ${tests(e)}.`,
    fix: (e: VerdictEvidence, node: string) =>
      `Keep jobs off it (\`kubectl cordon ${node}\`) and run \`kube-rdma verify\` on it (port rates, PCIe width, GPUDirect, error counters). ${e.confidence === "high" ? "To see it again" : "To confirm"}: ${retestWords(e.retest)}.`,
  },
  FLEET_BAD_RAIL: {
    severity: "error",
    title: "Slow rail",
    message: (e: VerdictEvidence, subject: string) =>
      `${subject}: ${e.hca} on ${e.node} is slow while its other HCAs reach full speed (${sure(e)}): ${tests(e)}.`,
    fix: (e: VerdictEvidence) =>
      `Check ${e.hca} on ${e.node}: \`kube-rdma verify\` there (port rate and width, GID index, error counters), its cable and the leaf port it plugs into; until fixed, leave it out with NCCL_IB_HCA=^=${e.hca} or cordon the node. ${e.confidence === "high" ? "To see it again" : "To confirm"}: ${retestWords(e.retest)}.`,
  },
  FLEET_BAD_UPLINK: {
    severity: "error",
    title: "Slow leaf uplink",
    message: (e: VerdictEvidence) =>
      `Nodes under ${e.leaf} reach full speed with each other but are slow with other leaves: ${e.observations.length} of ${e.observations.length + e.fastRuns} crossings slow, between nodes proven good elsewhere (${tests(e, 3)}).`,
    fix: (e: VerdictEvidence) =>
      `Check ${e.leaf}'s uplinks to the spine: port counters and error rates, a down or down-trained member of the bundle, ECMP hashing (\`ibdiagnet\` on InfiniBand, the switch's interface counters on RoCE). To see it again: ${retestWords(e.retest)}.`,
  },
  FLEET_BAD_LEAF_UPLINK: {
    severity: "error",
    title: "Slow leaf uplink port",
    message: (e: HopEvidence, hop: string) =>
      `${hop}: ${e.alone} test(s) whose every other hop reached full speed elsewhere were slow through it (${e.examples}); ${e.cleared ? "nothing" : "no test"} crossed it fast.`,
    fix: (e: HopEvidence, hop: string) =>
      `Check the leaf's uplink port ${hop.split("/").at(-1)} on ${hop.split("/").slice(0, 2).join("/")}: its transceiver, cable and error counters (symbol and FCS errors, a lane down, a lower negotiated speed); until fixed, shut it so that ECMP hashes flows onto the others. To see it again: steer one flow through it (a UDP source port that hashes onto it) between nodes of two units on rail ${e.rail}.`,
  },
  FLEET_BAD_SPINE_PORT: {
    severity: "error",
    title: "Slow spine port",
    message: (e: HopEvidence, hop: string) =>
      e.farSide
        ? `${hop} (towards ${e.leaf}, whose own hash the calculator does not know): ${e.farSide.slow} of ${e.farSide.crossed} test(s) into ${e.leaf} through it were slow while their other traced hops reached full speed elsewhere (${e.examples}), against ${e.farSide.baseRatePct}% through the leaf's other spine ports (chance ${e.farSide.chance.toExponential(1)}). The way back up leaves through an uplink of ${e.leaf} that cannot be traced: the cable ${e.cable ?? hop} is bad at least towards ${e.leaf}.`
        : `${hop} (towards ${e.leaf}): ${e.alone} test(s) whose every other hop reached full speed elsewhere were slow through it (${e.examples}).`,
    fix: (e: HopEvidence, hop: string) =>
      `Check ${hop}, the spine's port towards ${e.leaf}: transceiver, cable and error counters, and the same link's leaf end; until fixed, shut it so that the spine sends flows to ${e.leaf} over its other ports. To see it again: steer one flow into ${e.leaf} through it from another unit on rail ${e.rail}.`,
  },
  FLEET_NIC_DOWN: {
    severity: "error",
    title: "NIC does not connect",
    message: (e: NicDownEvidence, subject: string) =>
      `${subject}: the test on ${e.hca} failed (${e.reason}) in ${e.job} while ${e.partner} connected on ${e.hca} in other tests, and ${e.node}'s other HCAs ran (confidence high: its whole-node test failed too, or this rail alone failed).`,
    fix: (e: NicDownEvidence) =>
      `Check ${e.hca} on ${e.node}: \`kube-rdma verify\` there (port state and physical state, link partner, cable and transceiver); until fixed, leave it out with NCCL_IB_HCA=^=${e.hca} or cordon the node.`,
  },
  FLEET_HOPS_NOT_CLEARED: {
    severity: "warning",
    title: "Fabric hops not cleared",
    message: (e: NotClearedEvidence) =>
      `${e.hops.length} of ${e.total} leaf uplink(s) and spine port(s) were never crossed at full load by a test that ran fast, so this run cannot vouch for them: ${listed(e.hops)}.${e.pathsUnknown.length ? ` The results contradict the traced paths of ${e.pathsUnknown.map((x) => `${x.leaf} (${x.unexplained} slow test(s) no untested hop explains)`).join(", ")}: its switch may hash with a different hash seed or function than the calculator assumes; its hops are all in this list.` : ""}`,
    fix: (e: NotClearedEvidence) =>
      `Run fleet bench again with more rounds (--max-rounds), or read these ports' counters on the switches (errors, discards, a lower negotiated speed).${e.pathsUnknown.length ? " For the leaves whose paths are unknown, check that the hash seed and fields of the calculator match the switch's ECMP settings, or trace on the fabric (ibtracert on InfiniBand)." : ""}`,
  },
  FLEET_BAD_LINK: {
    severity: "error",
    title: "Slow path between two nodes",
    message: (e: VerdictEvidence, subject: string) =>
      `${subject}: both nodes reach full speed with others but are slow together (${sure(e)}): ${tests(e)}.`,
    fix: (e: VerdictEvidence) =>
      `Check the switch ports and cables on the path between them and both nodes' port counters (\`kube-rdma verify\`). ${e.confidence === "high" ? "To see it again" : "To confirm"}: ${retestWords(e.retest)}.`,
  },
  FLEET_FLAKY_LINK: {
    severity: "warning",
    title: "Slow only sometimes",
    message: (e: VerdictEvidence, subject: string) =>
      `${subject} was slow in ${e.observations.length} of ${e.observations.length + e.fastRuns} runs and fast in the others: a flapping port or cable, or a neighbour's traffic (${tests(e)}).`,
    fix: () =>
      "Read both nodes' port counters for link_downed and symbol errors (`kube-rdma verify`), and the switch's port flaps; run the pair a few more times to see how often it drops.",
  },
  FLEET_SUSPECT: {
    severity: "warning",
    title: "Slow, not yet explained",
    message: (e: VerdictEvidence, node: string) =>
      `${node} was slow, but only with partners not yet proven good: ${tests(e)}.`,
    fix: (e: VerdictEvidence) => `Next: ${retestWords(e.retest)}.`,
  },
  FLEET_JOB_FAILED: {
    severity: "warning",
    title: "Job without a result",
    message: (e: { reason: string; nodes: readonly string[]; round: number }, job: string) =>
      `${job} (${e.nodes.join(" and ")}, round ${e.round}) gave no result: ${e.reason}. Its nodes are judged on their other tests only.`,
    fix: (e: { nodes: readonly string[] }) =>
      `Look at the job's pods (\`kubectl describe\`, \`kubectl logs\`): a node that cannot schedule the test (GPU or rdma/hca resources taken, a taint) or an MPI start-up failure; then re-run with --node ${e.nodes.join(" --node ")}.`,
  },
  FLEET_JOB_CORRUPT: {
    severity: "error",
    title: "Job that returned corrupted data",
    message: (e: { reason: string; nodes: readonly string[]; round: number }, job: string) =>
      `${job} (${e.nodes.join(" and ")}, round ${e.round}): ${e.reason}. A run that computes wrong results fails, whatever its bandwidth; it is not used as a measurement.`,
    fix: (e: { nodes: readonly string[] }) =>
      `Check the GPUs of ${e.nodes.join(" and ")} (\`kube-rdma verify\`: ECC, row remapping) and remove NCCL_PROTO/NCCL_ALGO overrides; then re-run with --node ${e.nodes.join(" --node ")} to see which node corrupts again.`,
  },
  FLEET_NODES_UNTESTED: {
    severity: "error",
    title: "Nodes no test measured",
    message: (e: { nodes: readonly string[]; total: number }) =>
      `${e.nodes.length} of ${e.total} node(s) never gave a result in any test, so nothing was measured for them: ${listed(e.nodes)}.`,
    fix: () =>
      "Make their jobs run first (see the jobs without a result: the MPI operator and its CRD, Volcano, free GPUs and rdma/hca on the nodes), then run fleet bench again; until then these nodes are not known to be good.",
  },
  FLEET_BELOW_LINE_RATE: {
    severity: "warning",
    title: "Whole fleet below line rate",
    message: (e: { medianGBps: number; lineGBps: number; pct: number }) =>
      `The fleet median reaches ${gb(e.medianGBps)}, ${e.pct}% of what the HCAs' line rate allows (${gb(e.lineGBps)}): a cause common to every node, which comparing nodes cannot find.`,
    fix: () =>
      "Analyse one pair's log (`kube-rdma analyze run.log`: NET/IB and GDRDMA, not NET/Socket), check one node (`kube-rdma verify`), and compare the jobs' NCCL variables with `kube-rdma nccl-env`.",
  },
});

/** Up to 10 names, then how many more. */
function listed(names: readonly string[]): string {
  return names.length <= 10 ? names.join(", ") : `${names.slice(0, 10).join(", ")} and ${names.length - 10} more`;
}
