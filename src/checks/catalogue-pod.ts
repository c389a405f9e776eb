/**
 * Facts about a training container that two commands see from two angles, written once: `verify --pod` reads them
 * from the running process (CapEff, the size of /dev/shm), `lint` from the manifest that will start it
 * (securityContext, the /dev/shm emptyDir). Same code, same fix; the evidence says where it was seen.
 */
import { defineCatalogue } from "../core/finding.js";
import { formatBytes } from "./select.js";

/** Seen in a running process (`verify --pod`). */
type IpcLockInProcess = { capEff: string | null; memlockUnlimited: boolean };
/** Seen in a manifest (`lint`): the container that will run without it. */
type IpcLockInManifest = { where: string };

/** `bytes` measured (`verify --pod`) or the emptyDir's sizeLimit (`lint`, with `where` the container). */
type ShmSize = { bytes: number; minBytes: number; where?: string };

export const POD_CATALOGUE = defineCatalogue({
  NO_IPC_LOCK: {
    severity: "error",
    title: "IPC_LOCK capability missing",
    message: (e: IpcLockInProcess | IpcLockInManifest) =>
      "where" in e
        ? `${e.where} does not add CAP_IPC_LOCK (and is not privileged): unless the node's memlock limit is ` +
          "unlimited, NCCL's ibv_reg_mr of large buffers fails."
        : `CapEff ${e.capEff ?? "(unreadable)"} lacks CAP_IPC_LOCK (bit 14): ` +
          (e.memlockUnlimited
            ? "registration still works because memlock is unlimited, but RDMA pod specs add it so that registration never depends on the limit."
            : "with a limited memlock, NCCL's ibv_reg_mr of large buffers fails."),
    fix: () =>
      "Add it to the training container: `securityContext: {capabilities: {add: [IPC_LOCK]}}` " +
      "(`kube-rdma job` writes it).",
  },
  SHM_SMALL: {
    severity: "warning",
    title: "/dev/shm too small",
    message: (e: ShmSize) =>
      `${e.where ? `${e.where} limits /dev/shm to` : "/dev/shm is"} ${formatBytes(e.bytes)} (< ${formatBytes(e.minBytes)}): ` +
      "NCCL's intra-node SHM transport and PyTorch DataLoader workers need more; jobs die with `Bus error` or NCCL " +
      "`unhandled system error`.",
    fix: () =>
      "Mount a memory-backed emptyDir of at least a few GiB at /dev/shm: `volumes: [{name: dshm, emptyDir: {medium: Memory, " +
      "sizeLimit: 32Gi}}]` and `volumeMounts: [{name: dshm, mountPath: /dev/shm}]` (`kube-rdma job` writes it); with " +
      "docker, `--shm-size=16g`.",
  },
});
