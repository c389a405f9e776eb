import { isInterfaceName, NETWORK_MODE_HELP, type NetworkMode, networkModeFrom } from "../nccl/network-mode.js";
import { DEFAULT_NCCL_ENV_PROFILE, NCCL_ENV_PROFILES, type NcclEnvProfile } from "../nccl/profiles.js";
import { type OptionSpec, type OptionValues, str, UsageError } from "./spec.js";

/** `--network host|pod` and `--pod-interface NAME` (shared with `device-plugin`). */
export function networkOption(values: OptionValues): NetworkMode {
  const network = str(values, "network");
  const podInterface = str(values, "pod-interface");
  if (podInterface !== undefined && !isInterfaceName(podInterface)) {
    throw new UsageError(`--pod-interface expects an interface name such as eth0 or net1; got "${podInterface}".`);
  }
  if (podInterface !== undefined && network === "host") {
    throw new UsageError(
      "--pod-interface names the pod's own interface on the pod network; with --network host the node's default-route interface is used.",
      "Drop one of the two flags.",
    );
  }
  return networkModeFrom(network, podInterface);
}

/** The flags that choose NCCL_SOCKET_IFNAME: the pod's network or the host's. */
export const NETWORK_OPTIONS = [
  {
    name: "network",
    type: "string",
    valueName: "MODE",
    choices: ["pod", "host"],
    default: "pod",
    description: `Where the job's pods live, for NCCL_SOCKET_IFNAME. ${NETWORK_MODE_HELP}`,
  },
  {
    name: "pod-interface",
    type: "string",
    valueName: "NAME",
    description:
      "--network pod: the interface the CNI gives each pod (eth0; net1 with Multus) → NCCL_SOCKET_IFNAME==NAME",
  },
] as const satisfies readonly OptionSpec[];

/** `--profile` (nccl-env) / `--nccl-profile` (device-plugin): the tuning beside the derived NCCL variables. */
export function profileOption(values: OptionValues, name: "profile" | "nccl-profile" = "nccl-profile"): NcclEnvProfile {
  const value = str(values, name) ?? DEFAULT_NCCL_ENV_PROFILE;
  if (!(NCCL_ENV_PROFILES as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} expects one of ${NCCL_ENV_PROFILES.join(", ")}; got "${value}".`);
  }
  return value as NcclEnvProfile;
}
