/**
 * Where NCCL's bootstrap sockets live, and so which NCCL_SOCKET_IFNAME is right.
 *
 * A pod with `hostNetwork: true` shares the node's network namespace: the node's interface names (eth0, bond0,
 * ens1f0, …) exist in it, and the default-route interface is the right bootstrap interface. A pod on the pod network
 * has a namespace of its own: `lo`, the interface the CNI plugin creates (`eth0` for the common CNIs) and, with
 * Multus, secondary interfaces (`net1`, `net2`, … or the names its annotation gives). The node's bond0 or ens1f0 do
 * not exist there; NCCL told to use one fails at bootstrap ("no socket interface found").
 */
import type { NodeInventory } from "../inventory/types.js";

export type NetworkMode =
  /** hostNetwork: true: the node's interface names are the pod's. */
  | { kind: "host" }
  /** The pod network: the pod's own interfaces; `podInterface` when the user knows the CNI's name (eth0, net1). */
  | { kind: "pod"; podInterface?: string };

/** The safe default where the pod spec is unknown (the device plugin at Allocate, `nccl-env`): the pod network. */
export const DEFAULT_NETWORK_MODE: NetworkMode = { kind: "pod" };

export const NETWORK_MODE_HELP =
  "pod (default): a pod on the pod network has its own interfaces (the CNI's eth0, Multus net1…), never the " +
  "node's bond0/ens*: NCCL_SOCKET_IFNAME is left unset (NCCL then picks the pod's interface itself) or set to " +
  "--pod-interface NAME; host: pods with hostNetwork: true, where the node's default-route interface is right";

/** `--network host|pod` and `--pod-interface NAME` → a mode; the flag values are checked by the caller's spec. */
export function networkModeFrom(network: string | undefined, podInterface: string | undefined): NetworkMode {
  if (network === "host") return { kind: "host" };
  return podInterface ? { kind: "pod", podInterface } : { kind: "pod" };
}

/** Linux interface names: 1–15 characters, no slash, colon or whitespace. */
export function isInterfaceName(name: string): boolean {
  return /^[A-Za-z0-9_.-]{1,15}$/.test(name);
}

export type SocketIfname = { value: string | null; reason: string };

/**
 * NCCL_SOCKET_IFNAME for a mode: the default-route interface on the host network, the named pod interface (or
 * nothing) on the pod network. `value: null` = leave unset, `reason` says why; null overall = nothing to say
 * (host network without a default route: the caller reports that).
 */
export function socketIfnameFor(inv: NodeInventory, mode: NetworkMode): SocketIfname | null {
  const hostIf = inv.roles.defaultRouteInterface;
  if (mode.kind === "pod") {
    const host = hostIf ? ` such as ${hostIf}` : "";
    if (mode.podInterface) {
      return {
        value: `=${mode.podInterface}`,
        reason:
          `the pod's own interface ${mode.podInterface} (given with --pod-interface): a pod on the pod network does ` +
          `not have the node's interfaces${host}; "=" = exact`,
      };
    }
    return {
      value: null,
      reason:
        `not set: a pod on the pod network has only its own interfaces (the CNI's eth0, Multus net1…), not the ` +
        `node's interfaces${host}; NCCL picks the pod's interface itself (it skips lo and docker*). Give --pod-interface NAME ` +
        "when you know the CNI's name; only pods with hostNetwork: true should get the node's interface " +
        "(nccl-env/device-plugin --network host, job --host-network)",
    };
  }
  if (!hostIf) return null;
  const mgmt = inv.roles.managementHca ? ` (the management NIC ${inv.roles.managementHca})` : "";
  return {
    value: `=${hostIf}`,
    reason:
      `${hostIf}${mgmt} carries the default route: NCCL's bootstrap and out-of-band connection setup go there ` +
      `(right for pods with hostNetwork: true, which share the node's interfaces); "=" = exact, so ${hostIf} does ` +
      `not also match ${hostIf}.100 or ${hostIf}1`,
  };
}

/** Multus' default names for secondary interfaces: net1, net2, … */
const MULTUS_DEFAULT = /^net\d+$/;

/**
 * The interfaces a pod on the pod network can have: lo, the CNI's eth0, Multus' net1… and the names its
 * `k8s.v1.cni.cncf.io/networks` annotation gives (`ns/name@ifname` or JSON `{"interface": …}`).
 */
export function podInterfaceNames(multusAnnotation: string | undefined): string[] {
  const names = ["lo", "eth0"];
  const text = multusAnnotation?.trim() ?? "";
  if (!text) return names;
  if (text.startsWith("[")) {
    try {
      const list = JSON.parse(text) as unknown;
      if (Array.isArray(list)) {
        for (const n of list) {
          const iface = (n as { interface?: unknown } | null)?.interface;
          if (typeof iface === "string") names.push(iface);
        }
      }
    } catch {
      // Not JSON after all: no names from it.
    }
    return names;
  }
  for (const item of text.split(",")) {
    const at = item.indexOf("@");
    if (at >= 0) names.push(item.slice(at + 1).trim());
  }
  return names;
}

/**
 * The entries of an NCCL_SOCKET_IFNAME value that no interface of a pod on the pod network can match. An exclusion
 * list (`^docker,lo`) names nothing the pod must have; an exact entry (`=bond0`) must equal a pod interface, a
 * prefix entry (`eth`) must start one (NCCL's prefix match).
 */
export function impossibleOnPodNetwork(value: string, podNames: readonly string[]): string[] {
  if (value.startsWith("^")) return [];
  const exact = value.startsWith("=");
  const entries = value
    .replace(/^=/, "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  const matches = (entry: string, name: string) => (exact ? name === entry : name.startsWith(entry));
  const multusCanMatch = (entry: string) =>
    exact ? MULTUS_DEFAULT.test(entry) : /^n(e(t\d*)?)?$/.test(entry) || MULTUS_DEFAULT.test(entry);
  return entries.filter((e) => !podNames.some((n) => matches(e, n)) && !multusCanMatch(e));
}

/** The interface names an NCCL_SOCKET_IFNAME value names (`=eth0` → eth0; an exclusion list `^lo` names none). */
export function socketIfnameEntries(value: string): string[] {
  if (value.startsWith("^")) return [];
  return value
    .replace(/^=/, "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
}

/**
 * The network a job ran on, from the interfaces its NCCL log names (the bootstrap/OOB interfaces, NCCL_SOCKET_IFNAME)
 * and the node model: the pod network when every name is one a pod has (eth0, net1…) and none is the node's
 * default-route interface (a pod's eth0 on a node routed via bond0); otherwise the host network, where the node's
 * names are judged by the host-network rule. Nothing named: the host network (nothing to tell them apart).
 */
export function networkModeOfLog(interfaces: readonly string[], inv: NodeInventory): NetworkMode {
  const names = [...new Set(interfaces)];
  if (names.length === 0) return { kind: "host" };
  const podNames = podInterfaceNames(undefined);
  const podLike = names.every((n) => impossibleOnPodNetwork(`=${n}`, podNames).length === 0);
  const hostRoute = inv.roles.defaultRouteInterface;
  if (!podLike || (hostRoute !== null && names.includes(hostRoute))) return { kind: "host" };
  return names.length === 1 ? { kind: "pod", podInterface: names[0]! } : { kind: "pod" };
}
