import { defineCatalogue } from "../../core/finding.js";

const gb = (v: number) => `${Math.round(v * 10) / 10} GB/s`;
const pct = (v: number) => `${Math.round(v * 100)}%`;

type Reference = { referenceGBps: number; thresholdGBps: number; tolerance: number; referenceFrom: string };
export type SlowWith = { partner: string; busbw: number };
type BadNode = Reference & { slow: SlowWith[]; provenPartners: string[] };
type BadLink = Reference & { a: string; b: string; busbw: number; runs: number };
type Suspect = Reference & { slow: SlowWith[]; retestWith: string | null };
type AllSlow = Reference & { pairs: number; bestGBps: number };

/** Findings of `bench judge`: which node or link a round of 2-node tests points at. */
export const PAIR_FINDINGS = defineCatalogue({
  PAIR_BAD_NODE: {
    severity: "error",
    title: "Slow with every partner",
    message: (e: BadNode, node: string) =>
      `${node} is slow with every partner: ${e.slow.length} of ${e.slow.length} pair test(s) below ${pct(e.tolerance)} of ${e.referenceFrom} (${gb(e.referenceGBps)}): ${e.slow
        .map((s) => `with ${s.partner} ${gb(s.busbw)}`)
        .join(", ")}. ${e.provenPartners.join(", ")} reach full speed with other partners, so the fault is on ${node}.`,
    fix: (_e: BadNode, node: string) =>
      `Run \`kube-rdma verify\` on ${node} (port rates, GID index, GPUDirect, GPU PCIe width, error counters) and \`kube-rdma analyze\` on its NCCL log; keep jobs off it meanwhile (\`kubectl cordon ${node}\`).`,
  },
  PAIR_BAD_LINK: {
    severity: "error",
    title: "Slow only together",
    message: (e: BadLink) =>
      `${e.a} and ${e.b} reach ${gb(e.busbw)} together${e.runs > 1 ? ` (best of ${e.runs} runs)` : ""}, below ${pct(e.tolerance)} of ${e.referenceFrom} (${gb(e.referenceGBps)}), while each reaches full speed with other partners: the path between them is ${e.runs > 1 ? "at fault" : "the likely fault"}, not either node.`,
    fix: (e: BadLink) =>
      `${e.runs > 1 ? "It stayed slow in every run: check" : "Re-run this pair to rule out a one-off (a second slow run makes this an error); if it stays slow, check"} the switch ports and uplinks between the leaves of ${e.a} and ${e.b} (switch counters, \`ibdiagnet\` on InfiniBand) and the per-port error counters on both nodes (\`kube-rdma verify\`).`,
  },
  PAIR_SUSPECT: {
    severity: "warning",
    title: "Slow, not yet explained",
    message: (e: Suspect, node: string) =>
      `${node} was slow in ${e.slow.map((s) => `its test with ${s.partner} (${gb(s.busbw)})`).join(" and ")}, below ${pct(e.tolerance)} of ${e.referenceFrom} (${gb(e.referenceGBps)}), and has no fast pair yet: ${node} or its partner is at fault.`,
    fix: (e: Suspect, node: string) =>
      e.retestWith
        ? `Test ${node} with ${e.retestWith}, which reached full speed: a slow result there puts the fault on ${node}.`
        : `Test ${node} with a node that reached full speed (none is left untried among these results).`,
  },
  PAIRS_ALL_SLOW: {
    severity: "error",
    title: "Every pair slow",
    message: (e: AllSlow) =>
      `All ${e.pairs} pair test(s) are below ${pct(e.tolerance)} of ${e.referenceFrom} (${gb(e.referenceGBps)}); the best reached ${gb(e.bestGBps)}. A cause common to every node is more likely than a bad node: the fabric, the NCCL settings, or GPUDirect.`,
    fix: () =>
      "Analyse one run's NCCL log (`kube-rdma analyze run.log`: NET/IB vs NET/Socket, GDRDMA) and check one node (`kube-rdma verify`); compare the NCCL variables of the test jobs with `kube-rdma nccl-env`.",
  },
  PAIR_RUN_FAILED: {
    severity: "error",
    title: "A pair test that failed",
    message: (e: { source: string; hosts: string[]; failure: string }) =>
      `${e.source}: the test${e.hosts.length === 2 ? ` of ${e.hosts[0]} and ${e.hosts[1]}` : ""} failed before its end ("${e.failure}"); the rows printed before it are not a bandwidth, so it is not judged as one.`,
    fix: (e: { source: string; hosts: string[] }) =>
      `Read the NCCL WARN lines before the failure (\`kube-rdma analyze ${e.source}\`), then test ${e.hosts.length === 2 ? `${e.hosts[0]} and ${e.hosts[1]}` : "each node"} each with a node that reached full speed: the one that fails again is at fault.`,
  },
  PAIR_RUN_CORRUPT: {
    severity: "error",
    title: "A pair test that returned corrupted data",
    message: (e: { source: string; hosts: string[]; corruption: string }) =>
      `${e.source}: the test${e.hosts.length === 2 ? ` of ${e.hosts[0]} and ${e.hosts[1]}` : ""} returned corrupted data (${e.corruption}); a run that computes wrong results fails, whatever its bandwidth.`,
    fix: (e: { source: string; hosts: string[] }) =>
      `Check both nodes' GPUs (\`kube-rdma verify\`: ECC, row remapping) and remove NCCL_PROTO/NCCL_ALGO overrides, then test ${e.hosts.length === 2 ? `${e.hosts[0]} and ${e.hosts[1]}` : "each node"} each with a node whose run was clean: the one that corrupts again is at fault (\`kube-rdma analyze ${e.source}\` shows the rows).`,
  },
  PAIR_IMPOSSIBLE_BANDWIDTH: {
    severity: "error",
    title: "A bandwidth that cannot be",
    message: (e: { source: string; why: string }) =>
      `${e.source}: ${e.why}; nccl-tests cannot print that, so this run is not used as a reference or judged.`,
    fix: (e: { source: string }) =>
      `Re-run this pair and save its whole stdout unedited (${e.source} was changed or damaged after the run).`,
  },
  PAIRS_TOO_FEW: {
    severity: "info",
    title: "Too few pairs to compare",
    message: (e: { pairs: number }) => `${e.pairs} usable pair test(s): a slow node only shows against other pairs.`,
    fix: () =>
      "Run a full round (`kube-rdma bench pairs A B C …` prints it), or pass --expect GBPS with the bandwidth the hardware should reach.",
  },
});
