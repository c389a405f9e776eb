/**
 * The A100 RoCE example node seen from inside a training pod, for `kube-rdma preflight`: the container's environment
 * (`/proc/self/environ`, with the NCCL variables the Baidu CCE reference setup injects), the NCCL library and the
 * RDMA net plugin of the image, and the GPU device nodes the NVIDIA runtime mounts. Variations differ in one
 * pod-level fact each, so that `preflight diff` has two sides to name.
 */
import type { HostDiff } from "./tree.js";
import { SEED_DIFFS } from "./variations.js";

const LIB = "/usr/lib/x86_64-linux-gnu";
const PLUGIN = "/opt/hpcx/nccl_rdma_sharp_plugin/lib";

/** A NUL-separated environment block, as `/proc/<pid>/environ` holds it. */
export function environText(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([k, v]) => `${k}=${v}\0`)
    .join("");
}

/** What a libnccl build holds that names its version (the rest of a real library is machine code). */
const ncclLibraryText = (version: string) => `\x7fELF\x02\x01\x01\0NCCL version ${version}+cuda11.4\0`;

const POD_ENV: Record<string, string> = {
  PATH: "/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  HOSTNAME: "pytorch-rdma-worker-0",
  NVIDIA_VISIBLE_DEVICES: "0,1,2,3,4,5,6,7",
  LD_LIBRARY_PATH: "/usr/local/cuda/lib64:/usr/local/nvidia/lib64",
  NCCL_DEBUG: "INFO",
  NCCL_IB_DISABLE: "0",
  NCCL_IB_HCA: "=mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx5_8",
  NCCL_SOCKET_IFNAME: "eth0",
  NCCL_IB_GID_INDEX: "3",
  NCCL_IB_TIMEOUT: "22",
  NCCL_IB_QPS_PER_CONNECTION: "8",
};

function ncclLibrary(version: string): HostDiff {
  return {
    set: { [`${LIB}/libnccl.so.${version}`]: ncclLibraryText(version) },
    links: { [`${LIB}/libnccl.so.2`]: `${LIB}/libnccl.so.${version}` },
  };
}

/** The pod facts every pod variation starts from. */
function podDiff(nccl = "2.11.4"): HostDiff {
  const lib = ncclLibrary(nccl);
  const gpus = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`/dev/nvidia${i}`, ""]));
  return {
    set: {
      "/proc/self/environ": environText(POD_ENV),
      ...lib.set,
      [`${PLUGIN}/libnccl-net.so.0.0.0`]: "\x7fELF\x02\x01\x01\0",
      ...gpus,
      "/dev/nvidiactl": "",
      "/dev/nvidia-uvm": "",
    },
    links: { ...lib.links, [`${PLUGIN}/libnccl-net.so`]: `${PLUGIN}/libnccl-net.so.0.0.0` },
  };
}

function join(...diffs: HostDiff[]): HostDiff {
  const out: Required<HostDiff> = { set: {}, remove: [], links: {}, errors: {}, fsSizes: {}, commands: {} };
  for (const d of diffs) {
    out.remove.push(...(d.remove ?? []));
    Object.assign(out.set, d.set);
    Object.assign(out.links, d.links);
    Object.assign(out.errors, d.errors);
    Object.assign(out.fsSizes, d.fsSizes);
    Object.assign(out.commands, d.commands);
  }
  return out;
}

export const POD_DIFFS: Record<string, { description: string; diff: HostDiff }> = {
  "training-pod": {
    description:
      "the A100 RoCE example node seen from a training pod: NCCL 2.11.4 and the HPC-X net plugin in the image, NCCL_IB_GID_INDEX=3 injected, 8 GPUs, every uverbs opens",
    diff: podDiff(),
  },
  "training-pod-nccl-2.12": {
    description: "training-pod with an image that carries NCCL 2.12.12 instead of 2.11.4",
    diff: join(podDiff("2.12.12")),
  },
  "training-pod-uverbs-eperm": {
    description: "training-pod whose /dev/infiniband/uverbs5 (mlx5_5) cannot be opened: EPERM (device cgroup)",
    diff: join(podDiff(), { errors: { "/dev/infiniband/uverbs5": "EPERM" } }),
  },
  "training-pod-7-hcas": {
    description: "training-pod that was given 7 HCAs: no /dev/infiniband/uverbs8 (mlx5_8) in the pod",
    diff: join(podDiff(), {
      remove: ["/dev/infiniband/uverbs8", "/dev/infiniband/umad8", "/dev/infiniband/issm8"],
    }),
  },
  "training-pod-gid-index-5": {
    description: "training-pod on a node whose mlx5_5 carries an extra IPv6 address: RoCE v2 IPv4 GID at index 5",
    diff: join(podDiff(), SEED_DIFFS["gid-index-5"]!.diff),
  },
};
