/** Words for the node-level findings: software stack, devices, pod limits, read problems. */
import { defineCatalogue } from "../core/finding.js";
import { POD_CATALOGUE } from "./catalogue-pod.js";
import { formatBytes } from "./select.js";

const limitText = (v: number | "unlimited" | null) =>
  v === null ? "unknown" : v === "unlimited" ? "unlimited" : formatBytes(v);

/**
 * A check that could not run (one code for every check): what was not checked, why, and — when a fact could not be
 * read — which one and where; `fix` when the check knows a better remedy than making the path readable.
 */
type SkipEvidence = { checks: string; why: string; fact?: string; path?: string; fix?: string };

export const NODE_CATALOGUE = defineCatalogue({
  OFED_ABSENT: {
    severity: "info",
    title: "No MLNX_OFED / DOCA-OFED: inbox rdma-core",
    message: (e: { detail: string | null }) =>
      `ofed_info is not installed${e.detail ? ` (${e.detail})` : ""}: the node runs the distribution's inbox ` +
      "rdma-core and mlx5 drivers. NCCL works over them, but their ib_core lacks the peer-memory API that " +
      "nvidia_peermem needs: GPUDirect RDMA then works only through DMA-BUF (the open GPU kernel module, driver 515+, " +
      "kernel 5.12+). The OFED tools (ofed_info, show_gids) are absent too.",
    fix: () =>
      "For GPUDirect RDMA use the open GPU kernel module (DMA-BUF), or install MLNX_OFED/DOCA-OFED so that " +
      "nvidia_peermem can load; `kube-rdma verify` names the path in use. `kube-rdma gids` replaces show_gids.",
  },
  OFED_TOOLS_ABSENT: {
    severity: "info",
    title: "OFED's drivers run here; its tools are elsewhere",
    message: (e: { version: string | null }) =>
      "ofed_info is not installed here, but the kernel runs MLNX_OFED / DOCA-OFED's mlx5 drivers (mlx_compat is " +
      `loaded${e.version ? `, mlx5_core ${e.version}` : ""}): the NVIDIA Network Operator's driver container provides ` +
      "them, with ofed_info and show_gids inside that container, or the OFED user-space packages were removed.",
    fix: () =>
      "Nothing is required for NCCL. For the OFED version, ask the driver container on this node: `kubectl exec -n " +
      "nvidia-network-operator <its mofed / doca-driver pod> -- ofed_info -s`; `kube-rdma gids` replaces show_gids.",
  },
  OFED_NOT_RUNNING: {
    severity: "warning",
    title: "The installed OFED is not the driver the kernel runs",
    message: (e: { installed: string; loaded: string | null }) =>
      e.loaded === null
        ? `${e.installed} is installed (ofed_info -s), but the kernel runs the distribution's inbox mlx5 driver ` +
          "(mlx5_core without OFED's compat module mlx_compat): OFED's kernel modules were not built for this kernel (a " +
          "kernel update without the DKMS rebuild) or not loaded since the install. NCCL runs on drivers nobody " +
          "validated with this OFED, and nvidia_peermem, which registers with OFED's peer-memory API, may not load."
        : `${e.installed} is installed (ofed_info -s), but the kernel runs mlx5_core ${e.loaded}, from another OFED: ` +
          "an earlier install whose drivers stay loaded until a driver restart or a reboot, or the NVIDIA Network " +
          "Operator's driver container, which loads its own.",
    fix: (e: { loaded: string | null }) =>
      (e.loaded === null
        ? ""
        : "Where the Network Operator's driver container runs on this node, its OFED is the one that counts: remove " +
          "the host's stale OFED packages so that `ofed_info` stops naming another version. Otherwise: ") +
      "load the installed drivers: drain the node, then `/etc/init.d/openibd restart` (it stops RDMA traffic) or " +
      "reboot. If mlx5_core stays the inbox one, rebuild OFED for the running kernel (`uname -r`): rerun the " +
      "installer with --add-kernel-support, or install its DKMS packages. Check with `modinfo mlx5_core | grep " +
      "^version` and `lsmod | grep mlx_compat`, then rerun `kube-rdma verify`.",
  },
  OFED_UNRECOGNISED: {
    severity: "warning",
    title: "ofed_info answered something unexpected",
    message: (e: { raw: string | null; status: string }) =>
      `ofed_info -s ${e.status === "error" ? "failed" : "answered"}${e.raw ? ` "${e.raw}"` : " nothing"}, which is ` +
      'not an OFED version line (expected e.g. "MLNX_OFED_LINUX-5.8-1.1.2.1:"): the OFED install is broken or partial.',
    fix: () =>
      "Run `ofed_info -s` by hand. Reinstall MLNX_OFED/DOCA-OFED if it fails (`/usr/sbin/ofed_uninstall.sh`, then the " +
      "installer), or remove the stale script when the node is meant to use inbox rdma-core.",
  },
  DRIVER_ABSENT: {
    severity: "error",
    title: "NVIDIA driver missing",
    message: (e: { error: string | null }) =>
      `no NVIDIA driver: ${e.error ?? "nvidia-smi is not installed"}. Without it no GPU can be used.`,
    fix: () =>
      "Install the NVIDIA driver and check with `nvidia-smi`; on Kubernetes make " +
      "sure the GPU driver DaemonSet / GPU operator ran on this node.",
  },
  DRIVER_NOT_RESPONDING: {
    severity: "error",
    title: "nvidia-smi does not answer",
    message: (e: { status: "error" | "timeout"; error: string | null }) =>
      e.status === "timeout"
        ? `nvidia-smi did not answer in time${e.error ? ` (${e.error})` : ""}: the driver is wedged or a GPU hangs; ` +
          "jobs on this node will hang at CUDA init."
        : `nvidia-smi failed${e.error ? `: ${e.error}` : ""}: the driver cannot talk to the GPUs.`,
    fix: () =>
      "Look for Xid errors (`dmesg -T | grep -i xid`); drain the node, then reset the GPUs (`nvidia-smi -r`) or reboot. " +
      "If it persists, collect `nvidia-bug-report.sh` for NVIDIA.",
  },
  NO_RDMA_HCA: {
    severity: "error",
    title: "No RDMA device for data",
    message: (e: { hcas: string[] }) =>
      e.hcas.length === 0
        ? "no RDMA device found (none under /sys/class/infiniband, or `No IB devices found`): NCCL falls back to " +
          "TCP sockets (NET/Socket)."
        : `the only RDMA device(s) ${e.hcas.join(", ")} carry the default route (management/bootstrap NIC); no data ` +
          "HCA is left for NCCL_IB_HCA, so RDMA traffic would share the management NIC.",
    fix: (e: { hcas: string[] }) =>
      e.hcas.length === 0
        ? "Check the NICs (`lspci | grep -i mellanox`) and the driver (`lsmod | grep mlx5_ib`; `modprobe mlx5_ib`); " +
          "in a pod, request the RDMA device-plugin resource (e.g. `rdma/hca: 1`) so the devices are visible."
        : "Give the node dedicated data NICs, or accept the shared NIC and set NCCL_IB_HCA to it explicitly.",
  },
  NO_UVERBS: {
    severity: "error",
    title: "No user-space verbs device",
    message: (e: { hcas: number; uverbs: string[] }, subject: string) =>
      subject === "/dev/infiniband"
        ? `/dev/infiniband has no uverbs* device although ${e.hcas} RDMA device(s) are in sysfs: NCCL and ` +
          "ibv_devinfo cannot open any HCA."
        : `${subject}'s verbs device ${e.uverbs.map((u) => `/dev/infiniband/${u}`).join(", ")} is missing: ` +
          `NCCL cannot open ${subject}.`,
    fix: () =>
      "On the host: `modprobe ib_uverbs` and `ls -l /dev/infiniband`. In a pod: request the RDMA device-plugin " +
      "resource (e.g. `rdma/hca: 1`), which mounts /dev/infiniband/uverbs*, or run the pod privileged.",
  },
  NO_GPUDIRECT: {
    severity: "error",
    title: "No GPUDirect RDMA mechanism",
    message: (e: { driverVersion: string | null; reasons: string[]; inboxMlx5?: boolean }) =>
      "no GPUDirect RDMA mechanism: neither nvidia_peermem nor nv_peer_mem is loaded, and " +
      (e.reasons.length
        ? `${e.reasons.join("; ")}. `
        : `DMA-BUF needs driver ≥ 515 with the open kernel modules (driver ${e.driverVersion ?? "unknown"}). `) +
      "NCCL then stages every message through host memory (no /GDRDMA in its channel lines), losing bandwidth and CPU.",
    fix: (e: { inboxMlx5?: boolean }) =>
      (e.inboxMlx5
        ? "This kernel runs the inbox mlx5 driver, whose ib_core normally lacks the peer-memory API nvidia_peermem " +
          "registers with (OFED's has it): load MLNX_OFED / DOCA-OFED's drivers (install OFED, or see " +
          "OFED_NOT_RUNNING), then "
        : "") +
      "`modprobe nvidia-peermem` (ships with the driver since 470) and persist it " +
      "(`echo nvidia-peermem > /etc/modules-load.d/nvidia-peermem.conf`), or move to driver ≥ 515 with the open " +
      "kernel modules so NCCL ≥ 2.13 uses DMA-BUF. NCCL's log then says `GPU Direct RDMA Enabled`.",
  },
  MEMLOCK_LIMITED: {
    severity: "error",
    title: "Locked-memory limit too small",
    message: (e: { soft: number | "unlimited" | null; hard: number | "unlimited" | null; ipcLock: boolean | null }) =>
      `the locked-memory limit is ${limitText(e.soft)} (soft; hard ${limitText(e.hard)}), not unlimited: NCCL pins its ` +
      "buffers with ibv_reg_mr, which " +
      (e.ipcLock
        ? "CAP_IPC_LOCK lets through here, but MPI launchers and tools that check `ulimit -l` still complain."
        : "fails (`Call to ibv_reg_mr failed`) because the process also lacks CAP_IPC_LOCK."),
    fix: () =>
      "Run the container runtime with an unlimited memlock ulimit (`LimitMEMLOCK=infinity` in a containerd/docker " +
      "systemd drop-in, or `--ulimit memlock=-1:-1`), and add IPC_LOCK to the container's " +
      "securityContext.capabilities.add.",
  },
  // NO_IPC_LOCK and SHM_SMALL: written once for verify --pod and lint (catalogue-pod.ts).
  ...POD_CATALOGUE,
  POD_CHECKS_SKIPPED: {
    severity: "info",
    title: "Looks like a container: pod checks not run",
    message: (e: { capEff: string | null; memlockSoft: number | "unlimited" | null }) =>
      `this process looks like it runs in a container (CapEff ${e.capEff ?? "(unreadable)"} without CAP_IPC_LOCK, ` +
      `memlock ${limitText(e.memlockSoft)}), but the pod checks (memlock, IPC_LOCK, /dev/shm) were skipped ` +
      "because --pod was not given.",
    fix: () =>
      "Inside the training pod run `kube-rdma verify --pod` to check what the container gets; on the host itself " +
      "run kube-rdma as root (or with --root /host from a privileged pod) so that the host's facts are read.",
  },
  READ_PROBLEM: {
    severity: "warning",
    title: "A fact could not be read",
    message: (e: { problemCode: string; text: string; hint: string | null }) => `${e.text} [${e.problemCode}]`,
    fix: (e: { hint: string | null }) =>
      e.hint ??
      "Run kube-rdma as root on the host (or mount the host read-only and pass --root), then rerun `kube-rdma verify`.",
  },
  IMPLAUSIBLE_NAME: {
    severity: "error",
    title: "A device or host name no kernel gives",
    message: (e: { text: string; hint: string | null }) => e.text,
    fix: (e: { hint: string | null }) =>
      e.hint ?? "Inspect the host's /sys and /proc (ls -b shows hidden characters) before trusting this node.",
  },
  CHECK_SKIPPED: {
    severity: "warning",
    title: "A check could not run",
    message: (e: SkipEvidence) =>
      e.fact !== undefined && e.path !== undefined
        ? `${e.checks}: not checked, because ${e.fact} could not be read (${e.path}: ${e.why}).`
        : `${e.checks}: not checked, because ${e.why}.`,
    fix: (e: SkipEvidence) =>
      e.fix ??
      `Make ${e.path ?? "the host's /sys and /proc"} readable to kube-rdma (run it as root on the host, or mount the host's /sys, /proc and /dev read-only and pass --root), then rerun \`kube-rdma verify\`; --strict fails until every check ran.`,
  },
});
