import { POD_CATALOGUE } from "../../checks/catalogue-pod.js";
import { type Finding, makeFinding } from "../../core/finding.js";
import { ncclInteger } from "../../nccl/env-integer.js";
import { impossibleOnPodNetwork, podInterfaceNames } from "../../nccl/network-mode.js";
import { MANAGEMENT_HCA_ANNOTATION } from "../annotations.js";
import { KUEUE_QUEUE_LABEL } from "../job/scheduler.js";
import { isGpuResource, isNetworkDeviceResource, isRdmaDevicePluginResource, parseQuantity } from "../resources.js";
import { LINT_FINDINGS as L } from "./catalogue.js";
import { commandWords, envDroppers } from "./env-droppers.js";
import { imageProgramRules } from "./image-programs.js";
import { mpiRankEnvRules } from "./mpi-rules.js";
import { preflightRules } from "./preflight.js";
import { isObj, type Json, type Path, type PodTemplateRef, pathString, type WorkloadObject } from "./templates.js";
import { valueRules } from "./value-rules.js";

/** Where a finding points: the object, the container (if any) and the field path. */
export type Location = { container: string | null; field: Path };
export type LocatedFinding = { finding: Finding; location: Location };

export type LintOptions = {
  /**
   * The node's management (default-route) HCA, when the user knows it (`--management-hca`); null: unknown, so only
   * a pod template's own `kube-rdma/management-hca` annotation names one. No mlx5_N is the management NIC by
   * nature: on a DGX H100 mlx5_0 is a compute rail.
   */
  managementHca: string | null;
  /** Smallest acceptable /dev/shm, bytes. */
  shmMinBytes: number;
};

export const DEFAULT_LINT_OPTIONS: LintOptions = { managementHca: null, shmMinBytes: 1024 ** 3 };

const GANG_SCHEDULERS = new Set(["volcano", "kube-batch", "scheduler-plugins-scheduler", "yunikorn", "kai-scheduler"]);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Json => (isObj(v) ? v : {});

type Container = { index: number; c: Json; path: Path; name: string };

function containersOf(t: PodTemplateRef): Container[] {
  return arr(t.spec.containers).map((c, index) => ({
    index,
    c: obj(c),
    path: [...t.specPath, "containers", index],
    name: String(obj(c).name ?? `#${index}`),
  }));
}

function limitsOf(c: Json): Record<string, unknown> {
  const r = obj(c.resources);
  return { ...obj(r.requests), ...obj(r.limits) };
}

function gpuCount(c: Json): number {
  let n = 0;
  for (const [k, v] of Object.entries(limitsOf(c))) if (isGpuResource(k)) n += parseQuantity(v as string) ?? 0;
  return n;
}

function envOf(c: Json): Map<string, { value: string; index: number }> {
  const m = new Map<string, { value: string; index: number }>();
  arr(c.env).forEach((e, index) => {
    const x = obj(e);
    if (typeof x.name === "string" && x.value !== undefined) m.set(x.name, { value: String(x.value), index });
  });
  return m;
}

/** A finding at an object/container/field, with the words of `where`. */
function at(w: WorkloadObject, container: Container | null, field: Path) {
  const where = `${w.kind}/${w.name}${container ? ` container ${container.name}` : ""}`;
  return { where, location: { container: container?.name ?? null, field } };
}

/**
 * The pod's management HCA: the `kube-rdma/management-hca` annotation kube-rdma job writes for the node its NCCL
 * variables were derived from (an HCA name, or "none" on a node whose management NIC has no RDMA), else the option.
 */
type Management = { hca: string; source: string };

function managementHcaOf(t: PodTemplateRef, opts: LintOptions): Management | null {
  const ann = obj(t.meta.annotations)[MANAGEMENT_HCA_ANNOTATION];
  if (typeof ann === "string") {
    return ann === "none" ? null : { hca: ann, source: `the pod's ${MANAGEMENT_HCA_ANNOTATION} annotation` };
  }
  return opts.managementHca === null ? null : { hca: opts.managementHca, source: "--management-hca" };
}

function envRules(w: WorkloadObject, ct: Container, management: Management | null): LocatedFinding[] {
  const mgmt = management?.hca ?? null;
  const out: LocatedFinding[] = [];
  const env = envOf(ct.c);
  const envPath = (name: string) => [...ct.path, "env", env.get(name)!.index, "value"];
  const found = (name: string) => env.get(name)?.value;
  // NCCL reads the variable as an integer (strtoll, base 0): `01`, `2`, `0x1`, `1 ` all disable IB (env-integer.ts).
  const ibDisable = found("NCCL_IB_DISABLE");
  const ibDisabled = ibDisable === undefined ? null : ncclInteger(ibDisable);
  if (ibDisable !== undefined && ibDisabled !== null && ibDisabled !== 0n) {
    const { where, location } = at(w, ct, envPath("NCCL_IB_DISABLE"));
    out.push({
      finding: makeFinding(L, "NCCL_IB_DISABLED", where, { where, value: ibDisable, reads: String(ibDisabled) }),
      location,
    });
  }
  if (found("NCCL_NET")?.toLowerCase() === "socket") {
    const { where, location } = at(w, ct, envPath("NCCL_NET"));
    out.push({ finding: makeFinding(L, "NCCL_NET_SOCKET", where, { where }), location });
  }
  const hca = found("NCCL_IB_HCA");
  if (hca !== undefined && hca !== "") {
    const { where, location } = at(w, ct, envPath("NCCL_IB_HCA"));
    const exclude = hca.startsWith("^");
    const exact = hca.replace(/^\^/, "").startsWith("=");
    const entries = hca
      .replace(/^\^?=?/, "")
      .split(",")
      .map((e) => e.split(":")[0]!.trim())
      .filter(Boolean);
    const prefixes = exact ? [] : entries.filter((e) => /\d$/.test(e));
    if (prefixes.length && !exclude) {
      out.push({
        finding: makeFinding(L, "NCCL_IB_HCA_PREFIX", where, { where, value: hca, entries: prefixes }),
        location,
      });
    }
    const selectsMgmt = mgmt !== null && entries.some((e) => (exact ? e === mgmt : mgmt.startsWith(e)));
    if (!exclude && selectsMgmt) {
      out.push({
        finding: makeFinding(L, "NCCL_IB_HCA_MANAGEMENT", where, {
          where,
          value: hca,
          hca: mgmt!,
          source: management!.source,
        }),
        location,
      });
    }
  }
  return out;
}

/**
 * A pod on the pod network has lo, the CNI's eth0 and Multus' interfaces (net1… or the annotation's names), never
 * the node's bond0/ens1f0/eth1: an NCCL_SOCKET_IFNAME that none of these can match cannot work. hostNetwork pods
 * have the node's interfaces, which lint cannot know: not checked.
 */
function socketIfnameRule(w: WorkloadObject, t: PodTemplateRef, ct: Container): LocatedFinding[] {
  if (t.spec.hostNetwork === true) return [];
  const env = envOf(ct.c);
  const v = env.get("NCCL_SOCKET_IFNAME");
  if (!v) return [];
  const networks = obj(t.meta.annotations)["k8s.v1.cni.cncf.io/networks"];
  const podNames = podInterfaceNames(typeof networks === "string" ? networks : undefined);
  const entries = impossibleOnPodNetwork(v.value, podNames);
  if (entries.length === 0) return [];
  const { where, location } = at(w, ct, [...ct.path, "env", v.index, "value"]);
  return [
    {
      finding: makeFinding(L, "SOCKET_IFNAME_NOT_IN_POD", where, { where, value: v.value, entries, podNames }),
      location,
    },
  ];
}

function shmRules(w: WorkloadObject, t: PodTemplateRef, ct: Container, opts: LintOptions): LocatedFinding[] {
  const mounts = arr(ct.c.volumeMounts).map(obj);
  const mi = mounts.findIndex((m) => m.mountPath === "/dev/shm");
  if (mi < 0) {
    const { where, location } = at(w, ct, [...ct.path, "volumeMounts"]);
    return [{ finding: makeFinding(L, "SHM_MISSING", where, { where }), location }];
  }
  const volName = mounts[mi]!.name;
  const vi = arr(t.spec.volumes).findIndex((v) => obj(v).name === volName);
  const vol = obj(arr(t.spec.volumes)[vi]);
  if (isObj(vol.hostPath)) return [];
  const ed = vol.emptyDir;
  if (!isObj(ed) || ed.medium !== "Memory") {
    const { where, location } = at(w, ct, vi >= 0 ? [...t.specPath, "volumes", vi] : [...ct.path, "volumeMounts", mi]);
    return [{ finding: makeFinding(L, "SHM_NOT_MEMORY", where, { where, volume: String(volName) }), location }];
  }
  const size = ed.sizeLimit === undefined ? null : parseQuantity(ed.sizeLimit as string);
  if (size !== null && size < opts.shmMinBytes) {
    const { where, location } = at(w, ct, [...t.specPath, "volumes", vi, "emptyDir", "sizeLimit"]);
    return [
      {
        finding: makeFinding(POD_CATALOGUE, "SHM_SMALL", where, { where, bytes: size, minBytes: opts.shmMinBytes }),
        location,
      },
    ];
  }
  return [];
}

/**
 * The Network Operator's other documented GPUDirect RDMA paths, beside an RDMA device plugin resource: an SR-IOV VF
 * or host-device PF resource together with its Multus network (pod annotation k8s.v1.cni.cncf.io/networks), or a
 * Dynamic Resource Allocation claim (resources.claims). Returns how the NIC arrives, or null.
 */
function rdmaByNetworkOrClaim(t: PodTemplateRef, ct: Container, limits: Record<string, unknown>): string | null {
  const claims = arr(obj(ct.c.resources).claims)
    .map((c) => obj(c).name)
    .filter((n): n is string => typeof n === "string");
  if (claims.length) return `the resource claim(s) ${claims.join(", ")}`;
  const networks = obj(t.meta.annotations)["k8s.v1.cni.cncf.io/networks"];
  const devices = Object.keys(limits).filter(isNetworkDeviceResource);
  if (devices.length && typeof networks === "string" && networks.trim() !== "") {
    return `${devices.join(", ")} with the network(s) ${networks.trim()}`;
  }
  return null;
}

function containerRules(
  w: WorkloadObject,
  t: PodTemplateRef,
  ct: Container,
  gpuPods: number,
  opts: LintOptions,
): LocatedFinding[] {
  const out = envRules(w, ct, managementHcaOf(t, opts));
  const gpus = gpuCount(ct.c);
  const limits = limitsOf(ct.c);
  // `rdma/hca: "0"` asks for no device: the kubelet hands the container nothing (quantities parsed as the API does).
  // An SR-IOV / host-device resource counts only with its network (rdmaByNetworkOrClaim), never by its name alone.
  const rdma = Object.entries(limits).some(
    ([k, v]) => isRdmaDevicePluginResource(k) && (parseQuantity(v as string) ?? 0) > 0,
  );
  const viaNetworkOrClaim = rdmaByNetworkOrClaim(t, ct, limits);
  const env = envOf(ct.c);
  const sc = obj(ct.c.securityContext);
  const privileged = sc.privileged === true;
  const wantsRdma = rdma || (gpus > 0 && (gpuPods > 1 || [...env.keys()].some((k) => k.startsWith("NCCL_IB_"))));
  if (!wantsRdma) return out;
  const devInfiniband = arr(ct.c.volumeMounts).some((m) => obj(m).mountPath === "/dev/infiniband");
  if (!rdma && viaNetworkOrClaim !== null) {
    const { where, location } = at(w, ct, [...ct.path, "resources"]);
    out.push({
      finding: makeFinding(L, "RDMA_DEVICE_NOT_CONFIRMED", where, { where, via: viaNetworkOrClaim }),
      location,
    });
  } else if (!rdma && !privileged && !devInfiniband) {
    const { where, location } = at(w, ct, [...ct.path, "resources", "limits"]);
    const gpuText = Object.entries(limits)
      .filter(([k]) => isGpuResource(k))
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join(", ");
    out.push({ finding: makeFinding(L, "CONTAINER_NO_RDMA_RESOURCE", where, { where, gpus: gpuText }), location });
  }
  const caps = arr(obj(sc.capabilities).add).map(String);
  if (!privileged && !caps.includes("IPC_LOCK") && !caps.includes("CAP_IPC_LOCK")) {
    const { where, location } = at(w, ct, [...ct.path, "securityContext", "capabilities", "add"]);
    out.push({ finding: makeFinding(POD_CATALOGUE, "NO_IPC_LOCK", where, { where }), location });
  }
  if (gpus > 0) out.push(...shmRules(w, t, ct, opts));
  for (const d of envDroppers(commandWords(arr(ct.c.command).map(String), arr(ct.c.args).map(String)))) {
    const field = arr(ct.c.command).length > 0 ? "command" : "args";
    const { where, location } = at(w, ct, [...ct.path, field]);
    out.push({
      finding: makeFinding(L, "ENV_DROPPED_BY_LAUNCHER", where, { where, program: d.program, why: d.why }),
      location,
    });
  }
  return out;
}

function sidecarDisabled(t: PodTemplateRef): boolean {
  const ann = obj(t.meta.annotations);
  const labels = obj(t.meta.labels);
  return (
    ann["sidecar.istio.io/inject"] === "false" ||
    labels["sidecar.istio.io/inject"] === "false" ||
    ann["linkerd.io/inject"] === "disabled"
  );
}

/** Every rule over one workload object. */
/** Templates that are missing or hold no container: a check that cannot run there must say so, not pass. */
function unlintableTemplates(w: WorkloadObject): LocatedFinding[] {
  const out: LocatedFinding[] = [];
  for (const m of w.missingTemplates) {
    const { where, location } = at(w, null, m.path);
    const found = m.path.at(-1) === "template" ? `no pod template for ${m.role}` : `no ${m.role}`;
    out.push({
      finding: makeFinding(L, "NO_POD_TEMPLATE", where, { where, field: pathString(m.path), found }),
      location,
    });
  }
  for (const b of w.badCounts) {
    const { where, location } = at(w, null, b.path);
    const field = pathString(b.path);
    const value = JSON.stringify(b.value) ?? String(b.value);
    out.push({
      finding: makeFinding(L, "BAD_REPLICAS", where, { where, field, value, counted: b.counted }),
      location,
    });
  }
  for (const t of w.templates) {
    if (containersOf(t).length > 0) continue;
    const field = [...t.specPath, "containers"];
    const { where, location } = at(w, null, field);
    out.push({
      finding: makeFinding(L, "NO_POD_TEMPLATE", where, {
        where,
        field: pathString(field),
        found: `a pod template without containers (${t.role})`,
      }),
      location,
    });
  }
  return out;
}

export function lintWorkload(w: WorkloadObject, opts: LintOptions = DEFAULT_LINT_OPTIONS): LocatedFinding[] {
  const out: LocatedFinding[] = [...unlintableTemplates(w)];
  const gpuTemplates = w.templates.filter((t) => containersOf(t).some((c) => gpuCount(c.c) > 0));
  const gpuPods = gpuTemplates.reduce((n, t) => n + t.replicas, 0);
  const pods = w.templates.reduce((n, t) => n + t.replicas, 0);
  for (const t of w.templates) {
    for (const ct of containersOf(t))
      out.push(...containerRules(w, t, ct, gpuPods, opts), ...socketIfnameRule(w, t, ct));
    if (t.spec.hostNetwork === true && t.spec.dnsPolicy !== "ClusterFirstWithHostNet") {
      const { where, location } = at(w, null, [
        ...t.specPath,
        t.spec.dnsPolicy === undefined ? "hostNetwork" : "dnsPolicy",
      ]);
      out.push({
        finding: makeFinding(L, "HOSTNETWORK_DNS", where, {
          where,
          dnsPolicy: String(t.spec.dnsPolicy ?? "ClusterFirst (default)"),
        }),
        location,
      });
    }
  }
  if (gpuPods > 1) {
    for (const t of gpuTemplates) {
      if (!sidecarDisabled(t) && t.metaPath) {
        const { where, location } = at(w, null, [...t.metaPath, "annotations"]);
        out.push({
          finding: makeFinding(L, "SIDECAR_NOT_DISABLED", `${where} (${t.role})`, { where: `${where} (${t.role})` }),
          location,
        });
      }
    }
    const counts = gpuTemplates.map((t) => `${t.role}=${Math.max(...containersOf(t).map((c) => gpuCount(c.c)))}`);
    if (new Set(counts.map((c) => c.split("=")[1])).size > 1) {
      const { where, location } = at(w, null, gpuTemplates[0]!.specPath);
      out.push({ finding: makeFinding(L, "GPU_COUNT_DIFFERS", where, { where, counts: counts.join(", ") }), location });
    }
  }
  out.push(...valueRules(w));
  out.push(...mpiRankEnvRules(w));
  out.push(...imageProgramRules(w));
  out.push(...preflightRules(w, gpuPods));
  // Kueue admits a labelled job as a whole (all pods or none) and lets the default scheduler place them.
  if (pods > 1 && gpuPods > 0 && w.labels[KUEUE_QUEUE_LABEL] === undefined) {
    const schedulers = w.objectScheduler
      ? [{ s: w.objectScheduler, path: ["spec", "schedulerName"] as Path }]
      : w.templates.map((t) => ({
          s: typeof t.spec.schedulerName === "string" ? t.spec.schedulerName : "default-scheduler",
          path: [...t.specPath, "schedulerName"],
        }));
    const bad = schedulers.find((x) => !GANG_SCHEDULERS.has(x.s));
    if (bad) {
      const { where, location } = at(w, null, bad.path);
      out.push({ finding: makeFinding(L, "NOT_GANG_SCHEDULED", where, { where, pods, scheduler: bad.s }), location });
    }
  }
  return out;
}

export { pathString };
