import type { Finding } from "../../core/finding.js";
import { makeFinding } from "../../core/finding.js";
import { BASELINES, type Baseline } from "../baselines.js";
import type { NcclLogVerdict } from "../log/report.js";
import { NCCL_TESTS_FINDINGS as F } from "./catalogue.js";
import { hasTrafficModel } from "./traffic.js";

/** What the large-message busbw of one table is judged against (the run's nodes, NICs and expectation). */
export type BandwidthContext = {
  multiNode: boolean;
  hosts: readonly string[];
  gpus: readonly string[];
  collective: string | null;
  nics: { count: number; rateGbps: number } | null;
  expectation: { GBps: number; problemBelowGBps: number; source: string } | null;
  baseline: Baseline | null;
  logVerdict: NcclLogVerdict | undefined;
  /** The NCCL log verdict in words, for the findings that quote it. */
  log: string | null;
  /** The run stopped below 1 GiB with busbw still rising: not at its plateau (judge.ts). */
  stillRising?: boolean;
};

/**
 * When a number alone suggests TCP sockets: below a quarter of what RDMA on these NICs allows, and no faster than one
 * NIC's line rate (NCCL's socket transport rarely passes one NIC's worth: a fixed 12.5 GB/s cut-off flagged healthy
 * 100 Gb/s RDMA runs and missed sockets on 400 Gb/s fabrics). The NCCL log, when it is in the same output, decides.
 */
const SOCKET_SHARE_OF_RDMA = 0.25;

export function socketSuspected(
  busbw: number,
  expectation: { GBps: number } | null,
  nics: { rateGbps: number } | null,
  logVerdict: NcclLogVerdict | undefined,
): boolean {
  if (logVerdict === "socket") return true;
  if (logVerdict !== undefined && logVerdict !== "unknown") return false; // the log shows RDMA (or init failure)
  if (!expectation || !nics) return false; // a number alone proves nothing about the transport
  return busbw < expectation.GBps * SOCKET_SHARE_OF_RDMA && busbw <= nics.rateGbps / 8;
}

/**
 * The bandwidth findings of one table's large-message busbw, about `subject` ("run", or the table's label when a run
 * printed several: `-o all`, `-d all`, every root). Pure.
 */
export function bandwidthFindings(
  large: { bytes: number; busbw: number },
  subject: string,
  b: BandwidthContext,
): Finding[] {
  const findings: Finding[] = [];
  const { multiNode, hosts, gpus, nics, expectation, baseline, log } = b;
  const coll = { name: b.collective };
  if (multiNode && socketSuspected(large.busbw, expectation, nics, b.logVerdict)) {
    findings.push(
      makeFinding(F, "NCCL_TESTS_SOCKET_SUSPECTED", subject, {
        busbw: large.busbw,
        hosts: hosts.length,
        log,
        nicGBps: nics ? nics.rateGbps / 8 : null,
      }),
    );
  }
  if (!multiNode && hosts.length === 1) {
    const ref = baseline ? `${baseline.description} ≈ ${baseline.typicalGBps[1]} GB/s (${baseline.source})` : null;
    findings.push(makeFinding(F, "NCCL_TESTS_SINGLE_NODE", subject, { baseline: ref }));
  } else if (expectation) {
    const e = {
      busbw: large.busbw,
      bytes: large.bytes,
      threshold: expectation.problemBelowGBps,
      expected: expectation.GBps,
      source: expectation.source,
      log,
    };
    const low = large.busbw < expectation.problemBelowGBps;
    // A figure taken before the plateau says nothing low about the fabric: judged at ≥ 1 GiB or where busbw levels off.
    const code =
      low && b.stillRising ? "NCCL_TESTS_NOT_AT_PLATEAU" : low ? "NCCL_TESTS_BANDWIDTH_LOW" : "NCCL_TESTS_BANDWIDTH_OK";
    findings.push(makeFinding(F, code, subject, e));
    if (hosts.length === 2 && coll.name === "all_reduce" && large.busbw > expectation.GBps * 1.05) {
      findings.push(
        makeFinding(F, "NCCL_TESTS_ABOVE_LINE_RATE", subject, { busbw: large.busbw, expected: expectation.GBps }),
      );
    }
  } else {
    const matching = BASELINES.filter((b) => gpus.some((g) => b.gpuModel.test(g)) && b.nics !== null);
    const candidates = matching.map((b) => `${b.description}: ${b.typicalGBps[0]}–${b.typicalGBps[1]} GB/s`);
    // The NICs are known, but no traffic model says what this collective should reach across nodes (gather,
    // scatter, hypercube): said as such, never a figure borrowed from another collective.
    const unmodelled = nics && coll.name && !hasTrafficModel(coll.name) ? coll.name : null;
    findings.push(
      makeFinding(F, "NCCL_TESTS_NO_EXPECTATION", subject, {
        busbw: large.busbw,
        bytes: large.bytes,
        candidates,
        unmodelled,
      }),
    );
    // Without the node's NICs no single expectation holds, but a result under every published multi-node baseline
    // for these GPUs is slow for any of those configurations (a 61.5 GB/s 8×A100 all_reduce was a silent PASS).
    const lowest = matching.reduce<(typeof matching)[number] | undefined>(
      (lo, b) => (lo === undefined || b.problemBelowGBps < lo.problemBelowGBps ? b : lo),
      undefined,
    );
    if (lowest && coll.name === "all_reduce" && large.busbw < lowest.problemBelowGBps) {
      findings.push(
        makeFinding(F, "NCCL_TESTS_BELOW_BASELINES", subject, {
          busbw: large.busbw,
          lowest: `${lowest.description}: ${lowest.typicalGBps[0]}–${lowest.typicalGBps[1]} GB/s`,
          threshold: lowest.problemBelowGBps,
        }),
      );
    }
  }
  return findings;
}
