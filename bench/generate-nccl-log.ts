import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";

export type LogShape = {
  ranks: number;
  gpusPerNode: number;
  targetBytes: number;
  /**
   * NCCL before 2.9: `comm 0x… rank R nranks N cudaDev D busId B - Init START` (no nNodes/localRanks) and no OOB on
   * the device list. The first shape that made whole-text scans slow.
   */
  old?: boolean;
  /**
   * Only the lines the first benches had (version, device list, network, comm, connections, Init COMPLETE), every
   * line bare: the shape earlier figures were measured on.
   */
  plain?: boolean;
};

/**
 * What goes before `host:pid:tid` on a rank's lines, as a job's log holds them (a quarter of the ranks each):
 * nothing; Open MPI's `mpirun --tag-output` tag `[1,R]<stdout>:`; kubectl logs --timestamps' RFC 3339 time; NCCL's own
 * time stamp (NCCL_DEBUG_TIMESTAMP_LEVELS=INFO, default format `[%F %T] `, src/debug.cc in
 * https://github.com/NVIDIA/nccl).
 */
function launcherPrefix(rank: number, plain: boolean): string {
  if (plain) return "";
  const second = String(rank % 60).padStart(2, "0");
  switch (rank % 4) {
    case 1:
      return `[1,${rank}]<stdout>:`;
    case 2:
      return `2026-12-04T18:02:${second}.${String(rank * 7919).padStart(9, "0")}Z `;
    case 3:
      return `[2026-12-04 18:02:${second}] `;
    default:
      return "";
  }
}

/** A ring order line: `Channel 00/32 :    0   1   2 …` (NCCL prints each channel's ring once per rank). */
function ringOrder(ranks: number, channel: string, upTo: number): string {
  let s = `Channel ${channel}/32 :`;
  for (let r = 0; r < Math.min(ranks, upTo); r++) s += String(r).padStart(4, " ");
  return s;
}

/**
 * Writes an NCCL_DEBUG=INFO log of many ranks (interleaved, many communicators) to `file` until it holds
 * `targetBytes`; returns the bytes written. Flushed to disk before it returns, so that writeback does not compete
 * with what is timed next.
 *
 * The line mix follows a real INFO log of NCCL 2.19+ (init.cc, transport.cc, graph/*.cc in
 * https://github.com/NVIDIA/nccl; the INFO examples in NCCL's troubleshooting guide): per communicator each rank prints
 * its comm line, affinity, ring order, trees, thresholds, channel counts, 16 channel connections (P2P inside a node,
 * NET/IB with GPUDirect between nodes), "Connected all rings/trees" and Init COMPLETE; a quarter of the ranks' lines
 * carry a launcher tag or a time stamp (`launcherPrefix`). Host names, ids and numbers are this generator's own.
 */
export function generateNcclLog(file: string, shape: LogShape): number {
  const { ranks, gpusPerNode: gpus, targetBytes, old = false, plain = false } = shape;
  const fd = openSync(file, "w");
  const prefix = Array.from({ length: ranks }, (_, r) => {
    const host = `gpu-node-${String(Math.floor(r / gpus)).padStart(3, "0")}`;
    return `${launcherPrefix(r, plain)}${host}:${20000 + r}:${20100 + r} [${r % gpus}] NCCL INFO `;
  });
  const nics = Array.from({ length: 8 }, (_, i) => `[${i}]mlx5_${i + 1}:1/RoCE`).join(" ");
  const version = old ? "2.8.4+cuda11.2" : "2.23.4+cuda12.6";
  let written = 0;
  let buf = "";
  const flush = () => {
    written += writeSync(fd, buf, null, "latin1");
    buf = "";
  };
  for (let comm = 0; written < targetBytes; comm++) {
    const id = (0x5a31c0e4f0d0 + comm * 4096).toString(16);
    for (let r = 0; r < ranks; r++) {
      const p = prefix[r]!;
      const d = r % gpus;
      // Once per process: the version and the IB device list (NCCL initialises its network once per process).
      if (comm === 0) {
        buf += `${p}NCCL version ${version}\n`;
        buf += old
          ? `${p}NET/IB : Using ${nics}\n`
          : `${p}NET/IB : Using ${nics} [RO]; OOB eth0:10.0.${Math.floor(r / gpus)}.3<0>\n`;
      }
      buf += `${p}Using network IB\n`;
      buf += old
        ? `${p}comm 0x${id} rank ${r} nranks ${ranks} cudaDev ${d} busId 7000 - Init START\n`
        : `${p}comm 0x${id} rank ${r} nRanks ${ranks} nNodes ${ranks / gpus} localRanks ${gpus} localRank ${d} MNNVL 0\n`;
      if (plain) continue;
      buf += `${p}Setting affinity for GPU ${d} to ${d < gpus / 2 ? "ffffffff,00000000,ffffffff" : "ffffffff,00000000,ffffffff,00000000"}\n`;
      buf += `${p}NVLS multicast support is not available on dev ${d}\n`;
      if (r === 0) for (let ch = 0; ch < 4; ch++) buf += `${p}${ringOrder(ranks, String(ch).padStart(2, "0"), 64)}\n`;
      buf += `${p}Trees [0] ${r + 1}/-1/-1->${r}->${r - 1} [1] ${r + 1}/-1/-1->${r}->${r - 1}\n`;
      buf += `${p}P2P Chunksize set to 524288\n`;
    }
    // Channel connections, interleaved across ranks as concurrent processes write them.
    for (let ch = 0; ch < 16; ch++) {
      const c = String(ch).padStart(2, "0");
      for (let r = 0; r < ranks; r++) {
        const p = prefix[r]!;
        const prev = (r + ranks - 1) % ranks;
        const next = (r + 1) % ranks;
        const d = r % gpus;
        if (d === 0) buf += `${p}Channel ${c}/0 : ${prev}[7] -> ${r}[0] [receive] via NET/IB/${ch % 8}/GDRDMA\n`;
        else if (d === gpus - 1)
          buf += `${p}Channel ${c}/0 : ${r}[7] -> ${next}[0] [send] via NET/IB/${ch % 8}/GDRDMA\n`;
        else buf += `${p}Channel ${c}/0 : ${r}[${d}] -> ${next}[${d + 1}] via P2P/CUMEM/read\n`;
      }
      if (buf.length > 8 << 20) flush();
    }
    for (let r = 0; r < ranks; r++) {
      const p = prefix[r]!;
      if (!plain) {
        buf += `${p}Connected all rings\n`;
        buf += `${p}Connected all trees\n`;
        buf += `${p}threadThresholds 8/8/64 | 8192/8/64 | 512 | 512\n`;
        buf += `${p}16 coll channels, 16 collnet channels, 0 nvls channels, 16 p2p channels, 2 p2p channels per peer\n`;
      }
      buf += `${p}ncclCommInitRank comm 0x${id} rank ${r} nranks ${ranks} cudaDev ${r % gpus} nvmlDev ${r % gpus} busId 7000 commId 0x${id}9f8e localSize 8 used 402653184 bytes - Init COMPLETE\n`;
    }
    if (comm % 7 === 3) buf += "\nsome unrelated application output line\n";
    flush();
  }
  fsyncSync(fd);
  closeSync(fd);
  return written;
}
