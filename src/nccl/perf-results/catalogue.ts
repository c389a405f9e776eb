import { defineCatalogue } from "../../core/finding.js";

const gb = (v: number) => `${Math.round(v * 10) / 10} GB/s`;
export const sizeText = (b: number) =>
  b >= 2 ** 30 ? `${b / 2 ** 30} GiB` : b >= 2 ** 20 ? `${b / 2 ** 20} MiB` : b >= 1024 ? `${b / 1024} KiB` : `${b} B`;

/** A deviation as nccl-tests printed it (`%.0e`: `1e+01`), or with two digits (`1.5e-04`) for tolerances. */
export const errorText = (v: number, digits = 0): string =>
  v === Number.POSITIVE_INFINITY
    ? "inf"
    : v === 0
      ? "0"
      : v
          .toExponential(digits)
          .replace(/\.0+e/, "e")
          .replace(/e([+-])(\d)$/, "e$10$2");

type ErrorDelta = {
  rows: number;
  sizes: string[];
  worst: {
    bytes: number;
    type: string;
    /** Null when nccl-tests printed `inf`. */
    maxError: number | null;
    printed: string;
    perRank: number;
    tolerance: number;
    nranks: number | null;
  };
};

type Low = {
  busbw: number;
  bytes: number;
  threshold: number;
  expected: number;
  source: string;
  log: string | null;
};

/** Findings of the nccl-tests analyser. */
export const NCCL_TESTS_FINDINGS = defineCatalogue({
  NCCL_TESTS_WRONG: {
    severity: "error",
    title: "Wrong results",
    message: (e: { rows: number; sizes: string[]; total: number }) =>
      `${e.rows} row(s) report wrong elements (#wrong > 0, ${e.total} in all; sizes ${e.sizes.join(", ")}): the collective returned corrupted data.`,
    fix: () =>
      "Check GPU health (`kube-rdma verify`: ECC, row remap), remove NCCL_PROTO/NCCL_ALGO overrides (forcing LL128 where unsupported corrupts data), and check PCIe ACS.",
  },
  NCCL_TESTS_ERROR_DELTA: {
    severity: "error",
    title: "Results outside nccl-tests' tolerance",
    message: (e: ErrorDelta) => {
      const w = e.worst;
      const tol =
        w.perRank === 0
          ? `${w.type} results must be exact`
          : `tolerance for ${w.type} ${errorText(w.tolerance, 1)} = ${errorText(w.perRank)} × (${w.nranks} ranks − 1)`;
      return `${e.rows} row(s) deviate from the expected result beyond nccl-tests' own tolerance (\`error\` column of nccl-tests < 2.13; sizes ${e.sizes.join(", ")}): worst ${w.printed} at ${sizeText(w.bytes)} (${tol}). The collective returned corrupted data.`;
    },
    fix: () =>
      "Check GPU health (`kube-rdma verify`: ECC, row remap), remove NCCL_PROTO/NCCL_ALGO overrides (forcing LL128 where unsupported corrupts data), and check PCIe ACS; nccl-tests ≥ 2.13 counts the wrong elements (#wrong).",
  },
  NCCL_TESTS_OUT_OF_BOUNDS: {
    severity: "error",
    title: "Out of bounds values",
    message: (e: { count: number }) => `nccl-tests reports ${e.count} out-of-bounds value(s) (FAILED).`,
    fix: () => "Treat the run as failed: check GPU health and re-run with -c 1.",
  },
  NCCL_TESTS_RUN_ERROR: {
    severity: "error",
    title: "nccl-tests reported an error",
    message: (e: { errors: string[] }) => `nccl-tests reported: ${e.errors.join("; ")}.`,
    fix: () => "Run again with NCCL_DEBUG=INFO and analyse the log (`kube-rdma analyze run.log`).",
  },
  NCCL_TESTS_RUN_FAILED: {
    severity: "error",
    title: "The run failed",
    message: (e: { failure: string; more: number; rows: number }) =>
      `The run failed: "${e.failure}"${e.more ? ` (and ${e.more} more failure line(s))` : ""}. Only the ${e.rows} row(s) printed before it were measured; the run did not finish.`,
    fix: () =>
      "Read the NCCL WARN lines just before the failure (run again with NCCL_DEBUG=INFO and `kube-rdma analyze run.log`): a CUDA failure points at a GPU (`kube-rdma verify`: ECC, row remap), 'remote process exited or there was a network error' at the peer node or the fabric.",
  },
  NCCL_TESTS_BANDWIDTH_LOW: {
    severity: "error",
    title: "Large-message bus bandwidth below expectation",
    message: (e: Low) =>
      `Large-message busbw ${gb(e.busbw)} (at ${sizeText(e.bytes)}) is below ${gb(e.threshold)}; expected ≈ ${gb(e.expected)} (${e.source}).${e.log ? ` The NCCL log says: ${e.log}.` : ""}`,
    fix: (e: Low) =>
      e.log
        ? "Fix what the NCCL log verdict names first, then re-run."
        : "Re-run with NCCL_DEBUG=INFO in the same output (run.log) so the log verdict can explain it; check every node with `kube-rdma verify`.",
  },
  NCCL_TESTS_NOT_AT_PLATEAU: {
    severity: "warning",
    title: "Not judged: the run stopped before busbw levelled off",
    message: (e: Low) =>
      `The run stopped at ${sizeText(e.bytes)} with busbw ${gb(e.busbw)} still rising from the size before: below ` +
      `${gb(e.threshold)} (expected ≈ ${gb(e.expected)}, ${e.source}), but a curve that is still climbing has not ` +
      "reached what the fabric carries, so bandwidth was not judged.",
    fix: () => "Run again up to 1 GiB or more (-e 1G, or -e 4G) and judge the plateau.",
  },
  NCCL_TESTS_BANDWIDTH_OK: {
    severity: "info",
    title: "Large-message bus bandwidth as expected",
    message: (e: Low) =>
      `Large-message busbw ${gb(e.busbw)} (at ${sizeText(e.bytes)}) meets the expectation ≈ ${gb(e.expected)} (problem below ${gb(e.threshold)}; ${e.source}).`,
    fix: () => "Nothing to do.",
  },
  NCCL_TESTS_SOCKET_SUSPECTED: {
    severity: "error",
    title: "Socket fallback?",
    message: (e: { busbw: number; hosts: number; log: string | null; nicGBps: number | null }) =>
      `Large-message busbw ${gb(e.busbw)} across ${e.hosts} nodes is under a quarter of what RDMA on these NICs allows` +
      `${e.nicGBps !== null ? ` and no more than one NIC's line rate (${gb(e.nicGBps)})` : ""}: TCP-socket speed, socket fallback?` +
      `${e.log ? ` The NCCL log says: ${e.log}.` : ""}`,
    fix: (e: { log: string | null }) =>
      e.log
        ? "Fix what the NCCL log names (its findings list the cause); set NCCL_IB_HCA from `kube-rdma nccl-env`."
        : "Run again with NCCL_DEBUG=INFO and look for `Using network Socket` / `via NET/Socket` (`kube-rdma analyze run.log`); set NCCL_IB_HCA from `kube-rdma nccl-env`.",
  },
  NCCL_TESTS_ABOVE_LINE_RATE: {
    severity: "info",
    title: "Above the network's rate",
    message: (e: { busbw: number; expected: number }) =>
      `busbw ${gb(e.busbw)} exceeds the network expectation ${gb(e.expected)}: on 2 nodes NCCL may pick Tree, whose busbw is not comparable to the NIC rate.`,
    fix: () => "Measure the network with NCCL_ALGO=Ring (`kube-rdma bench job` sets it for 2 nodes).",
  },
  NCCL_TESTS_BUSBW_MISMATCH: {
    severity: "warning",
    title: "busbw does not match algbw × factor",
    message: (e: { rows: number; factor: number; collective: string; nranks: number; example: string }) =>
      `${e.rows} row(s) have busbw ≠ algbw × ${Math.round(e.factor * 1000) / 1000} (${e.collective}, ${e.nranks} ranks), e.g. ${e.example}.`,
    fix: () =>
      "Check the rank count (all ranks listed under `# Using devices`?) and the -a reporting mode; busbw is only comparable when it follows the nccl-tests formula.",
  },
  NCCL_TESTS_NOT_MPI: {
    severity: "warning",
    title: "Each process ran alone",
    message: (e: { duplicates: number }) =>
      `The header or rank 0 appears again ${e.duplicates} time(s): nccl-tests was built without MPI=1 and every process ran its own single-rank test, so no network was measured.`,
    fix: () => "Rebuild nccl-tests with `make MPI=1 MPI_HOME=…` and launch with mpirun.",
  },
  NCCL_TESTS_SINGLE_NODE: {
    severity: "info",
    title: "Single-node run",
    message: (e: { baseline: string | null }) =>
      `All ranks are on one node: this measures NVLink/PCIe, not the network.${e.baseline ? ` Reference: ${e.baseline}.` : ""}`,
    fix: () => "Run on ≥ 2 nodes to measure RDMA (`kube-rdma bench job --nodes 2`).",
  },
  NCCL_TESTS_NO_RESULTS: {
    severity: "error",
    title: "Header and no result: the run hung or died",
    message: (e: {
      program: string | null;
      ranks: number | null;
      hosts: string[];
      gpus: string[];
      log: string | null;
    }) =>
      `${e.program ?? "nccl-tests"} printed its header${e.ranks ? ` (${e.ranks} ranks` : " ("}${e.hosts.length ? ` on ${e.hosts.join(", ")}` : ""}${e.gpus.length ? `, ${e.gpus.join(", ")}` : ""}) and no result row: the run produced no results. It hung or died before the first message size finished (or the paste stops there) — usually NCCL's init or first connection blocking on a peer.${e.log ? ` The NCCL log in the same output says: ${e.log}.` : ""}`,
    fix: () =>
      "Re-run with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET) and analyse that log (`kube-rdma analyze run.log`): its first WARN names the cause (a GID or route problem, a rank that never started, ibv_modify_qp timeouts). NCCL_IB_TIMEOUT bounds how long a dead peer hangs a run; check every node with `kube-rdma verify`.",
  },
  NCCL_TESTS_NO_EXPECTATION: {
    severity: "warning",
    title: "Not judged: no expectation",
    message: (e: { busbw: number; bytes: number; candidates: string[]; unmodelled?: string | null }) =>
      e.unmodelled
        ? `Large-message busbw ${gb(e.busbw)} at ${sizeText(e.bytes)} was not judged: there is no traffic model for ${e.unmodelled} across nodes (the share of its bytes that crosses the fabric depends on where its root or partners sit), so no expected figure is given rather than a wrong one.`
        : `Large-message busbw ${gb(e.busbw)} at ${sizeText(e.bytes)} was not judged: nothing says what these nodes' NICs allow.${e.candidates.length ? ` Published baselines for these GPUs: ${e.candidates.join("; ")}.` : ""}`,
    fix: (e: { unmodelled?: string | null }) =>
      e.unmodelled
        ? "Judge the network with all_reduce_perf or alltoall_perf (their figures have a model), or give an expectation of your own with --expect GBps."
        : "Give it an expectation: --expect GBps (the floor of the matching baseline above, e.g. 180 for 8×A100 + 8×HDR), or a node model (--example, --snapshot or --root of one of the nodes: its data NICs give the expectation), or keep NCCL_DEBUG=INFO in the same output (NCCL prints each port's speed).",
  },
  NCCL_TESTS_BELOW_BASELINES: {
    severity: "warning",
    title: "Below every published baseline for these GPUs",
    message: (e: { busbw: number; lowest: string; threshold: number }) =>
      `Large-message busbw ${gb(e.busbw)} is below every published multi-node baseline for these GPUs (the lowest, ${e.lowest}, is a problem below ${e.threshold} GB/s): unless the nodes have fewer or slower NICs than any of them, the network path is slow.`,
    fix: () =>
      "Judge it against the nodes' own NICs (--example/--snapshot/--root of a node, or --expect GBps), and check every node with `kube-rdma verify` and the run's NCCL log (NCCL_DEBUG=INFO) for sockets or RDMA without GPUDirect.",
  },
});
