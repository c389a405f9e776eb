/**
 * Allocate answers, precomputed. When the node model changes the plugin builds an AllocationPlan once: the
 * DeviceSpecs of every selected HCA and the NCCL variables; an Allocate then only picks prepared objects and checks
 * that the char devices still exist, so it stays O(devices) with no sysfs walk and no derivation.
 */
import { naturalCompare } from "../core/natural.js";
import type { ContainerAllocateResponse, DeviceSpec } from "./api.js";
import type { Mode } from "./devices.js";

export const RDMA_CM = "/dev/infiniband/rdma_cm";

export type PlanHca = {
  name: string;
  /** Char device names under /dev/infiniband: `uverbs3`, and with --mad `umad3`, `issm3`. */
  charDevices: string[];
};

export type AllocationPlan = {
  mode: Mode;
  /** HCA name → its DeviceSpecs. */
  specsByHca: ReadonlyMap<string, readonly DeviceSpec[]>;
  /** rdma_cm, shared by all. */
  commonSpecs: readonly DeviceSpec[];
  /** The shared unit IDs (shared mode) — any of them gives every HCA. */
  sharedUnitIds: ReadonlySet<string>;
  /** NCCL variables for a set of HCAs (sorted names); memoised per set. */
  envFor: (hcas: readonly string[]) => Record<string, string>;
};

export function deviceSpec(name: string): DeviceSpec {
  const path = `/dev/infiniband/${name}`;
  return { container_path: path, host_path: path, permissions: "rw" };
}

/** Builds the plan. `deriveEnv` is called lazily, once per distinct HCA set. */
export function buildAllocationPlan(opts: {
  mode: Mode;
  hcas: readonly PlanHca[];
  sharedUnitIds: readonly string[];
  rdmaCm: boolean;
  deriveEnv: ((hcas: readonly string[]) => Record<string, string>) | null;
}): AllocationPlan {
  const specsByHca = new Map(opts.hcas.map((h) => [h.name, h.charDevices.map(deviceSpec)]));
  const cache = new Map<string, Record<string, string>>();
  const derive = opts.deriveEnv;
  return {
    mode: opts.mode,
    specsByHca,
    commonSpecs: opts.rdmaCm ? [deviceSpec("rdma_cm")] : [],
    sharedUnitIds: new Set(opts.sharedUnitIds),
    envFor(hcas) {
      if (!derive) return {};
      const key = hcas.join(",");
      let env = cache.get(key);
      if (!env) {
        env = derive(hcas);
        cache.set(key, env);
      }
      return env;
    },
  };
}

/** An Allocate that must fail: the kubelet gets NOT_FOUND with this message and does not start the pod. */
export class AllocateRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AllocateRefused";
  }
}

/** An Allocate no kubelet sends: the kubelet gets INVALID_ARGUMENT with this message, nothing is allocated. */
export class AllocateInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AllocateInvalid";
  }
}

/** At most this many IDs are named in a message (a hostile request may carry 100,000). */
const NAMED_IDS = 5;

/** `a, b, c` or `a, b, c, d, e and 99,995 more`, each ID cut to 64 characters and JSON-quoted. */
export function namedIds(ids: readonly string[]): string {
  const shown = ids.slice(0, NAMED_IDS).map((id) => JSON.stringify(id.slice(0, 64)));
  return ids.length > NAMED_IDS ? `${shown.join(", ")} and ${ids.length - NAMED_IDS} more` : shown.join(", ");
}

/**
 * Why an Allocate request cannot come from a kubelet, or null. The kubelet calls Allocate once per container that
 * requests the resource, with the IDs it chose: at least one, each once (kubelet devicemanager,
 * https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/cm/devicemanager/manager.go). An empty list
 * answered with rdma_cm alone (or, shared, every HCA) would hand RDMA to a container that asked for none.
 */
export function invalidAllocate(request: { container_requests?: readonly { devices_ids?: readonly string[] }[] }) {
  const containers = request.container_requests ?? [];
  if (containers.length === 0) return "the request names no container";
  for (const [i, c] of containers.entries()) {
    const ids = c.devices_ids ?? [];
    if (ids.length === 0) {
      return `container request ${i} asks for no device ID; the kubelet calls Allocate only for containers that request rdma units`;
    }
    const seen = new Set<string>();
    const twice = ids.filter((id) => seen.size === seen.add(id).size);
    if (twice.length > 0) return `container request ${i} names device ID(s) more than once: ${namedIds(twice)}`;
  }
  return null;
}

export type ContainerAnswer = {
  response: ContainerAllocateResponse;
  /** Requested IDs the plan does not know (an HCA that vanished, a stale kubelet checkpoint). */
  unknownIds: string[];
  /** Char devices that no longer exist on the host and were left out. */
  missingDevices: string[];
  /** Requested HCAs whose verbs device (`uverbsN`) no longer exists: the container would start without them. */
  lostHcas: string[];
};

/**
 * One container's answer: the DeviceSpecs of the HCAs behind the requested IDs plus rdma_cm, only those whose
 * host path exists (`exists`), and the NCCL variables for those HCAs. In shared mode the `withdrawn` HCAs (the node
 * agent's quarantine) are left out of both the devices and the NCCL variables.
 */
export function answerContainer(
  plan: AllocationPlan,
  ids: readonly string[],
  exists: (hostPath: string) => boolean,
  withdrawn: ReadonlySet<string> = new Set(),
): ContainerAnswer {
  const unknownIds: string[] = [];
  let hcas: string[];
  if (plan.mode === "shared") {
    for (const id of ids) if (!plan.sharedUnitIds.has(id)) unknownIds.push(id);
    hcas = [...plan.specsByHca.keys()].filter((h) => !withdrawn.has(h));
  } else {
    hcas = [];
    for (const id of ids) {
      if (plan.specsByHca.has(id)) hcas.push(id);
      else unknownIds.push(id);
    }
    hcas.sort(naturalCompare);
  }
  const devices: DeviceSpec[] = [];
  const missingDevices: string[] = [];
  const lostHcas: string[] = [];
  for (const hca of hcas) {
    for (const spec of plan.specsByHca.get(hca) ?? []) {
      if (exists(spec.host_path)) devices.push(spec);
      else {
        missingDevices.push(spec.host_path);
        if (spec.host_path.startsWith("/dev/infiniband/uverbs")) lostHcas.push(hca);
      }
    }
  }
  for (const spec of plan.commonSpecs) {
    if (exists(spec.host_path)) devices.push(spec);
    else missingDevices.push(spec.host_path);
  }
  return {
    response: { envs: plan.envFor(hcas), mounts: [], devices, annotations: {}, cdi_devices: [] },
    unknownIds,
    missingDevices,
    lostHcas,
  };
}

/**
 * Why an exclusive-mode Allocate must fail, or null when it may go ahead. A unit is one HCA: answering without it
 * (rdma_cm only) would start a pod that believes it holds an HCA it cannot use, so the kubelet must see an error
 * and not start the pod. Shared units give every HCA, so an unknown unit ID there still gets the node's HCAs.
 */
export function exclusiveRefusal(answer: ContainerAnswer, served: readonly string[]): string | null {
  const parts: string[] = [];
  if (answer.unknownIds.length > 0) {
    parts.push(
      `device ID(s) ${namedIds(answer.unknownIds)} are not served by this plugin now (serving: ${served.join(", ") || "none"})`,
    );
  }
  if (answer.lostHcas.length > 0) {
    parts.push(`the verbs device of ${answer.lostHcas.join(", ")} no longer exists under /dev/infiniband`);
  }
  return parts.length > 0 ? parts.join("; ") : null;
}

/**
 * The verbs devices (`/dev/infiniband/uverbsN`) of one HCA's DeviceSpecs that do not exist on the host. A port can
 * be ACTIVE while ib_uverbs is not loaded or /dev/infiniband is not mounted into the plugin: no pod could use the
 * HCA then, so it must not be advertised as healthy.
 */
export function missingVerbsDevices(specs: readonly DeviceSpec[], exists: (hostPath: string) => boolean): string[] {
  return specs.map((s) => s.host_path).filter((p) => p.startsWith("/dev/infiniband/uverbs") && !exists(p));
}
