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
  codes: ["MEMLOCK_LIMITED", "NO_IPC_LOCK", "SHM_SMALL", "POD_CHECKS_SKIPPED"],
  run(inv, opts) {
    const { process: proc } = inv;
    if (!opts.pod) {
      if (!looksLikeContainer(proc)) return [];
      return [finding("POD_CHECKS_SKIPPED", "node", { capEff: proc.capEff, memlockSoft: proc.memlockSoft })];
    }
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

/**
 * A container's root: some capabilities (a runtime's default set is non-zero) but not IPC_LOCK, and a small numeric
 * memlock limit. A root shell on the host has every capability; a non-root user has none (CapEff 0).
 */
export function looksLikeContainer(proc: {
  capEff: string | null;
  ipcLock: boolean | null;
  memlockSoft: number | "unlimited" | null;
}): boolean {
  const someCaps = proc.capEff !== null && /[1-9a-f]/i.test(proc.capEff);
  return proc.ipcLock === false && someCaps && typeof proc.memlockSoft === "number";
}
