import type { CheckOptions } from "../checks/types.js";
import { type OptionSpec, type OptionValues, str } from "./spec.js";

export const OUTPUT_OPTION: OptionSpec = {
  name: "output",
  short: "o",
  type: "string",
  valueName: "FORMAT",
  choices: ["text", "json", "yaml"],
  default: "text",
  description: "Output format",
};

export const STRICT_OPTION: OptionSpec = {
  name: "strict",
  type: "boolean",
  description: "Count warnings as errors for the exit code",
};

/** Where host facts come from. At most one of --root, --snapshot, --example; none = the live host at /. */
export const SOURCE_OPTIONS: readonly OptionSpec[] = [
  {
    name: "root",
    type: "string",
    valueName: "DIR",
    description: "Read /sys, /proc and /dev under DIR (a host mounted at /host, or a fixture tree)",
  },
  {
    name: "snapshot",
    type: "string",
    valueName: "FILE",
    description:
      "Replay a snapshot written by `kube-rdma collect` (same findings on any machine); gzip is read too, - is stdin",
  },
  {
    name: "example",
    type: "string",
    valueName: "NAME",
    description: "Use an embedded example host (see `kube-rdma examples`)",
  },
  {
    name: "list-examples",
    type: "boolean",
    description: "List the embedded example hosts and exit",
  },
  {
    name: "command-timeout",
    type: "number",
    valueName: "SECONDS",
    default: 15,
    description: "Timeout for ofed_info and nvidia-smi on a live host",
  },
];

/** -o for reports that also have an HTML page (`-o html > report.html`). */
export const REPORT_OUTPUT_OPTION: OptionSpec = {
  ...OUTPUT_OPTION,
  choices: ["text", "json", "yaml", "html"],
  description: "Output format (html: one self-contained page to open in a browser)",
};

/** `--vm-host yes|no`: whether the host passes PCI devices to VMs, which no host shows (verify, agent, fleet verify). */
export const VM_HOST_OPTION: OptionSpec = {
  name: "vm-host",
  type: "string",
  valueName: "yes|no",
  choices: ["yes", "no"],
  description:
    "Whether this host passes PCI devices to virtual machines (it decides the PCIe ACS fix: VMs need ACS, enable ATS there instead); unset: both fixes are given",
};

/** `--vm-host yes|no` as check options; empty when not given. */
export function vmHostOf(values: OptionValues): Pick<CheckOptions, "vmHost"> {
  const vmHost = str(values, "vm-host");
  return vmHost === undefined ? {} : { vmHost: vmHost === "yes" };
}
