/** The plan of a `fleet bench` cluster run: resources, image, leaves or units, planner and budget. */
import { randomBytes } from "node:crypto";
import type { V1Node } from "@kubernetes/client-node";
import { type IbShape, wiringMismatch } from "../../fabric/discover/ib-routes.js";
import { railFabricFromView } from "../../fabric/discover/rail-fabric.js";
import { leavesFromUnits } from "../../fabric/discover/topology.js";
import {
  type BenchJob,
  createPlanner,
  DEFAULT_PAIR_SWEEP,
  DEFAULT_RAIL_SWEEP,
  discoverTopology,
  type FabricView,
  type HyperNodeObject,
  renderBudget,
} from "../../fabric/index.js";
import { estimateRailBudget } from "../../fabric/plan/budget.js";
import { createRailPlanner, type RailPlanner } from "../../fabric/plan/planner.js";
import type { Trace } from "../../fabric/plan/steer.js";
import type { TopologyFile } from "../../fabric/topology-file.js";
import { benchJobManifest, REQUESTS_PER_TICK } from "../../kube/bench/index.js";
import { benchResources } from "../../kube/bench/node-resources.js";
import { WATCH_START_REQUESTS } from "../../kube/bench/watch.js";
import { chooseNcclTestsImage } from "../../kube/job/images.js";
import { bool, type CommandContext, num, str, UsageError } from "../spec.js";
import { type benchSettings, budgetFor } from "./fleet-bench.js";
import { DEFAULT_RAIL_MAX_ROUNDS } from "./fleet-bench-fabric.js";

/** Where nothing traces a flow's path every hop is unknown: the spine is listed, never judged. */
const unknownPath = () => ({ uplink: null, spinePort: null });

/**
 * What says which leaf uplink and spine port a flow crosses (on InfiniBand the subnet manager's routes, on RoCE the
 * switches' hash calculator), and in words where it comes from. With one the cluster runs every round the rail-aware
 * planner has (spine sweep, hops crossed alone, group tests); without, only the node and NIC rounds.
 */
export type PathSource = {
  trace: Trace;
  name: string;
  /** The fabric the paths were traced over, to hold the topology to (InfiniBand: the ibnetdiscover wiring). */
  shape?: IbShape;
  wiringFile?: string;
};

/** The rail-aware planner without its spine tests (they steer flows onto hops that nothing here can trace). */
function withoutSpineTests(p: RailPlanner): RailPlanner {
  return { state: p.state, next: (round, results) => p.next(round, results).filter((j) => !j.routes) };
}

/**
 * The plan of a cluster run from the selected nodes: what each job asks for (from the nodes' allocatable
 * resources), the image (checked against their driver), the leaves or units discovered, the planner and the budget
 * with what was assumed. Throws a UsageError when the nodes cannot run the jobs.
 */
export function clusterPlan(
  nodes: readonly V1Node[],
  hyperNodes: readonly HyperNodeObject[],
  o: {
    values: CommandContext["values"];
    s: ReturnType<typeof benchSettings>;
    topologyFile: TopologyFile | null;
    oversubscription: number | undefined;
    namespace: string;
    pollMs: number;
    paths?: PathSource | undefined;
  },
) {
  const { values, s, topologyFile, oversubscription, namespace, pollMs, paths } = o;
  const railAware = topologyFile?.layout === "rail-optimised";
  // What the jobs ask for, from the nodes (a --dry-run of named nodes reads none: the flags or defaults then).
  const known = nodes.some((n) => n.status?.allocatable);
  const res = known
    ? benchResources(nodes, s.hcas.length, {
        gpus: num(values, "gpus"),
        rdmaResource: str(values, "rdma-resource"),
        rdmaCount: num(values, "rdma-count"),
      })
    : {
        gpuResource: "nvidia.com/gpu",
        gpusPerNode: s.gpusPerNode,
        rdmaResource: str(values, "rdma-resource") ?? "rdma/hca",
        rdmaCount: num(values, "rdma-count") ?? 1,
        driver: null,
        notes: ["nodes named for --dry-run are not read: GPU and RDMA resources from the flags or defaults"],
      };
  if (typeof res === "string")
    throw new UsageError(res, "See the nodes' allocatable resources with kube-rdma cluster.");
  if (s.hcas.length > res.gpusPerNode)
    throw new UsageError(
      `a rail test runs rail i on GPU i: the ${s.hcas.length} HCAs (${s.hcas.join(", ")}) need ${s.hcas.length} GPUs per node, and the jobs have ${res.gpusPerNode}.`,
      "Give --hcas with the NIC nearest each GPU, in GPU order (nvidia-smi topo -m), or --node-model for a known node.",
    );
  const choice = chooseNcclTestsImage({
    driver: res.driver,
    image: str(values, "image"),
    skipDriverCheck: bool(values, "skip-driver-check"),
  });
  if (!choice.ok) throw new UsageError(choice.message, choice.hint);
  const image = choice.image;

  const facts = nodes.map((n) => ({ name: n.metadata?.name ?? "", labels: n.metadata?.labels ?? {} }));
  const leafLabel = str(values, "leaf-label");
  const fromFile = topologyFile?.unitNodes ? leavesFromUnits(topologyFile.unitNodes, facts) : null;
  if (typeof fromFile === "string") throw new UsageError(fromFile);
  const topology = fromFile ?? discoverTopology(facts, { hyperNodes, ...(leafLabel ? { leafLabel } : {}) });
  const baseView: FabricView = {
    nodes: facts.map((f) => f.name),
    leafOf: topology.leafOf,
    hcas: s.hcas,
    lineRateGBps: topologyFile?.lineRateGBps ?? s.lineRateGBps,
  };
  const cluster = railAware
    ? railFabricFromView(baseView, {
        oversubscription: oversubscription!,
        spines: num(values, "spines") ?? topologyFile?.spines,
      })
    : null;
  if (typeof cluster === "string") throw new UsageError(cluster);
  const mismatch = cluster && paths?.shape ? wiringMismatch(paths.shape, cluster.fabric) : null;
  if (mismatch)
    throw new UsageError(
      `--ib-wiring ${paths?.wiringFile ?? ""} and the topology disagree: ${mismatch} Traced hops would name other cables than the ones the flows crossed.`,
      `Write the topology from the same wiring: kube-rdma fleet topology --from-ibnetdiscover ${paths?.wiringFile ?? "wiring.txt"} -o yaml > topology.yaml, then --topology topology.yaml.`,
    );
  const view = cluster?.view ?? baseView;
  const maxRounds = railAware && num(values, "max-rounds") === undefined ? DEFAULT_RAIL_MAX_ROUNDS : s.maxRounds;
  const budget = cluster
    ? estimateRailBudget(view, cluster.fabric, {
        pairSweep: DEFAULT_PAIR_SWEEP,
        railSweep: DEFAULT_RAIL_SWEEP,
        maxRounds,
        spineTests: paths !== undefined,
      })
    : budgetFor(view, { ...s, gpusPerNode: res.gpusPerNode });
  const runId = randomBytes(3).toString("hex");
  const manifestOptions = {
    runId,
    namespace,
    image,
    gpusPerNode: res.gpusPerNode,
    hcas: s.hcas,
    gpuResource: res.gpuResource,
    rdmaResource: res.rdmaResource,
    rdmaCount: res.rdmaCount,
    schedulerName: "volcano",
    pairSweep: DEFAULT_PAIR_SWEEP,
    railSweep: DEFAULT_RAIL_SWEEP,
  };
  const manifest = (job: BenchJob) => benchJobManifest(job, manifestOptions);
  const planName = cluster ? "adaptive, rail-optimised" : s.plan;
  const railPlanner = !cluster
    ? null
    : paths
      ? createRailPlanner(view, cluster.fabric, paths.trace, { tolerance: s.tolerance })
      : withoutSpineTests(createRailPlanner(view, cluster.fabric, unknownPath, { tolerance: s.tolerance }));
  const flatPlanner = cluster ? null : createPlanner(s.plan, view);
  const notes = [
    `leaves from ${topology.source}${cluster ? `: ${cluster.fabric.units} unit(s) of one leaf per rail` : ""}`,
    `jobs ask for ${res.gpuResource}: ${res.gpusPerNode} and ${res.rdmaResource}: ${res.rdmaCount} per worker; image ${image}`,
    ...res.notes,
    ...choice.notes,
    `API requests: per round ${WATCH_START_REQUESTS} (a list and a watch of the run's MPIJobs and of the launcher pods) whatever the number of jobs, plus at most 7 per job (create, log, delete the job, list and delete its pods); where the watch is refused, ${REQUESTS_PER_TICK} lists per ${pollMs} ms poll (${((REQUESTS_PER_TICK * 1000) / pollMs).toFixed(1)}/s) instead`,
    ...(cluster
      ? [
          paths
            ? `flow paths: traced by ${paths.name}; the spine sweep, hops crossed alone and group tests run`
            : "flow paths: nothing traces them on this cluster, so the spine tests are not run and every leaf uplink and spine port is listed as not cleared",
        ]
      : []),
  ];
  const budgetText = `${renderBudget(budget, view.nodes.length, planName)}${notes.map((n) => `  ${n}\n`).join("")}`;
  return {
    view,
    topology,
    image,
    manifest,
    planName,
    railPlanner,
    flatPlanner,
    cluster,
    budget,
    budgetText,
    maxRounds,
    runId,
  };
}
