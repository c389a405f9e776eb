/**
 * Names the examples had before they were named for what they are: still accepted by `--example`, never listed.
 * Scripts written against the old names keep working.
 */
export const EXAMPLE_ALIASES: ReadonlyMap<string, string> = new Map([
  ["a100-8x-roce-seed", "a100-8x-roce"],
  ["seed-pod-nccl-2.12", "training-pod-nccl-2.12"],
  ["seed-pod-uverbs-eperm", "training-pod-uverbs-eperm"],
  ["seed-pod-7-hcas", "training-pod-7-hcas"],
  ["seed-pod-gid-index-5", "training-pod-gid-index-5"],
  ["seed-pod-restricted", "pod-restricted"],
  ["seed-pod", "training-pod"],
  ["seed-port-down", "port-down"],
  ["seed-half-rate", "half-rate"],
  ["seed-gid-index-5", "gid-index-5"],
  ["seed-no-rocev2-gid", "no-rocev2-gid"],
  ["seed-sparse-gids", "sparse-gids"],
  ["seed-no-peermem", "no-peermem"],
  ["seed-gpu-sys", "gpu-no-near-nic"],
  ["seed-no-ofed", "no-ofed"],
  ["seed-nvidia-smi-timeout", "nvidia-smi-timeout"],
  ["seed-row-remap", "gpu-row-remap"],
  ["seed-gpu-pcie-x8", "gpu-pcie-x8"],
  ["seed-port-errors", "port-errors"],
  ["seed-fw-mismatch", "fw-mismatch"],
  ["seed-no-uverbs", "no-uverbs"],
  ["seed-ipv6-only", "ipv6-only"],
  ["seed-bond", "bond-management"],
]);
