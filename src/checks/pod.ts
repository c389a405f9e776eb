/**
 * What a training container needs (only with --pod): pinned memory (memlock unlimited, or CAP_IPC_LOCK, which
 * lets ib_umem_get pin past the limit) and a /dev/shm big enough for NCCL's SHM transport.
 */
import type { Finding } from "../core/finding.js";
import { finding } from "./catalogue.js";
import type { Check } from "./types.js";

export const DEFAULT_SHM_MIN_BYTES = 1024 ** 3;

export const podLimitsCheck: Check = {
  name: "pod-limits",
  codes: ["MEMLOCK_LIMITED", "NO_IPC_LOCK", "SHM_SMALL"],
  run(inv, opts) {
    if (!opts.pod) return [];
    const { process: proc } = inv;
    const out: Finding[] = [];
    const limited = typeof proc.memlockSoft === "number";
    if (limited) {
      const evidence = { soft: proc.memlockSoft, hard: proc.memlockHard, ipcLock: proc.ipcLock };
      out.push(finding("MEMLOCK_LIMITED", "memlock", evidence, proc.ipcLock === true ? "warning" : "error"));
    }
    if (proc.ipcLock === false) {
      const evidence = { capEff: proc.capEff, memlockUnlimited: proc.memlockSoft === "unlimited" };
      out.push(finding("NO_IPC_LOCK", "CapEff", evidence, limited ? "error" : "warning"));
    }
    const minBytes = opts.shmMinBytes ?? DEFAULT_SHM_MIN_BYTES;
    if (inv.shmBytes !== null && inv.shmBytes < minBytes) {
      out.push(finding("SHM_SMALL", "/dev/shm", { bytes: inv.shmBytes, minBytes }));
    }
    return out;
  },
};
