/** The nccl-tests command line for a multi-node benchmark (tech-spec §5.3, §5.4). */

import { beyondLimit } from "./job-limits.js";

export type NcclTestsCommandOptions = {
  nodes: number;
  gpusPerNode: number;
  collective?: string;
  minBytes?: string;
  maxBytes?: string;
};

export type NcclTestsCommand = { argv: string[]; np: number; env: Record<string, string>; notes: string[] };

export const COLLECTIVES = [
  "all_reduce",
  "all_gather",
  "reduce_scatter",
  "alltoall",
  "broadcast",
  "reduce",
  "sendrecv",
  "gather",
  "scatter",
  "hypercube",
] as const;

const SIZE = /^\d+[KMGT]?$/i;

/**
 * nccl-tests allocates a send and a receive buffer of -e bytes on every GPU (and more for in-place checks): 2 × 128 GiB
 * is already beyond the largest GPU's memory (288 GB).
 */
export const MAX_MESSAGE = "128G";

/** nccl-tests' size suffixes are powers of 1024 (K, M, G, T). */
function sizeBytes(size: string): number {
  const unit = size.slice(-1).toUpperCase();
  const power = "KMGT".indexOf(unit) + 1;
  return Number(power ? size.slice(0, -1) : size) * 1024 ** power;
}

/**
 * `mpirun -np N -N G --bind-to none -x … all_reduce_perf -b 8 -e 8G -f 2 -g 1`: one rank per GPU. Throws RangeError on
 * impossible input (callers validate user input first).
 */
export function ncclTestsCommand(opts: NcclTestsCommandOptions): NcclTestsCommand {
  const { nodes, gpusPerNode } = opts;
  if (!Number.isInteger(nodes) || nodes < 1) throw new RangeError(`nodes must be a positive integer, got ${nodes}`);
  if (!Number.isInteger(gpusPerNode) || gpusPerNode < 1) {
    throw new RangeError(`gpusPerNode must be a positive integer, got ${gpusPerNode}`);
  }
  const tooLarge = beyondLimit("nodes", nodes) ?? beyondLimit("gpus", gpusPerNode);
  if (tooLarge) throw new RangeError(tooLarge);
  const collective = (opts.collective ?? "all_reduce").replace(/_perf$/, "");
  if (!(COLLECTIVES as readonly string[]).includes(collective)) {
    throw new RangeError(`unknown collective "${collective}"; expected one of ${COLLECTIVES.join(", ")}`);
  }
  const minBytes = opts.minBytes ?? "8";
  const maxBytes = opts.maxBytes ?? "8G";
  for (const s of [minBytes, maxBytes]) if (!SIZE.test(s)) throw new RangeError(`size "${s}" is not like 8, 1M or 8G`);
  if (sizeBytes(minBytes) === 0) {
    throw new RangeError(
      `-b ${minBytes}: the smallest message must be at least 1 byte (nccl-tests multiplies each size by -f 2, and 0 × 2 never reaches -e)`,
    );
  }
  if (sizeBytes(maxBytes) > sizeBytes(MAX_MESSAGE)) {
    throw new RangeError(
      `-e ${maxBytes} does not fit on any GPU: nccl-tests allocates a send and a receive buffer of -e bytes on every ` +
        `GPU; use at most ${MAX_MESSAGE} (8G is the usual top size)`,
    );
  }
  if (sizeBytes(minBytes) > sizeBytes(maxBytes)) {
    // nccl-tests would print its header and no row at all: a run that measures nothing.
    throw new RangeError(`the smallest message (-b ${minBytes}) is larger than the largest (-e ${maxBytes})`);
  }
  const np = nodes * gpusPerNode;
  const env: Record<string, string> = { NCCL_DEBUG: "INFO", NCCL_DEBUG_SUBSYS: "INIT,NET" };
  const notes = [
    `${np} ranks: one per GPU (${nodes} node${nodes === 1 ? "" : "s"} × ${gpusPerNode} GPUs), -g 1 GPU per rank.`,
    "NCCL_DEBUG=INFO keeps the NCCL lines in the same output: `kube-rdma analyze run.log` then explains a low number.",
    "Judge the large-message busbw (≥ 1 GiB), not `Avg bus bandwidth` (the mean over every size).",
  ];
  if (nodes === 2) {
    env.NCCL_ALGO = "Ring";
    notes.push(
      "2 nodes: NCCL_ALGO=Ring, because NCCL may pick Tree whose busbw exceeds the NIC line rate; Ring measures the network.",
    );
  }
  if (nodes === 1) notes.push("1 node: this measures NVLink/PCIe, not the network.");
  const exports = Object.entries(env).flatMap(([k, v]) => ["-x", `${k}=${v}`]);
  const argv = [
    "mpirun",
    "-np",
    String(np),
    "-N",
    String(gpusPerNode),
    "--bind-to",
    "none",
    ...exports,
    `${collective}_perf`,
    "-b",
    minBytes,
    "-e",
    maxBytes,
    "-f",
    "2",
    "-g",
    "1",
  ];
  return { argv, np, env, notes };
}

/** One shell line (arguments quoted only when needed). */
export function shellLine(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(" ");
}
