import { randomBytes } from "node:crypto";
import { pollIntervalMs } from "../../cli/poll-interval.js";
import type { Io, OptionValues } from "../../cli/spec.js";
import { num, str, UsageError } from "../../cli/spec.js";
import { openReader, SnapshotHostReader } from "../../host/index.js";
import type { HostReader } from "../../host/types.js";
import { readInventory } from "../../inventory/index.js";
import type { DriverInfo } from "../../inventory/types.js";
import { deriveNcclEnv, type NetworkMode } from "../../nccl/index.js";
import { makeClients } from "../api/client.js";
import { loadKubeConfig } from "../api/config.js";
import { kubeOptionsFrom } from "../api/options.js";
import { collectFleet, FLEET_ROLE, snapshotFromLog } from "../fleet/run.js";
import { kubeRdmaImage } from "../image.js";
import { isRdmaResource } from "../resources.js";

export type DerivedEnv = {
  env: Record<string, string>;
  /** The RDMA resource the node advertises (--env-from-node reads its Node): the job's default --rdma-resource. */
  rdmaResource?: string | undefined;
  source: string;
  notes: string[];
  driver: DriverInfo;
  /** The node's GPU names (forward compatibility of training images is for data-center GPUs). */
  gpuNames: string[];
  /** The node's management HCA (null: its management NIC has no RDMA), for lint's NCCL_IB_HCA check. */
  managementHca: string | null;
  /** The derivation's error findings (`CODE: message`): the job would inherit them (no data HCA: TCP sockets). */
  errors: string[];
};

/**
 * The RDMA resource a Node advertises (allocatable above zero; `rdma/hca` first when there are several), or
 * undefined when it advertises none or cannot be read.
 */
async function advertisedRdmaResource(clients: ReturnType<typeof makeClients>, node: string) {
  try {
    const n = await clients.core.readNode({ name: node });
    const names = Object.entries(n.status?.allocatable ?? {})
      .filter(([k, v]) => isRdmaResource(k) && v !== "0")
      .map(([k]) => k)
      .sort();
    return names.includes("rdma/hca") ? "rdma/hca" : names[0];
  } catch {
    return undefined;
  }
}

/** Reads one cluster node through a collector pod (the `fleet verify` machinery, one node). */
async function readerForNode(
  node: string,
  values: OptionValues,
  io: Io,
): Promise<{ reader: HostReader; rdmaResource: string | undefined }> {
  const clients = makeClients(loadKubeConfig(kubeOptionsFrom(values, io.env)), FLEET_ROLE);
  const rdmaResource = await advertisedRdmaResource(clients, node);
  const run = await collectFleet(clients, {
    nodes: [node],
    namespace: str(values, "collector-namespace") ?? "kube-rdma",
    image: str(values, "collector-image") ?? kubeRdmaImage(io.env),
    runId: randomBytes(3).toString("hex"),
    timeoutMs: (num(values, "collector-timeout") ?? 120) * 1000,
    pollMs: pollIntervalMs(values),
    concurrency: 1,
    serviceAccountName: "kube-rdma-collector",
    handle: snapshotFromLog,
  });
  const outcome = run.outcomes[0];
  if (!outcome?.ok) {
    throw new UsageError(
      `could not read node ${node}: ${outcome?.reason ?? "no result"}.`,
      "Check with kube-rdma fleet verify --node NODE, or derive from a snapshot (--snapshot FILE) or an example.",
    );
  }
  return { reader: new SnapshotHostReader(outcome.result, `node ${node} (collector pod)`), rdmaResource };
}

/**
 * NCCL variables for the job from --example / --snapshot / --env-from-node (the same derivation as `nccl-env`);
 * null when none is given. The reasons become comments in the generated YAML. `network` is the generated pods'
 * network: NCCL_SOCKET_IFNAME names the node's interface only for hostNetwork pods.
 */
export async function deriveJobEnv(values: OptionValues, io: Io, network: NetworkMode): Promise<DerivedEnv | null> {
  const given = ["example", "snapshot", "env-from-node"].filter((n) => str(values, n) !== undefined);
  if (given.length === 0) return null;
  if (given.length > 1) throw new UsageError(`give one node source, not ${given.map((g) => `--${g}`).join(" and ")}.`);
  const node = str(values, "env-from-node");
  const example = str(values, "example");
  const fromNode = node ? await readerForNode(node, values, io) : null;
  const reader =
    fromNode?.reader ??
    (await openReader(example !== undefined ? { example } : { snapshot: str(values, "snapshot")! }));
  const inventory = await readInventory(reader);
  const derived = deriveNcclEnv(inventory, { network });
  const notes = Object.entries(derived.reasons).map(([k, why]) =>
    k in derived.env ? `${k}=${derived.env[k]}: ${why}` : `${k} ${why}`,
  );
  for (const f of derived.findings.filter((x) => x.severity !== "info"))
    notes.push(`${f.severity} ${f.code}: ${f.message}`);
  return {
    env: derived.env,
    rdmaResource: fromNode?.rdmaResource,
    source: reader.description,
    notes,
    driver: inventory.driver,
    gpuNames: inventory.gpus.map((g) => g.name ?? ""),
    managementHca: inventory.roles.managementHca,
    errors: derived.findings.filter((f) => f.severity === "error").map((f) => `${f.code}: ${f.message}`),
  };
}
