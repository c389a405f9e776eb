/**
 * Collects one pod's facts through the HostReader: the node model (HCAs, GIDs, netdevs, limits, GPUDirect) plus
 * what only a pod can say — which uverbs devices it can really open, its environment, its image's NCCL.
 */
import { naturalSort } from "../core/natural.js";
import type { HostReader, ReadOutcome } from "../host/types.js";
import { readInventory } from "../inventory/index.js";
import type { Hca, NodeInventory } from "../inventory/types.js";
import { findNcclLibraries } from "./nccl-library.js";
import type { OpenResult, PodFacts, PodHca } from "./types.js";

/** `KEY=VALUE\0…` (`/proc/self/environ`) → an object; entries without `=` are skipped. */
export function parseEnviron(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of text.split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return env;
}

/** The NCCL_* variables, sorted by name. */
export function ncclVariables(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(env)
      .filter((k) => k.startsWith("NCCL_"))
      .sort()
      .map((k) => [k, env[k]!]),
  );
}

/**
 * The outcome of opening a device node: a real attempt where the reader can make one, else what a snapshot
 * recorded. A device listed in /dev/infiniband but never tried reads as `not-tried`, not as a failure.
 */
export function openOutcome(reader: HostReader, path: string, listed: boolean): OpenResult {
  const r: ReadOutcome<unknown> = reader.openDevice ? reader.openDevice(path) : reader.readText(path);
  if (r.ok) return "ok";
  if (r.error.code === "ENOENT" && listed && !reader.openDevice) return "not-tried";
  return r.error.code;
}

function subnetOf(inv: NodeInventory, netdev: string | null): string | null {
  if (!netdev) return null;
  return inv.netdevs.find((n) => n.name === netdev)?.ipv4Subnets[0] ?? null;
}

function podHca(reader: HostReader, inv: NodeInventory, h: Hca, present: ReadonlySet<string>): PodHca {
  const port = h.ports.find((p) => p.roceV2Ipv4Index !== null || p.roceV2Ipv6Index !== null) ?? h.ports[0];
  const index = port?.roceV2Ipv4Index ?? port?.roceV2Ipv6Index ?? null;
  const gid = index === null ? undefined : port?.gids.find((g) => g.index === index);
  const address = gid ? (gid.ipv4 ?? gid.gid) : null;
  const netdev = gid?.netdev ?? h.netdevs[0] ?? null;
  return {
    name: h.name,
    role: h.role,
    linkLayer: port?.linkLayer ?? "Unknown",
    uverbs: h.uverbs
      .filter((u) => present.has(u))
      .map((device) => ({ device, open: openOutcome(reader, `/dev/infiniband/${device}`, true) })),
    roceV2Ipv4Index: port?.roceV2Ipv4Index ?? null,
    roceV2Ipv6Index: port?.roceV2Ipv6Index ?? null,
    address,
    netdev,
    subnet: subnetOf(inv, netdev),
  };
}

/** Builds the facts from a node model and the pod-only reads. */
export function podFactsOf(reader: HostReader, inv: NodeInventory, podName?: string): PodFacts {
  const problems = inv.problems.map((p) => `${p.code}: ${p.message}`);
  const environ = reader.readText("/proc/self/environ");
  if (!environ.ok) problems.push(`/proc/self/environ: ${environ.error.code} (the NCCL environment is unknown)`);
  const env = environ.ok ? parseEnviron(environ.value) : {};
  const present = new Set(inv.devices.infiniband);
  const hcas = inv.hcas.map((h) => podHca(reader, inv, h, present));
  const dev = reader.list("/dev");
  const deviceNodes = naturalSort(dev.ok ? dev.value.filter((n) => /^nvidia\d+$/.test(n)) : [], (n) => n);
  const visible = env.NVIDIA_VISIBLE_DEVICES ?? null;
  const { libraries, netPlugins } = findNcclLibraries(reader, env.LD_LIBRARY_PATH);
  return {
    kind: "kube-rdma/preflight-facts",
    schemaVersion: 1,
    pod: podName ?? env.POD_NAME ?? inv.hostname,
    hostname: inv.hostname,
    source: inv.source,
    hcas,
    dataHcas: hcas.filter((h) => h.role === "data" && h.uverbs.length > 0).map((h) => h.name),
    defaultRouteInterface: inv.roles.defaultRouteInterface,
    netdevs: inv.netdevs.map((n) => ({
      name: n.name,
      operstate: n.operstate,
      mtu: n.mtu,
      ipv4Subnets: n.ipv4Subnets,
    })),
    memlock: { soft: inv.process.memlockSoft, hard: inv.process.memlockHard },
    ipcLock: inv.process.ipcLock,
    shmBytes: inv.shmBytes,
    gpus: { visibleDevices: visible, deviceNodes, count: gpuCount(visible, deviceNodes, inv.gpus.length) },
    gpuDirect: inv.gpuDirect.mechanism,
    nccl: { library: libraries[0] ?? null, libraries, netPlugins },
    env: ncclVariables(env),
    problems,
  };
}

/** GPUs the pod can use: the device nodes the runtime mounted, else NVIDIA_VISIBLE_DEVICES' list, else the node's. */
export function gpuCount(visible: string | null, deviceNodes: readonly string[], nodeGpus: number): number {
  if (deviceNodes.length > 0) return deviceNodes.length;
  if (visible === null || visible === "all") return nodeGpus;
  if (visible === "" || visible === "none" || visible === "void") return 0;
  return visible.split(",").filter((s) => s.trim() !== "").length;
}

/** Reads a pod's facts from a host (live `/`, `--root`, `--snapshot` or `--example`). */
export async function readPodFacts(
  reader: HostReader,
  opts: { podName?: string | undefined; commandTimeoutMs?: number } = {},
): Promise<PodFacts> {
  const inv = await readInventory(reader, opts.commandTimeoutMs ? { commandTimeoutMs: opts.commandTimeoutMs } : {});
  return podFactsOf(reader, inv, opts.podName);
}
