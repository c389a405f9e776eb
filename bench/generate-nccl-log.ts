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
};

/**
 * Writes an NCCL_DEBUG=INFO log of many ranks (interleaved, many communicators) to `file` until it holds
 * `targetBytes`; returns the bytes written. Flushed to disk before it returns, so that writeback does not compete
 * with what is timed next.
 */
export function generateNcclLog(file: string, shape: LogShape): number {
  const { ranks, gpusPerNode: gpus, targetBytes, old = false } = shape;
  const fd = openSync(file, "w");
  const prefix = Array.from({ length: ranks }, (_, r) => {
    const host = `gpu-node-${String(Math.floor(r / gpus)).padStart(3, "0")}`;
    return `${host}:${20000 + r}:${20100 + r} [${r % gpus}] NCCL INFO `;
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
      // Once per process: the version and the IB device list (NCCL initialises its network once per process).
      if (comm === 0) {
        buf += `${p}NCCL version ${version}\n`;
        buf += old
          ? `${p}NET/IB : Using ${nics}\n`
          : `${p}NET/IB : Using ${nics} [RO]; OOB eth0:10.0.${Math.floor(r / gpus)}.3<0>\n`;
      }
      buf += `${p}Using network IB\n`;
      buf += old
        ? `${p}comm 0x${id} rank ${r} nranks ${ranks} cudaDev ${r % gpus} busId 7000 - Init START\n`
        : `${p}comm 0x${id} rank ${r} nRanks ${ranks} nNodes ${ranks / gpus} localRanks ${gpus} localRank ${r % gpus} MNNVL 0\n`;
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
      buf += `${prefix[r]}ncclCommInitRank comm 0x${id} rank ${r} nranks ${ranks} cudaDev ${r % gpus} nvmlDev ${r % gpus} busId 7000 commId 0x${id}9f8e localSize 8 used 402653184 bytes - Init COMPLETE\n`;
    }
    if (comm % 7 === 3) buf += "\nsome unrelated application output line\n";
    flush();
  }
  fsyncSync(fd);
  closeSync(fd);
  return written;
}
